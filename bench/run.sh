#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# make bench: every benchmark, each printing ratios measured side by side.
BUILD=${BUILD:-build}
export BUILD
cd "$(dirname "$0")/.." || exit 1
for b in bench/*.sh; do
    [ "$b" = bench/run.sh ] && continue
    echo "### $b"
    sh "$b" || echo "(failed: $b)"
    echo
done
