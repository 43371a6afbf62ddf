#!/usr/bin/env python3
"""layers.py — the shape of lib/, read off the built objects, as abx-internals(7)
LAYOUT states it.

    python3 tests/lib/layers.py OBJDIR [--draw]

OBJDIR is where the library's objects were built (lib/ for make, build/asan/lib
for make check).  Who calls whom is read with nm(1), run once over them all: an
object that leaves a symbol undefined calls the object that defines it.  A module is a header's
files: X.c with its own X.h, and the files that share an X_int.h (store.c,
index.c, journal.c, storelean.c are the store).  The folders are layers, from
the bottom:

    base net store hook seal pack tick ctl (lib/ itself: the mains' own)

A call from a folder to one above it is an arrow back up.  Prints TAP: no circle
of modules; at most MAX_UP arrows back up; at least 4 folders and at most 8 .c
files at lib/'s top; no .c file over 700 lines in lib/ or bin/ (the WHATWG URL
parser, net/url.c, may be longer); no main() over 80 lines; nothing in lib/
calls exit, _exit or die but the allocation helpers (base/alloc.c) and the
usage helpers (cli.c).  --draw prints the tree instead: each module, its folder,
and what it calls.
"""
import os
import re
import subprocess
import sys

LAYERS = ["base", "net", "store", "hook", "seal", "pack", "tick", "ctl", "."]
MAX_UP = 5
MAX_LINES = 700
MAX_MAIN = 80
LONG_OK = {"lib/net/url.c"}
EXIT_OK = {"base/alloc", "cli", "die"}
EXITS = {"exit", "_exit", "_Exit", "die", "diesys", "quick_exit", "abort"}

top = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))


def sources():
    """Every lib/ .c file, as 'folder/stem' (or 'stem' at lib/'s top)."""
    out = []
    for d, _, fs in os.walk(os.path.join(top, "lib")):
        for f in fs:
            if f.endswith(".c"):
                rel = os.path.relpath(os.path.join(d, f), os.path.join(top, "lib"))
                out.append(rel[:-2])
    return sorted(out)


def module_of(src):
    """The module a source file belongs to: the X of an X_int.h it includes,
    else its own stem."""
    text = open(os.path.join(top, "lib", src + ".c"), encoding="utf-8").read()
    m = re.search(r'#include "(?:[a-z]+/)?([a-z0-9_]+)_int\.h"', text)
    folder = os.path.dirname(src)
    if m:
        return (folder + "/" if folder else "") + m.group(1)
    return src


def layer(mod):
    folder = os.path.dirname(mod) or "."
    return LAYERS.index(folder) if folder in LAYERS else -1


def nm(objs):
    """The global symbols of each object, read by one nm(1) over them all:
    {object: (defined, undefined)}.  Undefined are nm's U, w and v (what
    nm -u lists); the others are defined (nm -g --defined-only)."""
    r = subprocess.run(["nm", "-A", "-g"] + objs, capture_output=True, text=True)
    if r.returncode != 0:
        raise SystemExit("layers.py: nm failed: %s" % r.stderr.strip())
    out = {o: ([], []) for o in objs}
    for ln in r.stdout.splitlines():
        obj, _, rest = ln.partition(":")
        f = rest.split()
        if obj not in out or len(f) < 2:
            continue
        out[obj][1 if f[-2] in ("U", "w", "v") else 0].append(f[-1])
    return out


def graph(objdir):
    srcs = sources()
    mod = {s: module_of(s) for s in srcs}
    objs = [os.path.join(objdir, s + ".o") for s in srcs]
    for o in objs:
        if not os.path.exists(o):
            raise SystemExit("layers.py: %s is not built (make first)" % o)
    syms = nm(objs)
    defs, undef = {}, {}
    for s, o in zip(srcs, objs):
        for sym in syms[o][0]:
            defs[sym] = s
        undef[s] = syms[o][1]
    edges = {}      # module -> {module: [symbols]}
    exits = {}
    for s in srcs:
        for sym in undef[s]:
            if sym in EXITS and mod[s] not in EXIT_OK and s not in EXIT_OK:
                exits.setdefault(s, []).append(sym)
            t = defs.get(sym)
            if t is None or mod[t] == mod[s]:
                continue
            edges.setdefault(mod[s], {}).setdefault(mod[t], []).append(sym)
    return srcs, sorted(set(mod.values())), edges, exits


def cycles(mods, edges):
    """Strongly connected components of more than one module (Tarjan)."""
    index, low, stack, on, out = {}, {}, [], set(), []
    counter = [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in edges.get(v, {}):
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
            if len(comp) > 1:
                out.append(sorted(comp))

    sys.setrecursionlimit(10000)
    for v in mods:
        if v not in index:
            visit(v)
    return out


def main_lengths():
    out = []
    for f in sorted(os.listdir(os.path.join(top, "bin"))):
        if not f.endswith(".c"):
            continue
        lines = open(os.path.join(top, "bin", f), encoding="utf-8").read().split("\n")
        start = None
        for i, ln in enumerate(lines):
            if re.match(r"^(int )?main\(", ln):
                start = i
            elif start is not None and ln.startswith("}"):
                out.append(("bin/" + f, i - start + 1))
                start = None
    return out


def long_files():
    out = []
    for d in ("lib", "bin"):
        for root, _, fs in os.walk(os.path.join(top, d)):
            for f in fs:
                if f.endswith(".c"):
                    p = os.path.join(root, f)
                    rel = os.path.relpath(p, top)
                    n = sum(1 for _ in open(p, encoding="utf-8"))
                    if n > MAX_LINES and rel not in LONG_OK:
                        out.append((rel, n))
    return sorted(out)


def draw(mods, edges):
    for folder in LAYERS:
        ms = [m for m in mods if (os.path.dirname(m) or ".") == folder]
        if not ms:
            continue
        print("lib/%s" % ("" if folder == "." else folder + "/"))
        for m in ms:
            calls = sorted(edges.get(m, {}))
            marks = [("^" if layer(c) > layer(m) else "") + c for c in calls]
            print("  %-22s -> %s" % (os.path.basename(m), " ".join(marks) or "-"))
    print("(^ marks an arrow back up)")


def main():
    if len(sys.argv) < 2:
        raise SystemExit("usage: layers.py OBJDIR [--draw]")
    srcs, mods, edges, exits = graph(sys.argv[1])
    if "--draw" in sys.argv[2:]:
        draw(mods, edges)
        return 0
    n, failed = 0, 0

    def check(good, desc, why=()):
        nonlocal n, failed
        n += 1
        print("%s %d - %s" % ("ok" if good else "not ok", n, desc))
        if not good:
            failed += 1
            for w in why:
                print("# " + w, file=sys.stderr)

    circ = cycles(mods, edges)
    check(not circ, "no circle of modules",
          ["circle: " + " <-> ".join(c) for c in circ])
    up = [(a, b, syms) for a in edges for b, syms in edges[a].items() if layer(b) > layer(a)]
    check(len(up) <= MAX_UP, "%d arrows back up (at most %d)" % (len(up), MAX_UP),
          ["%s -> %s (%s)" % (a, b, " ".join(sorted(set(s))[:4])) for a, b, s in up])
    unplaced = [m for m in mods if layer(m) < 0]
    check(not unplaced, "every module in a known folder", unplaced)
    folders = {os.path.dirname(s) for s in srcs if os.path.dirname(s)}
    check(len(folders) >= 4, "%d folders in lib/" % len(folders))
    tops = [s for s in srcs if not os.path.dirname(s)]
    check(len(tops) <= 8, "%d .c files at lib/'s top (at most 8)" % len(tops), tops)
    lf = long_files()
    check(not lf, "no .c file over %d lines" % MAX_LINES, ["%s: %d" % x for x in lf])
    lm = [x for x in main_lengths() if x[1] > MAX_MAIN]
    check(not lm, "no main() over %d lines" % MAX_MAIN, ["%s: main() is %d lines" % x for x in lm])
    check(not exits, "the library does not exit",
          ["%s calls %s" % (s, " ".join(sorted(set(v)))) for s, v in sorted(exits.items())])
    print("1..%d" % n)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
