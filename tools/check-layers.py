#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Finds circles between the files of a module.

usage: check-layers.py [--nm NM] OBJDIR|OBJ...

Every object file under the given directories (or given itself) is one
node; an edge A -> B
means A.o refers to a symbol that B.o defines (a call, or the address of a
function or table). A circle is a set of files that reach each other
through such edges (a strongly connected component of more than one
file). Calls made through pointers registered at run time are not edges:
that is how a lower file lets a higher one join it without knowing it.

Prints each circle with one path around it and exits 1 if there is any."""
import os
import subprocess
import sys


def symbols(nm, path):
    out = subprocess.run([nm, "-P", path], check=True, capture_output=True, text=True).stdout
    defined, undefined = set(), set()
    for line in out.splitlines():
        parts = line.split()
        if len(parts) < 2:
            continue
        name, kind = parts[0], parts[1]
        if kind in ("U", "w", "v"):
            undefined.add(name)
        elif kind in "TDBRGSVWCi":     # global definitions (lower case: file-local)
            defined.add(name)
    return defined, undefined


def sccs(nodes, edges):
    index, low, on, stack, out, counter = {}, {}, set(), [], [], [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in sorted(edges[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            out.append(comp)

    sys.setrecursionlimit(10000)
    for v in sorted(nodes):
        if v not in index:
            visit(v)
    return out


def path_around(comp, edges, refs):
    """one cycle through the component, with a symbol for each step"""
    comp = set(comp)
    start = min(comp)
    prev = {start: None}
    queue = [start]
    while queue:
        v = queue.pop(0)
        for w in sorted(edges[v]):
            if w not in comp:
                continue
            if w == start:
                steps, x = [(v, start)], v
                while prev[x] is not None:
                    steps.append((prev[x], x))
                    x = prev[x]
                steps.reverse()
                return [f"{a} -> {b} ({sorted(refs[(a, b)])[0]})" for a, b in steps]
            if w not in prev:
                prev[w] = v
                queue.append(w)
    return []


def main(argv):
    nm = "nm"
    if len(argv) > 2 and argv[1] == "--nm":
        nm, argv = argv[2], argv[2:]
    dirs = argv[1:]
    if not dirs:
        print(__doc__, file=sys.stderr)
        return 2
    defs, undefs = {}, {}
    for d in dirs:
        if d.endswith(".o") and os.path.isfile(d):
            defs[d], undefs[d] = symbols(nm, d)
            continue
        if not os.path.isdir(d):
            print(f"check-layers.py: {d}: no such directory or object file", file=sys.stderr)
            return 2
        for root, _, files in os.walk(d):
            for f in files:
                if f.endswith(".o"):
                    p = os.path.join(root, f)
                    defs[p], undefs[p] = symbols(nm, p)
    owner = {}
    for p, ds in defs.items():
        for s in ds:
            owner.setdefault(s, p)
    edges = {p: set() for p in defs}
    refs = {}
    for p, us in undefs.items():
        for s in us:
            q = owner.get(s)
            if q and q != p:
                edges[p].add(q)
                refs.setdefault((p, q), set()).add(s)
    bad = [c for c in sccs(defs.keys(), edges) if len(c) > 1]
    for c in bad:
        names = sorted(os.path.relpath(x) for x in c)
        print("circle: " + ", ".join(names))
        for step in path_around(c, edges, refs):
            print("    " + step)
    if bad:
        return 1
    print(f"no circles among {len(defs)} files")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
