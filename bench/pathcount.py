#!/usr/bin/env python3
"""pathcount.py -- path components opened a page, by process, from the
strace -f -ff logs of a crawl (bench/gluster-trace.sh).

    python3 bench/pathcount.py DIR PAGES MOUNT... [-n TOP]

DIR holds strace -ff output files (one a process); PAGES is the pages the
crawl sealed; each MOUNT is a mount point of the network filesystem (a
path under one of them, or relative to a directory on one, is counted;
an absolute path elsewhere is the local disk's and is not).  Each call
that resolves a path (open, openat, openat2, stat and its kin, mkdir,
unlink, rename, readlink, ...) counts the path's components: on a FUSE
mount with its caches off, each is a LOOKUP at the server and a STAT of
its directory.  A relative path is taken to be on the mount (the
processes of a crawl work in its data directory).  Prints the components
a page for each program (the name it last exec'd), then the TOP most
frequent (program, call, path shape) triples, ids and numbers folded.
"""
import os
import re
import sys

CALLS = {"open", "openat", "openat2", "stat", "lstat", "newfstatat", "statx", "access", "faccessat",
         "faccessat2", "mkdir", "mkdirat", "unlink", "unlinkat", "rename", "renameat", "renameat2",
         "readlink", "readlinkat", "utimensat", "statfs", "chdir", "linkat", "symlinkat", "fchmodat",
         "fchownat"}
ID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")
LINE = re.compile(r'^(?:\d+\s+)?(?:[\d:.]+\s+)?(\w+)\("([^"]*)"')
LINE_AT = re.compile(r'^(?:\d+\s+)?(?:[\d:.]+\s+)?(\w+)\((?:AT_FDCWD|\d+)(?:<[^>]*>)?, "([^"]*)"')


def main():
    args = sys.argv[1:]
    top = 40
    if "-n" in args:
        k = args.index("-n")
        top = int(args[k + 1])
        del args[k:k + 2]
    d, pages, mounts = args[0], int(args[1]), [m.rstrip("/") + "/" for m in args[2:]]
    by_prog, by_shape = {}, {}
    for name in os.listdir(d):
        prog = "?"
        with open(os.path.join(d, name), errors="replace") as f:
            for line in f:
                if "execve(" in line and ") = 0" in line:
                    q = line.split('"')
                    if len(q) > 1:
                        prog = os.path.basename(q[1])
                m = LINE_AT.match(line) or LINE.match(line)
                if not m or m.group(1) not in CALLS or not m.group(2):
                    continue
                call, path = m.group(1), m.group(2)
                if path.startswith("/"):
                    inside = [mt for mt in mounts if path.startswith(mt)]
                    if not inside:
                        continue
                    path = path[len(inside[0]):]
                n = len([c for c in path.split("/") if c and c != "."])
                if n == 0:
                    continue
                by_prog[prog] = by_prog.get(prog, 0) + n
                shape = re.sub(r"\d+", "N", ID.sub("ID", path))
                key = (prog, call, shape)
                by_shape[key] = by_shape.get(key, 0) + n
    print("path components a page, by program (%d pages):" % pages)
    for prog, n in sorted(by_prog.items(), key=lambda kv: -kv[1]):
        print("  %-40s %7.1f" % (prog, n / pages))
    print("the most frequent (program, call, path):")
    for (prog, call, shape), n in sorted(by_shape.items(), key=lambda kv: -kv[1])[:top]:
        print("  %-24s %-11s %-60s %6.1f" % (prog[:24], call, shape[:60], n / pages))


main()
