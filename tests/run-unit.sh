#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# Run the cmocka suites; print one closing line "N passed, N failed".
pass=0; fail=0
for t in "$@"; do
    if "$t"; then pass=$((pass + 1)); else fail=$((fail + 1)); echo "FAILED: $t" >&2; fi
done
echo "unit: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
