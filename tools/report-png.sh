#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# Regenerates docs/report.png (make report-png): tdtrace report's page drawn
# by headless Chromium, 1400x1000. The timeline comes from a real run, the
# bundled example on the emulated GPU under tdtrace --timeline, when this
# tdtrace has --timeline; otherwise (or if that run fails) from the sample
# that tests/report/gen-sample.py makes up, and it says so.
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
if "$tdtrace" -h 2>/dev/null | grep -q -- '--timeline' && [ -x "$root/$BUILD/examples/hello_drv" ]; then
    if "$tdtrace" -q --emulate --timeline="$work/run.json" -o "$work/run.trace" -- "$root/$BUILD/examples/hello_drv" \
        > "$work/run.log" 2>&1; then
        from="tdtrace --emulate --timeline -- $BUILD/examples/hello_drv"
    else
        echo "report-png: the traced run failed (see $work/run.log); using the made-up sample" >&2
    fi
fi
if [ -z "$from" ]; then
    python3 "$root/tests/report/gen-sample.py" --plain "$work/run.json"
    from="the made-up sample of tests/report/gen-sample.py (this tdtrace has no --timeline)"
fi
"$tdtrace" report "$work/run.json" -o "$work/report.html"
prof=$(mktemp -d "${TMPDIR:-/tmp}/tdtrace-report-png.XXXXXX")
"$chromium" --headless --no-sandbox --disable-gpu --no-first-run --user-data-dir="$prof" \
    --host-resolver-rules="MAP * ~NOTFOUND" --hide-scrollbars --window-size=1400,1000 \
    --screenshot="$work/report.png" "file://$work/report.html" > "$work/chromium.log" 2>&1 || {
    rm -rf "$prof"; echo "report-png: chromium failed (see $work/chromium.log)" >&2; exit 1; }
rm -rf "$prof"
cp "$work/report.png" "$png"
echo "report-png: $png from $from"
