#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""What tdtrace report's page must compute from a timeline file, computed
here on its own (from docs/report.md, not from the page's code), and
compared with what the page wrote into #td-computed after it ran in a
browser.

    check.py TIMELINE.json DOM.html      compare; exit 1 on a difference
    check.py TIMELINE.json               print the expected data

It also checks that the page finished (data-td-status="done"), that it
recorded no error of its own (#td-errors empty), and that no injected
script ran (no data-pwned attribute)."""
import html
import json
import math
import re
import sys

STREAM_BASE = 1000000000
DEVICE_CATS = {"kernel", "memcpy", "memset", "host", "event", "memop"}
EVENT_CATS = {"policy", "fault", "error", "process"}
ERRLIST_MAX = 500


def num(x):
    if isinstance(x, bool) or not isinstance(x, (int, float)):
        return None
    return x if math.isfinite(x) else None


def string(x):
    return x if isinstance(x, str) else None


def js_str(x):
    """String(x) as JavaScript writes it, for the values a "ret" may hold"""
    if x is None:
        return "null"
    if isinstance(x, bool):
        return "true" if x else "false"
    if isinstance(x, (int, float)):
        if isinstance(x, float) and x.is_integer() and abs(x) < 1e21:
            return str(int(x))
        return repr(x) if isinstance(x, float) else str(x)
    if isinstance(x, str):
        return x
    if isinstance(x, list):
        return ",".join("" if v is None else js_str(v) for v in x)
    return "[object Object]"


def success(ret):
    if not isinstance(ret, str):
        return True
    return ret == "cudaSuccess" or re.search(r"(^|_)SUCCESS\Z", ret) is not None


def compute(doc):
    events = doc.get("traceEvents") if isinstance(doc, dict) else None
    if not isinstance(events, list):
        events = doc if isinstance(doc, list) else []
    ignored = 0
    pids = set()
    calls, device, instants, counters = [], [], [], []
    tracks = {}  # (pid, tid) -> [X events in file order]
    for e in events:
        if not isinstance(e, dict):
            ignored += 1
            continue
        ph, pid, tid, ts = string(e.get("ph")), num(e.get("pid")), num(e.get("tid")), num(e.get("ts"))
        a = e.get("args") if isinstance(e.get("args"), dict) else {}
        name = e["name"] if isinstance(e.get("name"), str) else "?"
        if ph is None or pid is None:
            ignored += 1
            continue
        pids.add(pid)
        if ph == "M":
            continue
        if ts is None:
            ignored += 1
            continue
        if ph == "X":
            dur = num(e.get("dur"))
            if dur is None or dur < 0:
                ignored += 1
                continue
            cat = e["cat"] if isinstance(e.get("cat"), str) else ""
            t = tid if tid is not None else 0
            x = {"ts": ts, "dur": dur, "end": ts + dur, "name": name, "cat": cat, "pid": pid, "tid": t,
                 "args": a, "level": 0}
            x["dev"] = t >= STREAM_BASE or cat in DEVICE_CATS
            (device if x["dev"] else calls).append(x)
            tracks.setdefault((pid, t), []).append(x)
        elif ph in ("i", "I"):
            instants.append({"ts": ts, "name": name, "cat": e["cat"] if isinstance(e.get("cat"), str) else "",
                             "pid": pid, "tid": tid, "args": a})
        elif ph == "C":
            counters.append({"ts": ts, "name": name, "pid": pid, "args": a})

    # nesting per track: by start, the longest first; depth = spans still open
    for xs in tracks.values():
        stack = []
        for x in sorted(xs, key=lambda x: (x["ts"], -x["dur"])):
            while stack and stack[-1] <= x["ts"]:
                stack.pop()
            x["level"] = len(stack)
            stack.append(x["end"])

    groups = {}
    for x in calls:
        g = groups.setdefault(x["name"], {"name": x["name"], "count": 0, "total_us": 0, "errors": 0})
        g["count"] += 1
        g["total_us"] += x["dur"]
        if not success(x["args"].get("ret")):
            g["errors"] += 1
    top = list(groups.values())
    for g in top:
        g["mean_us"] = g["total_us"] / g["count"]
    top.sort(key=lambda g: (-g["total_us"], g["name"]))

    kg = {}
    for x in device:
        if x["cat"] != "kernel":
            continue
        g = kg.setdefault(x["name"], {"name": x["name"], "launches": 0, "total_us": 0, "min_us": math.inf,
                                      "max_us": 0})
        g["launches"] += 1
        g["total_us"] += x["dur"]
        g["min_us"] = min(g["min_us"], x["dur"])
        g["max_us"] = max(g["max_us"], x["dur"])
    kernels = list(kg.values())
    for g in kernels:
        g["mean_us"] = g["total_us"] / g["launches"]
    kernels.sort(key=lambda g: (-g["total_us"], g["name"]))

    memory, state = {}, {}
    for c in sorted((c for c in counters if c["name"] == "device memory"), key=lambda c: c["ts"]):
        st = state.setdefault(c["pid"], {})
        touched = []
        for k, v in c["args"].items():
            m = re.fullmatch(r"device ([0-9]+)", k)
            v = num(v)
            if not m or v is None or v < 0:
                continue
            st[m.group(1)] = v
            touched.append(m.group(1))
        for d in touched:
            total = 0
            for s in state.values():
                if d in s:
                    total += s[d]
            mem = memory.setdefault(d, {"points": [], "peak": 0})
            mem["points"].append([c["ts"], total])
            if total > mem["peak"]:
                mem["peak"] = total

    leaks = [{"pid": x["pid"], "ts": x["ts"], "ptr": string(x["args"].get("ptr")),
              "bytes": num(x["args"].get("bytes")), "kind": string(x["args"].get("kind")),
              "device": num(x["args"].get("device")), "site": string(x["args"].get("site"))}
             for x in instants if x["cat"] == "leak"]
    leaks.sort(key=lambda l: (-(l["bytes"] if l["bytes"] is not None else -1), l["pid"], l["ts"]))

    err_calls = sorted((x for x in calls if not success(x["args"].get("ret"))), key=lambda x: x["ts"])
    eg = {}
    for x in err_calls:
        ret = js_str(x["args"].get("ret"))
        g = eg.setdefault((x["name"], ret), {"name": x["name"], "ret": ret, "count": 0})
        g["count"] += 1
    by_call = sorted(eg.values(), key=lambda g: (-g["count"], g["name"], g["ret"]))
    err_list = [{"pid": x["pid"], "tid": x["tid"], "ts": x["ts"], "name": x["name"],
                 "ret": js_str(x["args"].get("ret")), "call": string(x["args"].get("call"))}
                for x in err_calls[:ERRLIST_MAX]]

    others = sorted((x for x in instants if x["cat"] in EVENT_CATS), key=lambda x: x["ts"])

    def inst(x):
        return {"cat": x["cat"], "pid": x["pid"], "ts": x["ts"], "name": x["name"]}

    py = {}
    for x in calls:
        line = string(x["args"].get("py"))
        if x["level"] != 0 or line is None:
            continue
        g = py.setdefault(line, {"line": line, "calls": 0, "total_us": 0})
        g["calls"] += 1
        g["total_us"] += x["dur"]
    python = sorted(py.values(), key=lambda g: (-g["calls"], -g["total_us"], g["line"]))

    return {
        "version": 1,
        "counts": {"events": len(events), "ignored": ignored, "calls": len(calls), "device": len(device),
                   "kernels": sum(1 for x in device if x["cat"] == "kernel"), "instants": len(instants),
                   "counters": len(counters), "processes": len(pids)},
        "calls": top, "kernels": kernels, "memory": memory, "leaks": leaks,
        "errors": {"by_call": by_call, "list": err_list},
        "policy": [inst(x) for x in others if x["cat"] == "policy"],
        "faults": [inst(x) for x in others if x["cat"] == "fault"],
        "python": python,
    }


def load_timeline(path):
    """the file's JSON; one cut short in its events (a run tdtrace could
    not finish): its events up to the last whole one, as tdtrace report
    reads it"""
    with open(path, encoding="utf-8") as f:
        text = f.read()
    try:
        return json.loads(text)
    except json.JSONDecodeError:
        pass
    m = re.search(r'"traceEvents"\s*:\s*\[', text)
    if not m:
        raise SystemExit("%s: not JSON, and not cut short in its events" % path)
    dec, i, events = json.JSONDecoder(), m.end(), []
    while True:
        while i < len(text) and text[i] in " \t\r\n,":
            i += 1
        try:
            ev, i = dec.raw_decode(text, i)
        except json.JSONDecodeError:
            break
        events.append(ev)
    doc = json.loads(text[:m.start()] + '"traceEvents":[]}')
    doc["traceEvents"] = events
    return doc


def diff(a, b, path, out):
    """the differences between what was expected (a) and computed (b)"""
    if len(out) > 20:
        return
    if isinstance(a, dict) and isinstance(b, dict):
        for k in sorted(set(a) | set(b)):
            if k not in b:
                out.append("%s.%s: expected, missing" % (path, k))
            elif k not in a:
                out.append("%s.%s: not expected, present" % (path, k))
            else:
                diff(a[k], b[k], "%s.%s" % (path, k), out)
    elif isinstance(a, list) and isinstance(b, list):
        if len(a) != len(b):
            out.append("%s: %d items expected, %d present" % (path, len(a), len(b)))
        for i, (x, y) in enumerate(zip(a, b)):
            diff(x, y, "%s[%d]" % (path, i), out)
    elif num(a) is not None and num(b) is not None:
        if a != b and abs(a - b) > 1e-9 * max(abs(a), abs(b)):
            out.append("%s: %r expected, %r present" % (path, a, b))
    elif a != b:
        out.append("%s: %r expected, %r present" % (path, a, b))


def main():
    expected = compute(load_timeline(sys.argv[1]))
    if len(sys.argv) < 3:
        json.dump(expected, sys.stdout, indent=1, ensure_ascii=False)
        print()
        return 0
    with open(sys.argv[2], encoding="utf-8", errors="replace") as f:
        dom = f.read()
    problems = []
    body = re.search(r"<body([^>]*)>", dom)
    if not body or 'data-td-status="done"' not in body.group(1):
        problems.append("the page's script did not finish (no data-td-status=\"done\" on <body>)")
    if body and "data-pwned" in body.group(1):
        problems.append("a script in the timeline's data ran (data-pwned set)")
    errs = re.search(r'<pre id="td-errors">(.*?)</pre>', dom, re.S)
    if errs is None:
        problems.append("no #td-errors element")
    elif errs.group(1).strip():
        problems.append("the page recorded errors: " + html.unescape(errs.group(1)).strip())
    got = re.search(r'<script type="application/json" id="td-computed">(.*?)</script>', dom, re.S)
    if not got or not got.group(1).strip():
        problems.append("no computed data in #td-computed")
    else:
        d = []
        diff(expected, json.loads(got.group(1)), "computed", d)
        problems += d
    for p in problems:
        print("    " + p)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
