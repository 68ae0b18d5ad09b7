#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# GPU ioctl filter overhead (figures only, no assertions):
#  - one trapped ioctl round trip (stop, decode, answer) in microseconds;
#  - 1M cheap syscalls (getppid, 1-byte reads) with the filter installed
#    vs plain, and under strace -f and strace -f --seccomp-bpf -e trace=ioctl.
#   BUILD=build-ioc [N=1000000] [NIOCTL=100000] bench/ioctl.sh
set -u
cd "$(dirname "$0")/.." || exit 2
BUILD=${BUILD:-build}
N=${N:-1000000}
NIOCTL=${NIOCTL:-100000}
make -s BUILD="$BUILD" "$BUILD/libtdcore.a" "$BUILD/libtdcommon.a" >/dev/null || exit 1
B="$BUILD/bench/ioctl_bench"
mkdir -p "$BUILD/bench"
${CC:-cc} -std=c11 -D_GNU_SOURCE -O2 -Wall -Wextra -Werror -pthread -Isrc -Isrc/common -I"$BUILD/gen" \
    -o "$B" bench/ioctl_bench.c "$BUILD/libtdcore.a" "$BUILD/libtdcommon.a" -lseccomp -ldw -lelf -lm || exit 1
DIR=$(mktemp -d /tmp/tdtrace-ioctl-bench.XXXXXX) || exit 2
trap 'rm -rf "$DIR"' EXIT INT TERM
: > "$DIR/gpu0"

best() {  # the fastest of 3 runs of a command printing one number
    for _ in 1 2 3; do "$@"; done | sort -g | head -1
}
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.3f", a / b }'; }

echo "ioctl bench: $(uname -sr), $(nproc) CPUs"
plain_io=$(best "$B" ioctls "$NIOCTL" "$DIR/gpu0")
trap_io=$(best "$B" trace "$DIR/gpu*" -- "$B" ioctls "$NIOCTL" "$DIR/gpu0")
if [ -z "$trap_io" ]; then echo "ioctl bench: skipped (seccomp user notification unavailable)"; exit 0; fi
echo "ioctl on a GPU node, plain:            $plain_io us/call"
echo "ioctl on a GPU node, trapped+decoded:  $trap_io us/call (round trip $(awk -v a="$trap_io" -v b="$plain_io" 'BEGIN{printf "%.2f", a-b}') us)"

plain=$(best "$B" work "$N")
filt=$(best "$B" trace "$DIR/gpu*" -- "$B" work "$N")
echo "$N cheap syscalls, plain:             $plain ns/call"
echo "  with the GPU ioctl filter:           $filt ns/call  ratio $(ratio "$filt" "$plain") (goal <= 1.05)"
if command -v strace >/dev/null; then
    s1=$("$B" trace "$DIR/gpu*" -- /bin/true >/dev/null; strace -f -o /dev/null "$B" work "$N")
    s2=$(strace -f --seccomp-bpf -e trace=ioctl -o /dev/null "$B" work "$N")
    echo "  under strace -f:                     $s1 ns/call  ratio $(ratio "$s1" "$plain")"
    echo "  under strace -f --seccomp-bpf -e trace=ioctl: $s2 ns/call  ratio $(ratio "$s2" "$plain")"
    si=$(strace -f -o /dev/null "$B" ioctls "$NIOCTL" "$DIR/gpu0")
    si2=$(strace -f --seccomp-bpf -e trace=ioctl -o /dev/null "$B" ioctls "$NIOCTL" "$DIR/gpu0")
    echo "ioctl on a GPU node under strace -f: $si us/call; with --seccomp-bpf -e trace=ioctl: $si2 us/call"
fi
