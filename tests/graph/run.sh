#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# CUDA graphs and stream capture through the real CUDA runtime on the
# emulated GPU: builds graphs.cu with nvcc (static and shared runtime) and
# runs it standalone and under tdtrace, where the trace must hold the
# driver's graph calls behind the runtime's; the DOT file it writes must
# parse with Graphviz's dot.
#
#   BUILD=build [NVCC=/path/to/nvcc] [EXTRA_CFLAGS=...] sh tests/graph/run.sh
#
# Without nvcc every test is skipped and counted, the reason printed once;
# without dot (tools/setup-debian.sh installs it) the DOT check is. A
# program nvcc fails to build is a failure. Prints "graph: N passed, N
# failed, N skipped"; exits nonzero only when something failed.
BUILD=${BUILD:-build}
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
lib="$root/$BUILD/lib/tdtrace/emu"
tdtrace="$root/$BUILD/bin/tdtrace"
out="$root/$BUILD/tests/graph"
pass=0; fail=0; skip=0

. "$here/../nvcc-env.sh"
why=""
if [ -z "$NVCC" ] || [ ! -x "$NVCC" ]; then
    why="nvcc not found (no CUDA toolkit on PATH or in /usr/local/cuda; set TD_NVCC=...)"
    echo "graph: skipped: $why"
else
    [ -f "$lib/libcuda.so.1" ] || { echo "graph: $lib/libcuda.so.1 missing (make BUILD=$BUILD emu)" >&2; exit 1; }
    mkdir -p "$out"
fi

ok()   { pass=$((pass + 1)); echo "ok   $1"; }
bad()  { fail=$((fail + 1)); echo "FAIL $1${2:+: $2}"; [ -f "${3:-}" ] && sed 's/^/    /' "$3" | tail -n 40; }
skipped() { skip=$((skip + 1)); echo "skip $1: $2"; }
tmo=""
command -v timeout >/dev/null 2>&1 && tmo="timeout 300"

calls="cuStreamBeginCapture_v2 cuStreamBeginCaptureToGraph cuStreamEndCapture cuStreamGetCaptureInfo_v3
       cuStreamUpdateCaptureDependencies_v2 cuThreadExchangeStreamCaptureMode cuGraphCreate cuGraphAddKernelNode_v2
       cuGraphAddMemsetNode cuGraphAddMemcpyNode cuGraphAddHostNode cuGraphAddChildGraphNode cuGraphAddEventRecordNode
       cuGraphAddMemAllocNode cuGraphAddNode_v2 cuGraphConditionalHandleCreate cuGraphInstantiateWithFlags
       cuGraphLaunch cuGraphExecKernelNodeSetParams_v2 cuGraphExecUpdate_v2 cuGraphClone cuGraphNodeFindInClone
       cuGraphDebugDotPrint cuDeviceGraphMemTrim cuDeviceGetGraphMemAttribute cuUserObjectCreate
       cuGraphRetainUserObject cuGraphExecDestroy cuGraphDestroy"

for v in static shared; do
    prog="$out/graphs-$v"
    if [ -n "$why" ]; then
        for t in run tdtrace dot; do skip=$((skip + 1)); done
        continue
    fi
    flags=""
    [ $v = shared ] && flags="-cudart shared"
    # shellcheck disable=SC2086
    if ! "$NVCC" $NVCC_XFLAGS $flags -std=c++17 -O1 -g -o "$prog" "$here/graphs.cu" >"$prog.build.log" 2>&1; then
        bad "graphs-$v (build)" "" "$prog.build.log"
        continue
    fi
    log="$out/graphs-$v.log"; dotf="$out/graphs-$v.dot"
    rm -f "$dotf"
    # shellcheck disable=SC2086
    if env LD_LIBRARY_PATH="$lib" $tmo "$prog" "$dotf" >"$log" 2>&1 && grep -q '^PASS' "$log"; then
        ok "graphs-$v"
    else
        bad "graphs-$v" "" "$log"
    fi
    if ! command -v dot >/dev/null 2>&1; then
        skipped "graphs-$v DOT" "Graphviz's dot is not installed (tools/setup-debian.sh installs it)"
    elif [ -s "$dotf" ] && dot -Tcanon "$dotf" >"$out/graphs-$v.canon" 2>"$out/graphs-$v.dot.log" &&
         grep -q 'cluster_' "$out/graphs-$v.canon"; then
        ok "graphs-$v DOT parses"
    else
        bad "graphs-$v DOT parses" "" "$out/graphs-$v.dot.log"
    fi
    trace="$out/graphs-$v.trace"
    rm -f "$trace"
    if [ ! -x "$tdtrace" ]; then
        bad "graphs-$v-tdtrace" "$tdtrace missing (make BUILD=$BUILD tdtrace)"
        continue
    fi
    # LeakSanitizer cannot work in a ptraced process (sanitizer builds)
    # shellcheck disable=SC2086
    if ! env ASAN_OPTIONS="detect_leaks=0${ASAN_OPTIONS:+:$ASAN_OPTIONS}" $tmo "$tdtrace" --emulate -o "$trace" -- \
            "$prog" "$dotf.traced" >"$log.tdtrace" 2>&1 || ! grep -q '^PASS' "$log.tdtrace"; then
        bad "graphs-$v-tdtrace" "" "$log.tdtrace"
        continue
    fi
    missing=""
    for fn in $calls; do
        grep -Eq "(^|[^A-Za-z0-9_])$fn\(" "$trace" || missing="$missing $fn"
    done
    if [ -n "$missing" ]; then bad "graphs-$v-tdtrace" "not in the trace:$missing"; else ok "graphs-$v-tdtrace"; fi
done
echo "graph: $pass passed, $fail failed, $skip skipped"
[ "$fail" -eq 0 ]
