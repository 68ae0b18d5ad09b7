#!/bin/sh
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
