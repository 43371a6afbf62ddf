#!/usr/bin/env python3
"""powerfail-strace.py -- the static half of the power-loss tests
(tests/sync-order.sh): read an strace log of abx tools and their hooks and
report every place where something was acknowledged before it was durable.

    powerfail-strace.py TRACE DATADIR

TRACE is written by

    strace -f -y -q -s 65536 -o TRACE -e trace=SYSCALLS CMD...

with SYSCALLS as in tests/sync-order.sh (file creation, writes, renames,
syncs, chdir, fork and execve).  Prints tab-separated lines:

    V <rule> <detail>     a violation
    S <key> <value>       a statistic (records, files, tools seen)

The rules (sound, simple, and stricter than needed where the trace cannot
tell: a sync counts only between the change and the deadline):

  result-files  For every journal write (crawls/*/snapshots.jsonl) that
                holds an ArchiveResult with status "succeeded": each file
                its output_files names (<snapshot>/<plugin>/<name>) has
                been fsync'd or fdatasync'd after it was last written, and
                every directory from the snapshot's down to the file's has
                been fsync'd after the entry below it was created, all
                before the line became durable: the first sync after the
                write that covers the journal (its fsync or fdatasync; a
                syncfs or sync counts for everything, itself included,
                unless POWERFAIL_STRACE_FUSE=1 is in the environment: then
                it counts for nothing, as on FUSE and network filesystems).
  names         Every abx tool that exits 0 has fsync'd, before it exits,
                the directory of every name it created in the data
                directory: open with O_CREAT of a new file, creat, mkdir,
                the target of a rename, link, symlink (the data directory
                itself: its parent).
  data          Every abx tool that exits 0 has fsync'd or fdatasync'd,
                before it exits, every file of the data directory it wrote
                (followed through renames: a temporary file synced and
                renamed into place is fine).

Not checked, as hints that are rebuilt rather than made durable (abx(7)),
or transient: index/ (the active index, site.json), locks/ (lease lock
files), tmp/, .NAME.tmp.PID files (their rename is checked), the site index
(index.jsonl, index.html, index-K.html), a snapshot's index.jsonl,
index.json and index.html (tests/powerloss.sh checks that they exist after
recovery), hook logs (*.stdout.log, *.stderr.log), .heartbeat.json and
hosts/ (per-host politeness, never synced: hostpace.h).
"""

import fnmatch
import json
import os
import re
import sys

EXEMPT = [
    "index/*", "locks/*", "tmp/*", "*/.*.tmp.*", ".*.tmp.*",
    "index.jsonl", "index.html", "index-*.html",
    "crawls/*/*/index.jsonl", "crawls/*/*/index.json", "crawls/*/*/index.html",
    "*.stdout.log", "*.stderr.log", "*/.heartbeat.json", "hosts/*",
]
MAX = 25

LINE = re.compile(r"^(\d+) +(.*)$")
CALL = re.compile(r"^([a-z_0-9]+)\((.*)$")
RESUMED = re.compile(r"^<\.\.\. ([a-z_0-9]+) resumed>(.*)$")
RET = re.compile(r"\) += (-?\d+|\?)(?:<(.*?)>)?(?: .*)?$")


def split_args(s):
    """Split the argument text of a syscall (up to its closing paren) into
    top-level arguments; returns (args, rest after the paren)."""
    args, cur, depth, i, n = [], [], 0, 0, len(s)
    while i < n:
        c = s[i]
        if c == '"':
            j = i + 1
            while j < n and s[j] != '"':
                j += 2 if s[j] == "\\" else 1
            cur.append(s[i:j + 1])
            i = j + 1
            continue
        if c == "<" and cur and re.search(r"(\d|AT_FDCWD)$", "".join(cur).strip()):
            j = s.find(">", i)
            while j != -1 and j + 1 < n and s[j + 1:].lstrip()[:1] not in (",", ")"):
                j = s.find(">", j + 1)
            if j == -1:
                j = n - 1
            cur.append(s[i:j + 1])
            i = j + 1
            continue
        if c in "{[(":
            depth += 1
        elif c in "}])":
            if depth == 0 and c == ")":
                args.append("".join(cur).strip())
                return args, s[i:]
            depth -= 1
        elif c == "," and depth == 0:
            args.append("".join(cur).strip())
            cur = []
            i += 1
            continue
        cur.append(c)
        i += 1
    args.append("".join(cur).strip())
    return args, ""


def cstr(a):
    """The bytes of a quoted strace string argument."""
    m = re.match(r'^"(.*)"(\.\.\.)?$', a, re.S)
    if not m:
        return None
    s, out, i = m.group(1), bytearray(), 0
    esc = {"n": 10, "t": 9, "r": 13, "v": 11, "f": 12, "\\": 92, '"': 34, "'": 39, "a": 7, "b": 8, "e": 27}
    while i < len(s):
        c = s[i]
        if c == "\\" and i + 1 < len(s):
            d = s[i + 1]
            if d == "x":
                out.append(int(s[i + 2:i + 4], 16))
                i += 4
                continue
            if d.isdigit():
                j = i + 1
                while j < len(s) and j < i + 4 and s[j] in "01234567":
                    j += 1
                out.append(int(s[i + 1:j], 8) & 255)
                i = j
                continue
            out.append(esc.get(d, ord(d)))
            i += 2
            continue
        out += c.encode()
        i += 1
    return bytes(out)


def fdpath(a):
    """The path strace -y shows for an fd argument (3</x/y>), or None."""
    m = re.match(r"^(?:-?\d+|AT_FDCWD)<(.*)>$", a, re.S)
    return m.group(1) if m else None


class Trace:
    def __init__(self, path):
        self.events = []  # (seq, pid, name, args, ret, retpath)
        self.exits = {}   # pid -> (seq, status)
        self.parent = {}
        pending = {}
        seq = 0
        with open(path, encoding="utf-8", errors="surrogateescape") as f:
            for raw in f:
                raw = raw.rstrip("\n")
                m = LINE.match(raw)
                if not m:
                    continue
                pid, body = int(m.group(1)), m.group(2)
                seq += 1
                if body.startswith("+++ exited with "):
                    self.exits[pid] = (seq, int(body.split()[3]))
                    continue
                if body.startswith("+++") or body.startswith("---"):
                    continue
                if body.endswith("<unfinished ...>"):
                    pending[pid] = body[:-len("<unfinished ...>")].rstrip()
                    continue
                r = RESUMED.match(body)
                if r:
                    body = pending.pop(pid, r.group(1) + "(") + r.group(2)
                c = CALL.match(body)
                if not c:
                    continue
                name = c.group(1)
                args, rest = split_args(c.group(2))
                rm = RET.search(rest) if rest else None
                ret = rm.group(1) if rm else "?"
                retpath = rm.group(2) if rm else None
                if ret.startswith("-") and ret != "?":
                    continue  # failed: changed nothing
                self.events.append((seq, pid, name, args, ret, retpath))
                if name in ("clone", "clone3", "fork", "vfork") and ret not in ("?", "0"):
                    self.parent[int(ret)] = pid


def main():
    if len(sys.argv) != 3:
        sys.exit("usage: powerfail-strace.py TRACE DATADIR")
    tr = Trace(sys.argv[1])
    data = os.path.realpath(sys.argv[2])
    counts = {}

    def v(rule, detail):
        counts[rule] = counts.get(rule, 0) + 1
        if counts[rule] <= MAX:
            print("V\t%s\t%s" % (rule, detail))

    def rel(p):
        return os.path.relpath(p, data) if p and (p == data or p.startswith(data + "/")) else p

    def inside(p):
        return p is not None and (p == data or p.startswith(data + "/"))

    def exempt(p):
        r = rel(p)
        return any(fnmatch.fnmatch(r, pat) for pat in EXEMPT)

    cwd, prog = {}, {}

    def getcwd(pid):
        p = pid
        while p in tr.parent and p not in cwd:
            p = tr.parent[p]
        return cwd.get(p, cwd.get(pid))

    def resolve(pid, dirarg, name):
        if name is None:
            return None
        if name.startswith("/"):
            return os.path.normpath(name)
        base = fdpath(dirarg) if dirarg else None
        if base is None:
            base = getcwd(pid)
        return os.path.normpath(os.path.join(base, name)) if base else None

    # inodes: path -> id; per id: writes, syncs (seq lists)
    ino_at, ino_n = {}, [0]
    writes, syncs, global_syncs = {}, {}, []
    created = {}   # path -> seq of the (last) creation of that name
    removed = {}   # path -> seqs where the name went away (unlink, rename from)
    tool_events = {}  # pid -> list of (kind, seq, path, ino)
    results = []   # (seq, journal path, record)

    def ino(p, new=False):
        if new or p not in ino_at:
            ino_n[0] += 1
            ino_at[p] = ino_n[0]
        return ino_at[p]

    def create(pid, p, seq):
        created[p] = seq
        if inside(p):
            tool_events.setdefault(pid, []).append(("name", seq, p, None))

    for seq, pid, name, args, ret, retpath in tr.events:
        if name == "execve":
            prog[pid] = cstr(args[0]).decode(errors="replace") if args and cstr(args[0]) else "?"
            continue
        for a in args:
            if a.startswith("AT_FDCWD<"):
                cwd[pid] = fdpath(a)
        if name == "chdir":
            p = resolve(pid, None, (cstr(args[0]) or b"").decode(errors="surrogateescape"))
            if p:
                cwd[pid] = p
            continue
        if name == "fchdir":
            p = fdpath(args[0])
            if p:
                cwd[pid] = p
            continue
        if name in ("open", "openat", "openat2", "creat"):
            if name == "openat" or name == "openat2":
                dirarg, patharg, flags = args[0], args[1], args[2] if len(args) > 2 else ""
            else:
                dirarg, patharg, flags = None, args[0], args[1] if len(args) > 1 else ""
            if name == "creat":
                flags = "O_CREAT|O_TRUNC"
            p = retpath or resolve(pid, dirarg, (cstr(patharg) or b"").decode(errors="surrogateescape"))
            if not p:
                continue
            p = os.path.normpath(p)
            # a new name: O_CREAT of a path neither there before the trace
            # nor seen since (nor unlinked since), or O_EXCL
            fresh = "O_CREAT" in flags and ("O_EXCL" in flags or (p not in ino_at and p not in pre_existing))
            if fresh:
                ino(p, new=True)
                create(pid, p, seq)
            elif "O_TRUNC" in flags or name == "creat":
                # truncating a file that was there is a change of its content
                i = ino(p)
                writes.setdefault(i, []).append(seq)
                if inside(p):
                    tool_events.setdefault(pid, []).append(("data", seq, p, i))
            continue
        if name in ("write", "pwrite64", "writev", "pwritev", "pwritev2", "ftruncate"):
            p = fdpath(args[0])
            if not p or p.startswith(("pipe:", "socket:", "anon_inode:", "/dev/")):
                continue
            i = ino(p)
            writes.setdefault(i, []).append(seq)
            if inside(p):
                tool_events.setdefault(pid, []).append(("data", seq, p, i))
            if name == "write" and fnmatch.fnmatch(rel(p) or "", "crawls/*/snapshots.jsonl"):
                b = cstr(args[1]) or b""
                for line in b.split(b"\n"):
                    if b"ArchiveResult" not in line:
                        continue
                    try:
                        r = json.loads(line)
                    except ValueError:
                        continue
                    if r.get("type") == "ArchiveResult" and r.get("status") == "succeeded":
                        results.append((seq, p, r))
            continue
        if name in ("fsync", "fdatasync"):
            p = fdpath(args[0])
            if p:
                syncs.setdefault(ino(p), []).append(seq)
            continue
        if name in ("syncfs", "sync"):
            if not FUSE:
                global_syncs.append(seq)
            continue
        if name in ("rename", "renameat", "renameat2"):
            if name == "rename":
                a, b = resolve(pid, None, (cstr(args[0]) or b"").decode()), resolve(pid, None, (cstr(args[1]) or b"").decode())
            else:
                a = resolve(pid, args[0], (cstr(args[1]) or b"").decode())
                b = resolve(pid, args[2], (cstr(args[3]) or b"").decode())
            if a and b:
                ino_at[b] = ino(a)
                ino_at.pop(a, None)
                removed.setdefault(a, []).append(seq)
                # a directory renamed: its children move along
                for q in [q for q in ino_at if q.startswith(a + "/")]:
                    ino_at[b + q[len(a):]] = ino_at.pop(q)
                create(pid, b, seq)
            continue
        if name in ("unlink", "unlinkat", "rmdir"):
            if name == "unlinkat":
                p = resolve(pid, args[0], (cstr(args[1]) or b"").decode())
            else:
                p = resolve(pid, None, (cstr(args[0]) or b"").decode())
            if p:
                ino_at.pop(p, None)
                pre_existing.discard(p)
                removed.setdefault(p, []).append(seq)
            continue
        if name in ("link", "linkat", "symlink", "symlinkat", "mkdir", "mkdirat"):
            if name in ("link", "symlink"):
                p = resolve(pid, None, (cstr(args[1]) or b"").decode())
            elif name == "linkat":
                p = resolve(pid, args[2], (cstr(args[3]) or b"").decode())
            elif name == "symlinkat":
                p = resolve(pid, args[1], (cstr(args[2]) or b"").decode())
            elif name == "mkdir":
                p = resolve(pid, None, (cstr(args[0]) or b"").decode())
            else:
                p = resolve(pid, args[0], (cstr(args[1]) or b"").decode())
            if p:
                if name == "linkat" or name == "link":
                    src = resolve(pid, args[0] if name == "linkat" else None,
                                  (cstr(args[1] if name == "linkat" else args[0]) or b"").decode())
                    ino_at[p] = ino(src) if src else ino(p, new=True)
                else:
                    ino(p, new=True)
                create(pid, p, seq)
            continue

    def synced(i, after, before):
        return any(after < s < before for s in syncs.get(i, []) + global_syncs)

    def dir_synced(d, after, before):
        return synced(ino(d), after, before)

    # result-files: one finding per record, naming what was not durable
    nfiles = 0
    for seq0, jpath, r in results:
        # the record says "succeeded" once its line is durable: at the
        # first sync after the write that covers the journal (its own
        # fsync or fdatasync, or a syncfs or sync, which covers the files
        # too); a line never synced says nothing (the data rule catches a
        # tool that exits 0 without syncing it)
        later = [x for x in syncs.get(ino(jpath), []) + global_syncs if x > seq0]
        if not later:
            continue
        seq = min(later) + 1
        crawl_dir = os.path.dirname(jpath)
        sdir = os.path.join(crawl_dir, r.get("snapshot_id", "?"))
        pdir = os.path.join(sdir, r.get("plugin", "?"))
        files, entries = [], []
        for fname in sorted(r.get("output_files") or {}):
            nfiles += 1
            f = os.path.normpath(os.path.join(pdir, fname))
            i = ino_at.get(f)
            if i is None:
                if not any(s < seq for s in global_syncs):
                    files.append(fname + " (never seen)")
            else:
                last = max([w for w in writes.get(i, []) if w < seq] or [0])
                if not synced(i, last, seq):
                    files.append(fname)
            # the chain of directory entries, from the snapshot's down
            p = f
            while p != crawl_dir and p.startswith(crawl_dir + "/"):
                d = os.path.dirname(p)
                c = created.get(p)
                if c is not None and c < seq and not dir_synced(d, c, seq):
                    e = os.path.relpath(p, crawl_dir)
                    if e not in entries:
                        entries.append(e)
                p = d
        if files or entries:
            msg = "%s result %s (snapshot %s, trace line %d, durable at line %d):" % (
                r.get("hook_name"), r.get("id"), r.get("snapshot_id"), seq0, seq - 1)
            if files:
                msg += " files not fsync'd since their last write: %s;" % ", ".join(files)
            if entries:
                msg += " names whose directory was not fsync'd since they were created: %s" % ", ".join(entries)
            v("result-files", msg.rstrip(";"))

    # names and data, per abx tool that exited 0.  The deadline of a
    # process is the exit of the outermost abx tool it runs under (a tick's
    # workers report through the tick), which must exit 0.
    def progof(pid):
        p = pid
        while p not in prog and p in tr.parent:
            p = tr.parent[p]
        return prog.get(p, "")

    def is_tool(pid):
        return re.search(r"/abx-[a-z]+$", progof(pid)) is not None

    def top(pid):
        t, p = pid, pid
        while p in tr.parent:
            p = tr.parent[p]
            if is_tool(p):
                t = p
        return t

    tools = set()
    bad = {}  # (top pid, rule) -> [paths]
    for pid, evs in sorted(tool_events.items()):
        if not is_tool(pid):
            continue
        t = top(pid)
        ex = tr.exits.get(t)
        if not ex or ex[1] != 0:
            continue
        tools.add(t)
        for kind, seq, p, i in evs:
            if exempt(p):
                continue
            if kind == "name":
                if any(seq < r < ex[0] for r in removed.get(p, [])):
                    continue  # renamed away or unlinked before the deadline
                d = os.path.dirname(p)
                if not dir_synced(d, seq, ex[0]):
                    bad.setdefault((t, "names"), []).append((p, seq))
            else:
                if i not in ino_at.values():
                    continue  # unlinked since
                if not synced(i, seq, ex[0]):
                    bad.setdefault((t, "data"), []).append((p, seq))
    for (t, rule), items in sorted(bad.items()):
        names, seen = [], set()
        for p, seq in items:
            if p in seen:
                continue
            seen.add(p)
            names.append("%s (line %d)" % (p + " (the data directory)" if p == data else rel(p), seq))
        what = ("names created whose directory was not fsync'd after" if rule == "names"
                else "files written and not fsync'd after")
        more = " and %d more" % (len(names) - 12) if len(names) > 12 else ""
        v(rule, "%s (pid %d, exit 0 at trace line %d): %s: %s%s"
          % (os.path.basename(progof(t)), t, tr.exits[t][0], what, ", ".join(names[:12]), more))
    ntools = len(tools)
    for rule, n in sorted(counts.items()):
        if n > MAX:
            print("V\t%s\t... and %d more" % (rule, n - MAX))
    print("S\tresults\t%d" % len(results))
    print("S\tfiles\t%d" % nfiles)
    print("S\ttools\t%d" % ntools)
    print("S\tevents\t%d" % len(tr.events))


pre_existing = set()
FUSE = os.environ.get("POWERFAIL_STRACE_FUSE") == "1"
if __name__ == "__main__":
    if len(sys.argv) == 3:
        # names that existed before the trace: an O_CREAT open of them is
        # not a creation (the test lists them in TRACE.pre)
        try:
            with open(sys.argv[1] + ".pre", encoding="utf-8", errors="surrogateescape") as f:
                pre_existing = {os.path.normpath(line.rstrip("\n")) for line in f}
        except FileNotFoundError:
            pass
    main()
