#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# Regenerates docs/report.png (make report-png): tdtrace report's page drawn
# by headless Chromium, 1400x1000. The timeline comes from a real run on
# the emulated GPU under tdtrace --report: tests/e2e's timeline program (two
# streams at once, copies, a memset, events, a host function, memory that
# comes and goes, a forked child); if that run fails, from the sample that
# tests/report/gen-sample.py makes up, and it says so.
#
#   BUILD=build [CHROMIUM=...] sh tools/report-png.sh [OUT.png]
set -eu
BUILD=${BUILD:-build}
root=$(cd "$(dirname "$0")/.." && pwd)
png=${1:-$root/docs/report.png}
tdtrace="$root/$BUILD/bin/tdtrace"
work="$root/$BUILD/report-png"
chromium=${CHROMIUM:-$(command -v chromium || command -v chromium-browser || command -v google-chrome || true)}
[ -n "$chromium" ] || { echo "report-png: chromium not found (tools/setup-debian.sh installs it)" >&2; exit 1; }
rm -rf "$work"; mkdir -p "$work"
from=""
prog="$root/$BUILD/e2e/timeline"
if [ -x "$prog" ] && "$tdtrace" -q --emulate -o "$work/run.trace" --report="$work/report.html" -- "$prog" fork \
    > "$work/run.log" 2>&1; then
    from="tdtrace --emulate --report -- $BUILD/e2e/timeline fork"
else
    echo "report-png: the traced run failed or $prog is missing (see $work/run.log); using the made-up sample" >&2
    rm -f "$work/report.html"
    python3 "$root/tests/report/gen-sample.py" --plain "$work/run.json"
    "$tdtrace" report "$work/run.json" -o "$work/report.html"
    from="the made-up sample of tests/report/gen-sample.py"
fi
prof=$(mktemp -d "${TMPDIR:-/tmp}/tdtrace-report-png.XXXXXX")
"$chromium" --headless --no-sandbox --disable-gpu --no-first-run --user-data-dir="$prof" \
    --host-resolver-rules="MAP * ~NOTFOUND" --hide-scrollbars --window-size=1400,1000 \
    --screenshot="$work/report.png" "file://$work/report.html" > "$work/chromium.log" 2>&1 || {
    rm -rf "$prof"; echo "report-png: chromium failed (see $work/chromium.log)" >&2; exit 1; }
rm -rf "$prof"
cp "$work/report.png" "$png"
echo "report-png: $png from $from"
