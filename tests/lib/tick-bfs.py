#!/usr/bin/env python3
"""tick-bfs.py -- the pages a crawl of URL to DEPTH must archive, found
independently of abx: a breadth-first walk over the live server.

Usage: python3 tests/lib/tick-bfs.py URL DEPTH [DENY_RE [ALLOW_RE]]

Prints "DEPTH URL" for every page within DEPTH links of URL, sorted.  A
page's outlinks are the href of <a> and <area>, the src of <iframe> and
<frame>, and the href of <link rel=alternate|next|prev>, resolved against
the page (or its <base href>), without their fragment, http(s) only, not
the page itself.  A URL that DENY_RE (Python re.search; default: abx's
default denylist of static assets) finds, or that ALLOW_RE (if given and
not empty) does not find, is neither archived nor followed.
"""

import html.parser
import re
import sys
import urllib.error
import urllib.parse
import urllib.request

DEFAULT_DENY = r"\.(css|js|otf|ttf|woff|woff2|gstatic\.com|googleapis\.com/css)(\?.*)?$"


class Links(html.parser.HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.base = None
        self.refs = []

    def handle_starttag(self, tag, attrs):
        a = {k: (v or "") for k, v in attrs}
        if tag == "base" and self.base is None and "href" in a:
            self.base = a["href"]
        elif tag in ("a", "area") and "href" in a:
            self.refs.append(a["href"])
        elif tag in ("iframe", "frame") and "src" in a:
            self.refs.append(a["src"])
        elif tag == "link" and "href" in a:
            rels = a.get("rel", "").lower().split()
            if set(rels) & {"alternate", "next", "prev"}:
                self.refs.append(a["href"])


def outlinks(url):
    try:
        with urllib.request.urlopen(url, timeout=20) as r:
            final = r.geturl()
            ctype = r.headers.get("Content-Type", "")
            body = r.read().decode("utf-8", "replace")
    except (urllib.error.URLError, OSError):
        return []
    if "html" not in ctype:
        return []
    p = Links()
    p.feed(body)
    base = urllib.parse.urljoin(final, p.base) if p.base else final
    out = []
    for ref in p.refs:
        u = urllib.parse.urldefrag(urllib.parse.urljoin(base, ref.strip()))[0]
        if urllib.parse.urlsplit(u).scheme in ("http", "https") and u != url:
            out.append(u)
    return out


def main():
    url, depth = sys.argv[1], int(sys.argv[2])
    deny = re.compile(sys.argv[3] if len(sys.argv) > 3 else DEFAULT_DENY)
    allow = re.compile(sys.argv[4]) if len(sys.argv) > 4 and sys.argv[4] else None

    def passes(u):
        return not deny.search(u) and (allow is None or allow.search(u))

    seen = {url: 0} if passes(url) else {}
    frontier = list(seen)
    for d in range(1, depth + 1):
        nxt = []
        for page in frontier:
            for u in outlinks(page):
                if u not in seen and passes(u):
                    seen[u] = d
                    nxt.append(u)
        frontier = nxt
    for u, d in sorted(seen.items(), key=lambda kv: (kv[1], kv[0])):
        print(d, u)


if __name__ == "__main__":
    main()
