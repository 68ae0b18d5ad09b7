#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# Host library benchmarks, each against the same work done straight by the
# host back end, side by side: SGEMM through the host cuBLAS against
# OpenBLAS, a 1M-point C2C through the host cuFFT against FFTW, a
# convolution through the host cuDNN against oneDNN. BUILD
# (default build) holds lib/tdtrace/emu and lib/tdtrace/host; arguments (for
# the SGEMM): N, rounds. A library that was not built is skipped.
BUILD=${BUILD:-build}
CC=${CC:-cc}
root=$(cd "$(dirname "$0")/.." && pwd)
emu="$root/$BUILD/lib/tdtrace/emu"
host="$root/$BUILD/lib/tdtrace/host"
mkdir -p "$root/$BUILD/bench"
# NAME LIB SONAME BACKEND: builds bench/NAME.c against the host library and
# the back end (pkg-config modules, or -lNAME for a library without a .pc)
bench() {
    name=$1 lib=$2 so=$3 pkg=$4
    shift 4
    case $pkg in
    -l*) cflags="" libs=$pkg ;;
    *) cflags=$(pkg-config --cflags $pkg) libs=$(pkg-config --libs $pkg) ;;
    esac
    if [ ! -f "$host/$so" ]; then
        echo "hostlib bench: $name skipped: $host/$so was not built (its back end is missing: see docs/hostlib.md)"
        return 0
    fi
    $CC -std=c11 -D_GNU_SOURCE -O2 -Wall -Werror -I "$root/include/tdtrace" -I "$root/include" -I "$root/$BUILD/gen" \
        -I "$root/src/hostlib/$lib" $cflags -o "$root/$BUILD/bench/$name" \
        "$root/bench/$name.c" -L"$emu" -L"$host" -l:libcuda.so.1 -l:"$so" $libs || return 1
    LD_LIBRARY_PATH="$emu:$host" "$root/$BUILD/bench/$name" "$@"
}
st=0
bench hostlib_bench cublas libcublas.so.13 openblas "$@" || st=1
echo
bench hostlib_fft_bench cufft libcufft.so.12 fftw3f || st=1
echo
bench hostlib_conv_bench cudnn libcudnn.so.9 -ldnnl || st=1
exit $st
