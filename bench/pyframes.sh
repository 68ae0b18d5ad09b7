#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# The cost of reading the calling thread's Python frames (src/pyframes):
# ns per read beside a call that reads nothing, measured side by side in
# one run, median of 5 runs, for Debian's python3 and each interpreter in
# TD_PYTHONS. "syscalls" is process_vm_readv calls per read: on a machine
# where a system call is cheaper, the read is cheaper by that much.
BUILD=${BUILD:-build}
cd "$(dirname "$0")/.." || exit 1
LIB=$(pwd)/$BUILD/pyframes/libpyft.so
[ -f "$LIB" ] || make -s BUILD="$BUILD" "$BUILD/pyframes/libpyft.so" || exit 1
for py in /usr/bin/python3 ${TD_PYTHONS:-}; do
    [ -x "$py" ] || { echo "(no $py)"; continue; }
    "$py" bench/pyframes.py "$LIB" "${RUNS:-5}" "${READS:-20000}"
done

# --py end to end: a Python program's driver calls (bench/pycalls.py) and a
# C program's (bench/shim_bench.c: no Python, so --py costs one check)
# untraced, recorded (-c), and recorded with --py, median of RUNS runs each
T=$BUILD/bin/tdtrace
EMU=$BUILD/lib/tdtrace/emu
mkdir -p "$BUILD/bench"
cc -O2 -std=c11 -D_GNU_SOURCE -Iinclude -Iinclude/tdtrace -I"$BUILD/gen" -o "$BUILD/bench/shim_bench" \
    bench/shim_bench.c -L"$EMU" -l:libcuda.so.1 || exit 1
RUNS=${RUNS:-5}
median() { sort -g | awk '{v[NR] = $1} END {print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2}'; }
med() { for _ in $(seq "$RUNS"); do "$@"; done | median; }
row() { # name untraced recorded with-py
    awk -v n="$1" -v p="$2" -v c="$3" -v y="$4" 'BEGIN {
        printf "%-34s untraced %8.1f ns/call\n", n, p
        printf "%-34s recorded (-c)      %8.1f ns/call  (ratio %.2f)\n", "", c, c / p
        printf "%-34s recorded, --py     %8.1f ns/call  (ratio %.2f; --py adds %.1f ns, %.2fx recorded)\n", "", y, y / p, y - c, y / c
    }'
}
PYN=${PYN:-100000}
echo "== --py: cost per call, end to end (median of $RUNS runs) =="
for py in /usr/bin/python3 ${TD_PYTHONS:-}; do
    [ -x "$py" ] || continue
    v=$("$py" -c 'import sys; print("%d.%d.%d" % sys.version_info[:3])')
    plain=$(med env LD_LIBRARY_PATH="$EMU" "$py" bench/pycalls.py "$PYN")
    rec=$(med "$T" -q -c -o /dev/null -- "$py" bench/pycalls.py "$PYN")
    withpy=$(med "$T" -q -c --py -o /dev/null -- "$py" bench/pycalls.py "$PYN")
    row "Python $v, 10 frames deep ($PYN)" "$plain" "$rec" "$withpy"
done
N=${N:-1000000}
plain=$(med env LD_LIBRARY_PATH="$EMU" "$BUILD/bench/shim_bench" "$N" ctx)
rec=$(med "$T" -q -c -o /dev/null -- "$BUILD/bench/shim_bench" "$N" ctx)
withpy=$(med "$T" -q -c --py -o /dev/null -- "$BUILD/bench/shim_bench" "$N" ctx)
row "C program, no Python ($N)" "$plain" "$rec" "$withpy"
