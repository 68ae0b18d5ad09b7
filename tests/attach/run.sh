#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# tdtrace -p: attach to running programs on the emulated GPU and detach
# (tests/attach/target.c), and the refusals. Every step is bounded by a
# timeout. Prints "attach: N passed, N failed, N skipped".
set -u
BUILD=${BUILD:-build}
CC=${CC:-cc}
top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top" || exit 1
T=$top/$BUILD/bin/tdtrace
EMU=$top/$BUILD/lib/tdtrace/emu
work=$(mktemp -d)
chmod 755 "$work"
pids=() dogs=()
cleanup() {
    for p in "${pids[@]}"; do kill -9 "$p" 2>/dev/null; done
    for p in "${dogs[@]}"; do kill "$p" 2>/dev/null; done
    rm -rf "$work"
}
trap cleanup EXIT
ulimit -c 0
. tests/nvcc-env.sh   # GLIBC_TUNABLES for a TSan build
pass=0 fail=0 skip=0

report() { # name ok|skip|fail [detail-file]
    case $2 in
    ok) pass=$((pass + 1)); echo "PASS: $1" ;;
    skip) skip=$((skip + 1)); echo "SKIP: $1" ;;
    *) fail=$((fail + 1)); echo "FAIL: $1"; [ -n "${3:-}" ] && head -40 "$3" ;;
    esac
}
check() { # name detail-file command...
    local name=$1 detail=$2; shift 2
    if "$@" >> "$detail" 2>&1; then report "$name" ok; else report "$name" fail "$detail"; fi
}
tt() { timeout -k 5 "${TT:-60}" "$T" "$@"; }
# tdtrace in the background, as itself (signals reach it), killed if it outlives 60 s
bg() { exec "$T" "$@"; }
seen() { local n; n=$(grep -c '^cuMemFree_v2' "$1" 2>/dev/null); [ "${n:-0}" -gt 10 ]; }
watchdog() { # kill tdtrace $1 if it runs past 60 s (its own output: none, so no pipe is held)
    ( exec > /dev/null 2>&1; sleep 60 & s=$!; trap 'kill $s; exit 0' TERM; wait $s; kill -9 "$1" ) &
    dogs+=("$!")
}

$CC ${EXTRA_CFLAGS:-} -std=c11 -D_GNU_SOURCE -O1 -g -Wall -Werror -pthread -I include -I "$BUILD/gen" \
    -o "$work/target" tests/attach/target.c -L"$EMU" -l:libcuda.so.1 -ldl || { echo "attach: cannot build the target"; exit 1; }
printf '#include <unistd.h>\nint main(void) { sleep(30); return 0; }\n' > "$work/sleep.c"

# start the target; $tpid, and its files under $work/$1.*
start() { # name [target args...]
    local n=$1; shift
    rm -f "$work/$n.ready" "$work/$n.stop"
    LD_LIBRARY_PATH=$EMU "$work/target" "$work/$n.ready" "$work/$n.stop" "$@" > "$work/$n.out" 2>&1 &
    tpid=$!
    pids+=("$tpid")
    for _ in $(seq 200); do [ -s "$work/$n.ready" ] && return 0; sleep 0.05; done
    return 1
}
# stop the target, its exit status and result line
finish() { # name pid
    touch "$work/$1.stop"
    wait "$2"
    echo "status $?: $(cat "$work/$1.out")" > "$work/$1.result"
}
# the bytes of the driver's code and the target's GOT, as a hash
code_hash() { # pid [code: the driver's code only]
    python3 - "$1" "$EMU/libcuda.so.1" "$work/target" "${2:-}" <<'EOF'
import hashlib, os, re, subprocess, sys
pid, emu, exe = sys.argv[1], os.path.realpath(sys.argv[2]), os.path.realpath(sys.argv[3])
code_only = sys.argv[4] == "code"
h = hashlib.sha256()
maps = open(f"/proc/{pid}/maps").read().splitlines()
mem = open(f"/proc/{pid}/mem", "rb")
base = None
for l in maps:
    f = l.split()
    lo, hi = (int(x, 16) for x in f[0].split("-"))
    path = f[5] if len(f) > 5 else ""
    if path == exe and base is None:
        base = lo - int(f[2], 16)
    if path == emu and "x" in f[1]:
        mem.seek(lo); h.update(mem.read(hi - lo))
# the executable's .got and .got.plt
for l in [] if code_only else subprocess.run(["readelf", "-SW", exe], capture_output=True, text=True).stdout.splitlines():
    m = re.search(r"\] (\.got(?:\.plt)?)\s+\S+\s+([0-9a-f]+) [0-9a-f]+ ([0-9a-f]+)", l)
    if m:
        mem.seek(base + int(m.group(2), 16)); h.update(mem.read(int(m.group(3), 16)))
print(h.hexdigest())
EOF
}

# 1. attach, trace, detach after a second; the program finishes right
if start a; then
    before=$(code_hash "$tpid")
    tt -o "$work/a.trace" --detach-after=1s -p "$tpid" 2> "$work/a.err"
    rc=$?
    after=$(code_hash "$tpid")
    finish a "$tpid"
    {
        echo "rc=$rc"; cat "$work/a.err" "$work/a.result"; echo "before $before after $after"
        tail -3 "$work/a.trace"
    } > "$work/a.log"
    check "attach: the trace shows calls through pointers cached before attach" "$work/a.log" \
        eval 'grep -q "^cuMemAlloc_v2(&0x[0-9a-f]* (alloc#[0-9]*), 1 KiB) = CUDA_SUCCESS$" "$work/a.trace" &&
              grep -q "^cuMemcpyHtoD_v2(" "$work/a.trace" && grep -q "^cuMemFree_v2(" "$work/a.trace"'
    check "attach: ... and calls through the program's GOT" "$work/a.log" \
        eval 'grep -q "^cuMemsetD32_v2(0x[0-9a-f]* (alloc#[0-9]*), 3735928559, 256) = CUDA_SUCCESS$" "$work/a.trace" &&
              grep -q "^cuCtxSynchronize() = CUDA_SUCCESS$" "$work/a.trace"'
    check "attach: an allocation made before the attach is named so" "$work/a.log" \
        grep -q "^cuMemcpyDtoH_v2(0x[0-9a-f]*, 0x[0-9a-f]* (allocated before attach), 4 B) = CUDA_SUCCESS$" "$work/a.trace"
    check "attach: the driver's calls to itself are not traced" "$work/a.log" \
        eval '! grep -q "^cuCtxSynchronize_v2" "$work/a.trace"'
    check "attach: detached on time, said so, exit 0" "$work/a.log" \
        eval '[ $rc -eq 0 ] && [ "$(tail -1 "$work/a.trace")" = "+++ detached +++" ] &&
              grep -q "^tdtrace: Process $tpid (target) attached: 5 threads, driver " "$work/a.err" &&
              grep -q "^tdtrace: Process $tpid detached$" "$work/a.err"'
    check "attach: every patched byte and GOT slot is back after detach" "$work/a.log" \
        eval '[ -n "$before" ] && [ "$before" = "$after" ]'
    check "attach: the program finishes with its result and exit status" "$work/a.log" \
        grep -q "^status 3: result OK [0-9]*$" "$work/a.result"
else
    report "attach: the target did not start" fail "$work/a.out"
fi

# 2. attach, Ctrl-C (SIGINT), attach again with -c and JSON, SIGTERM
if start b; then
    bg -o "$work/b1.trace" -p "$tpid" 2> "$work/b1.err" &
    t1=$!; watchdog $t1
    for _ in $(seq 100); do seen "$work/b1.trace" && break; sleep 0.05; done
    kill -INT $t1; wait $t1; rc1=$?
    bg -C -o "$work/b2.trace" --json="$work/b2.json" -p "$tpid" 2> "$work/b2.err" &
    t2=$!; watchdog $t2
    for _ in $(seq 100); do seen "$work/b2.trace" && break; sleep 0.05; done
    kill -TERM $t2; wait $t2; rc2=$?
    finish b "$tpid"
    { echo "rc1=$rc1 rc2=$rc2"; cat "$work/b1.err" "$work/b2.err" "$work/b.result"; tail -30 "$work/b2.trace"; } > "$work/b.log"
    check "attach again: Ctrl-C detaches, a second tdtrace attaches and traces" "$work/b.log" \
        eval '[ $rc1 -eq 0 ] && [ $rc2 -eq 0 ] && [ "$(tail -1 "$work/b1.trace")" = "+++ detached +++" ] &&
              grep -q "^cuMemAlloc_v2(" "$work/b2.trace" && grep -q "+++ detached +++" "$work/b2.trace"'
    check "attach again: -C summary and JSON" "$work/b.log" \
        eval 'grep -qE "^ *[0-9.]+ +[0-9.]+ +[0-9]+ +[0-9]+ +[0-9]+ +cuMemAlloc_v2$" "$work/b2.trace" &&
              python3 tools/check-json.py share/tdtrace-trace.schema.json "$work/b2.json" >/dev/null'
    check "attach again: the program finishes with its result" "$work/b.log" \
        grep -q "^status 3: result OK [0-9]*$" "$work/b.result"
else
    report "attach again: the target did not start" fail "$work/b.out"
fi

# 3. tdtrace killed with SIGKILL while attached: the program goes on
if start c; then
    bg -o "$work/c.trace" -p "$tpid" 2> "$work/c.err" &
    t1=$!; watchdog $t1
    for _ in $(seq 100); do seen "$work/c.trace" && break; sleep 0.05; done
    kill -KILL $t1; wait $t1 2>/dev/null
    sleep 1.5   # long enough to fill nothing: the ring stops at once
    tt -p "$tpid" > "$work/c2.out" 2> "$work/c2.err"; rc2=$?
    finish c "$tpid"
    { cat "$work/c.err" "$work/c2.err" "$work/c.result"; } > "$work/c.log"
    check "SIGKILL while attached: the program goes on and finishes right" "$work/c.log" \
        grep -q "^status 3: result OK [0-9]*$" "$work/c.result"
    check "SIGKILL while attached: attaching again is refused, the program untouched" "$work/c.log" \
        eval '[ $rc2 -ne 0 ] && grep -q "killed while attached" "$work/c2.err"'
else
    report "SIGKILL while attached: the target did not start" fail "$work/c.out"
fi

# 4. a driver loaded with dlopen by absolute path, every call through dlsym
mkdir -p "$work/fake"
cp "$EMU/libcuda.so.1" "$work/fake/libcuda.so.1"
if start d dlopen "$work/fake/libcuda.so.1"; then
    tt -o "$work/d.trace" --detach-after=1s -e trace=cuMemAlloc_v2,cuMemsetD32_v2 -p "$tpid" 2> "$work/d.err"
    rc=$?
    finish d "$tpid"
    { echo "rc=$rc"; cat "$work/d.err" "$work/d.result"; head -5 "$work/d.trace"; } > "$work/d.log"
    check "dlopen by absolute path: the driver's entry points are traced" "$work/d.log" \
        eval '[ $rc -eq 0 ] && grep -q "driver $work/fake/libcuda.so.1" "$work/d.err" &&
              grep -q "^cuMemAlloc_v2(" "$work/d.trace" && grep -q "^cuMemsetD32_v2(" "$work/d.trace" &&
              ! grep -q "^cuMemFree" "$work/d.trace" && grep -q "^status 3: result OK" "$work/d.result"'
else
    report "dlopen by absolute path: the target did not start" fail "$work/d.out"
fi

# 5. hostile files in the process's maps: a corrupt ELF named libc.so.6, a
# copy of the driver mapped but not loaded, a truncated one, garbage
mkdir -p "$work/decoy"
python3 - "$EMU/libcuda.so.1" "$work/decoy" <<'EOF'
import os, random, struct, sys
src, d = sys.argv[1], sys.argv[2]
drv = open(src, "rb").read()
random.seed(7)
open(os.path.join(d, "libc.so.6"), "wb").write(b"\x7fELF\x02\x01\x01" + bytes(random.getrandbits(8) for _ in range(8192)))
open(os.path.join(d, "libcuda.so.1"), "wb").write(drv)                 # a whole copy, never loaded
open(os.path.join(d, "libcuda-cut.so.1"), "wb").write(drv[:len(drv) // 3])
bad = bytearray(drv[:65536]); struct.pack_into("<Q", bad, 0x28, 1 << 62)  # e_shoff far away
open(os.path.join(d, "libcuda-bad.so.1"), "wb").write(bytes(bad))
EOF
if start f map "$work/decoy/libc.so.6" map "$work/decoy/libcuda.so.1" map "$work/decoy/libcuda-cut.so.1" \
        map "$work/decoy/libcuda-bad.so.1"; then
    tt -o "$work/f.trace" --detach-after=0.5s -e trace=cuMemAlloc_v2 -p "$tpid" 2> "$work/f.err"
    rc=$?
    finish f "$tpid"
    { echo "rc=$rc"; cat "$work/f.err" "$work/f.result"; head -3 "$work/f.trace"; } > "$work/f.log"
    check "hostile maps: decoy and corrupt ELF files mapped in the process are passed over" "$work/f.log" \
        eval '[ $rc -eq 0 ] && grep -q "driver $EMU/libcuda.so.1, 637 entry points" "$work/f.err" &&
              grep -q "^cuMemAlloc_v2(" "$work/f.trace" && grep -q "^status 3: result OK" "$work/f.result"'
else
    report "hostile maps: the target did not start" fail "$work/f.out"
fi

# 6. the CUDA runtime linked statically (nvcc's default): it reaches the
# driver only through cuGetProcAddress pointers it cached at start
. tests/nvcc-env.sh
if [ -z "${NVCC:-}" ] || [ ! -x "$NVCC" ]; then
    report "static CUDA runtime (skipped: nvcc not found; TD_NVCC= simulates that)" skip
elif ! "$NVCC" $NVCC_XFLAGS -o "$work/static_rt" tests/attach/static_rt.cu > "$work/nvcc.log" 2>&1; then
    report "static CUDA runtime: nvcc failed to build tests/attach/static_rt.cu" fail "$work/nvcc.log"
else
    rm -f "$work/s.ready" "$work/s.stop"
    ASAN_OPTIONS="detect_leaks=0${ASAN_OPTIONS:+:$ASAN_OPTIONS}" LD_LIBRARY_PATH=$EMU "$work/static_rt" "$work/s.ready" "$work/s.stop" > "$work/s.out" 2>&1 &
    tpid=$!; pids+=("$tpid")
    for _ in $(seq 400); do [ -s "$work/s.ready" ] && break; sleep 0.05; done
    tt -o "$work/s.trace" --detach-after=1s -p "$tpid" 2> "$work/s.err"
    rc=$?
    finish s "$tpid"
    { echo "rc=$rc"; cat "$work/s.err" "$work/s.result"; head -8 "$work/s.trace"; tail -2 "$work/s.trace"; } > "$work/s.log"
    check "static CUDA runtime: its kernel launches and copies are traced, it finishes right" "$work/s.log" \
        eval '[ $rc -eq 0 ] &&
              grep -q "^cuLaunchKernel(axpy(float, float const\*, float\*, int)<<<(2,1,1), (128,1,1), 0 B shared, NULL>>>([0-9.]*, 0x[0-9a-f]* (allocated before attach), 0x[0-9a-f]* (allocated before attach), 256)) = CUDA_SUCCESS$" "$work/s.trace" &&
              grep -q "^cuMemcpyDtoH_v2(" "$work/s.trace" && [ "$(tail -1 "$work/s.trace")" = "+++ detached +++" ] &&
              grep -q "^status 3: result OK" "$work/s.result"'
fi

# 7. a process that ends while attached, and one that forks while attached
if start g fork; then
    parent_before=$(code_hash "$tpid" code) # its GOT changes: lazy binding after the fork
    bg -o "$work/g.trace" -p "$tpid" 2> "$work/g.err" &
    t1=$!; watchdog $t1
    for _ in $(seq 100); do seen "$work/g.trace" && break; sleep 0.05; done
    touch "$work/g.ready.fork"
    for _ in $(seq 100); do [ -s "$work/g.ready.child" ] && break; sleep 0.05; done
    child=$(cat "$work/g.ready.child" 2>/dev/null)
    kill -INT $t1; wait $t1; rc1=$?
    after=$(code_hash "$child" code)
    bg -o "$work/g2.trace" -p "$tpid" 2> "$work/g2.err" &
    t2=$!; watchdog $t2
    for _ in $(seq 100); do seen "$work/g2.trace" && break; sleep 0.05; done
    finish g "$tpid"
    wait $t2; rc2=$?
    { echo "rc1=$rc1 rc2=$rc2 child=$child before=$parent_before after=$after"; cat "$work/g.err" "$work/g2.err" "$work/g.result"; grep -v "^cu" "$work/g.trace"; tail -3 "$work/g2.trace"; } > "$work/g.log"
    check "fork while attached: the child is followed and restored at the detach too" "$work/g.log" \
        eval '[ $rc1 -eq 0 ] && [ -n "$child" ] && grep -q "forked $child$" "$work/g.trace" &&
              grep -q "^tdtrace: Process $child detached$" "$work/g.err" && [ -n "$after" ] && [ "$after" = "$parent_before" ]'
    check "the process ends while attached: its exit line, tdtrace exits 0" "$work/g.log" \
        eval '[ $rc2 -eq 0 ] && [ "$(tail -1 "$work/g2.trace")" = "+++ exited with 3 +++" ] &&
              grep -q "^status 3: result OK" "$work/g.result"'
else
    report "fork while attached: the target did not start" fail "$work/g.out"
fi

# 8. twenty attaches and detaches while a thread calls the driver in a tight
# loop: some find it inside an entry's first instructions, which are
# changed only once it is stepped out
if start h spin; then
    n=0
    for _ in $(seq 20); do
        tt -q -o /dev/null -e trace=none --detach-after=0.05s -p "$tpid" 2>> "$work/h.err" && n=$((n + 1))
    done
    finish h "$tpid"
    { echo "$n of 20 attaches"; cat "$work/h.err" "$work/h.result"; } > "$work/h.log"
    check "20 attaches and detaches on a thread in a tight driver loop: the program is unharmed" "$work/h.log" \
        eval '[ $n -eq 20 ] && grep -q "^status 3: result OK" "$work/h.result"'
else
    report "tight loop: the target did not start" fail "$work/h.out"
fi

# 9. attached before the program loads the driver: it loads it by name
# (dlopen), as a launched program would, and gets the shim
$CC ${EXTRA_CFLAGS:-} -std=c11 -D_GNU_SOURCE -O1 -g -Wall -Werror -I include -I "$BUILD/gen" \
    -o "$work/late" tests/attach/late.c -ldl || report "late: cannot build tests/attach/late.c" fail
rm -f "$work/l.ready" "$work/l.go"
LD_LIBRARY_PATH=$EMU "$work/late" "$work/l.ready" "$work/l.go" > "$work/l.out" 2>&1 &
tpid=$!; pids+=("$tpid")
for _ in $(seq 200); do [ -s "$work/l.ready" ] && break; sleep 0.05; done
bg -o "$work/l.trace" -e trace=%memory,cuInit -p "$tpid" 2> "$work/l.err" &
t1=$!; watchdog $t1
for _ in $(seq 200); do grep -q attached "$work/l.err" 2>/dev/null && break; sleep 0.05; done
touch "$work/l.go"
wait "$tpid"; st=$?
wait $t1; rc=$?
{ echo "rc=$rc status=$st"; cat "$work/l.err" "$work/l.out"; head -5 "$work/l.trace"; tail -2 "$work/l.trace"; } > "$work/l.log"
check "the driver loaded after the attach, by name: its calls are traced" "$work/l.log" \
    eval '[ $rc -eq 0 ] && [ $st -eq 3 ] && grep -q "driver not loaded yet" "$work/l.err" &&
          grep -q "^cuInit(0) = CUDA_SUCCESS$" "$work/l.trace" && [ "$(grep -c "^cuMemAlloc_v2(" "$work/l.trace")" -eq 100 ] &&
          [ "$(tail -1 "$work/l.trace")" = "+++ exited with 3 +++" ]'

# 10. the same, the driver loaded by absolute path (as Triton and JAX do):
# the program's GOT slot for dlopen leads to the shim, which gives the
# shim for a driver named by path
rm -f "$work/m.ready" "$work/m.go"
"$work/late" "$work/m.ready" "$work/m.go" "$(cd "$EMU" && pwd)/libcuda.so.1" > "$work/m.out" 2>&1 &
tpid=$!; pids+=("$tpid")
for _ in $(seq 200); do [ -s "$work/m.ready" ] && break; sleep 0.05; done
bg -o "$work/m.trace" -e trace=%memory,cuInit -p "$tpid" 2> "$work/m.err" &
t1=$!; watchdog $t1
for _ in $(seq 200); do grep -q attached "$work/m.err" 2>/dev/null && break; sleep 0.05; done
touch "$work/m.go"
wait "$tpid"; st=$?
wait $t1; rc=$?
{ echo "rc=$rc status=$st"; cat "$work/m.err" "$work/m.out"; head -5 "$work/m.trace"; tail -2 "$work/m.trace"; } > "$work/m.log"
check "the driver loaded after the attach, by absolute path: its calls are traced" "$work/m.log" \
    eval '[ $rc -eq 0 ] && [ $st -eq 3 ] && grep -q "driver not loaded yet" "$work/m.err" &&
          grep -q "^cuInit(0) = CUDA_SUCCESS$" "$work/m.trace" && [ "$(grep -c "^cuMemAlloc_v2(" "$work/m.trace")" -eq 100 ] &&
          [ "$(tail -1 "$work/m.trace")" = "+++ exited with 3 +++" ]'

# 12. Python through ctypes (code nobody here wrote calls the driver), --py
cat > "$work/py_target.py" <<'EOF'
import ctypes, os, sys, time
cuda = ctypes.CDLL("libcuda.so.1")
assert cuda.cuInit(0) == 0
v = ctypes.c_int()
def step():
    cuda.cuDriverGetVersion(ctypes.byref(v))
open(sys.argv[1], "w").write("ready\n")
while not os.path.exists(sys.argv[2]):
    step()
    time.sleep(0.001)
print("result OK", v.value)
sys.exit(3)
EOF
rm -f "$work/y.ready" "$work/y.stop"
pre= # a sanitizer build's emulator needs its runtime first in an uninstrumented python
case ${EXTRA_CFLAGS:-} in
*sanitize=address*) pre=$($CC -print-file-name=libasan.so) ;;
*sanitize=thread*) pre=$($CC -print-file-name=libtsan.so) ;;
esac
env ${pre:+LD_PRELOAD=$pre} ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=0}" LD_LIBRARY_PATH=$EMU python3 "$work/py_target.py" "$work/y.ready" "$work/y.stop" > "$work/y.out" 2>&1 &
tpid=$!; pids+=("$tpid")
for _ in $(seq 200); do [ -s "$work/y.ready" ] && break; sleep 0.05; done
tt -o "$work/y.trace" --py -e trace=cuDriverGetVersion --detach-after=0.5s -p "$tpid" 2> "$work/y.err"
rc=$?
finish y "$tpid"
{ echo "rc=$rc"; cat "$work/y.err" "$work/y.result"; head -4 "$work/y.trace"; } > "$work/y.log"
check "Python (ctypes): its calls are traced with --py's Python line" "$work/y.log" \
    eval '[ $rc -eq 0 ] && grep -q "^cuDriverGetVersion(&[0-9]*) = CUDA_SUCCESS \[py_target.py:6 in step\]$" "$work/y.trace" &&
          grep -q "^status 3: result OK" "$work/y.result"'

# 10. refusals, each with its reason, nothing done to the process (after 11)
expect_refusal() { # name expected-substring tdtrace-args...
    local name=$1 want=$2; shift 2
    tt "$@" > "$work/r.out" 2> "$work/r.err"
    local rc=$?
    if [ "$rc" -ne 0 ] && grep -qF -- "$want" "$work/r.err"; then report "$name" ok
    else echo "exit $rc, stderr:" > "$work/r.diff"; cat "$work/r.err" >> "$work/r.diff"; report "$name" fail "$work/r.diff"; fi
}
# 11. a policy from the moment of attach: a memory-limit counts only what
# is allocated since (the 4 KiB the target holds from before do not count)
for lim in 512 1K; do
    if start "m$lim"; then
        tt -o "$work/m$lim.trace" --policy=none --policy-mode=enforce --memory-limit=$lim -e trace=cuMemAlloc_v2 \
            --detach-after=0.5s -p "$tpid" 2> "$work/m$lim.err"
        echo "rc=$?" >> "$work/m$lim.err"
        finish "m$lim" "$tpid"
    fi
done
{ cat "$work/m512.err" "$work/m512.result" "$work/m1K.err" "$work/m1K.result"; head -3 "$work/m512.trace" "$work/m1K.trace"; } > "$work/m.log" 2>&1
check "a memory-limit applies from the attach: over it, every allocation is refused" "$work/m.log" \
    eval 'grep -q "^cuMemAlloc_v2(0x[0-9a-f]*, 1 KiB) = CUDA_ERROR_OUT_OF_MEMORY (2) (LIMITED by --memory-limit)$" "$work/m512.trace" &&
          ! grep -q "^cuMemAlloc_v2(.*CUDA_SUCCESS" "$work/m512.trace" && grep -q "^status 1: result BAD" "$work/m512.result"'
check "a memory-limit counts only what was allocated since the attach" "$work/m.log" \
    grep -q "^cuMemAlloc_v2(&0x[0-9a-f]* (alloc#[0-9]*), 1 KiB) = CUDA_SUCCESS$" "$work/m1K.trace"
expect_refusal "refused: device rules with -p" "cannot attach with device rules (hide, remap): the program has seen its devices already" \
    --policy=policies/hide-gpu1.policy -p $$

expect_refusal "refused: no such process" "cannot attach to process 2147483647: no such process" -p 2147483647
expect_refusal "refused: a bad process id" "invalid process id '12x'" -p 12x
expect_refusal "refused: -p with a command" "-p and a command cannot be given together" -p 1 true
expect_refusal "refused: --detach-after without -p" "--detach-after needs -p PID" --detach-after=1s true
if $CC -static -o "$work/sleep-static" "$work/sleep.c" 2>/dev/null; then
    "$work/sleep-static" & sp=$!; pids+=("$sp")
    expect_refusal "refused: a statically linked program" "it is statically linked: without a dynamic loader" -p "$sp"
    kill "$sp"
else
    report "refused: a statically linked program (no static C library to build one)" skip
fi
if start e; then
    bg -o "$work/e.trace" -p "$tpid" 2> "$work/e.err" &
    t1=$!; watchdog $t1
    for _ in $(seq 100); do grep -q attached "$work/e.err" 2>/dev/null && break; sleep 0.05; done
    expect_refusal "refused: a process traced already" "it is already traced by process $t1 (tdtrace): a process has one tracer at a time" -p "$tpid"
    kill -INT $t1; wait $t1
    finish e "$tpid"
    check "refused: ... and the first tdtrace detaches as usual" "$work/e.result" \
        grep -q "^status 3: result OK" "$work/e.result"
fi
if [ "$(id -u)" = 0 ] && command -v setpriv > /dev/null && setpriv --reuid=65534 --regid=65534 --clear-groups true 2>/dev/null; then
    $CC -o "$work/sleep" "$work/sleep.c"
    "$work/sleep" & sp=$!; pids+=("$sp")
    sleep 0.2
    tt_user() { timeout -k 5 60 setpriv --reuid=65534 --regid=65534 --clear-groups "$T" "$@"; }
    tt_user -p "$sp" > "$work/p.out" 2> "$work/p.err"
    rc=$?
    { echo "rc=$rc"; cat "$work/p.err"; } > "$work/p.log"
    check "refused: no permission (another user's process), with the reason" "$work/p.log" \
        eval '[ $rc -ne 0 ] && grep -q "cannot attach to process $sp: .*ptrace" "$work/p.err"'
    kill "$sp"
else
    report "refused: no permission (needs root and setpriv to become another user)" skip
fi

echo "attach: $pass passed, $fail failed, $skip skipped"
[ "$fail" -eq 0 ]
