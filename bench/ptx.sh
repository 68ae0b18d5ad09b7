#!/bin/sh
# PTX engine benchmark: thread-instructions per second per core (one host
# thread) and with all cores, for an element-wise and a shared-memory
# kernel. BUILD (default build) holds libemu.a; argument: elements.
BUILD=${BUILD:-build}
CC=${CC:-cc}
root=$(cd "$(dirname "$0")/.." && pwd)
b="$root/$BUILD"
[ -f "$b/libemu.a" ] || { echo "ptx bench: $b/libemu.a missing (make BUILD=$BUILD all)" >&2; exit 1; }
mkdir -p "$b/bench"
$CC -std=c11 -D_GNU_SOURCE -O2 -Wall -Werror -I "$root/include" -I "$root/include/tdtrace" -I "$root/src/common" \
    -I "$root/src/emu" -I "$b/gen" -o "$b/bench/ptx_bench" "$root/bench/ptx_bench.c" "$b/libemu.a" "$b/libtdcommon.a" \
    -lzstd -llz4 -lm -ldl -pthread || exit 1
echo "host cores: $(nproc)"
one=$(TDTRACE_EMU_THREADS=1 "$b/bench/ptx_bench" "$@") || exit 1
all=$("$b/bench/ptx_bench" "$@") || exit 1
echo "$one"
echo "$all"
echo "$one
$all" | awk '/threads=1/ { e1 = $3; s1 = $8 } /threads=all/ { ea = $3; sa = $8 }
    END { if (e1 > 0 && s1 > 0) printf "speed-up with all cores: element-wise %.2fx, shared %.2fx\n", ea / e1, sa / s1 }'
