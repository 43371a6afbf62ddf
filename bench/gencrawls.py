#!/usr/bin/env python3
"""gencrawls.py TEMPLATE OUT N -- a data directory of N finished crawls, fast.

TEMPLATE is a data directory holding exactly one finished crawl, made by the
tools (abx-add, abx-tick, then abx-ctl repair, which compacts its journals).
OUT (new) gets N copies of that crawl, each with fresh ids: every file of
the crawl's directory, its line in crawls.jsonl (its latest version, as a
compacted journal holds it), its snapshots' lines in the site's index.jsonl,
its line in index/sealed.jsonl (retention's order) and its location hints
(index/loc/: the crawl's offset in crawls.jsonl, each snapshot's crawl),
plus an active index that knows crawls.jsonl, as the tools leave them.  Whatever differs from what the
tools write is a bug of this script: `abx-ctl repair` on OUT must find
nothing to change (bench/scale.sh and tests/scale.sh check it).

An id of the template becomes, in copy k, the same id with its time (its
first 48 bits, in ms) moved N - k seconds into the past: unique (the
template's ids are made within a second), still a UUIDv7, and in time
order, as if a crawl had been made every second.  The location hints go
to the bucket of their new time (as the store writes them).
"""
import os
import re
import sys

UUID = re.compile(rb"[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}")


def split(data, ids):
    """data as [bytes, id rank, bytes, id rank, ..., bytes]."""
    out, at = [], 0
    for m in UUID.finditer(data):
        if m.group(0) in ids:
            out.append(data[at:m.start()])
            out.append(ids[m.group(0)])
            at = m.end()
    out.append(data[at:])
    return out


def moved(u, ms):
    t = int(u[:8] + u[9:13], 16) - ms
    h = b"%012x" % t
    return h[:8] + b"-" + h[8:] + u[13:]


def render(parts, new):
    return b"".join(p if isinstance(p, bytes) else new[p] for p in parts)


def lines_with(path, needle):
    with open(path, "rb") as f:
        return [l for l in f if needle in l]


def main():
    tpl, out, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
    crawls = [l for l in open(os.path.join(tpl, "crawls.jsonl"), "rb") if l.strip()]
    cid = UUID.search(crawls[-1][crawls[-1].index(b'"id":'):]).group(0)
    crawl_line = [l for l in crawls if b'"id":"' + cid + b'"' in l][-1]
    cdir = os.path.join(tpl, "crawls", cid.decode())
    files, dirs = [], []
    for root, ds, fs in os.walk(cdir):
        rel = os.path.relpath(root, cdir).encode()
        for d in ds:
            dirs.append(os.path.normpath(os.path.join(rel, d.encode())))
        for f in fs:
            if True:
                with open(os.path.join(root, f), "rb") as fh:
                    files.append((os.path.normpath(os.path.join(rel, f.encode())), fh.read()))
    site = lines_with(os.path.join(tpl, "index.jsonl"), b'"crawl_id":"' + cid + b'"')
    sealed = lines_with(os.path.join(tpl, "index", "sealed.jsonl"), cid)
    snaps = []
    sdir = os.path.join(tpl, "index", "loc")
    for f in sorted(os.listdir(sdir)) if os.path.isdir(sdir) else []:
        snaps += lines_with(os.path.join(sdir, f), b'"crawl_id":"' + cid + b'"')
    if len(sealed) != 1 or not site:
        sys.exit("gencrawls: %s: not one finished crawl made by the tools" % tpl)
    found = []
    for blob in [crawl_line] + site + [d for d in dirs] + [p for p, _ in files] + [c for _, c in files]:
        for m in UUID.finditer(blob):
            if m.group(0) not in found:
                found.append(m.group(0))
    ids = {u: i for i, u in enumerate(found)}
    t_crawl = split(crawl_line, ids)
    t_site = [split(l, ids) for l in site]
    t_sealed = split(sealed[0], ids)
    t_snaps = [split(l, ids) for l in snaps]
    t_dirs = [split(d, ids) for d in sorted(dirs, key=len)]
    t_files = [(split(p, ids), split(c, ids)) for p, c in files]
    crank = ids[cid]

    os.makedirs(os.path.join(out, "crawls"))
    buckets = {}
    for d in ("index", "index/expire", "index/loc", "locks", "tmp"):
        os.makedirs(os.path.join(out, d), exist_ok=True)
    with open(os.path.join(tpl, "abx.conf"), "rb") as f:
        conf = f.read()
    with open(os.path.join(out, "abx.conf"), "wb") as f:
        f.write(conf)
    cj = open(os.path.join(out, "crawls.jsonl"), "wb")
    sj = open(os.path.join(out, "index.jsonl"), "wb")
    lj = open(os.path.join(out, "index", "sealed.jsonl"), "wb")
    off = 0
    base = os.path.join(out, "crawls").encode()
    for k in range(n):
        new = [moved(u, (n - k) * 1000) for u in found]
        top = base + b"/" + new[crank]
        os.mkdir(top)
        for d in t_dirs:
            os.mkdir(top + b"/" + render(d, new))
        for p, c in t_files:
            with open(top + b"/" + render(p, new), "wb") as f:
                f.write(render(c, new))
        cl = b'{"id":"%s","off":%d}\n' % (new[crank], off)
        buckets.setdefault(cl[7:15], []).append(cl)
        line = render(t_crawl, new)
        cj.write(line)
        off += len(line)
        for l in t_site:
            sj.write(render(l, new))
        lj.write(render(t_sealed, new))
        for l in t_snaps:
            line = render(l, new)
            buckets.setdefault(line[7:15], []).append(line)
    for b, ls in buckets.items():
        with open(os.path.join(out, "index", "loc", b.decode() + ".jsonl"), "ab") as f:
            f.write(b"".join(ls))
    cj.close()
    sj.close()
    lj.close()
    with open(os.path.join(out, "index", "sealed.pos"), "wb") as f:
        f.write(b"0\n")
    boot = os.environ.get("ABX_TEST_BOOT_ID")
    if not boot:
        with open("/proc/sys/kernel/random/boot_id") as f:
            boot = f.read().strip()
    with open(os.path.join(out, "index", "active.jsonl"), "w") as f:
        f.write('{"type":"Index","version":1,"boot_id":"%s"}\n' % boot)
        f.write('{"j":"crawls.jsonl","end":%d}\n' % off)


main()
