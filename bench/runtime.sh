#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# tdtrace --runtime: the added cost per CUDA runtime call, side by side
# with the driver level alone (the shim recording the driver calls, -c),
# each figure the median of RUNS (default 5) runs of N calls of
#  - cudaGetDevice (the runtime answers from its own state: no driver call)
#  - cudaMemcpy of 4 bytes host to device (one cuMemcpyHtoD_v2 inside)
# on the emulated GPU. Needs nvcc (skipped with the reason otherwise).
set -eu
BUILD=${BUILD:-build}
cd "$(dirname "$0")/.."
T=$BUILD/bin/tdtrace
EMU=$BUILD/lib/tdtrace/emu
B=$BUILD/bench
mkdir -p "$B"
. tests/nvcc-env.sh
if [ -z "$NVCC" ] || [ ! -x "$NVCC" ]; then
    echo "runtime: skipped: nvcc not found (set TD_NVCC=...)"
    exit 0
fi
"$NVCC" -O2 -o "$B/runtime_bench" bench/runtime_bench.cu
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
N=${N:-100000}
RUNS=${RUNS:-5}
median() { sort -g | awk '{v[NR] = $1} END {print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2}'; }
med() { for _ in $(seq "$RUNS"); do "$@"; done | median; }

echo "== --runtime: cost per runtime call ($N calls, median of $RUNS runs, emulated GPU) =="
for what in getdevice memcpy; do
    plain=$(med env LD_LIBRARY_PATH="$EMU" "$B/runtime_bench" "$N" $what)
    drv=$(med "$T" -q -c --backend=emulate -o "$tmp/t" -- "$B/runtime_bench" "$N" $what)
    rt=$(med "$T" -q -c --backend=emulate --runtime -o "$tmp/t" -- "$B/runtime_bench" "$N" $what)
    awk -v n="$what" -v p="$plain" -v d="$drv" -v r="$rt" 'BEGIN {
        printf "%-10s untraced                        %8.1f ns/call\n", n, p
        printf "%-10s driver level recorded (-c)      %8.1f ns/call  (+%.1f ns)\n", "", d, d - p
        printf "%-10s --runtime recorded (-c)         %8.1f ns/call  (+%.1f ns over the driver level)\n", "", r, r - d
    }'
done
