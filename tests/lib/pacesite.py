#!/usr/bin/env python3
"""pacesite.py -- a site that counts the connections it has open at once,
for tests/gate-pace.sh (the egress gate's pacing, lib/net/gatepace.c).

    python3 tests/lib/pacesite.py serve PORTFILE MAXFILE LOG
    python3 tests/lib/pacesite.py tunnel GATE HOSTPORT MODE STATEFILE

serve: binds 127.0.0.1 on an ephemeral port, writes the port to PORTFILE
(by rename) once listening.  A connection is open from its accept to the
server's close of it (counted before the close); MAXFILE holds the most
open at once so far (by rename, at each new high).  SIGUSR1 sets that
high back to what is open now.  LOG gets "PATH" a request.  HTTP/1.1,
kept alive unless the client says close.  Every answer waits 0.2 s first,
so that fetchers that run side by side overlap:
    /page?...   a page with an icon, a style sheet, a script and four
                images; title "Pace page"
    /slow?s=N   waits N seconds more
    /other      a small text/plain answer (as is any other path)

tunnel: through the proxy GATE (host:port), CONNECT to HOSTPORT, then in
MODE "idle" send one GET /other and read its answer (the server spoke
last), or in MODE "asking" send GET /slow?s=8 and read nothing (the
client spoke last); then write "ready" to STATEFILE, wait for the
connection's end (60 s at most) and write "closed" (or "open") to it.
"""
import http.server
import os
import signal
import socket
import sys
import threading
import time

PAGE = ("<!doctype html><html><head><title>Pace page</title>"
        "<link rel=icon href='/i.ico'><link rel=stylesheet href='/s.css'>"
        "<script src='/s.js'></script></head><body><p>pace page</p>"
        "<img src='/1.png'><img src='/2.png'><img src='/3.png'><img src='/4.png'>"
        "</body></html>")


class Counter:
    def __init__(self, path):
        self.path, self.lock, self.open, self.high = path, threading.Lock(), 0, 0
        self.write()

    def write(self):
        with open(self.path + ".tmp", "w") as f:
            f.write("%d\n" % self.high)
        os.rename(self.path + ".tmp", self.path)

    def add(self, d):
        with self.lock:
            self.open += d
            if self.open > self.high:
                self.high = self.open
                self.write()

    def reset(self, *_):
        with self.lock:
            self.high = self.open
            self.write()


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *a):
        pass

    def do_GET(self):
        with open(LOG, "a") as f:
            f.write(self.path + "\n")
        time.sleep(0.2)
        ctype, body = "text/plain", b"pace\n"
        if self.path.startswith("/page"):
            ctype, body = "text/html; charset=utf-8", PAGE.encode()
        elif self.path.startswith("/slow?s="):
            time.sleep(float(self.path[8:]))
        self.send_response(200)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)


class Server(http.server.ThreadingHTTPServer):
    daemon_threads = True

    def process_request(self, request, client_address):
        COUNT.add(1)
        super().process_request(request, client_address)

    def shutdown_request(self, request):
        COUNT.add(-1)
        super().shutdown_request(request)


def tunnel(gate, hostport, mode, state):
    h, p = gate.rsplit(":", 1)
    s = socket.create_connection((h, int(p)), timeout=60)
    s.sendall(("CONNECT %s HTTP/1.1\r\nHost: %s\r\n\r\n" % (hostport, hostport)).encode())
    got = b""
    while b"\r\n\r\n" not in got:
        b = s.recv(4096)
        if not b:
            break
        got += b
    if not got.startswith(b"HTTP/1.1 200"):
        sys.exit("tunnel: the gate answered %r" % got[:200])
    path = "/other" if mode == "idle" else "/slow?s=8"
    s.sendall(("GET %s HTTP/1.1\r\nHost: %s\r\n\r\n" % (path, hostport)).encode())
    if mode == "idle":
        got = b""
        while b"pace\n" not in got:
            b = s.recv(4096)
            if not b:
                sys.exit("tunnel: no answer inside the tunnel")
            got += b
    with open(state, "w") as f:
        f.write("ready\n")
    end = "open"
    try:
        if s.recv(4096) == b"":
            end = "closed"
    except OSError:
        end = "closed"
    with open(state, "w") as f:
        f.write(end + "\n")


if sys.argv[1] == "tunnel":
    tunnel(*sys.argv[2:6])
    sys.exit(0)
PORTFILE, MAXFILE, LOG = sys.argv[2:5]
COUNT = Counter(MAXFILE)
signal.signal(signal.SIGUSR1, COUNT.reset)
srv = Server(("127.0.0.1", 0), Handler)
with open(PORTFILE + ".tmp", "w") as f:
    f.write(str(srv.server_address[1]))
os.rename(PORTFILE + ".tmp", PORTFILE)
srv.serve_forever()
