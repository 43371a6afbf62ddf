#!/usr/bin/env python3
"""sharedfds.py PID_A PID_B [FD...] — which open file descriptions two
processes share, by kcmp(2) (KCMP_FILE): one line "FD_A FD_B TARGET_A" for
each pair of descriptors that are the same open file description (what
fork or fd passing shares, not two opens of one file).  Descriptors of A
listed as FD are left out (the ones it is meant to share: a lease, stderr).
Exit 0 whether or not any are shared; 2 if kcmp is not available."""
import ctypes
import os
import sys

SYS_KCMP = 312  # x86_64
KCMP_FILE = 0


def fds(pid):
    try:
        return sorted(int(f) for f in os.listdir("/proc/%d/fd" % pid))
    except (FileNotFoundError, ProcessLookupError):
        return []


def target(pid, fd):
    try:
        return os.readlink("/proc/%d/fd/%d" % (pid, fd))
    except OSError:
        return "?"


def main():
    a, b = int(sys.argv[1]), int(sys.argv[2])
    allowed = {int(x) for x in sys.argv[3:]}
    libc = ctypes.CDLL(None, use_errno=True)
    probe = libc.syscall(SYS_KCMP, os.getpid(), os.getpid(), KCMP_FILE, 0, 0)
    if probe < 0:
        sys.stderr.write("kcmp: %s\n" % os.strerror(ctypes.get_errno()))
        sys.exit(2)
    for fa in fds(a):
        if fa in allowed:
            continue
        for fb in fds(b):
            if libc.syscall(SYS_KCMP, a, b, KCMP_FILE, fa, fb) == 0:
                print(fa, fb, target(a, fa))


main()
