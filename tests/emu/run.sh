#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# Build the end-to-end programs against the built emulator and run them.
# BUILD (default build): the build directory holding lib/tdtrace/emu.
# Prints "emu-e2e: N passed, N failed"; exits nonzero on failure.
BUILD=${BUILD:-build}
CC=${CC:-cc}
here=$(dirname "$0")
root=$(cd "$here/../.." && pwd)
lib="$root/$BUILD/lib/tdtrace/emu"
out="$root/$BUILD/tests/emu"
mkdir -p "$out"
[ -f "$lib/libcuda.so.1" ] || { echo "emu-e2e: $lib/libcuda.so.1 missing (make BUILD=$BUILD emu)" >&2; exit 1; }
pass=0; fail=0
run() { # name, env..., -- args
    name=$1; shift
    if env LD_LIBRARY_PATH="$lib" "$@" >"$out/$name.log" 2>&1; then
        pass=$((pass + 1)); echo "ok   $name"
    else
        fail=$((fail + 1)); echo "FAIL $name"; sed 's/^/    /' "$out/$name.log"
    fi
}
for p in devquery bandwidth streams mtalloc; do
    $CC ${EXTRA_CFLAGS:-} -std=c11 -D_GNU_SOURCE -O1 -g -Wall -Werror -pthread -I "$root/include" -I "$root/$BUILD/gen" \
        -o "$out/$p" "$here/$p.c" -L"$lib" -l:libcuda.so.1 || { fail=$((fail + 1)); continue; }
done
$CC ${EXTRA_CFLAGS:-} -std=c11 -D_GNU_SOURCE -O1 -g -Wall -Werror -I "$root/include" -I "$root/$BUILD/gen" \
    -o "$out/unsupported" "$here/unsupported.c" -L"$lib" -lcuda || fail=$((fail + 1))

run devquery "$out/devquery" 1
run devquery-4 TDTRACE_EMU_DEVICES=4 TDTRACE_EMU_PROFILE=a100 "$out/devquery" 4
run devquery-visible TDTRACE_EMU_DEVICES=4 CUDA_VISIBLE_DEVICES=3,1,x,2 "$out/devquery" 2
run devquery-t4 TDTRACE_EMU_PROFILE=t4 TDTRACE_EMU_MEMORY=2GiB "$out/devquery" 1
run bandwidth "$out/bandwidth"
run streams "$out/streams"
run mtalloc "$out/mtalloc"
run unsupported "$out/unsupported"
# no devices at all: cuInit says so
if env LD_LIBRARY_PATH="$lib" CUDA_VISIBLE_DEVICES= "$out/devquery" 0 2>&1 | grep -q CUDA_ERROR_NO_DEVICE; then
    pass=$((pass + 1)); echo "ok   no-devices"
else
    fail=$((fail + 1)); echo "FAIL no-devices"
fi
echo "emu-e2e: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
