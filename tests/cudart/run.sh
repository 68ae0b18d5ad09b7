#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# The real CUDA runtime (libcudart) on the emulated GPU. Builds the test
# programs with nvcc (runtime linked statically, nvcc's default; with
# -cudart shared; and with --default-stream per-thread) and runs each
# standalone (LD_LIBRARY_PATH=$BUILD/lib/tdtrace/emu) and under tdtrace,
# where the trace must name the driver calls behind each runtime call.
#
#   BUILD=build [NVCC=/path/to/nvcc] [EXTRA_CFLAGS=...] sh tests/cudart/run.sh
#
# Without nvcc (CI machines have no toolkit), or an nvcc that cannot build a
# trivial program here, every test is skipped and counted, the reason printed
# once: the only skips. A program nvcc fails to build is a failure, and so is
# each of its tests. Prints "cudart: N passed, N failed, N skipped"; exits
# nonzero only when something failed.
BUILD=${BUILD:-build}
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
lib="$root/$BUILD/lib/tdtrace/emu"
tdtrace="$root/$BUILD/bin/tdtrace"
out="$root/$BUILD/tests/cudart"
pass=0; fail=0; skip=0

summary() {
    echo "cudart: $pass passed, $fail failed, $skip skipped"
    [ "$fail" -eq 0 ]
    exit
}

# NVCC, and host-side sanitizer flags (make SAN=...) for nvcc's host compiler
. "$(dirname "$0")/../nvcc-env.sh"
xflags=$NVCC_XFLAGS
why="" # set: the reason every test is skipped
if [ -z "$NVCC" ] || [ ! -x "$NVCC" ]; then
    why="nvcc not found (no CUDA toolkit on PATH or in /usr/local/cuda; set TD_NVCC=...)"
    echo "cudart: skipped: $why"
else
    [ -f "$lib/libcuda.so.1" ] || { echo "cudart: $lib/libcuda.so.1 missing (make BUILD=$BUILD emu)" >&2; exit 1; }
    mkdir -p "$out"
fi


# nvcc needs a host compiler it supports: a toolkit that cannot build a
# trivial program here is a skip, not a failure of the emulator
if [ -z "$why" ]; then
    printf 'int main(void) { return 0; }\n' >"$out/probe.cu"
    if ! "$NVCC" $xflags -o "$out/probe" "$out/probe.cu" >"$out/probe.log" 2>&1; then
        msg=$(head -n 1 "$out/probe.log")
        why="$NVCC cannot build a program here: ${msg:-it fails without a message}"
        echo "cudart: skipped: $why"
    fi
fi

ok()   { pass=$((pass + 1)); echo "ok   $1"; }
bad()  { fail=$((fail + 1)); echo "FAIL $1${2:+: $2}"; [ -f "${3:-}" ] && sed 's/^/    /' "$3" | tail -n 40; }
skip() { skip=$((skip + 1)); }  # only with $why set: printed once, counted per test
tmo=""
command -v timeout >/dev/null 2>&1 && tmo="timeout 300"

# build NAME SOURCE NVCC-OPTIONS...
build() {
    name=$1; src=$2; shift 2
    [ -n "$why" ] && return 1
    if "$NVCC" $xflags -std=c++17 -O1 -g "$@" -o "$out/$name" "$here/$src" >"$out/$name.build.log" 2>&1; then
        return 0
    fi
    bad "build $name" "nvcc $*" "$out/$name.build.log"
    rm -f "$out/$name"
    return 1
}

# alone NAME PROGRAM [VAR=VALUE...] -- ARGS: runs it on the emulator
alone() {
    test=$1; prog=$2; shift 2
    [ -n "$why" ] && { skip "$test" "$why"; return; }
    [ -x "$out/$prog" ] || { bad "$test" "$prog was not built (see its build failure)"; return; }
    vars=""
    while [ $# -gt 0 ] && [ "$1" != -- ]; do vars="$vars $1"; shift; done
    [ $# -gt 0 ] && shift
    log="$out/$test.log"
    # shellcheck disable=SC2086
    if env LD_LIBRARY_PATH="$lib" $vars $tmo "$out/$prog" "$@" >"$log" 2>&1 && grep -q '^PASS' "$log"; then
        ok "$test"
    else
        bad "$test" "" "$log"
    fi
}

# traced NAME PROGRAM [VAR=VALUE|--tdtrace-option...] -- NAMES...: runs it
# under tdtrace on the emulator (--emulate unless a --policy says how); each
# of NAMES must be in the trace as a call (-e trace=all: the runtime's
# start-up in full, not folded)
traced() {
    test=$1; prog=$2; shift 2
    [ -n "$why" ] && { skip "$test" "$why"; return; }
    [ -x "$out/$prog" ] || { bad "$test" "$prog was not built (see its build failure)"; return; }
    [ -x "$tdtrace" ] || { bad "$test" "$tdtrace missing (make BUILD=$BUILD tdtrace)"; return; }
    vars=""; topts=""
    while [ $# -gt 0 ] && [ "$1" != -- ]; do
        case $1 in --*) topts="$topts $1" ;; *) vars="$vars $1" ;; esac
        shift
    done
    [ $# -gt 0 ] && shift
    [ -z "$topts" ] && topts=--emulate
    topts="$topts -e trace=all"
    log="$out/$test.log"; trace="$out/$test.trace"
    rm -f "$trace"
    # shellcheck disable=SC2086
    # LeakSanitizer cannot work in a ptraced process (sanitizer builds)
    if ! env ASAN_OPTIONS="detect_leaks=0${ASAN_OPTIONS:+:$ASAN_OPTIONS}" $vars $tmo "$tdtrace" $topts -o "$trace" -- "$out/$prog" >"$log" 2>&1 || ! grep -q '^PASS' "$log"; then
        bad "$test" "" "$log"
        [ -f "$trace" ] && tail -n 20 "$trace" | sed 's/^/    trace: /'
        return
    fi
    missing=""
    for fn in "$@"; do
        grep -Eq "(^|[^A-Za-z0-9_])$fn\(" "$trace" || missing="$missing $fn"
    done
    if [ -n "$missing" ]; then
        bad "$test" "not in the trace:$missing"
    else
        ok "$test"
    fi
}

build runtime-static runtime.cu
build runtime-shared runtime.cu -cudart shared
build runtime-ptds-static runtime.cu --default-stream per-thread
build runtime-ptds-shared runtime.cu --default-stream per-thread -cudart shared
build kernel-static kernel.cu
build kernel-shared kernel.cu -cudart shared
build kernel-ptds-static kernel.cu --default-stream per-thread
build version-static version.cu
build version-shared version.cu -cudart shared
build noinit-static noinit.cu
build noinit-shared noinit.cu -cudart shared
build errors-static errors.cu
build vmm-static vmm.cu
build texture-static texture.cu
build peer-static peer.cu
build ipc-static ipc.cu
build cluster-static cluster.cu -arch=sm_90
build tma-static tma.cu -arch=sm_90
build tmacluster-static tmacluster.cu -arch=sm_90a
build tmahostile-static tmahostile.cu -arch=sm_90
build noclusters-static noclusters.cu -arch=sm_80
build attach-static attach.cu
build poolipc-static poolipc.cu
build managed-static managed.cu
build managed-shared managed.cu -cudart shared

# the calls behind the runtime calls (docs: cudart-private-interface §5)
init="cuInit cuDriverGetVersion cuGetExportTable cuDeviceGetCount cuDeviceGetAttribute cuDeviceGetUuid
      cuDevicePrimaryCtxRetain cuCtxSetCurrent cuCtxGetDevice_v2 cuDevicePrimaryCtxRelease"
legacy="cuMemAlloc_v2 cuMemFree_v2 cuMemcpyHtoD_v2 cuMemcpyDtoH_v2 cuMemcpyDtoD_v2 cuMemcpy
        cuMemcpyHtoDAsync_v2 cuMemcpyDtoHAsync_v2 cuMemcpyDtoDAsync_v2 cuMemcpyAsync
        cuMemsetD8_v2 cuMemsetD8Async cuMemHostAlloc cuMemFreeHost cuPointerGetAttributes
        cuStreamCreate cuStreamCreateWithPriority cuStreamDestroy_v2 cuStreamSynchronize
        cuStreamQuery cuStreamWaitEvent cuEventCreate cuEventRecord cuEventSynchronize
        cuEventQuery cuEventElapsedTime_v2 cuEventDestroy_v2 cuLaunchHostFunc cuStreamAddCallback
        cuMemGetInfo_v2 cuCtxSynchronize_v2 cuDevicePrimaryCtxReset"
ptds="cuMemAlloc_v2 cuMemFree_v2 cuMemcpyHtoD_v2_ptds cuMemcpyDtoH_v2_ptds cuMemcpyDtoD_v2_ptds
      cuMemcpy_ptds cuMemcpyHtoDAsync_v2_ptsz cuMemcpyDtoHAsync_v2_ptsz cuMemcpyAsync_ptsz
      cuMemsetD8_v2_ptds cuMemsetD8Async_ptsz cuMemHostAlloc cuStreamSynchronize_ptsz
      cuStreamQuery_ptsz cuStreamWaitEvent_ptsz cuEventRecord_ptsz cuLaunchHostFunc_ptsz
      cuStreamAddCallback_ptsz cuEventElapsedTime_v2 cuMemGetInfo_v2 cuCtxSynchronize_v2
      cuDevicePrimaryCtxReset"
kern="cuLibraryLoadData cuLibraryGetKernel cuLibraryGetGlobal cuKernelGetFunction cuKernelGetAttribute
      cuOccupancyMaxActiveBlocksPerMultiprocessorWithFlags cuLaunchKernel cuLaunchKernelEx cuLibraryUnload"

# tdtrace's settings of the emulator win over the environment's
printf 'backend emulate\nemulate devices=2\n' >"$out/2dev.policy"

# shellcheck disable=SC2086
{
for v in static shared; do
    alone  runtime-$v          runtime-$v
    alone  runtime-$v-2dev     runtime-$v TDTRACE_EMU_DEVICES=2
    traced runtime-$v-tdtrace  runtime-$v -- $init $legacy
    traced runtime-$v-tdtrace-2dev runtime-$v --policy="$out/2dev.policy" -- $init $legacy cuMemcpyPeer
    alone  runtime-ptds-$v     runtime-ptds-$v
    traced runtime-ptds-$v-tdtrace runtime-ptds-$v -- $init $ptds
    alone  kernel-$v           kernel-$v
    traced kernel-$v-tdtrace   kernel-$v -- $init $kern
    alone  version-$v          version-$v
    traced version-$v-tdtrace  version-$v -- cuDriverGetVersion cuInit
    alone  noinit-$v-devices0  noinit-$v TDTRACE_EMU_DEVICES=0 -- 100
    alone  noinit-$v-visible   noinit-$v CUDA_VISIBLE_DEVICES= -- 100
    traced noinit-$v-tdtrace   noinit-$v CUDA_VISIBLE_DEVICES= -- cuInit
done
alone  errors-static        errors-static
traced errors-static-tdtrace errors-static -- cuMemcpyDtoH_v2 cuMemAlloc_v2 cuDevicePrimaryCtxReset
alone  kernel-ptds-static   kernel-ptds-static
alone  vmm-static           vmm-static
traced vmm-static-tdtrace   vmm-static -- cuMemGetAllocationGranularity cuMemAddressReserve cuMemCreate cuMemMap cuMemSetAccess cuMemUnmap cuMemRelease cuMemAddressFree
alone  texture-static       texture-static
alone  peer-static          peer-static TDTRACE_EMU_DEVICES=2
alone  ipc-static           ipc-static
alone  cluster-static       cluster-static
alone  tma-static           tma-static
alone  tmacluster-static    tmacluster-static
alone  tmahostile-static    tmahostile-static
traced cluster-static-tdtrace cluster-static -- cuLaunchKernelEx cuOccupancyMaxActiveClusters cuOccupancyMaxPotentialClusterSize cuKernelSetAttribute
alone  noclusters-a100      noclusters-static TDTRACE_EMU_PROFILE=a100
alone  attach-static        attach-static
traced attach-static-tdtrace attach-static -- cuMemAllocManaged cuStreamAttachMemAsync
alone  poolipc-static       poolipc-static
alone  managed-static       managed-static TDTRACE_EMU_DEVICES=2
alone  managed-shared       managed-shared
traced managed-static-tdtrace managed-static -- cuLibraryGetManaged
traced poolipc-static-tdtrace poolipc-static -- cuMemPoolCreate cuMemAllocFromPoolAsync cuMemPoolExportToShareableHandle cuMemPoolExportPointer
if [ -z "$why" ]; then # a rank outside the cluster is a fault with a report, not a stray access
    if grep -q "mapa: block rank 99 outside the cluster of 2 blocks" "$out/cluster-static.log"; then
        ok "cluster-static-report"; else bad "cluster-static-report" "" "$out/cluster-static.log"; fi
else
    skip cluster-static-report
fi
traced ipc-static-tdtrace   ipc-static -- cuIpcGetMemHandle cuIpcOpenMemHandle_v2 cuIpcCloseMemHandle
if [ -z "$why" ]; then # a handle passed by value is decoded whole: its 64 bytes (the emulator's starts "tdIPCm1")
    if grep -Eq '^\[pid +[0-9]+\] cuIpcOpenMemHandle_v2\(&0x[0-9a-f]+, "74644950436d3100[0-9a-f]{112}", 1\) = CUDA_SUCCESS$' \
        "$out/ipc-static-tdtrace.trace"; then ok "ipc-static-tdtrace-handle"; else bad "ipc-static-tdtrace-handle" "" "$out/ipc-static-tdtrace.trace"; fi
else
    skip ipc-static-tdtrace-handle
fi
if [ -z "$why" ]; then # the fault's report says why the address was out of reach
    if grep -q "inside a 4000-byte device allocation (cuMemAlloc) of device 1, and device 0 has no peer access to it" \
        "$out/peer-static.log"; then ok "peer-static-report"; else bad "peer-static-report" "" "$out/peer-static.log"; fi
else
    skip peer-static-report
fi
traced texture-static-tdtrace texture-static -- cuArray3DCreate_v2 cuArray3DGetDescriptor_v2 cuMemcpy3D_v2 cuTexObjectCreate cuSurfObjectCreate cuTexObjectGetTextureDesc cuTexObjectDestroy cuSurfObjectDestroy cuArrayDestroy
traced kernel-ptds-static-tdtrace kernel-ptds-static -- cuLibraryLoadData cuLibraryGetKernel cuLaunchKernel_ptsz cuLaunchKernelEx_ptsz
}
summary
