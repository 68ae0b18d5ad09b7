#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# tdtrace --runtime (docs/runtime-tracing.md): an nvcc-built program with
# the static runtime (nvcc's default), the same with -cudart shared, and a
# stripped copy of the static one, traced on the emulated GPU. The runtime
# calls must show with their driver calls nested (indented) beneath them,
# in text, JSON (parent = the runtime call's id; the schema holds), -ff
# and the summary; -e trace= filters both levels; the stripped copy gets
# one warning and its driver calls.
#
#   BUILD=build [TD_NVCC=...] [EXTRA_CFLAGS=...] sh tests/runtime/run.sh
#
# Without nvcc (or one that cannot build here) every test is skipped with
# the reason. Prints "runtime: N passed, N failed, N skipped".
BUILD=${BUILD:-build}
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
tdtrace="$root/$BUILD/bin/tdtrace"
out="$root/$BUILD/tests/runtime"
# --runtime preloads tdtrace's libtdruntime.so (built without the sanitizers)
# in front of a sanitized program's ASan runtime: let ASan accept it; and
# LeakSanitizer does not work under ptrace (as in tests/cudart)
export ASAN_OPTIONS="detect_leaks=0:${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0"
pass=0; fail=0; skip=0
. "$here/../nvcc-env.sh"
. "$here/../san-env.sh"
san=$(san_preload) # --runtime preloads libtdruntime.so: a sanitizer's runtime goes before it
why=""
if [ -z "$NVCC" ] || [ ! -x "$NVCC" ]; then
    why="nvcc not found (no CUDA toolkit on PATH or in /usr/local/cuda; set TD_NVCC=...)"
fi
mkdir -p "$out"
ok()  { pass=$((pass + 1)); echo "ok   $1"; }
bad() { fail=$((fail + 1)); echo "FAIL $1${2:+: $2}"; [ -f "${3:-}" ] && sed 's/^/    /' "$3" | tail -n 30; }
tmo=""
command -v timeout >/dev/null 2>&1 && tmo="timeout 120"
cudalib=$(dirname "$(dirname "${NVCC:-/x/x}")")/lib64

if [ -z "$why" ]; then
    if ! "$NVCC" $NVCC_XFLAGS -std=c++17 -O1 -g -o "$out/static" "$here/nested.cu" >"$out/build.log" 2>&1 ||
       ! "$NVCC" $NVCC_XFLAGS -std=c++17 -O1 -g -cudart shared -o "$out/shared" "$here/nested.cu" >>"$out/build.log" 2>&1 ||
       ! "$NVCC" $NVCC_XFLAGS -std=c++17 -O1 -g --default-stream per-thread -o "$out/ptstatic" "$here/perthread.cu" >>"$out/build.log" 2>&1 ||
       ! "$NVCC" $NVCC_XFLAGS -std=c++17 -O1 -g --default-stream per-thread -cudart shared -o "$out/ptshared" "$here/perthread.cu" >>"$out/build.log" 2>&1; then
        why="$NVCC cannot build the test program here: $(head -n 1 "$out/build.log")"
    elif ! strip -o "$out/stripped" "$out/static" 2>>"$out/build.log"; then
        bad "strip" "strip failed" "$out/build.log"
    fi
fi
if [ -n "$why" ]; then
    echo "runtime: skipped: $why"
    echo "runtime: 0 passed, 0 failed, 14 skipped"
    exit 0
fi

# trace NAME PROG OPTIONS...: the trace in $out/NAME.trace, the program's output in NAME.out
trace() {
    name=$1; prog=$2; shift 2
    env LD_LIBRARY_PATH="$cudalib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" ${san:+LD_PRELOAD=$san} \
        ASAN_OPTIONS="detect_leaks=0${ASAN_OPTIONS:+:$ASAN_OPTIONS}" \
        $tmo "$tdtrace" --backend=emulate -o "$out/$name.trace" "$@" -- "$out/$prog" >"$out/$name.out" 2>"$out/$name.err"
}

# nested FILE RUNTIME-CALL DRIVER-CALL: the driver call is indented in the
# lines the runtime call encloses (before the next unindented line)
nested() {
    awk -v r="$2(" -v d="  $3(" '
        index($0, r) == 1 { in_r = 1; next }
        in_r && index($0, d) == 1 { found = 1 }
        substr($0, 1, 1) != " " { in_r = 0 }
        END { exit !found }' "$1"
}

for kind in static shared; do
    t="$kind nested"
    if ! trace "$kind" "$kind" --runtime; then
        bad "$t" "tdtrace failed" "$out/$kind.err"
    elif ! grep -q PASS "$out/$kind.out"; then
        bad "$t" "the program failed" "$out/$kind.err"
    elif nested "$out/$kind.trace" cudaMalloc cuMemAlloc_v2 &&
         nested "$out/$kind.trace" cudaMemcpy cuMemcpyHtoD_v2 &&
         nested "$out/$kind.trace" cudaMemcpy cuMemcpyDtoH_v2 &&
         nested "$out/$kind.trace" cudaLaunchKernel cuLaunchKernel &&
         nested "$out/$kind.trace" cudaFree cuMemFree_v2 &&
         grep -q '^cudaLaunchKernel(0x[0-9a-f]*, {x=4, y=1, z=1}, {x=64, y=1, z=1}, .*) = cudaSuccess' "$out/$kind.trace"; then
        ok "$t"
    else
        bad "$t" "a runtime call without its driver call beneath it" "$out/$kind.trace"
    fi
done

# nvcc --default-stream per-thread: the _ptds/_ptsz variants, by their
# names, with their driver calls (the driver's per-thread variants) beneath
for kind in ptstatic ptshared; do
    t="$kind per-thread default stream"
    if ! trace "$kind" "$kind" --runtime; then
        bad "$t" "tdtrace failed" "$out/$kind.err"
    elif ! grep -q PASS "$out/$kind.out"; then
        bad "$t" "the program failed" "$out/$kind.err"
    elif nested "$out/$kind.trace" cudaMemset_ptds cuMemsetD8_v2_ptds &&
         nested "$out/$kind.trace" cudaMemcpy_ptds cuMemcpyHtoD_v2_ptds &&
         nested "$out/$kind.trace" cudaLaunchKernel_ptsz cuLaunchKernel_ptsz &&
         nested "$out/$kind.trace" cudaMemcpyAsync_ptsz cuMemcpyDtoHAsync_v2_ptsz &&
         nested "$out/$kind.trace" cudaStreamSynchronize_ptsz cuStreamSynchronize_ptsz; then
        ok "$t"
    else
        bad "$t" "a per-thread runtime call without its driver call beneath it" "$out/$kind.trace"
    fi
done

# -e trace=NAME selects the variants too (as cuMemAlloc selects cuMemAlloc_v2)
t="per-thread filter"
if trace ptfilter ptstatic --runtime -e trace=cudaMemcpy && grep -q '^cudaMemcpy_ptds(' "$out/ptfilter.trace" &&
   ! grep -q '^ *cu[A-Z]\|^cudaMalloc' "$out/ptfilter.trace"; then
    ok "$t"
else
    bad "$t" "" "$out/ptfilter.trace"
fi

# policies on runtime calls (the program fails: tdtrace's status is its): a denied cudaMalloc returns cudaErrorNotPermitted
# without reaching the driver; an injected cudaMemcpy (the 2nd) the rule's
# cudaError_t; a rule on cudaMemcpy covers cudaMemcpy_ptds; a rule on a
# runtime call that -e trace= leaves out still acts
t="policy on runtime calls"
if { trace deny static --runtime --deny=cudaMalloc; true; } && grep -q '^cudaMalloc failed' "$out/deny.err" &&
   grep -q '^cudaMalloc(.*) = cudaErrorNotPermitted (800) (DENIED by --deny)$' "$out/deny.trace" &&
   ! grep -q 'cuMemAlloc' "$out/deny.trace" &&
   { trace inject static --runtime --inject=cudaMemcpy:error=cudaErrorInvalidValue:when=2; true; } &&
   grep -q '^cudaMemcpy back failed' "$out/inject.err" &&
   grep -q '^cudaMemcpy(.*cudaMemcpyDeviceToHost) = cudaErrorInvalidValue (1) (INJECTED by --inject)$' "$out/inject.trace" &&
   [ "$(grep -c '^cudaMemcpy(' "$out/inject.trace")" = 2 ] &&
   { trace ptdeny ptstatic --runtime --deny=cudaMemcpy:error=cudaErrorInvalidValue; true; } &&
   grep -q '^cudaMemcpy failed' "$out/ptdeny.err" &&
   grep -q '^cudaMemcpy_ptds(.*) = cudaErrorInvalidValue (1) (DENIED by --deny)$' "$out/ptdeny.trace" &&
   { trace hidden static --runtime -e trace=cuMemAlloc --deny=cudaMalloc; true; } && grep -q '^cudaMalloc failed' "$out/hidden.err" &&
   ! grep -q 'cudaMalloc\|cuMemAlloc' "$out/hidden.trace"; then
    ok "$t"
else
    bad "$t" "" "$out/deny.trace"
fi

# a rule whose value is not of the function's status type is refused at load
t="policy refused"
if ! trace badrule static --runtime --deny=cudaMalloc:error=CUDA_ERROR_OUT_OF_MEMORY &&
   grep -q "CUDA_ERROR_OUT_OF_MEMORY is not a cudaError_t (what cudaMalloc returns)" "$out/badrule.err"; then
    ok "$t"
else
    bad "$t" "" "$out/badrule.err"
fi

# JSON: every record valid; the driver call's parent is its runtime call's id
t="json parent"
if trace json static --runtime --json="$out/json.jsonl" &&
   python3 "$root/tools/check-json.py" "$root/share/tdtrace-trace.schema.json" "$out/json.jsonl" >"$out/json.check" 2>&1 &&
   python3 - "$out/json.jsonl" <<'PY'
import json, sys
recs = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
calls = [r for r in recs if r.get("type") == "call"]
def find(name):
    return [r for r in calls if r["call"] == name]
m, a = find("cudaMalloc"), find("cuMemAlloc_v2")
assert m and a, "no cudaMalloc or cuMemAlloc_v2"
assert m[0]["depth"] == 0 and "parent" not in m[0], m[0]
assert a[0]["parent"] == m[0]["id"] and a[0]["depth"] == 1, a[0]
assert calls.index(m[0]) < calls.index(a[0]), "the runtime call comes first"
PY
then ok "$t"; else bad "$t" "" "$out/json.check"; fi

# -ff: the process's own file has the nesting
t="-ff"
rm -f "$out"/ff.trace*
if trace ff static --runtime -ff && nested "$(ls "$out"/ff.trace.[0-9]* | head -n 1)" cudaMalloc cuMemAlloc_v2; then
    ok "$t"
else
    bad "$t" "" "$(ls "$out"/ff.trace.[0-9]* 2>/dev/null | head -n 1)"
fi

# -c: the runtime calls are in the summary
t="summary"
if trace summary static --runtime -c && grep -q ' cudaMalloc$' "$out/summary.trace" &&
   grep -q ' cuMemAlloc_v2$' "$out/summary.trace"; then
    ok "$t"
else
    bad "$t" "" "$out/summary.trace"
fi

# -e trace=%runtime: runtime calls only; -e trace=cuMemAlloc: the driver call, not indented
t="filters"
if trace onlyrt static --runtime -e trace=%runtime && grep -q '^cudaMalloc(' "$out/onlyrt.trace" &&
   ! grep -q '^ *cu[A-Z]' "$out/onlyrt.trace" &&
   trace onlydrv static --runtime -e trace=cuMemAlloc && grep -q '^cuMemAlloc_v2(' "$out/onlydrv.trace" &&
   ! grep -q '^cuda' "$out/onlydrv.trace"; then
    ok "$t"
else
    bad "$t" "" "$out/onlyrt.trace"
fi

# without --runtime: the driver level as before
t="off by default"
if trace off static && grep -q '^cuMemAlloc_v2(' "$out/off.trace" && ! grep -q '^ *cuda' "$out/off.trace"; then
    ok "$t"
else
    bad "$t" "" "$out/off.trace"
fi

# stripped: one warning, the driver calls, no runtime call
t="stripped"
if trace stripped stripped --runtime && grep -q PASS "$out/stripped.out" &&
   [ "$(grep -c 'tdtrace: warning: .*stripped is stripped: the CUDA runtime linked into it cannot be found' "$out/stripped.trace")" = 1 ] &&
   grep -q '^cuMemAlloc_v2(' "$out/stripped.trace" && grep -q '^cuLaunchKernel(' "$out/stripped.trace" &&
   ! grep -q '^ *cuda' "$out/stripped.trace"; then
    ok "$t"
else
    bad "$t" "" "$out/stripped.trace"
fi

# a program without a CUDA runtime is left alone (nothing preloaded loads the shim)
t="no runtime"
if LD_LIBRARY_PATH="$cudalib" $tmo "$tdtrace" --runtime -o "$out/true.trace" -- /bin/true &&
   ! grep -q 'tdtrace: backend\|warning' "$out/true.trace"; then
    ok "$t"
else
    bad "$t" "" "$out/true.trace"
fi

echo "runtime: $pass passed, $fail failed, $skip skipped"
[ "$fail" -eq 0 ]
