#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# The cost of --timeline, side by side in one run, each figure the median
# of RUNS (default 5) runs of N rounds (default 20000) of small work on two
# emulated streams (bench/timeline_bench.c: per round and stream a memset,
# a kernel that does nothing and an event record; six calls, six device
# operations): untraced, recorded without a timeline (-o /dev/null), and
# recorded with --timeline (the emulator then times every operation and
# tdtrace writes a span, and a flow, for each).
set -eu
BUILD=${BUILD:-build}
cd "$(dirname "$0")/.."
T=$BUILD/bin/tdtrace
EMU=$BUILD/lib/tdtrace/emu
B=$BUILD/bench
mkdir -p "$B"
cc -O2 -std=c11 -D_GNU_SOURCE -Iinclude -Iinclude/tdtrace -I"$BUILD/gen" -o "$B/timeline_bench" \
    bench/timeline_bench.c -L"$EMU" -l:libcuda.so.1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
N=${N:-20000}
RUNS=${RUNS:-5}

median() { sort -g | awk '{v[NR] = $1} END {print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2}'; }
plain=() off=() on=()
for k in $(seq "$RUNS"); do  # interleaved, so that a change in the machine's load touches all three
    plain+=("$(env LD_LIBRARY_PATH="$EMU" "$B/timeline_bench" "$N")")
    off+=("$("$T" -q -o /dev/null -- "$B/timeline_bench" "$N")")
    on+=("$("$T" -q -o /dev/null --timeline="$tmp/t$k.json" -- "$B/timeline_bench" "$N")")
done
p=$(printf '%s\n' "${plain[@]}" | median)
a=$(printf '%s\n' "${off[@]}" | median)
b=$(printf '%s\n' "${on[@]}" | median)
size=$(stat -c %s "$tmp/t1.json")
echo "== --timeline: $N rounds of 6 calls and 6 device operations on 2 streams, median of $RUNS runs =="
awk -v p="$p" -v a="$a" -v b="$b" -v s="$size" -v n="$N" 'BEGIN {
    printf "untraced                      %9.1f ns/round\n", p
    printf "recorded (-o /dev/null)       %9.1f ns/round  (ratio %.2f to untraced)\n", a, a / p
    printf "recorded with --timeline      %9.1f ns/round  (ratio %.2f to untraced, %.2f to recorded)\n", b, b / p, b / a
    printf "timeline file: %d bytes, %.0f bytes a round\n", s, s / n
}'
