#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# tdtrace -p's costs (bench/attach_bench.c: a thread calling cuCtxGetCurrent
# through a pointer cached before the attach, another watching the clock),
# each figure the median of RUNS (default 5) attaches:
#  - from starting tdtrace -p to its first traced call (-ttt timestamps)
#  - the pause the program's threads see at the attach (every thread
#    stopped while the patches go in) and at the detach (every thread
#    stopped while they come out): the longest gap the clock-watching
#    thread saw in each window
set -eu
BUILD=${BUILD:-build}
cd "$(dirname "$0")/.."
T=$BUILD/bin/tdtrace
EMU=$BUILD/lib/tdtrace/emu
B=$BUILD/bench
mkdir -p "$B"
cc -O2 -std=c11 -D_GNU_SOURCE -pthread -Iinclude -Iinclude/tdtrace -I"$BUILD/gen" -o "$B/attach_bench" \
    bench/attach_bench.c -L"$EMU" -l:libcuda.so.1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
RUNS=${RUNS:-5}
median() { sort -g | awk '{v[NR] = $1} END {print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2}'; }

for i in $(seq "$RUNS"); do
    rm -f "$tmp/ready" "$tmp/stop"
    LD_LIBRARY_PATH=$EMU "$B/attach_bench" "$tmp/ready" "$tmp/stop" > "$tmp/gaps" &
    p=$!
    while [ ! -s "$tmp/ready" ]; do sleep 0.02; done
    sleep 0.3
    t0=$(date +%s%N)
    "$T" -q -ttt -o "$tmp/trace" -e trace=cuCtxGetCurrent --detach-after=1s -p "$p" 2> "$tmp/err"
    t1=$(date +%s%N)
    touch "$tmp/stop"
    wait "$p"
    first=$(awk 'NR == 1 {split($1, s, "."); print s[1] s[2] "000"; exit}' "$tmp/trace")
    # the attach window: from t0 to the first traced call; the detach
    # window: the last 300 ms of tdtrace's run
    awk -v t0="$t0" -v f="$first" -v t1="$t1" '
        $1 == "gap" && $2 >= t0 && $2 <= f && $3 > a { a = $3 }
        $1 == "gap" && $2 >= t1 - 300000000 && $2 <= t1 && $3 > d { d = $3 }
        END { printf "%d %d %d\n", (f - t0) / 1000, a / 1000, d / 1000 }' "$tmp/gaps" >> "$tmp/runs"
done
echo "== tdtrace -p on a program calling the driver in a loop (median of $RUNS attaches) =="
awk '{print $1}' "$tmp/runs" | median | awk '{printf "from tdtrace -p to the first traced call  %8.1f ms\n", $1 / 1000}'
awk '{print $2}' "$tmp/runs" | median | awk '{printf "pause the program sees at the attach     %8.1f ms (every thread stopped)\n", $1 / 1000}'
awk '{print $3}' "$tmp/runs" | median | awk '{printf "pause the program sees at the detach     %8.1f ms (every thread stopped)\n", $1 / 1000}'
echo "(each run: first-call us, attach pause us, detach pause us)"
cat "$tmp/runs"
