#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# gen-errnos.sh CC [CPPFLAGS...]: the C library's errno names, read from its
# own <errno.h> (the one list of them), as TD_ERRNO(NAME) lines: the name of
# each number first, by value, then the aliases whose value is another name
# (EWOULDBLOCK, ENOTSUP, EDEADLOCK). Used by the policy's errno= values.
set -e
defs=$("$@" -E -dM -include errno.h -x c /dev/null)
out=$(printf '%s\n' "$defs" |
      sed -n 's/^#define \(E[A-Z0-9]*\) \([0-9][0-9]*\)$/\2 \1/p' | sort -n -k1,1 |
      sed 's/^[0-9]* \(.*\)$/TD_ERRNO(\1)/'
      printf '%s\n' "$defs" |
      sed -n 's/^#define \(E[A-Z0-9]*\) E[A-Z0-9]*$/TD_ERRNO(\1)/p' | LC_ALL=C sort)
case $out in
*'TD_ERRNO(EPERM)'*) printf '%s\n' "$out" ;;
*) echo "gen-errnos.sh: no errno names in <errno.h>" >&2; exit 1 ;;
esac
