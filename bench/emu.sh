#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# Emulator benchmark: copy bandwidth against memcpy, event and host-function
# latency. BUILD (default build) holds lib/tdtrace/emu; argument: copy MiB.
BUILD=${BUILD:-build}
CC=${CC:-cc}
root=$(cd "$(dirname "$0")/.." && pwd)
lib="$root/$BUILD/lib/tdtrace/emu"
[ -f "$lib/libcuda.so.1" ] || { echo "emu bench: $lib/libcuda.so.1 missing (make BUILD=$BUILD emu)" >&2; exit 1; }
mkdir -p "$root/$BUILD/bench"
$CC -std=c11 -D_GNU_SOURCE -O2 -Wall -Werror -I "$root/include" -I "$root/$BUILD/gen" \
    -o "$root/$BUILD/bench/emu_bench" "$root/bench/emu_bench.c" -L"$lib" -l:libcuda.so.1 || exit 1
LD_LIBRARY_PATH="$lib" "$root/$BUILD/bench/emu_bench" "$@"
