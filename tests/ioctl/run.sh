#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# Live tests of src/ioctl: the harness installs the seccomp filter in a
# child, runs tests/ioctl/target there and prints every GPU ioctl; each
# case diffs that against the lines the target says must appear.
#   BUILD=build-ioc [SAN=asan] tests/ioctl/run.sh
# Prints "ioctl: N passed, N failed, N skipped". The cases are skipped
# (counted, with the reason) only where the kernel has no seccomp user
# notification at all; a filter that fails to install on a kernel that has
# it is a failure.
set -u
cd "$(dirname "$0")/../.." || exit 2
BUILD=${BUILD:-build}
SAN=${SAN:-}
CC=${CC:-cc}

make -s BUILD="$BUILD" SAN="$SAN" "$BUILD/libtdcore.a" "$BUILD/libtdcommon.a" >/dev/null || {
    echo "ioctl: build failed"; exit 1; }
# the build's flags (make passes them; SAN=asan alone still works by hand)
OPT=${EXTRA_CFLAGS:-"-O2 -g"}
[ -z "${EXTRA_CFLAGS:-}" ] && [ "$SAN" = asan ] &&
    OPT="-O1 -g -fno-omit-frame-pointer -fsanitize=address,undefined -fno-sanitize-recover=undefined"
OUT="$BUILD/tests/ioctl"
mkdir -p "$OUT"
$CC -std=c11 -D_GNU_SOURCE $OPT -Wall -Wextra -Werror -pthread -Isrc -Isrc/common -I"$BUILD/gen" \
    -o "$OUT/harness" tests/ioctl/harness.c "$BUILD/libtdcore.a" "$BUILD/libtdcommon.a" \
    -lseccomp -ldw -lelf -lm || { echo "ioctl: build failed"; exit 1; }
$CC -std=c11 -D_GNU_SOURCE $OPT -Wall -Wextra -Werror -pthread -o "$OUT/target" tests/ioctl/target.c || {
    echo "ioctl: build failed"; exit 1; }

H="$OUT/harness"; T="$OUT/target"
DIR=$(mktemp -d /tmp/tdtrace-ioctl.XXXXXX) || exit 2
trap 'rm -rf "$DIR"' EXIT INT TERM
: > "$DIR/gpu0"; : > "$DIR/gpu-uvm"
GLOB="$DIR/gpu*"

NCASES=9
# where the kernel has no user notification, say so and count the skips
"$H" -- /bin/true 2> "$DIR/probe.err"
rc=$?
if [ $rc -eq 77 ]; then
    echo "SKIP: every case: $(cat "$DIR/probe.err")"
    echo "ioctl: 0 passed, 0 failed, $NCASES skipped"
    exit 0
elif [ $rc -ne 0 ]; then
    echo "FAIL: the harness cannot run /bin/true (exit $rc):"; sed 's/^/     /' "$DIR/probe.err"
    echo "ioctl: 0 passed, 1 failed, 0 skipped"
    exit 1
fi

pass=0; fail=0
ok()  { pass=$((pass + 1)); echo "ok   $1"; }
bad() { fail=$((fail + 1)); echo "FAIL $1"; [ -n "${2:-}" ] && sed 's/^/     /' "$2"; }

# check NAME SORT HARNESS-ARGS... -- TARGET-ARGS: exit 0 and exact output
check() {
    name=$1; sort=$2; shift 2
    "$H" "$@" > "$DIR/out" 2> "$DIR/err"; rc=$?
    if [ $rc -ne 0 ]; then cat "$DIR/err" >> "$DIR/out"; echo "exit $rc" >> "$DIR/out"; bad "$name" "$DIR/out"; return; fi
    if [ "$sort" = sort ]; then sort "$DIR/out" > "$DIR/a"; sort "$DIR/exp" > "$DIR/b"
    else cp "$DIR/out" "$DIR/a"; cp "$DIR/exp" "$DIR/b"; fi
    if diff -u "$DIR/b" "$DIR/a" > "$DIR/diff"; then ok "$name"; else bad "$name" "$DIR/diff"; fi
}

check "decode: RM_CONTROL, RM_FREE, UVM_INITIALIZE, RM_ALLOC, XFER, unknown, short block; pty/pipe untouched" \
    nosort --glob "$GLOB" -- "$T" basic "$DIR" "$DIR/exp"
grep -q "not in tdtrace's tables" "$DIR/err" && [ "$(grep -c warning "$DIR/err")" -eq 1 ] \
    && ok "unknown number: exactly one warning" || bad "unknown number: exactly one warning" "$DIR/err"

check "trap-all filter: same output, other type bytes seen on GPU nodes" \
    nosort --trap-all --glob "$GLOB" -- "$T" basic "$DIR" "$DIR/exp" trapall

check "deny rules (raw syscall gets the errno; by name, number, wrapped; dev= glob)" \
    nosort --glob "$GLOB" --deny NV_ESC_RM_FREE:EACCES --deny UVM_INITIALIZE \
    --deny "NV_ESC_RM_CONTROL::/nonexistent/*" --deny 0xc00846d6:ENODEV -- "$T" deny "$DIR" "$DIR/exp"

check "audit mode: rule matches, call runs" \
    nosort --audit --glob "$GLOB" --deny NV_ESC_RM_FREE:EACCES -- "$T" audit "$DIR" "$DIR/exp"

check "8 threads x 100 ioctls at once" \
    sort --glob "$GLOB" --stats "$DIR/stats" -- "$T" threads "$DIR" "$DIR/exp"
if grep -qx "NV_ESC_RM_CONTROL calls=800 errors=0 denied=0" "$DIR/stats" && grep -q "^bypass=1 (the program)" "$DIR/stats"
then ok "counters: per name, bypass report"; else bad "counters: per name, bypass report" "$DIR/stats"; fi

# killed with a notification pending: harness must finish, print nothing
start=$(date +%s)
"$H" --glob "$GLOB" --slow-ms 400 -- "$T" kill "$DIR" "$DIR/exp" > "$DIR/out" 2> "$DIR/err"; rc=$?
el=$(( $(date +%s) - start ))
if [ $rc -eq 137 ] && [ $el -lt 10 ] && [ ! -s "$DIR/out" ]; then ok "target killed with a notification pending"
else echo "rc=$rc elapsed=${el}s" >> "$DIR/out"; bad "target killed with a notification pending" "$DIR/out"; fi

# the listener closes (tdtrace died): trapped ioctls fail with ENOSYS, nothing hangs
if timeout 20 "$H" --glob "$GLOB" --close-listener -- "$T" orphan "$DIR" "$DIR/exp" > "$DIR/out" 2>&1
then ok "listener gone: GPU ioctls fail with ENOSYS, the rest runs"; else bad "listener gone: GPU ioctls fail with ENOSYS, the rest runs" "$DIR/out"; fi

[ $((pass + fail)) -eq $NCASES ] || { echo "FAIL: $((pass + fail)) cases ran, not $NCASES"; fail=$((fail + 1)); }
echo "ioctl: $pass passed, $fail failed, 0 skipped"
[ $fail -eq 0 ]
