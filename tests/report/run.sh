#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# tdtrace report: the page it makes from a timeline file, run in a real
# browser (headless Chromium): it must finish without an error of its own
# or a console message, compute what check.py computes on its own from the
# same file (calls, kernels, memory per device, leaks, errors, policy,
# faults, Python lines), keep the data's hostile strings from running as
# script, and draw (a screenshot, 1400x1000). Bad input (not JSON,
# truncated, too large, not a regular file, missing fields, wrong types)
# must be refused with its message and a nonzero exit, creating nothing;
# an existing output file is not overwritten.
#
#   BUILD=build [CHROMIUM=/path/to/chromium] sh tests/report/run.sh
#
# Without Chromium (tools/setup-debian.sh installs it) the browser tests
# are skipped and counted, the reason printed once; the others run. Prints
# "report: N passed, N failed, N skipped"; exits nonzero only when
# something failed.
BUILD=${BUILD:-build}
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
tdtrace="$root/$BUILD/bin/tdtrace"
out="$root/$BUILD/tests/report"
pass=0; fail=0; skip=0

[ -x "$tdtrace" ] || { echo "report: $tdtrace missing (make BUILD=$BUILD tdtrace)" >&2; exit 1; }
command -v python3 >/dev/null 2>&1 || { echo "report: python3 missing (tools/setup-debian.sh)" >&2; exit 1; }
rm -rf "$out"; mkdir -p "$out"

ok()   { pass=$((pass + 1)); echo "ok   $1"; }
bad()  { fail=$((fail + 1)); echo "FAIL $1${2:+: $2}"; [ -f "${3:-}" ] && sed 's/^/    /' "$3" | tail -n 30; }
skipped() { skip=$((skip + 1)); echo "skip $1: $2"; }

chromium=${CHROMIUM:-}
if [ -z "$chromium" ]; then
    for c in chromium chromium-browser google-chrome; do
        if command -v $c >/dev/null 2>&1; then chromium=$(command -v $c); break; fi
    done
fi
why=""
[ -n "$chromium" ] && [ -x "$chromium" ] || why="chromium not found (tools/setup-debian.sh installs it; or set CHROMIUM=...)"
[ -n "$why" ] && echo "report: browser tests skipped: $why"
tmo=""
command -v timeout >/dev/null 2>&1 && tmo="timeout 120"

# ---- the page from a sample timeline ----------------------------------
python3 "$here/gen-sample.py" "$out/sample.json" || { echo "report: gen-sample.py failed" >&2; exit 1; }
python3 "$here/gen-sample.py" --seed 7 --scale 150 "$out/big.json"
printf '{"traceEvents":[]}' > "$out/empty.json"
# many tracks: 400 processes of 3 threads and 2 streams (the canvas
# draws only the rows in sight)
python3 - "$out/many.json" <<'EOF'
import json, sys
ev = []
for p in range(400):
    pid = 1000 + p
    ev.append({"ph": "M", "name": "process_name", "pid": pid, "tid": pid, "args": {"name": "%d p" % pid}})
    for k, tid in enumerate([pid, pid + 1, pid + 2, 1000000000, 1000000001]):
        ts = p * 10.0 + k
        ev.append({"ph": "X", "cat": "kernel" if tid >= 1000000000 else "driver", "name": "k%d" % (p % 7),
                   "pid": pid, "tid": tid, "ts": ts, "dur": 5.5, "args": {"ret": "CUDA_SUCCESS"}})
    ev.append({"ph": "C", "name": "device memory", "pid": pid, "ts": p * 10.0, "args": {"device 0": 4096 * p}})
json.dump({"traceEvents": ev}, open(sys.argv[1], "w"))
EOF
cp "$here/odd.json" "$out/odd.json"
# tl-*.json: written by the --timeline writer itself (its branch at
# b2effdc: tests/e2e's timeline program forking, events with a fault, an
# emulator report and leaks, policy with an injected failure)
tl="tl-fork tl-events tl-policy"
for n in $tl; do cp "$here/$n.json" "$out/$n.json"; done

page() { # NAME: NAME.json -> NAME.html
    "$tdtrace" report "$out/$1.json" -o "$out/$1.html" > "$out/$1.report.log" 2>&1
}
for n in sample big empty odd many $tl; do
    if page $n && [ -s "$out/$n.html" ]; then ok "report $n.json"; else bad "report $n.json" "" "$out/$n.report.log"; fi
done

# the file: mode 0600; the data cannot end its <script> element; nothing
# is loaded from elsewhere
mode=$(stat -c %a "$out/sample.html" 2>/dev/null)
[ "$mode" = 600 ] && ok "page mode 0600" || bad "page mode 0600" "mode $mode"
tmpl=$(grep -c '</script>' "$root/src/report/report.html")
got=$(grep -c '</script>' "$out/sample.html")
if [ "$tmpl" = "$got" ] && ! grep -qF "<script>document.body.setAttribute" "$out/sample.html" && \
   grep -q 'evil\\u003c/script\\u003e' "$out/sample.html" && ! LC_ALL=C grep -q "$(printf '\342\200\250')" "$out/sample.html"; then
    ok "data escaped in its <script> element"
else
    bad "data escaped in its <script> element" "</script> $got times (template: $tmpl), or the hostile name unescaped"
fi
if grep -Eiq '(src|href)=["'"'"']?(https?:)?//|@import|url\([^#]' "$out/sample.html"; then
    bad "page loads nothing from elsewhere" "$(grep -Eio '(src|href)=["'"'"']?(https?:)?//[^ >]*|@import|url\([^#][^)]*\)' "$out/sample.html" | head -3)"
else
    ok "page loads nothing from elsewhere"
fi
# "-o -": the page on standard output, the same bytes
if "$tdtrace" report "$out/sample.json" -o - > "$out/stdout.html" 2> "$out/stdout.log" && cmp -s "$out/stdout.html" "$out/sample.html"; then
    ok "report -o - (standard output)"
else
    bad "report -o - (standard output)" "" "$out/stdout.log"
fi
# without -o: TIMELINE.html beside it
cp "$out/empty.json" "$out/dflt.json"
if "$tdtrace" report "$out/dflt.json" > "$out/dflt.log" 2>&1 && [ -s "$out/dflt.html" ]; then
    ok "report without -o writes TIMELINE.html"
else
    bad "report without -o writes TIMELINE.html" "" "$out/dflt.log"
fi

# ---- tdtrace --report=FILE: the page at the end of a traced run --------
prog="$root/$BUILD/e2e/basic"
if [ -x "$prog" ]; then
    priv="$out/tmpdir"; rm -rf "$priv" "$out/run1.html" "$out/run2.html" "$out/run2.json" "$out/run2b.html" "$out/ran"
    mkdir -p "$priv"
    # alone: its own timeline, in a private folder that is gone afterwards
    if TMPDIR="$priv" "$tdtrace" --emulate -q -o /dev/null --report="$out/run1.html" -- "$prog" > "$out/run1.log" 2>&1 &&
       [ "$(stat -c %a "$out/run1.html" 2>/dev/null)" = 600 ] && grep -q '"name":"cuMemAlloc_v2"' "$out/run1.html" &&
       [ -z "$(ls -A "$priv")" ]; then
        ok "--report: the page of the run, its private timeline removed"
    else
        { cat "$out/run1.log"; ls -la "$priv"; } > "$out/run1.why" 2>&1; bad "--report: the page of the run" "" "$out/run1.why"
    fi
    # with --timeline: that timeline is kept, and the page is what tdtrace report makes of it
    if "$tdtrace" --emulate -q -o /dev/null --timeline="$out/run2.json" --report="$out/run2.html" -- "$prog" > "$out/run2.log" 2>&1 &&
       "$tdtrace" report "$out/run2.json" -o "$out/run2b.html" >> "$out/run2.log" 2>&1 && cmp -s "$out/run2.html" "$out/run2b.html"; then
        ok "--report with --timeline: the same page as tdtrace report of the timeline"
    else
        bad "--report with --timeline" "" "$out/run2.log"
    fi
    # a page that exists already is refused before the program starts
    if ! "$tdtrace" --emulate -q --report="$out/run1.html" -- touch "$out/ran" > "$out/run3.log" 2>&1 &&
       [ ! -e "$out/ran" ] && grep -q "cannot create the report .*the file exists" "$out/run3.log"; then
        ok "--report: an existing page is refused, the program not started"
    else
        bad "--report: an existing page is refused" "" "$out/run3.log"
    fi
else
    bad "--report" "$prog missing (make BUILD=$BUILD e2e)"
fi

# ---- refused: bad input, and an output that exists ---------------------
refuse() { # NAME EXPECTED-MESSAGE ARGS...: must fail with the message, creating nothing
    name=$1; msg=$2; shift 2
    rm -f "$out/refused.html"
    "$tdtrace" report "$@" > "$out/refuse.log" 2>&1
    rc=$?
    if [ $rc -ne 0 ] && [ $rc -lt 128 ] && grep -qF -- "$msg" "$out/refuse.log" && [ ! -e "$out/refused.html" ]; then
        ok "refused: $name"
    else
        bad "refused: $name" "exit $rc, expected the message '$msg' and no page" "$out/refuse.log"
    fi
}
b="$out/bad"; mkdir -p "$b"
bad_json() { printf '%s' "$2" > "$b/$1.json"; }
bad_json notjson 'hello'
bad_json empty ''
bad_json array '[{"ph":"X"}]'
bad_json noevents '{"otherData":{}}'
bad_json eventsobj '{"traceEvents":{}}'
bad_json evnum '{"traceEvents":[1]}'
bad_json noph '{"traceEvents":[{"name":"a","pid":1,"ts":1}]}'
bad_json nopid '{"traceEvents":[{"ph":"i","name":"a","ts":1}]}'
bad_json nots '{"traceEvents":[{"ph":"X","name":"a","pid":1,"dur":1}]}'
bad_json nodur '{"traceEvents":[{"ph":"X","name":"a","pid":1,"ts":1}]}'
bad_json tsstr '{"traceEvents":[{"ph":"X","name":"a","pid":1,"ts":"1","dur":1}]}'
bad_json pidstr '{"traceEvents":[{"ph":"M","name":"a","pid":"1"}]}'
bad_json argsarr '{"traceEvents":[{"ph":"i","name":"a","pid":1,"ts":1,"args":[]}]}'
bad_json namenum '{"traceEvents":[{"ph":"i","name":5,"pid":1,"ts":1}]}'
bad_json negdur '{"traceEvents":[{"ph":"X","name":"a","pid":1,"ts":1,"dur":-1}]}'
bad_json hugets '{"traceEvents":[{"ph":"i","name":"a","pid":1,"ts":1e999}]}'
bad_json otherdata '{"otherData":[],"traceEvents":[]}'
bad_json trailing '{"traceEvents":[]} x'
bad_json comma '{"traceEvents":[],}'
bad_json escape '{"traceEvents":[],"x":"\q"}'
printf '{"traceEvents":[],"x":"\001"}' > "$b/ctrl.json"
printf '{"traceEvents":[],"x":"\377"}' > "$b/utf8.json"
printf '{"traceEvents":[],"x":"\355\240\200"}' > "$b/surrogate.json"
python3 -c 'import sys; sys.stdout.write("{\"traceEvents\":[{\"ph\":\"i\",\"name\":\"a\",\"pid\":1,\"ts\":1,\"args\":{\"x\":" + "[" * 100 + "]" * 100 + "}}]}")' > "$b/deep.json"
head -c "$(( $(wc -c < "$out/sample.json") / 2 ))" "$out/sample.json" > "$b/truncated.json"
printf '{"displayTi' > "$b/cut.json"
printf '{"traceEvents":[{"ph":"i","name":"a","pid":1,"ts":1},x' > "$b/cutbad.json"
refuse "not JSON" "not JSON: unexpected 'h' at byte 0" "$b/notjson.json" -o "$out/refused.html"
refuse "empty file" "empty file" "$b/empty.json" -o "$out/refused.html"
refuse "an array" "not a timeline: a JSON array" "$b/array.json" -o "$out/refused.html"
refuse "no traceEvents" 'no "traceEvents" array' "$b/noevents.json" -o "$out/refused.html"
refuse "traceEvents an object" '"traceEvents" (byte 15) is an object, must be an array' "$b/eventsobj.json" -o "$out/refused.html"
refuse "event a number" "traceEvents[0] is a number, must be an object" "$b/evnum.json" -o "$out/refused.html"
refuse "no ph" 'traceEvents[0]: no "ph"' "$b/noph.json" -o "$out/refused.html"
refuse "no pid" 'traceEvents[0] (ph "i"): no "pid"' "$b/nopid.json" -o "$out/refused.html"
refuse "no ts" 'traceEvents[0] (ph "X"): no "ts"' "$b/nots.json" -o "$out/refused.html"
refuse "no dur" 'traceEvents[0] (ph "X"): no "dur"' "$b/nodur.json" -o "$out/refused.html"
refuse "ts a string" 'traceEvents[0]: "ts" is a string, must be a number' "$b/tsstr.json" -o "$out/refused.html"
refuse "pid a string" 'traceEvents[0]: "pid" is a string, must be a number' "$b/pidstr.json" -o "$out/refused.html"
refuse "args an array" 'traceEvents[0]: "args" is an array, must be an object' "$b/argsarr.json" -o "$out/refused.html"
refuse "name a number" 'traceEvents[0]: "name" is a number, must be a string' "$b/namenum.json" -o "$out/refused.html"
refuse "negative dur" '"dur" is negative' "$b/negdur.json" -o "$out/refused.html"
refuse "ts out of range" '"ts" is out of range' "$b/hugets.json" -o "$out/refused.html"
refuse "otherData an array" '"otherData" (byte 13) is an array, must be an object' "$b/otherdata.json" -o "$out/refused.html"
refuse "trailing bytes" "in what follows the JSON object" "$b/trailing.json" -o "$out/refused.html"
refuse "trailing comma" "not JSON: unexpected '}' at byte 18" "$b/comma.json" -o "$out/refused.html"
refuse "bad escape" "bad escape '\\q'" "$b/escape.json" -o "$out/refused.html"
refuse "control byte" "control byte 0x01" "$b/ctrl.json" -o "$out/refused.html"
refuse "not UTF-8" "not UTF-8: byte 0xff" "$b/utf8.json" -o "$out/refused.html"
refuse "UTF-8 surrogate" "not UTF-8: byte 0xed" "$b/surrogate.json" -o "$out/refused.html"
refuse "nested too deep" "nested deeper than 64 levels" "$b/deep.json" -o "$out/refused.html"
refuse "cut before its events" "unexpected end of the file at byte 11" "$b/cut.json" -o "$out/refused.html"
refuse "cut, and a bad byte" "not JSON: unexpected 'x'" "$b/cutbad.json" -o "$out/refused.html"
# a file cut short in its events (a run tdtrace could not finish): drawn
# up to its last whole event, with a warning
cp "$b/truncated.json" "$out/truncated.json"
if "$tdtrace" report "$out/truncated.json" -o "$out/truncated.html" > "$out/truncated.log" 2>&1 && \
   grep -q "ends early (unexpected end of the file at byte .* (truncated?)): the page shows the [0-9]* whole events before the cut" \
       "$out/truncated.log" && [ -s "$out/truncated.html" ]; then
    ok "a file cut short: drawn up to its last whole event, with a warning"
else
    bad "a file cut short: drawn up to its last whole event, with a warning" "" "$out/truncated.log"
fi
: > "$b/huge.json"
if truncate -s 300M "$b/huge.json" 2>/dev/null; then
    refuse "too large" "is too large (314572800 bytes; at most 256 MiB)" "$b/huge.json" -o "$out/refused.html"
else
    skipped "refused: too large" "truncate(1) cannot make a sparse file here"
fi
rm -f "$b/huge.json"
refuse "a directory" "is not a regular file" "$b" -o "$out/refused.html"
refuse "/dev/null" "is not a regular file" /dev/null -o "$out/refused.html"
if mkfifo "$b/fifo" 2>/dev/null; then
    refuse "a FIFO (does not block)" "is not a regular file" "$b/fifo" -o "$out/refused.html"
else
    skipped "refused: a FIFO" "mkfifo failed here"
fi
refuse "no such file" "can't open '$b/nothere.json': No such file or directory" "$b/nothere.json" -o "$out/refused.html"
refuse "no file named" "must have a timeline file" -o "$out/refused.html"
refuse "two files" "one timeline file only" "$out/sample.json" "$out/sample.json" -o "$out/refused.html"
refuse "unknown option" "unrecognized option '--bogus'" --bogus "$out/sample.json"
# an output that exists, or is a link (dangling or not), is left alone
echo keep > "$out/exists.html"
"$tdtrace" report "$out/sample.json" -o "$out/exists.html" > "$out/exists.log" 2>&1
if [ $? -ne 0 ] && grep -q "exists: not overwriting it" "$out/exists.log" && [ "$(cat "$out/exists.html")" = keep ]; then
    ok "refused: an existing output file"
else
    bad "refused: an existing output file" "" "$out/exists.log"
fi
ln -sf "$out/nowhere.html" "$out/link.html"
"$tdtrace" report "$out/sample.json" -o "$out/link.html" > "$out/link.log" 2>&1
if [ $? -ne 0 ] && grep -q "exists: not overwriting it" "$out/link.log" && [ ! -e "$out/nowhere.html" ]; then
    ok "refused: an output that is a dangling link"
else
    bad "refused: an output that is a dangling link" "" "$out/link.log"
fi

# ---- in the browser -----------------------------------------------------
browse() { # NAME: the DOM after the scripts ran, and the browser's log
    prof=$(mktemp -d "${TMPDIR:-/tmp}/tdtrace-report-chromium.XXXXXX")
    # shellcheck disable=SC2086
    $tmo "$chromium" --headless --no-sandbox --disable-gpu --no-first-run --user-data-dir="$prof" \
        --host-resolver-rules="MAP * ~NOTFOUND" --enable-logging=stderr --v=0 \
        --dump-dom "file://$out/$1.html" > "$out/$1.dom.html" 2> "$out/$1.chromium.log"
    rc=$?
    rm -rf "$prof"
    return $rc
}
# (truncated.json: check.py, too, reads it up to its last whole event)
for n in sample big empty odd many truncated $tl; do
    if [ -n "$why" ]; then skipped "browser: $n" "$why"; continue; fi
    if ! browse $n; then bad "browser: $n" "chromium failed" "$out/$n.chromium.log"; continue; fi
    if grep -E ':CONSOLE|Uncaught' "$out/$n.chromium.log" > "$out/$n.console.log"; then
        bad "browser: $n" "console messages" "$out/$n.console.log"
    elif python3 "$here/check.py" "$out/$n.json" "$out/$n.dom.html" > "$out/$n.check.log" 2>&1; then
        ok "browser: $n (no errors; computed data as check.py's)"
    else
        bad "browser: $n" "" "$out/$n.check.log"
    fi
done

# the timeline driven by synthetic events (the page's #selftest): the wheel
# zooms about the pointer, a drag pans by as much as the pointer moved, a
# click on a kernel selects it and shows its details
if [ -n "$why" ]; then
    skipped "browser: zoom, pan, select" "$why"
else
    prof=$(mktemp -d "${TMPDIR:-/tmp}/tdtrace-report-chromium.XXXXXX")
    $tmo "$chromium" --headless --no-sandbox --disable-gpu --no-first-run --user-data-dir="$prof" \
        --host-resolver-rules="MAP * ~NOTFOUND" --window-size=1400,1000 \
        --dump-dom "file://$out/sample.html#selftest" > "$out/selftest.dom.html" 2> "$out/selftest.chromium.log"
    rm -rf "$prof"
    if python3 - "$out/selftest.dom.html" > "$out/selftest.log" 2>&1 <<'EOF'
import html, json, re, sys
dom = open(sys.argv[1], encoding="utf-8", errors="replace").read()
err = re.search(r'<pre id="td-errors">(.*?)</pre>', dom, re.S)
assert err and not err.group(1).strip(), "page errors: %s" % (err and html.unescape(err.group(1)))
m = re.search(r'<pre id="td-selftest"[^>]*>(.*?)</pre>', dom, re.S)
assert m, "no #td-selftest"
r = json.loads(html.unescape(m.group(1)))
print(r)
assert 0.5 < r["zoom"] < 0.6, "wheel: zoom %r" % r["zoom"]
assert abs(r["zoom_anchor_px"]) < 0.01, "wheel: the time under the pointer moved %r px" % r["zoom_anchor_px"]
assert abs(r["pan_px"] - 100) < 0.01, "drag of 100 px panned %r px" % r["pan_px"]
assert r.get("kernel") and r["clicked"] == r["kernel"] and r["detail"] == r["kernel"], "click: %r" % r
EOF
    then ok "browser: zoom, pan, select"; else bad "browser: zoom, pan, select" "" "$out/selftest.log"; fi
fi

# a screenshot: the page draws (a PNG of the window's size, not blank)
if [ -n "$why" ]; then
    skipped "browser: screenshot" "$why"
else
    prof=$(mktemp -d "${TMPDIR:-/tmp}/tdtrace-report-chromium.XXXXXX")
    $tmo "$chromium" --headless --no-sandbox --disable-gpu --no-first-run --user-data-dir="$prof" \
        --host-resolver-rules="MAP * ~NOTFOUND" --hide-scrollbars --window-size=1400,1000 \
        --screenshot="$out/sample.png" "file://$out/sample.html" > "$out/shot.log" 2>&1
    rm -rf "$prof"
    if python3 - "$out/sample.png" > "$out/png.log" 2>&1 <<'EOF'
import struct, sys, zlib
d = open(sys.argv[1], "rb").read()
assert d[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
w, h = struct.unpack(">II", d[16:24])
assert (w, h) == (1400, 1000), "size %dx%d" % (w, h)
assert len(d) > 20000, "%d bytes: blank?" % len(d)
EOF
    then ok "browser: screenshot 1400x1000"; else bad "browser: screenshot" "" "$out/png.log"; fi
fi

echo "report: $pass passed, $fail failed, $skip skipped"
[ "$fail" -eq 0 ]
