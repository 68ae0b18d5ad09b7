#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# tdtrace's own costs, measured side by side in one run, each figure the
# median of RUNS (default 5) runs:
#  - per driver call (1M cheap calls): recording it (-c: the record is
#    written and counted, nothing printed), printing it to a file (-o),
#    and not recording it (-e trace=none)
#  - 1M getppid (a system call nothing traps) untraced, under tdtrace,
#    and under strace -f --seccomp-bpf -e trace=ioctl,openat
#  - start-up on /bin/true
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
RUNS=${RUNS:-5}

median() { sort -g | awk '{v[NR] = $1} END {print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2}'; }
# the median of RUNS runs of a command printing one number
med() { for _ in $(seq "$RUNS"); do "$@"; done | median; }
# ns per run of a command, over 20 runs
per_run() { local t0 t1; t0=$(date +%s%N); for _ in $(seq 20); do "$@" > /dev/null 2>&1; done; t1=$(date +%s%N); echo $(( (t1 - t0) / 20 )); }

echo "== the shim's cost per call ($N calls, median of $RUNS runs) =="
for fn in ctx event; do
    name=$([ $fn = ctx ] && echo cuCtxGetCurrent || echo cuEventQuery)
    plain=$(med env LD_LIBRARY_PATH="$EMU" "$B/shim_bench" "$N" $fn)
    counted=$(med "$T" -q -c -o "$tmp/trace" -- "$B/shim_bench" "$N" $fn)
    traced=$(med "$T" -q -o "$tmp/trace" -- "$B/shim_bench" "$N" $fn)
    filtered=$(med "$T" -q -e trace=none -o "$tmp/trace" -- "$B/shim_bench" "$N" $fn)
    awk -v n="$name" -v p="$plain" -v t="$traced" -v c="$counted" -v f="$filtered" 'BEGIN {
        printf "%-16s untraced %7.1f ns/call\n", n, p
        printf "%-16s recorded (-c)                %7.1f ns/call  (+%.1f ns, ratio %.2f)\n", "", c, c - p, c / p
        printf "%-16s recorded, printed to a file  %7.1f ns/call  (+%.1f ns, ratio %.2f)\n", "", t, t - p, t / p
        printf "%-16s -e trace=none (not recorded) %7.1f ns/call  (+%.1f ns, ratio %.2f)\n", "", f, f - p, f / p
    }'
done

echo "== 1M getppid, a system call nothing traps (median of $RUNS runs) =="
plain=$(med env LD_LIBRARY_PATH="$EMU" "$B/shim_bench" "$N" getppid)
floor=$(med env LD_LIBRARY_PATH="$EMU" "$B/shim_bench" "$N" getppid-filtered)
traced=$(med "$T" -q -o /dev/null -- "$B/shim_bench" "$N" getppid)
if command -v strace > /dev/null; then
    st=$(med env LD_LIBRARY_PATH="$EMU" strace -f --seccomp-bpf -e trace=ioctl,openat -o /dev/null "$B/shim_bench" "$N" getppid)
else
    st=0
fi
awk -v p="$plain" -v t="$traced" -v s="$st" -v f="$floor" 'BEGIN {
    printf "untraced %.1f ns, behind one allow-all seccomp filter %.1f ns (ratio %.2f: the floor of any\n", p, f, f / p
    printf "seccomp-based tracer), under tdtrace %.1f ns (ratio %.2f)", t, t / p
    if (s > 0) printf ", under strace --seccomp-bpf %.1f ns (ratio %.2f)", s, s / p
    printf "\n" }'

echo "== start-up: /bin/true (median of $RUNS rounds of 20 runs) =="
plain=$(med per_run /bin/true)
traced=$(med per_run "$T" -q -o /dev/null -- /bin/true)
awk -v a="$plain" -v b="$traced" 'BEGIN {
    printf "plain %.2f ms per run, under tdtrace %.2f ms per run (+%.2f ms)\n", a/1e6, b/1e6, (b-a)/1e6 }'

echo "== following a fork-heavy tree: 200 children, each a few driver calls (median of $RUNS) =="
one() { local t0 t1; t0=$(date +%s%N); "$@" > /dev/null 2>&1; t1=$(date +%s%N); echo $((t1 - t0)); }
plain=$(med one env LD_LIBRARY_PATH="$EMU" "$B/forky" 200)
traced=$(med one "$T" -q -o "$tmp/trace" -- "$B/forky" 200)
awk -v a="$plain" -v b="$traced" 'BEGIN {
    printf "untraced %.1f ms, traced %.1f ms: ratio %.2f\n", a/1e6, b/1e6, b/a }'
