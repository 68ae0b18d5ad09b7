#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# The PTX engine's conformance suite: one .cu program per area (SIMT model,
# integer and conversion instructions, calls, memory and async copies,
# tensor cores, modules and faults, runaway and deadlocked kernels), built
# with nvcc as PTX only (compute_90: the emulated H100 runs the PTX) and run
# on the emulated GPU; each checks its results against a host computation
# and prints "ok"/"FAIL" lines. The hang cases must end within seconds with
# the documented error.
# BUILD (default build): the build directory holding lib/tdtrace/emu.
# Without nvcc everything is skipped with the reason; never a failure.
# ENGINES (default interp): the PTX engines to run everything on, one
# after the other ("interp jit": both; docs/ptx-jit.md); with more than one,
# each line names its engine.
# Prints "conformance: N passed, N failed, N skipped"; exits nonzero on failure.
BUILD=${BUILD:-build}
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
lib="$root/$BUILD/lib/tdtrace/emu"
out="$root/$BUILD/tests/conformance"
pass=0; fail=0; skip=0
. "$here/../nvcc-env.sh"
PROGS=${PROGS:-"simt intops fpconv calls memasync tensor modules libs hang"}
ENGINES=${ENGINES:-interp}
if [ -z "$NVCC" ] || ! "$NVCC" --version >/dev/null 2>&1; then
    echo "conformance: skipped: no nvcc (the CUDA toolkit is not installed)"
    echo "conformance: 0 passed, 0 failed, 1 skipped"
    exit 0
fi
[ -f "$lib/libcuda.so.1" ] || { echo "conformance: $lib/libcuda.so.1 missing (make BUILD=$BUILD emu)" >&2; exit 1; }
mkdir -p "$out"
ok()  { pass=$((pass + 1)); echo "ok   $1"; }
bad() { fail=$((fail + 1)); echo "FAIL $1"; [ -f "$2" ] && sed 's/^/    /' "$2"; }

# build two at a time; driver-API programs link the emulator's libcuda
build() {
    rm -f "$out/$1"
    "$NVCC" $NVCC_XFLAGS -gencode arch=compute_90,code=compute_90 -lineinfo -I "$here" -o "$out/$1" "$here/$1.cu" \
        -L"$lib" -lcuda >"$out/$1.build.log" 2>&1
}
set -- $PROGS
while [ $# -gt 0 ]; do
    build "$1" & p1=$!
    p2=""
    if [ $# -gt 1 ]; then build "$2" & p2=$!; fi
    wait $p1
    [ -n "$p2" ] && wait $p2
    shift; [ $# -gt 0 ] && shift
done

for p in $PROGS; do
    if [ ! -x "$out/$p" ]; then bad "$p (build)" "$out/$p.build.log"; continue; fi
done
tag=""
for engine in $ENGINES; do
[ "$ENGINES" = "$engine" ] || tag=" [$engine]"
export TDTRACE_EMU_ENGINE=$engine
for p in $PROGS; do
    if [ ! -x "$out/$p" ] || [ $p = hang ]; then continue; fi
    log="$out/$p.$engine.log"
    if env LD_LIBRARY_PATH="$lib" timeout 120 "$out/$p" >"$log" 2>&1; then
        ok "$p$tag: $(grep -c '^ok ' "$log") checks$(grep -c 'engine jit' "$log" | sed '/^0$/d; s/.*/, & kernels compiled/')"
    else bad "$p$tag" "$log"; fi
done

# The hang cases: each ends in seconds with the documented error. A real
# GPU would hang; the emulator names the kernel, block and barrier.
hang() { # name env... -- expected-status expected-text
    name=$1; shift
    envs=""
    while [ "$1" != "--" ]; do envs="$envs $1"; shift; done
    shift
    want=$1 text=$2
    log="$out/hang-$name.$engine.log"
    start=$(date +%s)
    env LD_LIBRARY_PATH="$lib" $envs timeout 60 "$out/hang" "$name" >"$log" 2>&1
    took=$(( $(date +%s) - start ))
    if grep -q "^status $want\$" "$log" && grep -q "$text" "$log" && [ "$took" -le 20 ]; then ok "hang $name$tag: $want in ${took}s"
    else bad "hang $name$tag (wanted $want and '$text' within 20 s, took ${took}s)" "$log"; fi
}
if [ -x "$out/hang" ] && echo " $PROGS " | grep -q " hang "; then
    hang barrier -- cudaErrorLaunchFailure "deadlock: no thread of block (0,0,0) can go on: barrier 1"
    hang syncwarp -- cudaErrorLaunchFailure "bar.warp.sync can never complete: lanes 0xffff0000 of its member mask 0xffffffff have exited"
    hang loop TDTRACE_EMU_TIMEOUT=2 -- cudaErrorLaunchTimeout "time limit of 2000 ms exceeded"
    hang budget TDTRACE_EMU_MAX_INSTRUCTIONS=50000000 -- cudaErrorLaunchTimeout "instruction budget of 50000000"
    hang shfl -- cudaErrorIllegalInstruction "reads lane 16, which has exited"
fi
done
echo "conformance: $pass passed, $fail failed, $skip skipped"
[ "$fail" -eq 0 ]
