#!/usr/bin/env python3
"""site.py -- the test site of bench/gluster.sh and bench/gluster-trace.sh.

    python3 bench/site.py ROOT PAGES

Writes two seeds, ROOT/a/index.html and ROOT/b/index.html, each linking
PAGES - 1 pages (pN.html) that link back to it: a depth-1 crawl of both
is 2 * PAGES pages.
"""
import os
import sys


def page(title, links):
    return "<!DOCTYPE html><html><head><title>%s</title></head><body>%s</body></html>\n" % (
        title, "".join('<a href="%s">%s</a>\n' % (link, link) for link in links))


def main():
    root, n = sys.argv[1], int(sys.argv[2])
    for s in ("a", "b"):
        os.makedirs(os.path.join(root, s))
        with open(os.path.join(root, s, "index.html"), "w") as f:
            f.write(page("Site " + s, ["p%d.html" % i for i in range(1, n)]))
        for i in range(1, n):
            with open(os.path.join(root, s, "p%d.html" % i), "w") as f:
                f.write(page("%s %d" % (s, i), ["index.html"]))


main()
