#!/usr/bin/env python3
# What abx-plugins 1.10.71's on_Snapshot__73_parse_netscape_urls.py prints
# for a bookmarks file: a Tag record for each distinct tag, then one
# Snapshot record per bookmark ({"type","url","plugin","depth","title",
# "tags": "a,b"}, merged over EXTRA_CONTEXT, "id": ""), written to
# urls.jsonl too, then its ArchiveResult.
import html, json, os, re, sys, urllib.request

PATTERN = re.compile(r'<a\s+href="([^"]+)"(?:\s+add_date="([^"]*)")?(?:\s+[^>]*?tags="([^"]*)")?[^>]*>([^<]+)</a>',
                     re.IGNORECASE)
url = next(a[6:] for a in sys.argv[1:] if a.startswith("--url="))
ctx = json.loads(os.environ.get("EXTRA_CONTEXT") or "{}")
depth = int(ctx.get("snapshot_depth", 0))
content = urllib.request.urlopen(url, timeout=10).read().decode("utf-8", "replace")
found, tags = [], set()
for line in content.splitlines():
    m = PATTERN.search(line)
    if not m:
        continue
    entry = {"type": "Snapshot", "url": urllib.parse.urljoin(url, m.group(1)), "plugin": "parse_netscape_urls",
             "depth": depth + 1, "title": html.unescape(m.group(4).strip())}
    if m.group(3):
        entry["tags"] = m.group(3)
        tags.update(t.strip() for t in m.group(3).split(",") if t.strip())
    found.append(entry)
for t in sorted(tags):
    print(json.dumps({**ctx, "type": "Tag", "name": t}))
for e in found:
    print(json.dumps({**ctx, **e, "id": ""}))
with open("urls.jsonl", "w") as f:
    f.write("".join(json.dumps(e) + "\n" for e in found))
print(json.dumps({**ctx, "type": "ArchiveResult", "status": "succeeded", "output_str": f"{len(found)} URLs parsed"}))
