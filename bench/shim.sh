#!/bin/bash
# tdtrace's own costs, measured side by side in one run:
#  - the shim's cost per call in front of the emulator (1M cheap calls)
#  - tdtrace's start-up on /bin/true
#  - following a fork-heavy process tree
set -eu
BUILD=${BUILD:-build}
cd "$(dirname "$0")/.."
T=$BUILD/bin/tdtrace
EMU=$BUILD/lib/tdtrace/emu
B=$BUILD/bench
mkdir -p "$B"
CFLAGS="-O2 -std=c11 -D_GNU_SOURCE -Iinclude -Iinclude/tdtrace -I$BUILD/gen"
cc $CFLAGS -o "$B/shim_bench" bench/shim_bench.c -L"$EMU" -l:libcuda.so.1
cc $CFLAGS -o "$B/forky" bench/forky.c -L"$EMU" -l:libcuda.so.1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
N=${N:-1000000}

best() { # best of 3 runs of a command printing ns/call
    local b=
    for _ in 1 2 3; do
        v=$("$@")
        if [ -z "$b" ] || awk "BEGIN{exit !($v < $b)}"; then b=$v; fi
    done
    echo "$b"
}

echo "== the shim's cost per call ($N calls, best of 3) =="
for fn in ctx event; do
    name=$([ $fn = ctx ] && echo cuCtxGetCurrent || echo cuEventQuery)
    plain=$(best env LD_LIBRARY_PATH="$EMU" "$B/shim_bench" "$N" $fn)
    traced=$(best "$T" -q -o "$tmp/trace" -- "$B/shim_bench" "$N" $fn)
    counted=$(best "$T" -q -c -o "$tmp/trace" -- "$B/shim_bench" "$N" $fn)
    filtered=$(best "$T" -q -e trace=none -o "$tmp/trace" -- "$B/shim_bench" "$N" $fn)
    awk -v n="$name" -v p="$plain" -v t="$traced" -v c="$counted" -v f="$filtered" 'BEGIN {
        printf "%-16s untraced %7.1f ns/call\n", n, p
        printf "%-16s traced, trace to a file     %7.1f ns/call  (+%.1f ns, ratio %.2f)\n", "", t, t - p, t / p
        printf "%-16s traced, -c summary only     %7.1f ns/call  (+%.1f ns, ratio %.2f)\n", "", c, c - p, c / p
        printf "%-16s -e trace=none (not recorded) %6.1f ns/call  (+%.1f ns, ratio %.2f)\n", "", f, f - p, f / p
    }'
done

echo "== start-up: /bin/true, 100 runs =="
t0=$(date +%s%N); for _ in $(seq 100); do /bin/true; done; t1=$(date +%s%N)
for _ in $(seq 100); do "$T" -q -o /dev/null -- /bin/true; done; t2=$(date +%s%N)
awk -v a=$((t1 - t0)) -v b=$((t2 - t1)) 'BEGIN {
    printf "plain %.2f ms per run, under tdtrace %.2f ms per run (+%.2f ms)\n", a/1e8, b/1e8, (b-a)/1e8 }'

echo "== following a fork-heavy tree: 200 children, each a few driver calls =="
t0=$(date +%s%N); LD_LIBRARY_PATH="$EMU" "$B/forky" 200; t1=$(date +%s%N)
"$T" -q -o "$tmp/trace" -- "$B/forky" 200; t2=$(date +%s%N)
awk -v a=$((t1 - t0)) -v b=$((t2 - t1)) 'BEGIN {
    printf "untraced %.1f ms, traced %.1f ms: ratio %.2f\n", a/1e6, b/1e6, b/a }'
