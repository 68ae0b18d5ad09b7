#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# NVIDIA's own libraries, unmodified, on the emulated GPU: their kernels run
# from the PTX they ship (for compute_120: the rtx5090 profile) and each
# result is checked against a host computation. cuSPARSE SpMV (CSR) and
# cuSOLVER's dense Cholesky (potrf, through NVIDIA's cuBLAS), NCCL's
# all-reduce, broadcast and all-gather across 2 devices. Thrust and
# CUB are in tests/conformance (libs), cuRAND in tests/hostlib.
# BUILD (default build): the build directory holding lib/tdtrace/emu.
# Without nvcc or one of the libraries, that program is skipped with the
# reason; never a failure.
# Prints "nvlibs: N passed, N failed, N skipped"; exits nonzero on failure.
BUILD=${BUILD:-build}
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
lib="$root/$BUILD/lib/tdtrace/emu"
nvml="$root/$BUILD/lib/tdtrace/front/nvml"
out="$root/$BUILD/tests/nvlibs"
pass=0; fail=0; skip=0
. "$here/../nvcc-env.sh"
if [ -z "$NVCC" ] || ! "$NVCC" --version >/dev/null 2>&1; then
    echo "nvlibs: skipped: no nvcc (the CUDA toolkit is not installed)"
    echo "nvlibs: 0 passed, 0 failed, 1 skipped"
    exit 0
fi
[ -f "$lib/libcuda.so.1" ] || { echo "nvlibs: $lib/libcuda.so.1 missing (make BUILD=$BUILD emu)" >&2; exit 1; }
cudalib=$(dirname "$(dirname "$(command -v "$NVCC")")")/lib64
mkdir -p "$out"
# name: the libraries it links
for spec in "spmv:cusparse" "potrf:cusolver cublas" "allreduce:nccl"; do
    p=${spec%%:*}
    libs=""; missing=""
    for l in ${spec#*:}; do
        libs="$libs -l$l"
        ls "$cudalib"/lib$l.so* >/dev/null 2>&1 || missing="$missing lib$l"
    done
    if [ -n "$missing" ]; then
        skip=$((skip + 1)); echo "skip $p: the toolkit has no$missing"; continue
    fi
    rm -f "$out/$p"
    if ! "$NVCC" $NVCC_XFLAGS -o "$out/$p" "$here/$p.cu" $libs >"$out/$p.build.log" 2>&1; then
        fail=$((fail + 1)); echo "FAIL $p (build)"; sed 's/^/    /' "$out/$p.build.log"; continue
    fi
    # NCCL: 2 devices, and NVML, which the emulated GPU's is tdtrace's
    # (src/hostlib/nvml; alone on the path, as tdtrace puts it)
    case $p in
    allreduce) [ -f "$nvml/libnvidia-ml.so.1" ] || {
        skip=$((skip + 1)); echo "skip $p: $nvml/libnvidia-ml.so.1 was not built"; continue; }
        path="$lib:$nvml" devs=2 ;;
    *) path="$lib" devs=1 ;;
    esac
    if env LD_LIBRARY_PATH="$path" TDTRACE_EMU_PROFILE=rtx5090 TDTRACE_EMU_DEVICES=$devs timeout 300 "$out/$p" >"$out/$p.log" 2>&1; then
        pass=$((pass + 1)); echo "ok   $(grep PASS "$out/$p.log")"
    else
        fail=$((fail + 1)); echo "FAIL $p"; sed 's/^/    /' "$out/$p.log"
    fi
done
echo "nvlibs: $pass passed, $fail failed, $skip skipped"
[ "$fail" -eq 0 ]
