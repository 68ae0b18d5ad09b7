#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# End-to-end tests in strace's style: each program prints the lines tdtrace
# must print; we run it under tdtrace and diff. Prints "e2e: N passed, N
# failed, N skipped" and exits nonzero on a failure.
set -u
BUILD=${BUILD:-build}
top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top" || exit 1
TDTRACE=$top/$BUILD/bin/tdtrace
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
ulimit -c 0
mkdir -p "$work/fake"
cp "$BUILD/lib/tdtrace/emu/libcuda.so.1" "$work/fake/libcuda.so.1"
export FAKEDRV=$work/fake/libcuda.so.1
export GPUDIR=$work/gpu   # files declared GPU nodes with --gpu-dev
mkdir -p "$GPUDIR" && touch "$GPUDIR/nvidiactl" "$GPUDIR/nvidia-uvm"
# can tdtrace learn let-through ioctls' results here?
KILLABLE=$(LD_LIBRARY_PATH="$BUILD/lib/tdtrace/emu" "$BUILD/e2e/killable") || KILLABLE="?"
export KILLABLE
. tests/nvcc-env.sh   # GLIBC_TUNABLES for a TSan build
pass=0 fail=0 skip=0

normalise() { sed -E 's/<[0-9]+\.[0-9]{6}>/<T>/g' "$1"; }

report() { # name result [detail-file]
    case $2 in
    ok) pass=$((pass + 1)); echo "PASS: $1" ;;
    skip) skip=$((skip + 1)); echo "SKIP: $1" ;;
    *) fail=$((fail + 1)); echo "FAIL: $1"; [ -n "${3:-}" ] && head -40 "$3" ;;
    esac
}

run_listed() {
    local n=0
    while read -r name status rest; do
        case $name in ''|'#'*) continue ;; esac
        n=$((n + 1))
        local mode=exact
        if [[ $rest == sorted* ]]; then mode=sorted; rest=${rest#sorted}; fi
        rest=$(eval echo "\"$rest\"")
        local opts=$rest args=
        if [[ " $rest " == *" -- "* ]]; then opts=${rest%% -- *}; args=${rest#* -- }; fi
        [[ $rest == "-- "* ]] && { opts=; args=${rest#-- }; }
        local id="$name#$n" out="$work/$name.$n"
        # shellcheck disable=SC2086
        "$TDTRACE" $opts -o "$out.trace" --json="$out.json" -- "$BUILD/e2e/$name" $args > "$out.want" 2> "$out.err"
        local rc=$?
        if [ "$rc" -eq 77 ]; then report "$id" skip; continue; fi
        if [ "$rc" -ne "$status" ]; then
            echo "exit status $rc, want $status" >> "$out.err"
            report "$id ($opts$args)" fail "$out.err"; continue
        fi
        if [ "$mode" = sorted ]; then
            diff -u <(normalise "$out.want" | sort) <(normalise "$out.trace" | sort) > "$out.diff"
        else
            diff -u <(normalise "$out.want") <(normalise "$out.trace") > "$out.diff"
        fi
        if [ $? -eq 0 ]; then report "$id" ok; else report "$id ($opts$args)" fail "$out.diff"; fi
    done < tests/e2e/list
}

# bad input: one clear line on stderr, a nonzero exit, nothing started
expect_error() { # name expected-stderr-substring args...
    local name=$1 want=$2; shift 2
    "$TDTRACE" "$@" > "$work/err.out" 2> "$work/err.txt" < /dev/null
    local rc=$?
    if [ "$rc" -ne 0 ] && grep -qF -- "$want" "$work/err.txt"; then report "$name" ok
    else echo "exit $rc, stderr:" > "$work/err.diff"; cat "$work/err.txt" >> "$work/err.diff"; report "$name" fail "$work/err.diff"; fi
}

run_errors() {
    expect_error "error: unknown option" "unrecognized option '--frobnicate'" --frobnicate true
    expect_error "error: unknown short option" "invalid option -- 'J'" -J true
    expect_error "error: no command" "must have PROG [ARGS]"
    expect_error "error: command not found" "Can't stat 'no-such-command-xyz'" no-such-command-xyz
    expect_error "error: unwritable output" "can't fopen '/nonexistent/dir/out'" -o /nonexistent/dir/out true
    expect_error "error: bad trace set" "invalid function name 'cuNope'" -e trace=cuNope true
    expect_error "error: bad backend" "invalid --backend 'gpu'" --backend=gpu true
    expect_error "error: bad driver version" "--emulate: 'abc' is not a driver version (MAJOR.MINOR: 12.4)" --emulate=driver=abc true
    expect_error "error: driver newer than the table" "--emulate: '99.9': newer than the newest driver the API table describes (13.0)" --emulate=driver=99.9 true
    # the target is never half-started: a marker file it would create stays absent
    "$TDTRACE" -o /nonexistent/x -- touch "$work/marker" 2>/dev/null
    if [ -e "$work/marker" ]; then report "error: nothing launched" fail; else report "error: nothing launched" ok; fi
}

run_options() {
    # -T appends <seconds>; -tt prefixes a time of day with microseconds
    "$TDTRACE" -q -T -tt -o "$work/opt.trace" -- "$BUILD/e2e/exitcode" > /dev/null 2>&1
    if grep -qE '^[0-9]{2}:[0-9]{2}:[0-9]{2}\.[0-9]{6} cuInit\(0\) = CUDA_SUCCESS <[0-9]+\.[0-9]{6}>$' "$work/opt.trace"
    then report "options: -T -tt" ok; else report "options: -T -tt" fail "$work/opt.trace"; fi
    # -e status=failed keeps only failed calls
    "$TDTRACE" -q -e status=failed -o "$work/st.trace" -- "$BUILD/e2e/basic" > /dev/null 2>&1
    if [ "$(grep -c '= CUDA_SUCCESS' "$work/st.trace")" -eq 0 ] && [ "$(grep -c 'CUDA_ERROR' "$work/st.trace")" -eq 2 ]
    then report "options: -e status=failed" ok; else report "options: -e status=failed" fail "$work/st.trace"; fi
    # -e trace=%class
    "$TDTRACE" -q -e trace=%memory -o "$work/cl.trace" -- "$BUILD/e2e/basic" > /dev/null 2>&1
    if ! grep -v -E '^(cuMem(Alloc|Free)_v2|\+\+\+)' "$work/cl.trace" | grep -q . && grep -q cuMemFree_v2 "$work/cl.trace"
    then report "options: -e trace=%memory" ok; else report "options: -e trace=%memory" fail "$work/cl.trace"; fi
    # the banner names the backend; output goes to stderr by default
    "$TDTRACE" -- "$BUILD/e2e/exitcode" > /dev/null 2> "$work/banner.txt"
    # (and, with no driver here, the libraries tdtrace puts in front)
    if head -1 "$work/banner.txt" | grep -q -E "^tdtrace: policy built-in defaults \(mode audit, backend auto(; tdtrace's (cublas|nvrtc).* in front of NVIDIA's)?\)\$" &&
       sed -n 2p "$work/banner.txt" | grep -q '^tdtrace: backend emulate '
    then report "options: backend banner on stderr" ok; else report "options: backend banner on stderr" fail "$work/banner.txt"; fi
    # --backend=driver without a driver: said clearly, calls fail with a CUresult
    "$TDTRACE" --backend=driver -- "$BUILD/e2e/exitcode" > /dev/null 2> "$work/drv.txt"
    if grep -q '^tdtrace: backend none' "$work/drv.txt" && grep -q '^cuInit(0) = CUDA_ERROR_NOT_INITIALIZED (3)' "$work/drv.txt"
    then report "options: --backend=driver without a driver" ok; else report "options: --backend=driver without a driver" fail "$work/drv.txt"; fi
    # -s truncates strings
    "$TDTRACE" -q -s 5 -e trace=cuDeviceGetName -o "$work/s.trace" -- "$BUILD/e2e/basic" > /dev/null 2>&1
    if grep -qE '^cuDeviceGetName\("[^"]{5}"\.\.\., 256, 0\)' "$work/s.trace"
    then report "options: -s" ok; else report "options: -s" fail "$work/s.trace"; fi
}

# the process tree, the summary, JSON and stacks
run_tree() {
    # -ff: one file per process, each with its own calls and exit line
    rm -f "$work"/ff.*
    "$TDTRACE" -q -ff -o "$work/ff" -- "$BUILD/e2e/fork" > /dev/null 2>&1
    local files ok=1
    files=$(ls "$work"/ff.* 2>/dev/null | wc -l)
    [ "$files" -eq 3 ] || ok=0
    for f in "$work"/ff.*; do
        grep -q '^cuInit(0) = CUDA_SUCCESS$' "$f" && grep -q '^+++ exited with [03] +++$' "$f" &&
            ! grep -q '^\[pid' "$f" || ok=0
    done
    if [ $ok = 1 ]; then report "tree: -ff writes FILE.PID per process" ok
    else ls -l "$work"/ff.* > "$work/ff.diff" 2>&1; cat "$work"/ff.* >> "$work/ff.diff" 2>&1; report "tree: -ff writes FILE.PID per process" fail "$work/ff.diff"; fi

    # -c: the table's numbers are the calls made (basic: 2 cuDeviceGet, 1 failed; 2 cuMemAlloc_v2, 1 failed)
    "$TDTRACE" -q -c -o "$work/c.txt" -- "$BUILD/e2e/basic" > /dev/null 2>&1
    if awk '$NF=="cuDeviceGet" && $5==2 && $6==1 {a=1} $NF=="cuMemAlloc_v2" && $5==2 && $6==1 {b=1}
            $NF=="cuInit" && $5==1 && NF==6 {c=1} $NF=="total" {t=$0} END {exit !(a && b && c && t)}' "$work/c.txt" &&
       ! grep -q '^cuInit(' "$work/c.txt"
    then report "tree: -c counts calls and errors" ok; else report "tree: -c counts calls and errors" fail "$work/c.txt"; fi

    # -C: the trace, then the summary, with the leak the demo leaves on purpose
    "$TDTRACE" -q -C -o "$work/leak.txt" -- "$BUILD/examples/hello_drv" > /dev/null 2>&1
    if grep -q '^cuMemFree_v2(' "$work/leak.txt" &&
       grep -qE '^leaks in pid [0-9]+: 1 allocation never freed, 4 MiB$' "$work/leak.txt" &&
       grep -qE '^  alloc#3  0x[0-9a-f]+  4 MiB on device 0, from cuMemAlloc_v2$' "$work/leak.txt" &&
       grep -qE '^ +[0-9]+ +0 +4 MiB +8 MiB +4 MiB +3$' "$work/leak.txt"
    then report "tree: -C memory table and leak report" ok; else report "tree: -C memory table and leak report" fail "$work/leak.txt"; fi

    # --json: every line parses, and the calls match the text trace one for one
    if command -v python3 > /dev/null; then
        "$TDTRACE" -q -o "$work/j.txt" --json="$work/j.json" -- "$BUILD/e2e/fork" > /dev/null 2>&1
        if python3 - "$work/j.json" "$work/j.txt" > "$work/j.diff" 2>&1 <<'PY'
import json, re, sys
objs = [json.loads(l) for l in open(sys.argv[1])]
calls = [o for o in objs if o["type"] == "call"]
text = [l for l in open(sys.argv[2]) if re.match(r"^(\[pid +\d+\] )?cu", l)]
assert len(calls) == len(text), (len(calls), len(text))
for o, l in zip(calls, text):
    m = re.match(r"^(?:\[pid +(\d+)\] )?(\w+)\(.*\) = (\w+)", l)
    assert o["call"] == m.group(2) and o["retname"] == m.group(3), (o, l)
    if m.group(1):
        assert o["pid"] == int(m.group(1)), (o, l)
exits = [o for o in objs if o["type"] == "process" and o["event"] == "exit"]
assert len(exits) == 3, exits
assert objs[-1]["type"] == "summary" and any(f["function"] == "cuInit" and f["calls"] == 3 for f in objs[-1]["functions"])
PY
        then report "tree: --json parses and matches the text" ok; else report "tree: --json parses and matches the text" fail "$work/j.diff"; fi
    else
        report "tree: --json (python3 is not installed)" skip
    fi

    # -k: the stack names the test program's own function and source line
    "$TDTRACE" -q -k -e trace=cuInit -o "$work/k.txt" -- "$BUILD/e2e/exitcode" > /dev/null 2>&1
    if grep -qE '^ > .*/e2e/exitcode\(main\+0x[0-9a-f]+\) \[0x[0-9a-f]+\] .*tests/e2e/exitcode\.c:[0-9]+$' "$work/k.txt"
    then report "tree: -k shows the caller's function and line" ok; else report "tree: -k shows the caller's function and line" fail "$work/k.txt"; fi
    # -k demangles C++ names (the caller is td::demo::call_init(int)), and
    # JSON keeps the mangled one beside it
    "$TDTRACE" -q -k -e trace=cuInit -o "$work/km.txt" --json="$work/km.json" -- "$BUILD/e2e/mangled" > /dev/null 2>&1
    if grep -qE '^ > .*/e2e/mangled\(td::demo::call_init\(int\)\+0x[0-9a-f]+\) ' "$work/km.txt" &&
       grep -q '"function":"td::demo::call_init(int)","mangled":"_ZN2td4demo9call_initEi"' "$work/km.json"
    then report "tree: -k demangles C++ frames" ok; else report "tree: -k demangles C++ frames" fail "$work/km.txt"; fi

    # --bounded with a small buffer: every call is printed or counted as dropped
    "$TDTRACE" -q --bounded --buffer-size=64K -e trace=cuDeviceGet -o "$work/b.txt" -- "$BUILD/e2e/threads" \
        > /dev/null 2> "$work/b.err"
    local shown dropped
    shown=$(grep -c '^cuDeviceGet(' "$work/b.txt")
    dropped=$(sed -n 's/^tdtrace: \([0-9]*\) records dropped.*/\1/p' "$work/b.err")
    if [ $((shown + ${dropped:-0})) -eq 160000 ]
    then report "tree: --bounded prints or counts every call ($shown shown, ${dropped:-0} dropped)" ok
    else echo "shown $shown dropped ${dropped:-0}" >> "$work/b.err"; report "tree: --bounded" fail "$work/b.err"; fi

    # --no-follow: only the first process
    "$TDTRACE" -q --no-follow -o "$work/nf.txt" -- "$BUILD/e2e/fork" > /dev/null 2>&1
    if [ "$(grep -c '^+++ exited' "$work/nf.txt")" -eq 1 ] && [ "$(grep -c '^cuInit' "$work/nf.txt")" -eq 1 ] &&
       [ "$(grep -c '^forked [0-9]*$' "$work/nf.txt")" -eq 2 ]
    then report "tree: --no-follow" ok; else report "tree: --no-follow" fail "$work/nf.txt"; fi

    # a program killed with SIGKILL mid-run is reported, tdtrace does not hang
    timeout 20 "$TDTRACE" -q -o "$work/kill.txt" -- sh -c 'kill -9 $$' > /dev/null 2>&1
    local rc=$?
    if [ $rc -eq 137 ] && grep -q '^+++ killed by SIGKILL +++$' "$work/kill.txt"
    then report "tree: SIGKILL reported" ok; else echo "rc=$rc" >> "$work/kill.txt"; report "tree: SIGKILL reported" fail "$work/kill.txt"; fi

    # SIGTERM sent to tdtrace reaches the program
    "$TDTRACE" -q -o "$work/term.txt" -- sleep 30 > /dev/null 2>&1 &
    local tp=$!
    sleep 0.5; kill -TERM $tp; wait $tp
    rc=$?
    if [ $rc -eq 143 ] && grep -q '^+++ killed by SIGTERM +++$' "$work/term.txt"
    then report "tree: SIGTERM forwarded" ok; else echo "rc=$rc" >> "$work/term.txt"; report "tree: SIGTERM forwarded" fail "$work/term.txt"; fi

    # a statically linked program still runs, with one clear warning
    if cc -static -o "$work/static" -x c - <<< 'int main(void){return 5;}' 2> /dev/null; then
        "$TDTRACE" -q -- "$work/static" 2> "$work/static.txt"
        rc=$?
        if [ $rc -eq 5 ] && [ "$(grep -c 'is statically linked: the driver shim cannot enter it' "$work/static.txt")" -eq 1 ]
        then report "tree: static program warned about" ok; else report "tree: static program warned about" fail "$work/static.txt"; fi
    else
        report "tree: static program (no static libc here)" skip
    fi
}

# the program's output and the trace in one stream: in the order they happened
run_order() {
    "$TDTRACE" -q -- "$BUILD/e2e/order" "$work/order.want" 2>&1 | cat > "$work/order.pipe"
    if diff -u "$work/order.want" "$work/order.pipe" > "$work/order.diff"
    then report "order: the program's writes and the trace through a pipe, in order" ok
    else report "order: through a pipe" fail "$work/order.diff"; fi
    # no timer while the program is idle: tdtrace's loop sleeps until an event
    "$TDTRACE" -q -o /dev/null -- sleep 1.5 &
    local tp=$! a b
    sleep 0.4; a=$(awk '/^voluntary_ctxt_switches/ {print $2}' /proc/$tp/status)
    sleep 0.8; b=$(awk '/^voluntary_ctxt_switches/ {print $2}' /proc/$tp/status)
    wait $tp
    if [ -n "$a" ] && [ -n "$b" ] && [ $((b - a)) -le 2 ]
    then report "idle: tdtrace sleeps while the program does ($((b - a)) wake-ups in 0.8 s)" ok
    else echo "wake-ups: $a -> $b" > "$work/idle.diff"; report "idle: tdtrace sleeps while the program does" fail "$work/idle.diff"; fi
    if command -v script > /dev/null; then
        script -qfec "$TDTRACE -q -- $BUILD/e2e/order $work/order2.want" /dev/null < /dev/null | tr -d '\r' > "$work/order.pty"
        if diff -u "$work/order2.want" "$work/order.pty" > "$work/order2.diff"
        then report "order: the program's writes and the trace on a terminal, in order" ok
        else report "order: on a terminal" fail "$work/order2.diff"; fi
    else
        report "order: on a terminal (script(1) is not installed)" skip
    fi
}

# a program built with nvcc (static runtime): the runtime's real sequence
run_nvcc() {
    . "$top/tests/nvcc-env.sh"   # NVCC; TD_NVCC= (empty) turns the toolkit off
    local nvcc=$NVCC
    if [ -z "$nvcc" ]; then
        report "nvcc: runtime program traced (nvcc not found: no CUDA toolkit here)" skip
        return
    fi
    # shellcheck disable=SC2086
    if ! (cd "$work" && "$nvcc" $NVCC_XFLAGS -o rt "$top/tests/e2e/cu/runtime_trace.cu") > "$work/nvcc.log" 2>&1; then
        report "nvcc: build of tests/e2e/cu/runtime_trace.cu" fail "$work/nvcc.log"; return
    fi
    # the default view: the program's calls, the kernel by name, the start-up folded
    "$TDTRACE" -o "$work/rt.trace" -- "$work/rt" > "$work/rt.out" 2>&1
    local rc=$? ok=1
    [ $rc -eq 0 ] && grep -q '^runtime ok$' "$work/rt.out" || ok=0
    for want in '^cuGetProcAddress_v2 ×[0-9]+ \([0-9]+ names, [0-9]+ not found\)' \
                '^cuMemAlloc_v2\(&0x[0-9a-f]+ \(alloc#1\), 16 KiB\) = CUDA_SUCCESS$' \
                '^cuMemsetD8_v2\(0x[0-9a-f]+ \(alloc#1\), 0, 16384\) = CUDA_SUCCESS$' \
                '^cuLaunchKernel\(add_one\(float\*, int\)<<<\(16,1,1\), \(256,1,1\), 0 B shared, NULL>>>\(0x[0-9a-f]+ \(alloc#1\), 4096\)\) = CUDA_SUCCESS$' \
                '^cuMemcpyDtoH_v2\(0x[0-9a-f]+, 0x[0-9a-f]+ \(alloc#1\), 16 KiB\) = CUDA_SUCCESS$' \
                '^cuMemFree_v2\(0x[0-9a-f]+ \(alloc#1\)\) = CUDA_SUCCESS$' \
                '^\+\+\+ exited with 0 \+\+\+$'; do
        grep -qE "$want" "$work/rt.trace" || { ok=0; echo "missing: $want" >> "$work/rt.out"; }
    done
    local lines
    lines=$(wc -l < "$work/rt.trace")
    [ "$lines" -le 30 ] || { ok=0; echo "$lines lines, not at most 30" >> "$work/rt.out"; }
    if [ $ok = 1 ]; then report "nvcc: default trace of a CUDA program: its calls, the kernel by name, start-up folded ($lines lines)" ok
    else cat "$work/rt.trace" >> "$work/rt.out"; report "nvcc: default trace of a CUDA program" fail "$work/rt.out"; fi
    # -e status=failed: the runtime's probes are no failures
    "$TDTRACE" -q -e status=failed -o "$work/rtf.trace" -- "$work/rt" > /dev/null 2>&1
    if [ "$(grep -vc '^+++ exited with 0 +++$' "$work/rtf.trace")" -eq 0 ]
    then report "nvcc: -e status=failed prints no call (lookups that find nothing are probes)" ok
    else report "nvcc: -e status=failed prints no call" fail "$work/rtf.trace"; fi
    # -e trace=all: every lookup and export-table call by name
    "$TDTRACE" -q -e trace=all -o "$work/rta.trace" -- "$work/rt" > "$work/rta.out" 2>&1
    ok=1
    for want in '^cuGetProcAddress_v2\("cuInit", &0x[0-9a-f]+, 2000, CU_GET_PROC_ADDRESS_DEFAULT, (NULL|&CU_GET_PROC_ADDRESS_SUCCESS)\) = CUDA_SUCCESS$' \
                '^cuDriverGetVersion\(&1[3-9][0-9]{3}\) = CUDA_SUCCESS$' \
                '^cuGetExportTable\(&0x[0-9a-f]+, CUDART_INTERFACE\) = CUDA_SUCCESS$' \
                '^CUDART_INTERFACE\.get_primary_ctx\(&ctx#1\(dev 0\), 0\) = CUDA_SUCCESS$' \
                '^INTEGRITY_CHECK\.check\(13002, [0-9]+, 0x[0-9a-f]+\) = CUDA_SUCCESS$' \
                '^CONTEXT_LOCAL_STORAGE\.get\(&0x[0-9a-f]+, NULL, 0x[0-9a-f]+\) = CUDA_SUCCESS$' \
                '^cuDeviceGetAttribute\(&[0-9]+, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, 0\) = CUDA_SUCCESS$'; do
        grep -qE "$want" "$work/rta.trace" || { ok=0; echo "missing: $want" >> "$work/rta.out"; }
    done
    if [ $ok = 1 ]; then report "nvcc: -e trace=all: the runtime's lookups and export tables by name" ok
    else cat "$work/rta.trace" >> "$work/rta.out"; report "nvcc: -e trace=all" fail "$work/rta.out"; fi
}

# --emulate=driver=: what a program meets on an older driver, and the needs
# report (text after the exit line, checked line by line: each line of the
# trace after "+++ exited" against the next pattern; a pattern ending in
# "+" may match several lines)
match_after_exit() { # trace patterns...
    python3 - "$@" <<'PY'
import re, sys
lines = open(sys.argv[1]).read().split("\n")
i = next(k for k, l in enumerate(lines) if l.startswith("+++ exited")) + 1
rest = [l for l in lines[i:] if l]
pats, k = sys.argv[2:], 0
for p in pats:
    many = p.endswith("+") and not p.endswith("\\+")
    rx = re.compile(p[:-1] if many else p)
    if k >= len(rest) or not rx.fullmatch(rest[k]):
        sys.exit("line %d: %r does not match %r" % (k + 1, rest[k] if k < len(rest) else None, p))
    k += 1
    while many and k < len(rest) and rx.fullmatch(rest[k]):
        k += 1
if k != len(rest):
    sys.exit("more lines: %r" % rest[k:])
PY
}

# a sanitized shim in an interpreter built without: its runtime goes first
# (tdtrace passes LD_PRELOAD on to the program): san_preload
. "$top/tests/san-env.sh"

run_driver() {
    # the demo's needs report (-C): its newest entry point is CUDA 12.8's
    "$TDTRACE" -q -C -o "$work/dd.txt" -- "$BUILD/examples/hello_drv" > /dev/null 2>&1
    if [ "$(tail -1 "$work/dd.txt")" = "this run needs driver >= 12.8; cuEventElapsedTime_v2 needs 12.8" ]
    then report "driver: the demo's needs report" ok; else report "driver: the demo's needs report" fail "$work/dd.txt"; fi
    # ... which a 12.4 driver lacks: the loader cannot bind cuEventElapsedTime_v2
    "$TDTRACE" -q --emulate=driver=12.4 -o "$work/dd4.txt" -- "$BUILD/examples/hello_drv" > /dev/null 2> "$work/dd4.err"
    if [ $? -eq 127 ] && grep -q 'undefined symbol: cuEventElapsedTime_v2' "$work/dd4.err"
    then report "driver: the demo under driver=12.4: cuEventElapsedTime_v2 (12.8) is not there to bind" ok
    else report "driver: the demo under driver=12.4" fail "$work/dd4.err"; fi
    # a Python client that binds NAME_v2 when dlsym finds it (numba 0.56's rule)
    if command -v python3 > /dev/null; then
        local py=$top/tests/e2e/py/bind_v2.py pyexe pre
        pyexe=$(python3 -c 'import sys; print(sys.executable)')   # not a wrapper script (pyenv)
        pre=$(san_preload)
        env ${pre:+LD_PRELOAD=$pre} ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=0}" "$TDTRACE" -q --emulate=driver=12.4 -o "$work/bv.trace" -- "$pyexe" "$py" 12.4 > "$work/bv.want" 2> "$work/bv.err"
        if [ $? -eq 0 ] && diff -u "$work/bv.want" "$work/bv.trace" > "$work/bv.diff"
        then report "driver: a client's _v2 binding rule works under driver=12.4" ok
        else cat "$work/bv.err" >> "$work/bv.diff"; report "driver: a client's _v2 binding rule under driver=12.4" fail "$work/bv.diff"; fi
        env ${pre:+LD_PRELOAD=$pre} ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=0}" "$TDTRACE" -q --emulate=driver=13.0 -o "$work/bv13.trace" -- "$pyexe" "$py" 13.0 > /dev/null 2> "$work/bv13.err"
        if [ $? -eq 3 ] && grep -q '^bound cuCtxGetDevice_v2: ' "$work/bv13.err"
        then report "driver: ... and binds CUDA 13's cuCtxGetDevice_v2 under driver=13.0" ok
        else report "driver: the _v2 binding rule under driver=13.0" fail "$work/bv13.err"; fi
    else
        report "driver: a client's _v2 binding rule (python3 is not installed)" skip
    fi
    # a CUDA 13 runtime program: refused by a 12.4 driver, as on a real one
    . "$top/tests/nvcc-env.sh"
    if [ -z "$NVCC" ]; then
        report "driver: nvcc program under driver=12.4 and 13.0 (nvcc not found: no CUDA toolkit here)" skip
        return
    fi
    # shellcheck disable=SC2086
    if ! (cd "$work" && "$NVCC" $NVCC_XFLAGS -arch=sm_80 -o drvchk "$top/tests/e2e/cu/driver_check.cu") > "$work/nvcc-drv.log" 2>&1; then
        report "driver: build of tests/e2e/cu/driver_check.cu" fail "$work/nvcc-drv.log"; return
    fi
    local needs='this run needs driver >= 13\.0; \w+ needs 13\.0 \(cuGetProcAddress\("\w+", 13000\)\)'
    local asked='it asked cuGetProcAddress for ABI versions up to 13000 \(CUDA 13\.0\)'
    # built for sm_80 (machine code and PTX): a device of 8.0 or newer; nvcc 13 writes PTX ISA 9.0
    local needs13='this run needs driver >= 13\.0 and a device of compute capability >= 8\.0; \w+ needs 13\.0 \(cuGetProcAddress\("\w+", 13000\)\); its PTX \(ISA 9\.0\) needs 13\.0'
    "$TDTRACE" -q --emulate=driver=12.4 -o "$work/dc.trace" -- "$work/drvchk" > "$work/dc.out" 2>&1
    local rc=$?
    if [ $rc -eq 1 ] && [ "$(cat "$work/dc.out")" = "runtime 13000 driver 12040 cudaMalloc: cudaErrorInsufficientDriver" ] &&
       match_after_exit "$work/dc.trace" "$needs" "$asked" \
           'the emulated driver presented 12\.4 \(cuDriverGetVersion gave 12040\), older than the 13\.0 this run needs' \
           'a CUDA 13 runtime needs a driver of CUDA 13 or newer \(an older one: cudaErrorInsufficientDriver\)' \
           '  not in 12\.4, new in 1[23]\.[0-9]: \w+(, \w+)* \([0-9]+ lookups? found nothing\)+' >> "$work/dc.out" 2>&1
    then report "driver: a CUDA 13 program under driver=12.4: cudaErrorInsufficientDriver, and the needs report says why" ok
    else echo "exit $rc" >> "$work/dc.out"; cat "$work/dc.trace" >> "$work/dc.out"; report "driver: a CUDA 13 program under driver=12.4" fail "$work/dc.out"; fi
    "$TDTRACE" -q --emulate=driver=13.0 -o "$work/dc13.trace" -- "$work/drvchk" > "$work/dc13.out" 2>&1
    rc=$?
    if [ $rc -eq 0 ] && [ "$(cat "$work/dc13.out")" = "$(printf 'runtime 13000 driver 13000 cudaMalloc: cudaSuccess\nkernel: cudaSuccess, 1')" ] &&
       match_after_exit "$work/dc13.trace" "$needs13" "$asked" \
           'the emulated driver presented 13\.0 \(cuDriverGetVersion gave 13000\)' >> "$work/dc13.out" 2>&1
    then report "driver: the same program under driver=13.0 runs; its needs report" ok
    else echo "exit $rc" >> "$work/dc13.out"; cat "$work/dc13.trace" >> "$work/dc13.out"; report "driver: the same program under driver=13.0" fail "$work/dc13.out"; fi
}

# --py: each call's Python line (tests/e2e/py/calls.py prints what tdtrace
# must print), in every interpreter here: Debian's python3, python3 on PATH,
# and those TD_PYTHONS names
run_python() {
    local pys="" py real
    for py in /usr/bin/python3 "$(command -v python3 2> /dev/null)" ${TD_PYTHONS:-}; do
        [ -n "$py" ] && [ -x "$py" ] || continue
        real=$("$py" -c 'import os, sys; print(os.path.realpath(sys.executable))' 2> /dev/null) || continue
        case " $pys " in *" $real "*) ;; *) pys="$pys $real" ;; esac
    done
    if [ -z "$pys" ]; then
        report "python: --py (python3 is not installed)" skip
        return
    fi
    local script=$top/tests/e2e/py/calls.py set=cuInit,cuDeviceGet,cuDeviceGetCount,cuDriverGetVersion
    local pre
    pre=$(san_preload)
    tdpy() { env ${pre:+LD_PRELOAD=$pre} ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=0}" "$TDTRACE" "$@"; }
    for py in $pys; do
        local v o=$work/py
        v=$("$py" -c 'import sys; print("%d.%d.%d" % sys.version_info[:3])')
        # nested calls, a method in a thread, a native thread with no Python frame
        tdpy -q --py -e trace=$set -o "$o.trace" --json="$o.json" -- "$py" "$script" > "$o.want" 2> "$o.err"
        if diff -u "$o.want" "$o.trace" > "$o.diff"; then report "python $v: --py names each call's line" ok
        else cat "$o.err" >> "$o.diff"; report "python $v: --py names each call's line" fail "$o.diff"; fi
        # JSON: the frames as data, innermost first
        if python3 - "$o.json" > "$o.jdiff" 2>&1 <<'PY'
import json, sys
calls = [o for o in map(json.loads, open(sys.argv[1])) if o["type"] == "call"]
by = {o["call"]: o for o in calls}
assert [f["func"] for f in by["cuDeviceGet"]["python"]] == ["level2", "level1", "<module>"], by["cuDeviceGet"]
assert all(f["file"].endswith("/tests/e2e/py/calls.py") and f["line"] > 0 for f in by["cuDeviceGet"]["python"])
assert by["cuDeviceGetCount"]["python"][0]["func"].endswith("step"), by["cuDeviceGetCount"]
assert "python" not in by["cuDriverGetVersion"], by["cuDriverGetVersion"]
PY
        then report "python $v: --json has the frames as data" ok; else report "python $v: --json frames" fail "$o.jdiff"; fi
        # without --py: the same lines, no Python
        tdpy -q -e trace=$set -o "$o.plain" -- "$py" "$script" > /dev/null 2>&1
        if diff -u <(sed 's/ \[calls\.py:[0-9]* in [^]]*\]$//' "$o.want") "$o.plain" > "$o.diff"
        then report "python $v: no Python frames without --py" ok; else report "python $v: without --py" fail "$o.diff"; fi
        # -k: the Python frames just above the native eval loop that runs them
        tdpy -q --py -k -e trace=cuDeviceGet -o "$o.k" -- "$py" "$script" k > "$o.kwant" 2>&1
        if grep -v '^ > [^[]' "$o.k" | diff -u "$o.kwant" - > "$o.diff" &&
           awk '/^ > \[/ {py = 1; next} py && !/_PyEval_EvalFrameDefault/ {bad = 1} {py = 0} END {exit bad}' "$o.k"
        then report "python $v: -k --py interleaves Python and native frames" ok
        else cat "$o.k" >> "$o.diff"; report "python $v: -k --py" fail "$o.diff"; fi
        # -c: the line that allocated 3 MiB in 3 calls
        tdpy -q --py -c -o "$o.c" -- "$py" "$script" summary > "$o.cwant" 2>&1
        if grep -qE "^ +[0-9.]+ +[0-9.]+ +3 +3 MiB $(head -1 "$o.cwant")\$" "$o.c" && grep -q ' Python line$' "$o.c"
        then report "python $v: -c --py: the Python lines table" ok
        else { cat "$o.cwant"; cat "$o.c"; } > "$o.diff"; report "python $v: -c --py" fail "$o.diff"; fi
    done
    # a process without Python: the same trace, no frames item
    "$TDTRACE" -q --py -o "$work/nopy.trace" --json="$work/nopy.json" -- "$BUILD/e2e/basic" > "$work/nopy.want" 2>&1
    if diff -u <(normalise "$work/nopy.want") <(normalise "$work/nopy.trace") > "$work/nopy.diff" &&
       ! grep -q '"python"' "$work/nopy.json"
    then report "python: --py leaves a process without Python untouched" ok
    else report "python: --py without Python" fail "$work/nopy.diff"; fi
}

# --help and tdtrace(1) name the same options
# --timeline: Chrome trace event JSON (docs/timeline.md). Two streams that
# run at once (tests/e2e/timeline.c), then the same in a forked child into
# the same file; -c's device-time column; the file is never an old one.
run_timeline() {
    if ! command -v python3 > /dev/null; then report "timeline (python3 is not installed)" skip; return; fi
    local t=$work/tl
    mkdir -p "$t"
    cat > "$t/check.py" <<'PY'
import json, sys
from collections import defaultdict
d = json.load(open(sys.argv[1]))          # valid JSON, as a whole
nproc = int(sys.argv[2])
ev = d["traceEvents"]
od = d["otherData"]
assert od["tool"] == "tdtrace" and od["clock"] == "CLOCK_MONOTONIC" and od["device_times"] == "emulator", od
assert d["displayTimeUnit"] == "ns"
S = 1000000000
pids = sorted({e["pid"] for e in ev})
assert len(pids) == nproc, pids
for e in ev:
    assert e["ph"] in "XMsfCi", e
    if e["ph"] != "M":
        assert isinstance(e["ts"], (int, float)), e
names = {(e["pid"], e["tid"]): e["args"]["name"] for e in ev if e["ph"] == "M" and e["name"] == "thread_name"}
for pid in pids:
    assert any(e["ph"] == "M" and e["name"] == "process_name" and e["pid"] == pid for e in ev), pid
    calls = [e for e in ev if e["pid"] == pid and e["ph"] == "X" and e["tid"] < S]
    work = [e for e in ev if e["pid"] == pid and e["ph"] == "X" and e["tid"] >= S]
    assert all(c["cat"] == "driver" and c["args"]["call"].startswith(c["name"] + "(") for c in calls)
    by_corr = defaultdict(list)
    for w in work:
        assert names[(pid, w["tid"])] == "device %d stream %d" % (w["args"]["device"], w["args"]["stream"]), w
        assert w["tid"] == S + w["args"]["device"] * 1000000 + w["args"]["stream"], w
        by_corr[w["args"].get("corr")].append(w)
    flows_s = {e["id"]: e for e in ev if e["pid"] == pid and e["ph"] == "s"}
    flows_f = {e["id"]: e for e in ev if e["pid"] == pid and e["ph"] == "f"}
    # every launch: its kernel on its stream, a flow from the call to it
    stream_of = {}
    launches = [c for c in calls if c["name"] == "cuLaunchKernel"]
    assert len(launches) == 4, launches
    for c in launches:
        corr = c["args"]["corr"]
        k = by_corr[corr]
        assert len(k) == 1 and k[0]["cat"] == "kernel", (c, k)
        k = k[0]
        kname = c["args"]["call"].split("(", 1)[1].split("<<<")[0]
        assert k["name"] == kname, (k, kname)
        sname = c["args"]["call"].split(">>>")[0].rsplit(", ", 1)[1]
        assert stream_of.setdefault(sname, k["tid"]) == k["tid"], (sname, stream_of)
        s, f = flows_s[corr], flows_f[corr]
        assert s["tid"] == c["tid"] and c["ts"] <= s["ts"] <= c["ts"] + c["dur"], (s, c)
        assert f["tid"] == k["tid"] and f["ts"] == k["ts"] and f["bp"] == "e", (f, k)
        assert k["ts"] >= c["ts"], (k, c)   # it ran after it was launched
    assert len(set(stream_of.values())) == 2, stream_of
    # one stream's spans never overlap; the two handshake kernels do
    tracks = defaultdict(list)
    for w in work:
        tracks[w["tid"]].append(w)
    assert len(tracks) == 2, tracks.keys()
    for tid, ws in tracks.items():
        ws.sort(key=lambda w: w["ts"])
        for a, b in zip(ws, ws[1:]):
            assert a["ts"] + a["dur"] <= b["ts"], ("overlap on one stream", a, b)
    hs = [w for w in work if w["name"] == "handshake"]
    assert len(hs) == 2 and hs[0]["tid"] != hs[1]["tid"], hs
    a, b = hs
    assert a["ts"] < b["ts"] + b["dur"] and b["ts"] < a["ts"] + a["dur"], ("no overlap", a, b)
    # what else ran: copies both ways with their sizes, a memset, events, the host function
    cats = defaultdict(list)
    for w in work:
        cats[w["cat"]].append(w)
    assert sorted(w["name"] for w in cats["memcpy"]) == ["memcpy DtoH", "memcpy HtoD", "memcpy HtoD"], cats["memcpy"]
    assert all(w["args"]["bytes"] == 1 << 20 and w["name"].endswith(w["args"]["direction"]) for w in cats["memcpy"])
    assert [w["args"]["bytes"] for w in cats["memset"]] == [1 << 20], cats["memset"]
    assert len(cats["event"]) == 3 and len(cats["host"]) == 1, cats
    host = cats["host"][0]
    hc = [c for c in calls if c["name"] == "cuLaunchHostFunc"][0]
    assert host["args"]["corr"] == hc["args"]["corr"] and flows_f[hc["args"]["corr"]]["tid"] == host["tid"]
    # every device op came from a call of this process
    corrs = {c["args"]["corr"] for c in calls if "corr" in c["args"]}
    assert all(w["args"]["corr"] in corrs for w in work), "device work without its call"
    # device memory: up to 6 MiB, then down to nothing
    mem = [e["args"]["device 0"] for e in sorted((e for e in ev if e["pid"] == pid and e["ph"] == "C"), key=lambda e: e["ts"])]
    assert max(mem) == 6 << 20 and mem[-1] == 0 and mem[0] == 1 << 20, mem
    assert any(x < y for x, y in zip(mem, mem[1:])) and any(x > y for x, y in zip(mem, mem[1:])), mem
    inst = [(e["cat"], e["name"]) for e in ev if e["pid"] == pid and e["ph"] == "i"]
    assert ("process", "start") in inst and ("process", "exit") in inst, inst
if nproc == 2:
    assert [e for e in ev if e["ph"] == "i" and e["name"] == "fork" and e["args"]["child"] == str(pids[1])]
print("ok", len(ev))
PY
    "$TDTRACE" -q -o "$t/one.trace" --timeline="$t/one.timeline" -- "$BUILD/e2e/timeline" > "$t/one.out" 2>&1
    if [ $? -eq 0 ] && python3 "$t/check.py" "$t/one.timeline" 1 > "$t/one.check" 2>&1
    then report "timeline: valid; launches on their streams with flows; streams overlap; memory counter" ok
    else cat "$t/one.out" >> "$t/one.check"; report "timeline: one process" fail "$t/one.check"; fi
    TDTRACE_EMU_THREADS=1 "$TDTRACE" -q -o "$t/fork.trace" --timeline="$t/fork.timeline" -- "$BUILD/e2e/timeline" fork > "$t/fork.out" 2>&1
    if [ $? -eq 0 ] && python3 "$t/check.py" "$t/fork.timeline" 2 > "$t/fork.check" 2>&1
    then report "timeline: a forked child lands in the same file" ok
    else cat "$t/fork.out" >> "$t/fork.check"; report "timeline: fork" fail "$t/fork.check"; fi
    # -c: the device's time beside the calls' (launches, copies), the kernels' table
    "$TDTRACE" -q -c -o "$t/c.txt" -- "$BUILD/e2e/timeline" > /dev/null 2>&1
    if grep -qE '^% time +seconds device secs +usecs/call' "$t/c.txt" &&
       grep -qE '^ *[0-9.]+ +[0-9.]+ +[0-9]+\.[0-9]{6} +[0-9]+ +[0-9]+ +4 +cuLaunchKernel$' "$t/c.txt" &&
       grep -qE '^ *[0-9.]+ +[0-9.]+ +[0-9]+\.[0-9]{6} +[0-9]+ +[0-9]+ +1 +cuLaunchHostFunc$' "$t/c.txt" &&
       grep -qE ' +2 +2 busy$' "$t/c.txt" && grep -qE ' +2 +2 handshake$' "$t/c.txt"
    then report "timeline: -c has the device's time per function and the kernels' table" ok
    else report "timeline: -c device time" fail "$t/c.txt"; fi
    # a file that exists (or a link) is never written; the real driver gives no device times
    echo keep > "$t/old.timeline"
    ln -s "$t/old.timeline" "$t/link.timeline"
    "$TDTRACE" -q --timeline="$t/old.timeline" -- "$BUILD/e2e/basic" > "$t/old.out" 2>&1
    local rc1=$?
    "$TDTRACE" -q --timeline="$t/link.timeline" -- "$BUILD/e2e/basic" > "$t/link.out" 2>&1
    local rc2=$?
    if [ $rc1 -eq 1 ] && [ $rc2 -eq 1 ] && [ "$(cat "$t/old.timeline")" = keep ] &&
       grep -q "cannot create the timeline '$t/old.timeline': the file exists" "$t/old.out" &&
       grep -q "cannot create the timeline '$t/link.timeline'" "$t/link.out"
    then report "timeline: an existing file or a link is refused" ok
    else cat "$t/old.out" "$t/link.out" > "$t/old.diff"; report "timeline: existing file" fail "$t/old.diff"; fi
    # instants: a kernel's fault, a policy action, a leak at exit
    "$TDTRACE" -q -o "$t/ev.trace" --timeline="$t/ev.timeline" -- "$BUILD/e2e/events" > /dev/null 2>&1
    "$TDTRACE" -q --policy=none --inject=cuMemAlloc:error=CUDA_ERROR_OUT_OF_MEMORY:when=3+ -o "$t/pol.trace" \
        --timeline="$t/pol.timeline" -- "$BUILD/e2e/policy" oom --inject > /dev/null 2>&1
    "$TDTRACE" -q -o "$t/leak.trace" --timeline="$t/leak.timeline" -- "$BUILD/examples/hello_drv" > /dev/null 2>&1
    if python3 -c '
import json, sys
ev, pol, leak = ([e for e in json.load(open(f))["traceEvents"] if e["ph"] == "i"] for f in sys.argv[1:4])
f = [e for e in ev if e["cat"] == "fault"]
assert len(f) == 1 and f[0]["args"]["kernel"] == "fill" and "CUDA_ERROR_ILLEGAL_ADDRESS" in f[0]["args"]["result"], f
assert [e for e in ev if e["cat"] == "error" and "invalid PTX" in e["args"]["text"]], ev
p = [e for e in pol if e["cat"] == "policy"]
assert p and all(e["name"].startswith("INJECTED by ") and e["args"]["function"] == "cuMemAlloc_v2" for e in p), p
l = [e for e in leak if e["cat"] == "leak"]
assert len(l) == 1 and l[0]["args"]["bytes"] == 4 << 20 and l[0]["args"]["site"] == "cuMemAlloc_v2", l
' "$t/ev.timeline" "$t/pol.timeline" "$t/leak.timeline" > "$t/inst.check" 2>&1
    then report "timeline: instants for a fault, a diagnostic, a policy action, a leak" ok
    else report "timeline: instants" fail "$t/inst.check"; fi
    TDTRACE_CUPTI=off "$TDTRACE" -q --backend=driver --driver="$FAKEDRV" -o "$t/drv.trace" --timeline="$t/drv.timeline" -- "$BUILD/e2e/basic" > /dev/null 2>&1
    if python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
assert d["otherData"]["device_times"] == "none", d["otherData"]
assert [e for e in d["traceEvents"] if e["ph"] == "X" and e["cat"] == "driver"]
assert not [e for e in d["traceEvents"] if e["ph"] == "X" and e["tid"] >= 1000000000]
' "$t/drv.timeline" > "$t/drv.check" 2>&1
    then report "timeline: on a driver without CUPTI (TDTRACE_CUPTI=off), calls only and device_times none" ok
    else report "timeline: driver" fail "$t/drv.check"; fi
}

# On a real GPU the device's times come from CUPTI (src/shim/cupti.c). Here
# the "real driver" is the emulator loaded as one ($FAKEDRV) and libcupti a
# stand-in (tests/e2e/libfakecupti.c) that turns what the emulator runs into
# CUPTI's activity records: the timeline's spans, arrows and -c's device
# column from those; CUPTI refused (insufficient privileges); malformed
# records dropped and counted. The layouts against the toolkit's headers,
# and the names against the toolkit's libcupti, where it is installed.
run_cupti() {
    if ! command -v python3 > /dev/null; then report "cupti (python3 is not installed)" skip; return; fi
    local t=$work/cupti cuda=${CUDA_HOME:-/usr/local/cuda}
    mkdir -p "$t"
    if [ -f "$cuda/include/cupti_activity.h" ]; then
        if ${CC:-cc} -std=c11 -D_GNU_SOURCE -Wall -Wextra -Werror -I"$cuda/include" -Iinclude -fsyntax-only \
               tests/e2e/cupti/layout.c > "$t/layout.err" 2>&1
        then report "cupti: include/tdtrace/cupti.h's layouts and constants are the toolkit's" ok
        else report "cupti: layouts" fail "$t/layout.err"; fi
    else
        report "cupti: layouts (the toolkit's cupti_activity.h is not installed under $cuda)" skip
    fi
    local real=
    for d in "$cuda/lib64" "$cuda/lib" "$cuda/extras/CUPTI/lib64"; do
        [ -f "$d/libcupti.so.13" ] && { real=$d/libcupti.so.13; break; }
    done
    if [ -n "$real" ] && command -v nm > /dev/null; then
        local missing=
        for f in $(grep -oE 'X\(cupti[A-Za-z]+' include/tdtrace/cupti.h | cut -c3-); do
            nm -D --defined-only "$real" | grep -qE " T $f(@|$)" || missing="$missing $f"
        done
        if [ -z "$missing" ]; then report "cupti: the toolkit's libcupti.so.13 exports every function the shim calls" ok
        else echo "missing:$missing" > "$t/nm.err"; report "cupti: names" fail "$t/nm.err"; fi
    else
        report "cupti: names (no libcupti.so.13 under $cuda, or no nm)" skip
    fi
    # the toolkit's own libcupti, where the "driver" is the emulator: CUPTI
    # cannot work with it; the program must run untouched, one warning
    if [ -n "$real" ]; then
        TDTRACE_CUPTI=$real timeout 120 "$TDTRACE" -q --backend=driver --driver="$FAKEDRV" -o "$t/real.trace" \
            --timeline="$t/real.timeline" -- "$BUILD/e2e/timeline" > "$t/real.out" 2>&1
        local rc=$?
        if [ $rc -eq 0 ] && grep -q '^parent: launches 4$' "$t/real.out" &&
           [ "$(grep -c '^cuLaunchKernel(' "$t/real.trace")" = 4 ] &&
           [ "$(grep -c '^tdtrace: warning: CUPTI' "$t/real.trace")" -le 1 ] &&
           { ! grep -q '"device_times":"none"' "$t/real.timeline" ||
             grep -q "^tdtrace: warning: CUPTI: .*: this process's device times are not measured" "$t/real.trace"; } &&
           ! grep -qE '^cuGetExportTable|^cuDriverGetVersion' "$t/real.trace"
        then report "cupti: the toolkit's libcupti on a driver it cannot use: the program untouched, at most one warning ($(grep -o 'CUPTI: [a-zA-Z]*: [A-Z_]*' "$t/real.trace" || echo 'no warning'))" ok
        else echo "exit status $rc" >> "$t/real.trace"; cat "$t/real.out" >> "$t/real.trace"; report "cupti: the toolkit's libcupti" fail "$t/real.trace"; fi
    fi
    export TDTRACE_CUPTI=$top/$BUILD/e2e/libfakecupti.so
    cat > "$t/check.py" <<'PY'
import json, sys
from collections import defaultdict
d = json.load(open(sys.argv[1]))
mode = sys.argv[2]
trace = open(sys.argv[3]).read()
ev = d["traceEvents"]
S = 1000000000
calls = [e for e in ev if e["ph"] == "X" and e["tid"] < S]
work = [e for e in ev if e["ph"] == "X" and e["tid"] >= S]
launches = [c for c in calls if c["name"] == "cuLaunchKernel"]
assert not [c for c in calls if c["name"] == "cuDriverGetVersion"], "libcupti's own driver calls shown as the program's"
assert len(launches) == 4 and all(c["args"]["ret"] == "CUDA_SUCCESS" for c in launches), launches
assert any(e["ph"] == "i" and e["name"] == "exit" for e in ev), "no exit"
if mode == "noperm":
    assert d["otherData"]["device_times"] == "none", d["otherData"]
    assert not work, work
    w = [l for l in trace.splitlines() if "CUPTI" in l]
    assert w == ['tdtrace: warning: CUPTI: cuptiActivityEnable(CONCURRENT_KERNEL): CUPTI_ERROR_INSUFFICIENT_PRIVILEGES (35)'
                 ' (the driver lets only administrators profile: NVreg_RestrictProfilingToAdminUsers=0): this'
                 ' process\'s device times are not measured (the timeline has its calls only)'], w
    assert not [c for c in calls if "corr" in c["args"]], "ids pushed with CUPTI off"
    print("ok"); sys.exit(0)
assert d["otherData"]["device_times"] == "cupti", d["otherData"]
names = {(e["pid"], e["tid"]): e["args"]["name"] for e in ev if e["ph"] == "M" and e["name"] == "thread_name"}
flows_s = {e["id"]: e for e in ev if e["ph"] == "s"}
flows_f = {e["id"]: e for e in ev if e["ph"] == "f"}
by_corr = defaultdict(list)
for w in work:
    assert names[(w["pid"], w["tid"])] == "device %d stream %d" % (w["args"]["device"], w["args"]["stream"]), w
    by_corr[w["args"].get("corr")].append(w)
stream_of = {}
for c in launches:                        # each launch: its kernel, on its stream, an arrow
    k = by_corr[c["args"]["corr"]]
    assert len(k) == 1 and k[0]["cat"] == "kernel", (c, k)
    k = k[0]
    assert k["name"] == c["args"]["call"].split("(", 1)[1].split("<<<")[0], (k, c)
    sname = c["args"]["call"].split(">>>")[0].rsplit(", ", 1)[1]
    assert stream_of.setdefault(sname, k["tid"]) == k["tid"], (sname, stream_of)
    s, f = flows_s[c["args"]["corr"]], flows_f[c["args"]["corr"]]
    assert s["tid"] == c["tid"] and f["tid"] == k["tid"] and f["ts"] == k["ts"], (s, f, k)
    assert k["ts"] >= c["ts"] - 50, (k, c)  # after its launch (the clocks' calibration: within 50 us)
assert len(set(stream_of.values())) == 2, stream_of
copies = sorted(w["name"] for w in work if w["cat"] == "memcpy")
assert copies == ["memcpy DtoH", "memcpy HtoD", "memcpy HtoD"], copies
assert [w["args"]["bytes"] for w in work if w["cat"] == "memset"] == [1 << 20]
assert not [w for w in work if w["cat"] in ("host", "event", "memop")]   # CUPTI is not asked for those
corrs = {c["args"]["corr"] for c in calls if "corr" in c["args"]}
assert all(c["name"].startswith(("cuLaunchKernel", "cuMemcpy", "cuMemset")) for c in calls if "corr" in c["args"])
good = [w for w in work if w["args"].get("corr") in corrs]
assert len(good) == 8, good
warn = [l for l in trace.splitlines() if "CUPTI" in l]
if mode == "good":
    assert good == work and not warn, (work, warn)
else:                                     # hostile: one unnamed kernel delivered, six records dropped
    odd = [w for w in work if w not in good]
    assert len(odd) == 1 and odd[0]["name"] == "?" and "corr" not in odd[0]["args"] and odd[0]["args"]["stream"] == 99, odd
    assert len(warn) == 2 and warn[0].endswith(": 6 activity records dropped: 1 of a kind not enabled, "
        "1 outside the buffer or misaligned, 1 cut short by the buffer's end, 1 naming an id never pushed, "
        "1 with times out of order, 1 on a device or stream out of range"), warn
    assert warn[1].endswith(": 3 activity records lost (CUPTI had no buffer for them): the device's times are incomplete"), warn
    assert "invalid" not in trace, trace
print("ok", len(ev))
PY
    "$TDTRACE" -q --backend=driver --driver="$FAKEDRV" -o "$t/good.trace" --timeline="$t/good.timeline" \
        -- "$BUILD/e2e/timeline" > "$t/good.out" 2>&1
    if [ $? -eq 0 ] && python3 "$t/check.py" "$t/good.timeline" good "$t/good.trace" > "$t/good.check" 2>&1
    then report "cupti: device_times cupti; kernels, copies, a memset on their streams with arrows to their calls" ok
    else cat "$t/good.out" >> "$t/good.check"; report "cupti: timeline" fail "$t/good.check"; fi
    "$TDTRACE" -q -c --backend=driver --driver="$FAKEDRV" -o "$t/c.txt" --json="$work/cupti.json" \
        -- "$BUILD/e2e/timeline" > /dev/null 2>&1
    if [ "$(grep -c '"type":"emulator","pid":[0-9]*,"tid":[0-9]*,"time":[0-9.]*,"event":"kernel","source":"cupti"' \
              "$work/cupti.json")" = 4 ] &&   # run_json checks the records against the schema
       grep -qE '^% time +seconds device secs +usecs/call' "$t/c.txt" &&
       grep -qE '^ *[0-9.]+ +[0-9.]+ +[0-9]+\.[0-9]{6} +[0-9]+ +[0-9]+ +4 +cuLaunchKernel$' "$t/c.txt" &&
       grep -qE '^ *[0-9.]+ +[0-9.]+ +[0-9]+\.[0-9]{6} +[0-9]+ +[0-9]+ +1 +cuMemsetD32Async$' "$t/c.txt" &&
       grep -qE ' +2 +2 busy$' "$t/c.txt" && grep -qE ' +2 +2 handshake$' "$t/c.txt"
    then report "cupti: -c has CUPTI's device time per function and the kernels' table; --json's kernels say source cupti" ok
    else report "cupti: -c" fail "$t/c.txt"; fi
    FAKE_CUPTI_MODE=noperm "$TDTRACE" -q --backend=driver --driver="$FAKEDRV" -o "$t/np.trace" \
        --timeline="$t/np.timeline" -- "$BUILD/e2e/timeline" > "$t/np.out" 2>&1
    if [ $? -eq 0 ] && python3 "$t/check.py" "$t/np.timeline" noperm "$t/np.trace" > "$t/np.check" 2>&1
    then report "cupti: refused (insufficient privileges): one warning, device_times none, the calls all there" ok
    else cat "$t/np.out" >> "$t/np.check"; report "cupti: refused" fail "$t/np.check"; fi
    FAKE_CUPTI_MODE=hostile "$TDTRACE" -q --backend=driver --driver="$FAKEDRV" -o "$t/bad.trace" \
        --timeline="$t/bad.timeline" -- "$BUILD/e2e/timeline" > "$t/bad.out" 2>&1
    if [ $? -eq 0 ] && python3 "$t/check.py" "$t/bad.timeline" hostile "$t/bad.trace" > "$t/bad.check" 2>&1
    then report "cupti: malformed records dropped and counted; a buffer not the shim's left alone" ok
    else cat "$t/bad.out" >> "$t/bad.check"; report "cupti: hostile records" fail "$t/bad.check"; fi
    TDTRACE_CUPTI=$t/nonexistent.so "$TDTRACE" -q --backend=driver --driver="$FAKEDRV" -o "$t/none.trace" \
        --timeline="$t/none.timeline" -- "$BUILD/e2e/timeline" > /dev/null 2>&1
    if [ $? -eq 0 ] && grep -q "^tdtrace: warning: CUPTI: cannot load $t/nonexistent.so: .*: this process's device times are not measured" "$t/none.trace" &&
       grep -q '"device_times":"none"' "$t/none.timeline"
    then report "cupti: a libcupti that does not load: one warning naming it, device_times none" ok
    else report "cupti: not loaded" fail "$t/none.trace"; fi
    unset TDTRACE_CUPTI
}

run_manpage() {
    local missing=
    for opt in $("$TDTRACE" -h | grep -oE '(^|[ ,])--?[a-zA-Z][a-zA-Z-]*' | tr -d ' ,' | sort -u); do
        grep -qF -- "$(printf '%s' "$opt" | sed 's/-/\\-/g')" man/tdtrace.1 || missing="$missing $opt"
    done
    for opt in $(grep -oE '^\.B[IR]* \\-[a-zA-Z\\-]+' man/tdtrace.1 | sed 's/^[^ ]* //; s/\\//g' | sort -u); do
        "$TDTRACE" -h | grep -qE -- "(^|[ ,])$opt([] ,=[]|$)" || missing="$missing $opt(man)"
    done
    if [ -z "$missing" ]; then report "man page and --help agree" ok
    else echo "missing:$missing" > "$work/man.diff"; report "man page and --help agree" fail "$work/man.diff"; fi
}

# every JSON record the runs above wrote matches the published schema
# (share/tdtrace-trace.schema.json), and a record that does not is caught
run_json() {
    local files
    files=$(ls "$work"/*.json 2>/dev/null)
    python3 tools/check-json.py share/tdtrace-trace.schema.json $files > "$work/json.check" 2>&1
    case $? in
    0) report "json: every record of the e2e runs matches the schema ($(tail -1 "$work/json.check" | cut -d' ' -f2) records)" ok ;;
    2) report "json schema ($(head -1 "$work/json.check"))" skip; return ;;
    *) report "json: records that do not match the schema" fail "$work/json.check"; return ;;
    esac
    # a number where a string belongs, and a record of no known type
    { head -1 "$work/basic.1.json"; sed -n 2p "$work/basic.1.json" | sed 's/"pid":\([0-9]*\)/"pid":"\1"/';
      echo '{"type":"mystery"}'; } > "$work/broken.json"
    if ! python3 tools/check-json.py share/tdtrace-trace.schema.json "$work/broken.json" > "$work/broken.check" 2>&1 &&
       grep -q "broken.json:2: .*is not of type 'integer' (at pid)" "$work/broken.check" &&
       grep -q 'broken.json:3: mystery record: no record type matches' "$work/broken.check"
    then report "json: a record that breaks the schema is reported" ok
    else report "json: a broken record is not reported" fail "$work/broken.check"; fi
}

run_listed
run_errors
run_options
run_tree
run_order
run_nvcc
run_driver
run_python
run_timeline
run_cupti
run_manpage
run_json
echo "e2e: $pass passed, $fail failed, $skip skipped"
[ "$fail" -eq 0 ]
