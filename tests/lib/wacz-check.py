#!/usr/bin/env python3
"""wacz-check.py -- read a WACZ file back as a replay tool would, from the
WACZ 1.1.1 specification alone (written apart from abx's writer).

    python3 wacz-check.py FILE.wacz

Checks, failing (exit 1, a line per problem on stderr) if any is wrong:
  - the zip holds datapackage.json, datapackage-digest.json,
    pages/pages.jsonl, at least one index in indexes/ and archive/;
  - datapackage.json: profile "data-package", wacz_version "1.1.1"; every
    resource's path is in the zip with that many bytes and that sha256;
    every file of the zip but the two manifests is a resource;
  - datapackage-digest.json: the sha256 of datapackage.json;
  - archive/ entries are zip-STORED (no second compression);
  - every index line "<key> <14-digit time> {json}" is in sorted order; the
    record at (filename, offset, length) is one whole gzip member holding
    one WARC record whose WARC-Target-URI is the line's url, whose
    WARC-Date is its time, whose type is response/revisit/resource, with a
    block of exactly Content-Length bytes, and for a response an HTTP
    status equal to the line's;
  - pages.jsonl: a json-pages-1.0 header; each page has url and an RFC 3339
    ts, and its url has a response in the index (the replay of the page).
Prints one JSON summary line on stdout: files, records, pages, and the
page urls and titles.
"""
import datetime
import gzip
import hashlib
import io
import json
import re
import sys
import zipfile
import zlib

problems = []


def bad(msg):
    problems.append(msg)


def sha256(data):
    return "sha256:" + hashlib.sha256(data).hexdigest()


def one_member(blob):
    """Decompress exactly one gzip member that fills blob."""
    d = zlib.decompressobj(16 + zlib.MAX_WBITS)
    out = d.decompress(blob) + d.flush()
    if not d.eof:
        raise ValueError("gzip member cut short")
    if d.unused_data:
        raise ValueError("%d bytes after the gzip member" % len(d.unused_data))
    return out


def parse_record(raw):
    head, sep, rest = raw.partition(b"\r\n\r\n")
    if not sep:
        raise ValueError("no end of WARC headers")
    lines = head.decode("utf-8", "replace").split("\r\n")
    if not lines[0].startswith("WARC/"):
        raise ValueError("not a WARC record: %r" % lines[0][:40])
    h = {}
    for line in lines[1:]:
        k, _, v = line.partition(":")
        h[k.strip().lower()] = v.strip()
    n = int(h["content-length"])
    block = rest[:n]
    if len(block) != n or rest[n:] != b"\r\n\r\n":
        raise ValueError("block is not Content-Length bytes followed by CRLF CRLF")
    return h, block


def main():
    path = sys.argv[1]
    z = zipfile.ZipFile(path)
    names = {i.filename: i for i in z.infolist() if not i.filename.endswith("/")}
    for need in ("datapackage.json", "datapackage-digest.json", "pages/pages.jsonl"):
        if need not in names:
            bad("missing " + need)
    indexes = [n for n in names if n.startswith("indexes/")]
    warcs = [n for n in names if n.startswith("archive/")]
    if not indexes:
        bad("no index in indexes/")
    if problems:
        return
    dp_raw = z.read("datapackage.json")
    dp = json.loads(dp_raw)
    if dp.get("profile") != "data-package":
        bad("profile is %r" % dp.get("profile"))
    if dp.get("wacz_version") != "1.1.1":
        bad("wacz_version is %r" % dp.get("wacz_version"))
    listed = set()
    for r in dp.get("resources", []):
        p = r.get("path")
        listed.add(p)
        if p not in names:
            bad("resource %s is not in the zip" % p)
            continue
        data = z.read(p)
        if len(data) != r.get("bytes"):
            bad("%s: %d bytes, datapackage says %r" % (p, len(data), r.get("bytes")))
        if sha256(data) != r.get("hash"):
            bad("%s: hash %s, datapackage says %s" % (p, sha256(data), r.get("hash")))
    for n in names:
        if n not in listed and n not in ("datapackage.json", "datapackage-digest.json"):
            bad("%s is in the zip but not a resource of datapackage.json" % n)
    dg = json.loads(z.read("datapackage-digest.json"))
    if dg.get("path") != "datapackage.json" or dg.get("hash") != sha256(dp_raw):
        bad("datapackage-digest.json does not match datapackage.json")
    for w in warcs:
        if names[w].compress_type != zipfile.ZIP_STORED:
            bad("%s is compressed in the zip (want STORE)" % w)

    responses = {}
    nrec = 0
    for ix in indexes:
        data = z.read(ix)
        if ix.endswith(".gz"):
            data = gzip.decompress(data)
        lines = data.decode("utf-8").splitlines()
        if lines != sorted(lines):
            bad("%s is not sorted" % ix)
        for ln, line in enumerate(lines, 1):
            m = re.match(r"^(\S+) (\d{14}) (\{.*\})$", line)
            if not m:
                bad("%s line %d: not a CDXJ line" % (ix, ln))
                continue
            j = json.loads(m.group(3))
            where = "%s line %d (%s)" % (ix, ln, j.get("url"))
            try:
                blob = z.read("archive/" + j["filename"])
                off, length = int(j["offset"]), int(j["length"])
                if off + length > len(blob):
                    raise ValueError("offset+length beyond the WARC")
                h, block = parse_record(one_member(blob[off:off + length]))
            except (KeyError, ValueError, zlib.error) as e:
                bad("%s: %s" % (where, e))
                continue
            nrec += 1
            uri = h.get("warc-target-uri", "").strip("<>")
            if uri != j["url"]:
                bad("%s: the record is for %s" % (where, uri))
            if h.get("warc-type") not in ("response", "revisit", "resource"):
                bad("%s: a %s record" % (where, h.get("warc-type")))
            if re.sub(r"\D", "", h.get("warc-date", ""))[:14] != m.group(2):
                bad("%s: WARC-Date %s is not %s" % (where, h.get("warc-date"), m.group(2)))
            if h.get("warc-type") == "response":
                st = re.match(rb"HTTP/\S+ (\d{3})", block)
                if not st:
                    bad("%s: no HTTP status line in the response" % where)
                elif "status" in j and st.group(1).decode() != str(j["status"]):
                    bad("%s: status %s, index says %s" % (where, st.group(1).decode(), j["status"]))
                else:
                    responses.setdefault(uri, []).append(m.group(2))

    pages = [json.loads(l) for l in z.read("pages/pages.jsonl").decode("utf-8").splitlines() if l.strip()]
    if not pages or pages[0].get("format") != "json-pages-1.0":
        bad("pages.jsonl has no json-pages-1.0 header")
    found = []
    for p in pages[1:]:
        url, ts = p.get("url"), p.get("ts", "")
        try:
            datetime.datetime.fromisoformat(ts.replace("Z", "+00:00"))
        except ValueError:
            bad("page %s: ts %r is not RFC 3339" % (url, ts))
        if url not in responses:
            bad("page %s has no response in the index" % url)
        found.append({"url": url, "title": p.get("title")})
    print(json.dumps({"files": len(names), "warcs": len(warcs), "records": nrec,
                      "pages": found}))


if __name__ == "__main__":
    try:
        main()
    except (zipfile.BadZipFile, json.JSONDecodeError, KeyError) as e:
        bad("unreadable: %s" % e)
    for p in problems:
        print("wacz-check: " + p, file=sys.stderr)
    sys.exit(1 if problems else 0)
