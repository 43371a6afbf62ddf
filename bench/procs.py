#!/usr/bin/env python3
"""procs.py -- count the processes in an strace -f log (bench/capture.sh).

    strace -f -e trace=execve,clone,clone3,fork,vfork -o LOG CMD...
    python3 bench/procs.py LOG

Prints "TOTAL BROWSER": every process the command started (a fork, vfork
or clone without CLONE_THREAD that returned a pid), and how many of them
are the browser's (a process that ran chromium or chrome, or one below
such a process: its wrapper script's helpers, zygotes, renderers).  A thread is no
process.  The command itself is not counted.
"""
import re
import sys

parent = {}
exe = {}
forked = []
pending = {}   # pid -> the start of a call strace cut (<unfinished ...>)
line_re = re.compile(r"^(\d+)\s+(.*)$")
for line in open(sys.argv[1], encoding="utf-8", errors="replace"):
    m = line_re.match(line)
    if not m:
        continue
    pid, rest = int(m.group(1)), m.group(2).rstrip()
    if rest.endswith("<unfinished ...>"):
        pending[pid] = rest
        continue
    if rest.startswith("<... "):
        rest = pending.pop(pid, "") + " " + rest
    call = re.match(r"(clone3|clone|vfork|fork|execve)\b", rest)
    if not call:
        continue
    if call.group(1) == "execve":
        em = re.match(r'execve\("([^"]*)"', rest)
        if em and not re.search(r"= -1", rest):
            exe[pid] = em.group(1)
        continue
    if "CLONE_THREAD" in rest:
        continue
    rm = re.search(r"= (\d+)$", rest)
    if not rm:
        continue
    child = int(rm.group(1))
    parent[child] = pid
    forked.append(child)


def browser(p):
    """p or one of its ancestors ran the browser (its wrapper script included)."""
    for _ in range(64):
        if p is None:
            return False
        if re.search(r"/(chromium|chrome|chrome_[a-z_]+)$", exe.get(p, "")):
            return True
        p = parent.get(p)
    return False


print(len(forked), sum(1 for c in forked if browser(c)))
