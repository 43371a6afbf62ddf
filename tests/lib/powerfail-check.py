#!/usr/bin/env python3
"""powerfail-check.py -- check a data directory restored after a simulated
power loss (tests/powerloss.sh) against what the workload acknowledged.

    powerfail-check.py pre  DATADIR ACKS     before recovery
    powerfail-check.py post DATADIR ACKS     after the recovery ticks

Reads the journals directly (they are the truth) and the tools' view
through abx-ls (on PATH).  Prints one line per finding, tab-separated:

    V <check> <detail>     a violation of <check>
    R <crawl id>           (pre) a crawl left paused by an unfinished
                           pause/resume pair, for the harness to resume
    S <key> <value>        a statistic

Checks, pre:
    acked-crawl   every crawl abx-add printed is in crawls.jsonl (that
                  version or a later one) and abx-ls lists it
    acked-record  the claim printed by abx-claim is in the journal (or a
                  later version); an acknowledged release left a later
                  version; an acknowledged pause left the crawl paused
                  (unless a resume was started); an acknowledged resume
                  left it not paused; an acknowledged cancel left it sealed
    due-queue     the active items abx-ls reports from the due-queue index
                  (-k crawl|snapshot -s queued|started|paused) are exactly
                  the active items of the journals
Checks, post:
    jsonl         every line of every journal, of index/*.jsonl, of the
                  site index.jsonl and of each snapshot's index.jsonl is
                  one JSON object, and each file ends with a newline
    finished      every crawl and snapshot is sealed; every URL of every
                  acknowledged crawl has a sealed depth-0 snapshot
    output-files  every file a (latest) succeeded ArchiveResult names in
                  output_files exists with the size it records (one
                  finding per snapshot)
    duplicate     no two snapshot ids for one (crawl, url)
    snapshot-index  a sealed snapshot that ran (downloaded_at) has its
                  index.jsonl (with its Snapshot record), index.json and
                  index.html, valid and not empty
    site-index    the site index.jsonl lists every sealed snapshot that ran
"""

import glob
import json
import os
import subprocess
import sys

class Out:
    def __init__(self):
        self.n = {}

    def v(self, check, detail):
        self.n[check] = self.n.get(check, 0) + 1
        print("V\t%s\t%s" % (check, detail))

    def stat(self, key, value):
        print("S\t%s\t%s" % (key, value))


def read_lines(path):
    """(list of (lineno, text)) of complete lines, and the torn tail."""
    try:
        with open(path, "rb") as f:
            data = f.read()
    except FileNotFoundError:
        return None, b""
    parts = data.split(b"\n")
    tail = parts.pop()  # after the last newline: b"" if none
    return [(i + 1, p) for i, p in enumerate(parts)], tail


def journal(path):
    """The records of a journal, in order: its complete lines that are JSON
    objects (the jsonl check reports the others)."""
    lines, _ = read_lines(path)
    recs = []
    for _, text in lines or []:
        try:
            r = json.loads(text)
        except ValueError:
            continue
        if isinstance(r, dict):
            recs.append(r)
    return recs


def load(d):
    """Every record of the journals, in journal order: {id: [versions]}."""
    hist = {}
    order = []
    paths = [os.path.join(d, j) for j in ("schedules.jsonl", "binaries.jsonl", "crawls.jsonl")]
    paths += sorted(glob.glob(os.path.join(d, "crawls", "*", "snapshots.jsonl")))
    for p in paths:
        for r in journal(p):
            i = r.get("id")
            if not i:
                continue
            if i not in hist:
                hist[i] = []
                order.append(i)
            hist[i].append(r)
    return hist, order, paths


def latest(hist):
    return {i: v[-1] for i, v in hist.items()}


def active(r):
    return r.get("status") != "sealed" or r.get("retry_at") is not None


def acks(path):
    out = []
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            for line in f:
                line = line.rstrip("\n")
                tag, _, detail = line.partition("\t")
                out.append((tag, detail))
    except FileNotFoundError:
        pass
    return out


def abx_ls_start(d, *args):
    return subprocess.Popen(["abx-ls", "-d", d, "--jsonl"] + list(args),
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)


def abx_ls_end(p):
    stdout, stderr = p.communicate()
    recs = []
    for line in stdout.splitlines():
        try:
            recs.append(json.loads(line))
        except ValueError:
            pass
    return p.returncode, recs, stderr.decode(errors="replace").strip()


def acked_adds(ack):
    res = []
    for tag, detail in ack:
        if tag == "add":
            try:
                res.append(json.loads(detail))
            except ValueError:
                pass
    return res


def pre(d, ackpath):
    out = Out()
    ack = acks(ackpath)
    if not os.path.isfile(os.path.join(d, "abx.conf")):
        if acked_adds(ack):
            out.v("acked-crawl", "%s though abx-add acknowledged %d crawl(s)"
                  % ("abx.conf is lost: the directory is no data directory" if os.path.isdir(d)
                     else "the data directory is gone", len(acked_adds(ack))))
        return out
    # abx-ls: every record, and the due queue (run at once: they only read)
    queue = [(kind, st) for kind in ("crawl", "snapshot") for st in ("queued", "started", "paused")]
    procs = [abx_ls_start(d)] + [abx_ls_start(d, "-k", kind, "-s", st) for kind, st in queue]
    results = [abx_ls_end(p) for p in procs]
    hist, _, _ = load(d)
    cur = latest(hist)
    rc, listed, err = results[0]
    listed_ids = {r.get("id") for r in listed}
    if rc != 0:
        out.v("acked-crawl", "abx-ls exits %d: %s" % (rc, err[:200]))
    n = 0
    for c in acked_adds(ack):
        n += 1
        cid, mod = c.get("id"), c.get("modified_at", "")
        urls = c.get("urls", "").strip().replace("\n", " ")
        vers = hist.get(cid, [])
        if not vers:
            out.v("acked-crawl", "crawl %s (%s) acknowledged by abx-add is not in crawls.jsonl" % (cid, urls))
            continue
        if not any(v.get("modified_at", "") >= mod for v in vers):
            out.v("acked-crawl", "crawl %s (%s): the version abx-add printed (modified_at %s) is lost;"
                  " the journal's newest is %s" % (cid, urls, mod, vers[-1].get("modified_at")))
        if cid not in listed_ids:
            out.v("acked-crawl", "crawl %s (%s) is in crawls.jsonl but abx-ls does not list it" % (cid, urls))
    out.stat("acked_crawls", n)

    # acknowledged changes
    claims = {}
    nrec = 0
    for tag, detail in ack:
        if tag == "claim":
            nrec += 1
            try:
                r = json.loads(detail)
            except ValueError:
                continue
            sid, mod = r.get("id"), r.get("modified_at", "")
            claims[sid] = mod
            vers = hist.get(sid, [])
            if not any(v.get("modified_at", "") >= mod for v in vers):
                out.v("acked-record", "snapshot %s: the claim abx-claim printed (modified_at %s) is lost;"
                      " the journal's newest version is %s"
                      % (sid, mod, vers[-1].get("modified_at") if vers else "none"))
        elif tag == "release":
            nrec += 1
            mod = claims.get(detail, "")
            if not any(v.get("modified_at", "") > mod for v in hist.get(detail, [])):
                out.v("acked-record", "snapshot %s: the release abx-claim --release acknowledged is lost"
                      " (no version after the claim of %s)" % (detail, mod))
        elif tag in ("pause", "resume", "cancel"):
            nrec += 1
    # pause / resume / cancel, by the last acknowledged state
    tags = [t for t, _ in ack]
    for tag, detail in ack:
        c = cur.get(detail)
        if tag == "pause":
            if "resuming" in tags:
                continue
            if not c or c.get("status") != "paused":
                out.v("acked-record", "crawl %s: abx-ctl pause was acknowledged, the crawl is %s"
                      % (detail, c.get("status") if c else "missing"))
        elif tag == "resume":
            if not c or c.get("status") == "paused":
                out.v("acked-record", "crawl %s: abx-ctl resume was acknowledged, the crawl is %s"
                      % (detail, c.get("status") if c else "missing"))
        elif tag == "cancel":
            if not c or c.get("status") != "sealed":
                out.v("acked-record", "crawl %s: abx-ctl cancel was acknowledged, the crawl is %s"
                      % (detail, c.get("status") if c else "missing"))
    out.stat("acked_changes", nrec)
    # crawls left paused by the workload, unless a resume was acknowledged
    resumed = {dt for t, dt in ack if t == "resume"}
    for i, r in cur.items():
        if r.get("type") == "Crawl" and r.get("status") == "paused" and i not in resumed:
            print("R\t%s" % i)

    # the due queue (the active index, through abx-ls) against the journals
    want = {(i, r.get("status")) for i, r in cur.items()
            if r.get("type") in ("Crawl", "Snapshot") and active(r)
            and r.get("status") in ("queued", "started", "paused")}
    got = set()
    for (kind, st), (rc, recs, err) in zip(queue, results[1:]):
        if rc not in (0, 1):
            out.v("due-queue", "abx-ls -k %s -s %s exits %d: %s" % (kind, st, rc, err[:200]))
        got |= {(r.get("id"), r.get("status")) for r in recs}
    for i, st in sorted(want - got):
        r = cur[i]
        out.v("due-queue", "%s %s (%s, %s) is active in its journal but missing from the due queue"
              % (r.get("type"), i, st, r.get("url") or r.get("urls", "").strip()))
    for i, st in sorted(got - want):
        out.v("due-queue", "%s %s is in the due queue as %s but the journal says %s"
              % ("item", i, st, cur[i].get("status") if i in cur else "nothing"))
    out.stat("active", len(want))
    return out


def post(d, ackpath):
    out = Out()
    ack = acks(ackpath)
    if not os.path.isfile(os.path.join(d, "abx.conf")):
        return out  # reported by pre
    hist, _, paths = load(d)
    cur = latest(hist)
    rel = lambda p: os.path.relpath(p, d)

    # jsonl
    files = paths + sorted(glob.glob(os.path.join(d, "index", "*.jsonl"))) + [os.path.join(d, "index.jsonl")]
    files += sorted(glob.glob(os.path.join(d, "crawls", "*", "*", "index.jsonl")))
    for p in files:
        lines, tail = read_lines(p)
        if lines is None:
            continue
        for no, text in lines:
            try:
                r = json.loads(text)
                if not isinstance(r, dict):
                    raise ValueError("not an object")
            except ValueError as e:
                out.v("jsonl", "%s:%d: invalid JSON (%s): %r" % (rel(p), no, e, text[:60]))
        if tail:
            out.v("jsonl", "%s: torn last line (%d bytes without a newline)" % (rel(p), len(tail)))

    # finished
    crawls = [r for r in cur.values() if r.get("type") == "Crawl"]
    snaps = [r for r in cur.values() if r.get("type") == "Snapshot"]
    for r in crawls + snaps:
        if r.get("status") != "sealed":
            out.v("finished", "%s %s (%s) is %s, retry_at %s, after the recovery ticks"
                  % (r.get("type"), r.get("id"), r.get("url") or r.get("urls", "").strip(),
                     r.get("status"), r.get("retry_at")))
    for c in acked_adds(ack):
        cur_c = cur.get(c.get("id"))
        if not cur_c:
            out.v("finished", "crawl %s acknowledged by abx-add is gone after recovery" % c.get("id"))
            continue
        if "cancelme" in (c.get("tags_str") or ""):
            continue
        for u in c.get("urls", "").split("\n"):
            u = u.strip()
            if u and not any(s.get("crawl_id") == c["id"] and s.get("url") == u and s.get("depth") == 0
                             and s.get("status") == "sealed" for s in snaps):
                out.v("finished", "crawl %s: no sealed depth-0 snapshot of %s" % (c["id"], u))
    out.stat("crawls", len(crawls))
    out.stat("snapshots", len(snaps))
    out.stat("sealed", sum(1 for s in snaps if s.get("status") == "sealed"))

    # duplicates: snapshot ids per (crawl, url), over the whole history
    ids = {}
    for i, vers in hist.items():
        r = vers[-1]
        if r.get("type") == "Snapshot":
            ids.setdefault((r.get("crawl_id"), r.get("url")), set()).add(i)
    for (c, u), s in sorted(ids.items()):
        if len(s) > 1:
            out.v("duplicate", "crawl %s has %d snapshots of %s: %s" % (c, len(s), u, " ".join(sorted(s))))

    # output files of the latest succeeded results: one finding per
    # snapshot, naming its missing and short files
    res = {}
    for i in hist:
        r = cur[i]
        if r.get("type") == "ArchiveResult":
            res[(r.get("snapshot_id"), r.get("plugin"), r.get("hook_name"))] = r
    nfiles, bad = 0, {}
    with_files = set()
    for (sid, plugin, hook), r in sorted(res.items(), key=lambda kv: str(kv[0])):
        if r.get("status") != "succeeded":
            continue
        s = cur.get(sid) or {}
        sdir = os.path.join(d, "crawls", r.get("crawl_id") or s.get("crawl_id", "?"), sid, plugin or "?")
        for name, meta in sorted((r.get("output_files") or {}).items()):
            nfiles += 1
            with_files.add(sid)
            want = meta.get("size") if isinstance(meta, dict) else None
            try:
                size = os.stat(os.path.join(sdir, name)).st_size
            except OSError:
                size = None
            if size is None:
                bad.setdefault(sid, []).append("%s/%s missing (%s bytes recorded)" % (plugin, name, want))
            elif want is not None and size != want:
                bad.setdefault(sid, []).append("%s/%s %d bytes (%s recorded)" % (plugin, name, size, want))
    for sid, probs in sorted(bad.items()):
        s = cur.get(sid) or {}
        more = "; and %d more" % (len(probs) - 6) if len(probs) > 6 else ""
        out.v("output-files", "%s snapshot %s (%s): %d of its recorded files bad: %s%s"
              % (s.get("status"), sid, s.get("url"), len(probs), "; ".join(probs[:6]), more))
    out.stat("output_files", nfiles)
    out.stat("snapshots_with_files", len(with_files))

    # snapshot index files, and the site index
    site = {}
    lines, _ = read_lines(os.path.join(d, "index.jsonl"))
    for _, text in lines or []:
        try:
            site[json.loads(text).get("id")] = 1
        except (ValueError, AttributeError):
            pass
    for s in snaps:
        if s.get("status") != "sealed" or not s.get("downloaded_at"):
            continue
        sdir = os.path.join(d, "crawls", s.get("crawl_id", "?"), s["id"])
        probs = []
        idx = journal(os.path.join(sdir, "index.jsonl"))
        if not idx:
            probs.append("index.jsonl missing or empty")
        elif not any(x.get("type") == "Snapshot" and x.get("id") == s["id"] for x in idx):
            probs.append("index.jsonl without its Snapshot record")
        try:
            with open(os.path.join(sdir, "index.json"), "rb") as f:
                json.loads(f.read())
        except OSError:
            probs.append("index.json missing")
        except ValueError:
            probs.append("index.json not valid JSON")
        try:
            if os.path.getsize(os.path.join(sdir, "index.html")) == 0:
                probs.append("index.html empty")
        except OSError:
            probs.append("index.html missing")
        if probs:
            out.v("snapshot-index", "sealed snapshot %s (%s): %s" % (s["id"], s.get("url"), ", ".join(probs)))
        if s["id"] not in site:
            out.v("site-index", "index.jsonl does not list sealed snapshot %s (%s)" % (s["id"], s.get("url")))
    return out


def main():
    if len(sys.argv) != 4 or sys.argv[1] not in ("pre", "post"):
        sys.exit("usage: powerfail-check.py pre|post DATADIR ACKS")
    (pre if sys.argv[1] == "pre" else post)(sys.argv[2], sys.argv[3])


if __name__ == "__main__":
    main()
