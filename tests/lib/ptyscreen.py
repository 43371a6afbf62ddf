#!/usr/bin/env python3
"""ptyscreen.py — run a command on a pseudo-terminal and keep the screen it
draws, as a VT100 (xterm) does, for the tests of abx-tick's display.

    ptyscreen.py [--cols N] [--rows N] [--resize-to N --resize-after S] \
        [--no-winsize] CMD [ARG...]

The command gets a pty of COLSxROWS (default 80x24) as its controlling
terminal.  Its output is interpreted: printable characters with autowrap
at the right margin, CR, LF (scrolling at the bottom), BS, ESC[nA/B/C/D,
ESC[K and ESC[nK, ESC[J and ESC[nJ; SGR and other CSI sequences are
ignored.  With --resize-to, the pty is narrowed to N columns S seconds
after the first display line appeared (the kernel sends the command
SIGWINCH); the screen keeps each row's first N columns, as xterm does.
With --no-winsize the pty reports a size of 0x0 and $COLUMNS is left to
the command (the screen is still COLS wide).

Printed at the end (stdout), one "key value" line each:
    wraps_progress N      display lines that wrapped at the margin
    wraps_after_resize N  of those, after the resize
    frames N              display lines drawn
    max_progress_rows N   the most rows holding display text at one time
    exit N                the command's exit status
then, with --frame-at S, "frame:" and the screen's non-blank rows S
seconds after the first display line; then "screen:" and the final
screen's non-blank rows.  A display line is
one that looks like abx-tick's: "  12.3s  d0  URL  hook".
"""
import argparse
import os
import pty
import re
import select
import signal
import struct
import sys
import fcntl
import termios
import time

PROGRESS = re.compile(r"^\s+\d+\.\ds\s+d\d+\s")


class Screen:
    def __init__(self, cols, rows):
        self.cols, self.rows = cols, rows
        self.grid = [[" "] * cols for _ in range(rows)]
        self.x = self.y = 0
        self.pending = False          # at the margin: the next char wraps
        self.wraps = []               # (time, row text) of each wrap

    def resize(self, cols):
        for r in range(self.rows):
            row = self.grid[r][:cols]
            self.grid[r] = row + [" "] * (cols - len(row))
        self.cols = cols
        self.x = min(self.x, cols - 1)
        self.pending = False

    def text(self, r):
        return "".join(self.grid[r]).rstrip()

    def linefeed(self):
        if self.y == self.rows - 1:
            self.grid.pop(0)
            self.grid.append([" "] * self.cols)
        else:
            self.y += 1

    def put(self, ch):
        if self.pending:
            self.wraps.append((time.monotonic(), self.text(self.y)))
            self.x = 0
            self.linefeed()
            self.pending = False
        self.grid[self.y][self.x] = ch
        if self.x == self.cols - 1:
            self.pending = True
        else:
            self.x += 1

    def csi(self, params, final):
        args = [int(p) if p.isdigit() else 0 for p in params.split(";")] if params else []
        n = args[0] if args else 0
        self.pending = False
        if final == "A":
            self.y = max(0, self.y - max(n, 1))
        elif final == "B":
            self.y = min(self.rows - 1, self.y + max(n, 1))
        elif final == "C":
            self.x = min(self.cols - 1, self.x + max(n, 1))
        elif final == "D":
            self.x = max(0, self.x - max(n, 1))
        elif final == "K":
            row = self.grid[self.y]
            lo, hi = {0: (self.x, self.cols), 1: (0, self.x + 1), 2: (0, self.cols)}.get(n, (0, 0))
            for i in range(lo, hi):
                row[i] = " "
        elif final == "J":
            if n == 0:
                self.csi("0", "K")
                for r in range(self.y + 1, self.rows):
                    self.grid[r] = [" "] * self.cols
            elif n in (2, 3):
                self.grid = [[" "] * self.cols for _ in range(self.rows)]

    def feed(self, data):
        i = 0
        while i < len(data):
            c = data[i]
            if c == "\x1b" and i + 1 < len(data) and data[i + 1] == "[":
                j = i + 2
                while j < len(data) and not ("@" <= data[j] <= "~"):
                    j += 1
                if j >= len(data):
                    return data[i:]          # incomplete: keep for later
                self.csi(data[i + 2:j].lstrip("?"), data[j])
                i = j + 1
                continue
            if c == "\x1b":
                if i + 1 >= len(data):
                    return data[i:]
                i += 2
                continue
            if c == "\r":
                self.x, self.pending = 0, False
            elif c == "\n":
                self.linefeed()
                self.pending = False
            elif c == "\b":
                self.x, self.pending = max(0, self.x - 1), False
            elif c >= " ":
                self.put(c)
            i += 1
        return ""

    def progress_rows(self):
        return sum(1 for r in range(self.rows) if PROGRESS.match(self.text(r)))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--cols", type=int, default=80)
    ap.add_argument("--rows", type=int, default=24)
    ap.add_argument("--resize-to", type=int, default=0)
    ap.add_argument("--resize-after", type=float, default=1.0)
    ap.add_argument("--frame-at", type=float, default=0,
                    help="also print the screen this many seconds after the first display line")
    ap.add_argument("--no-winsize", action="store_true",
                    help="the pty reports no size (0x0): the command must go by $COLUMNS")
    ap.add_argument("cmd", nargs=argparse.REMAINDER)
    a = ap.parse_args()
    pid, fd = pty.fork()
    if pid == 0:
        if a.no_winsize:
            fcntl.ioctl(1, termios.TIOCSWINSZ, struct.pack("HHHH", 0, 0, 0, 0))
        else:
            fcntl.ioctl(1, termios.TIOCSWINSZ, struct.pack("HHHH", a.rows, a.cols, 0, 0))
            os.environ.pop("COLUMNS", None)
        os.execvp(a.cmd[0], a.cmd)
    scr = Screen(a.cols, a.rows)
    st = {"rest": "", "frames": 0, "most": 0, "first": None}
    dec = __import__("codecs").getincrementaldecoder("utf-8")("replace")

    def pump(timeout):
        """Read what the command wrote within timeout into the screen;
        False at its end (EOF or EIO), None if nothing came, else True."""
        if not select.select([fd], [], [], timeout)[0]:
            return None
        try:
            data = os.read(fd, 65536)
        except OSError:
            return False
        if not data:
            return False
        text = st["rest"] + dec.decode(data)
        st["frames"] += text.count("\x1b[2K")
        st["rest"] = scr.feed(text)
        n = scr.progress_rows()
        st["most"] = max(st["most"], n)
        if n and st["first"] is None:
            st["first"] = time.monotonic()
        return True

    resized_at, frame = None, None
    while True:
        now, first = time.monotonic(), st["first"]
        if a.resize_to and first is not None and resized_at is None and now - first >= a.resize_after:
            # as a terminal would: what was written before the resize is
            # drawn at the old width.  The command is stopped while its
            # output so far is drained, so no frame it drew for the old
            # width is read as if drawn for the new one (the pty buffers
            # it; a loaded machine reads it late)
            os.kill(pid, signal.SIGSTOP)
            while pump(0.05):
                pass
            fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack("HHHH", a.rows, a.resize_to, 0, 0))
            scr.resize(a.resize_to)
            resized_at = time.monotonic()
            os.kill(pid, signal.SIGCONT)
        if a.frame_at and first is not None and frame is None and now - first >= a.frame_at:
            frame = [scr.text(r) for r in range(scr.rows) if scr.text(r)]
        if pump(0.05) is False:
            break
    frames, most = st["frames"], st["most"]
    _, status = os.waitpid(pid, 0)
    wraps = [w for w in scr.wraps if PROGRESS.match(w[1])]
    print("wraps_progress", len(wraps))
    print("wraps_after_resize", sum(1 for w in wraps if resized_at and w[0] >= resized_at))
    print("resized", 1 if resized_at else 0)
    print("frames", frames)
    print("max_progress_rows", most)
    print("exit", os.waitstatus_to_exitcode(status))
    if frame is not None:
        print("frame:")
        for line in frame:
            print(line)
    print("screen:")
    for r in range(scr.rows):
        if scr.text(r):
            print(scr.text(r))
    return 0


sys.exit(main())
