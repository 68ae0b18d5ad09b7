#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# NVIDIA's own libraries, unmodified, on the emulated GPU: their kernels run
# from the PTX they ship (for compute_120: the rtx5090 profile) and each
# result is checked against a host computation. cuSPARSE SpMV (CSR) and
# cuSOLVER's dense Cholesky (potrf, through NVIDIA's cuBLAS). Thrust and
# CUB are in tests/conformance (libs), cuRAND in tests/hostlib.
# BUILD (default build): the build directory holding lib/tdtrace/emu.
# Without nvcc or one of the libraries, that program is skipped with the
# reason; never a failure.
# Prints "nvlibs: N passed, N failed, N skipped"; exits nonzero on failure.
BUILD=${BUILD:-build}
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
lib="$root/$BUILD/lib/tdtrace/emu"
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
for spec in "spmv:cusparse" "potrf:cusolver cublas"; do
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
    if env LD_LIBRARY_PATH="$lib" TDTRACE_EMU_PROFILE=rtx5090 timeout 300 "$out/$p" >"$out/$p.log" 2>&1; then
        pass=$((pass + 1)); echo "ok   $(grep PASS "$out/$p.log")"
    else
        fail=$((fail + 1)); echo "FAIL $p"; sed 's/^/    /' "$out/$p.log"
    fi
done
echo "nvlibs: $pass passed, $fail failed, $skip skipped"
[ "$fail" -eq 0 ]
