#!/usr/bin/env python3
"""flakysite.py -- a site whose server loses requests, for tests/wget-requisites.sh.

Usage:
    python3 tests/lib/flakysite.py --port-file FILE [--images N]
                                   [--mode once|keepalive] [--log FILE]

Binds 127.0.0.1 on an ephemeral port, writes the port to FILE (by rename)
once listening, and serves until killed.  Standard library only; a thread
per connection; HTTP/1.1 with keep-alive (Content-Length, no
"Connection: close") unless the client asks to close.

The site:
    /page.html      title "Flaky", a stylesheet (/style.css), N images
                    /img/aK.png (K = 1..N) and one /img/gone.png
    /style.css      h1 red, and a background image /img/bg.png
    /img/*.png      a real 1x1 PNG
    anything else   404

How it loses requests (never /page.html, never a 404):
    /img/gone.png   every request: the connection is closed with no
                    answer ("No data received", as wget says)
    --mode once     the first request for each other path is closed with
                    no answer; later ones are served
    --mode keepalive
                    a connection answers its first request, then closes
                    when the next one arrives, unanswered (a server that
                    drops a kept-alive connection, as many do; waiting for
                    the request makes it happen every time, not by a race)
--log FILE gets each request's path and what was done ("served",
"dropped"), one a line, flushed at once.
"""

import argparse
import base64
import os
import socket
import threading

PNG = base64.b64decode(
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==")


def page(n):
    imgs = "".join('<img src="img/a%d.png" alt="a%d">' % (k, k) for k in range(1, n + 1))
    return ('<!doctype html><html><head><title>Flaky</title>'
            '<link rel="stylesheet" href="style.css"></head><body><h1>Flaky</h1>%s'
            '<img src="img/gone.png" alt="gone"></body></html>\n' % imgs).encode()


CSS = b"h1{color:rgb(255,0,0)}body{background:url(img/bg.png)}\n"


class Site:
    def __init__(self, args):
        self.args = args
        self.seen = set()
        self.lock = threading.Lock()

    def log(self, path, what):
        if self.args.log:
            with self.lock, open(self.args.log, "a") as f:
                f.write("%s %s\n" % (path, what))

    def body(self, path):
        if path == "/page.html":
            return "text/html", page(self.args.images)
        if path == "/style.css":
            return "text/css", CSS
        if path.startswith("/img/") and path.endswith(".png") and "/" not in path[5:]:
            return "image/png", PNG
        return None, None

    def drops(self, path, nth_on_conn):
        """Whether this request is closed unanswered."""
        if path == "/page.html" or self.body(path)[0] is None:
            return False
        if path == "/img/gone.png":
            return True
        if self.args.mode == "keepalive":
            return nth_on_conn > 1
        with self.lock:
            first = path not in self.seen
            self.seen.add(path)
        return first

    def handle(self, conn):
        f = conn.makefile("rb")
        nth = 0
        try:
            while True:
                line = f.readline(65536)
                if not line:
                    return
                parts = line.decode("latin-1").split()
                close = False
                while True:
                    h = f.readline(65536)
                    if h in (b"\r\n", b"\n", b""):
                        break
                    k, _, v = h.decode("latin-1").partition(":")
                    if k.strip().lower() == "connection" and v.strip().lower() == "close":
                        close = True
                if len(parts) < 2:
                    return
                nth += 1
                target = parts[1]
                if target.startswith("http://"):
                    target = "/" + target.split("/", 3)[3] if target.count("/") >= 3 else "/"
                path = target.split("?", 1)[0]
                if self.drops(path, nth):
                    self.log(path, "dropped")
                    return
                ctype, body = self.body(path)
                status = "200 OK" if ctype else "404 Not Found"
                if not ctype:
                    ctype, body = "text/plain", b"not found\n"
                head = "HTTP/1.1 %s\r\nContent-Type: %s\r\nContent-Length: %d\r\n%s\r\n" % (
                    status, ctype, len(body), "Connection: close\r\n" if close else "")
                conn.sendall(head.encode() + (b"" if parts[0] == "HEAD" else body))
                self.log(path, "served")
                if close:
                    return
        except OSError:
            pass
        finally:
            try:
                f.close()
                conn.close()
            except OSError:
                pass


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--port-file", required=True)
    ap.add_argument("--images", type=int, default=8)
    ap.add_argument("--mode", choices=("once", "keepalive"), default="once")
    ap.add_argument("--log")
    args = ap.parse_args()
    site = Site(args)
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    s.bind(("127.0.0.1", 0))
    s.listen(64)
    tmp = args.port_file + ".tmp"
    with open(tmp, "w") as f:
        f.write(str(s.getsockname()[1]))
    os.rename(tmp, args.port_file)
    while True:
        c, _ = s.accept()
        threading.Thread(target=site.handle, args=(c,), daemon=True).start()


if __name__ == "__main__":
    main()
