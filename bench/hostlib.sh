#!/bin/sh
# Host library benchmark: SGEMM through the host cuBLAS on the emulated GPU
# against the same call straight to the host BLAS. BUILD (default build)
# holds lib/tdtrace/emu and lib/tdtrace/host; arguments: N, rounds.
BUILD=${BUILD:-build}
CC=${CC:-cc}
root=$(cd "$(dirname "$0")/.." && pwd)
emu="$root/$BUILD/lib/tdtrace/emu"
host="$root/$BUILD/lib/tdtrace/host"
if [ ! -f "$host/libcublas.so.13" ]; then
    echo "hostlib bench: skipped: $host/libcublas.so.13 was not built (no OpenBLAS: see docs/hostlib.md)"
    exit 0
fi
mkdir -p "$root/$BUILD/bench"
$CC -std=c11 -D_GNU_SOURCE -O2 -Wall -Werror -I "$root/include/tdtrace" -I "$root/include" -I "$root/$BUILD/gen" \
    -I "$root/src/hostlib/cublas" $(pkg-config --cflags openblas) -o "$root/$BUILD/bench/hostlib_bench" \
    "$root/bench/hostlib_bench.c" -L"$emu" -L"$host" -l:libcuda.so.1 -l:libcublas.so.13 \
    $(pkg-config --libs openblas) || exit 1
LD_LIBRARY_PATH="$emu:$host" "$root/$BUILD/bench/hostlib_bench" "$@"
