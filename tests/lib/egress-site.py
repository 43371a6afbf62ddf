#!/usr/bin/env python3
"""egress-site.py -- the two HTTP servers of tests/egress-netns.sh.

Usage:
    python3 tests/lib/egress-site.py public --bind ADDR --port 80
                                     --secret-port S --ready FILE
    python3 tests/lib/egress-site.py secret --bind ADDR... --port S
                                     --token TOKEN --log FILE --ready FILE

Python 3 standard library only; one thread a connection.  Once every
address is bound it writes "ready" to FILE (by rename), and serves until
killed.  An address that cannot be bound is an error, not skipped.

public: the public web site, bound to ADDR:PORT (one address).  Every
page is small and has a <title>.  S is the secret service's port, on the
archiving side's loopback (127.0.0.1, ::1) and private (10.77.0.1)
addresses, and the names the test's DNS server gives (see below).

    /               the seed, title "Public seed": one link to each page
                    below, to the secret service directly (which the
                    crawl must not queue), and requisites at every
                    spelling of the secret service (the list below)
    /about.html     a plain public page, title "About the public site"
    /r/loop         302 to http://127.0.0.1:S/page-loop
    /r/priv         302 to http://10.77.0.1:S/page-priv
    /r/localhost-dot  302 to http://localhost.:S/page-localhost-dot
    /r/loop6        302 to http://[::1]:S/page-loop6
    /r/req-loop.png 302 to http://127.0.0.1:S/req-redirect.png (a
                    requisite of the seed)
    /style.css, /pixel.png  public requisites (so that the seed's own
                    requisites are fetched at all)
    anything else   404

  The seed's outlinks: /about.html, the /r/ pages above but the
  requisite, http://rebind-page.test:S/page-rebind (public when the
  crawl looks it up, loopback when fetched), http://mixed.test:S/page-mixed
  (a public and a loopback address), and the secret service itself at
  http://127.0.0.1:S/direct-literal and http://loop.test:S/direct-name.

  The seed's requisites (each path names its route, so that the secret
  service's log says which one leaked):
    <link rel=icon>        http://127.0.0.1:S/favicon.ico
    <link rel=stylesheet>  http://[::ffff:127.0.0.1]:S/req-mapped.css
    <script src>           http://[::7f00:1]:S/req-compat.js
    <img src>              http://[0:0:0:0:0:ffff:7f00:1]:S/req-mapped-long.png,
                           http://127.0.0.1:S/req-literal.png,
                           http://2130706433:S/req-decimal.png,
                           http://0x7f.1:S/req-hex.png,
                           http://127.1:S/req-short.png,
                           http://loop.test:S/req-name.png,
                           http://loop.test.:S/req-name-dot.png,
                           http://rebind.test:S/req-rebind.png,
                           http://mixed.test:S/req-mixed.png,
                           http://priv.test:S/req-priv.png,
                           http://loop6.test:S/req-name6.png,
                           http://localhost.:S/req-localhost-dot.png,
                           /r/req-loop.png (redirected to loopback),
                           /pixel.png (public)

secret: the service on the archiving host that no crawl may reach, bound
to port S of every ADDR (IPv4 or IPv6).  Every request, of any method
and path, is answered 200 with a header "X-Secret: TOKEN" and a body
that holds TOKEN: for a path ending .png or .ico an image/png (the PNG
signature, then TOKEN), .css a style sheet, .js a script (TOKEN in a
comment), else an HTML page with TOKEN in its title and body (so that
whatever a fetcher keeps of it carries TOKEN); it is appended to the log
FILE as
"METHOD PATH HOST" (HOST as sent in Host:), one a line, flushed at once
(the test empties FILE between its runs).
"""

import argparse
import http.server
import os
import socket
import socketserver
import struct
import sys
import threading
import zlib


def png_1x1():
    """A real 1x1 transparent PNG."""
    def chunk(kind, data):
        return (struct.pack("!I", len(data)) + kind + data
                + struct.pack("!I", zlib.crc32(kind + data) & 0xFFFFFFFF))
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack("!IIBBBBB", 1, 1, 8, 6, 0, 0, 0))
            + chunk(b"IDAT", zlib.compress(b"\x00\x00\x00\x00\x00")) + chunk(b"IEND", b""))


PNG = png_1x1()

SEED_OUTLINKS = [
    "/about.html", "/r/loop", "/r/priv", "/r/localhost-dot", "/r/loop6",
    "http://rebind-page.test:{S}/page-rebind",
    "http://mixed.test:{S}/page-mixed",
    "http://127.0.0.1:{S}/direct-literal",
    "http://loop.test:{S}/direct-name",
]
SEED_IMAGES = [
    "http://[0:0:0:0:0:ffff:7f00:1]:{S}/req-mapped-long.png",
    "http://127.0.0.1:{S}/req-literal.png",
    "http://2130706433:{S}/req-decimal.png",
    "http://0x7f.1:{S}/req-hex.png",
    "http://127.1:{S}/req-short.png",
    "http://loop.test:{S}/req-name.png",
    "http://loop.test.:{S}/req-name-dot.png",
    "http://rebind.test:{S}/req-rebind.png",
    "http://mixed.test:{S}/req-mixed.png",
    "http://priv.test:{S}/req-priv.png",
    "http://loop6.test:{S}/req-name6.png",
    "http://localhost.:{S}/req-localhost-dot.png",
    "/r/req-loop.png",
    "/pixel.png",
]
REDIRECTS = {
    "/r/loop": "http://127.0.0.1:{S}/page-loop",
    "/r/priv": "http://10.77.0.1:{S}/page-priv",
    "/r/localhost-dot": "http://localhost.:{S}/page-localhost-dot",
    "/r/loop6": "http://[::1]:{S}/page-loop6",
    "/r/req-loop.png": "http://127.0.0.1:{S}/req-redirect.png",
}


def page(title, body=""):
    return ("<!doctype html><html><head><title>%s</title></head><body><h1>%s</h1>\n%s</body></html>\n"
            % (title, title, body)).encode()


def seed(s):
    body = '<link rel="icon" href="http://127.0.0.1:%s/favicon.ico">\n' % s
    body += '<link rel="stylesheet" href="http://[::ffff:127.0.0.1]:%s/req-mapped.css">\n' % s
    body += '<link rel="stylesheet" href="/style.css">\n'
    body += '<script src="http://[::7f00:1]:%s/req-compat.js"></script>\n' % s
    for u in SEED_IMAGES:
        body += '<img src="%s" alt="">\n' % u.format(S=s)
    for u in SEED_OUTLINKS:
        body += '<p><a href="%s">%s</a></p>\n' % (u.format(S=s), u.format(S=s))
    return page("Public seed", body)


class Public(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    secret_port = 0

    def log_message(self, *a):
        pass

    def send(self, code, ctype, data, extra=()):
        self.send_response(code)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(data)))
        self.send_header("Cache-Control", "no-store")
        for k, v in extra:
            self.send_header(k, v)
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(data)

    def do_GET(self):
        p = self.path.split("?", 1)[0]
        s = self.secret_port
        if p == "/":
            self.send(200, "text/html; charset=utf-8", seed(s))
        elif p == "/about.html":
            self.send(200, "text/html; charset=utf-8", page("About the public site"))
        elif p in REDIRECTS:
            self.send(302, "text/html", page("Moved"), [("Location", REDIRECTS[p].format(S=s))])
        elif p == "/style.css":
            self.send(200, "text/css", b"h1 { color: teal }\n")
        elif p == "/pixel.png":
            self.send(200, "image/png", PNG)
        else:
            self.send(404, "text/html", page("Not found"))

    do_HEAD = do_GET


class Secret(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    token = ""
    log = None
    lock = threading.Lock()

    def log_message(self, *a):
        pass

    def handle_one(self):
        with self.lock:
            with open(self.log, "a") as f:
                f.write("%s %s %s\n" % (self.command, self.path, self.headers.get("Host", "-")))
        n = int(self.headers.get("Content-Length") or 0)
        if n > 0:
            self.rfile.read(min(n, 1 << 20))
        ctype, data = self.body()
        self.send_response(200)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(data)))
        self.send_header("X-Secret", self.token)
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(data)

    def body(self):
        """The answer's type and bytes, by the path's extension."""
        p = self.path.split("?", 1)[0]
        t = self.token
        if p.endswith((".png", ".ico")):
            return "image/png", PNG[:8] + t.encode()   # the signature, then the token
        if p.endswith(".css"):
            return "text/css", ("/* %s */ body { color: red }\n" % t).encode()
        if p.endswith(".js"):
            return "text/javascript", ("// %s\n" % t).encode()
        return "text/html; charset=utf-8", page("secret " + t, "<p>%s</p>\n" % t)

    def __getattr__(self, name):
        if name.startswith("do_"):
            return self.handle_one
        raise AttributeError(name)


class Server4(socketserver.ThreadingMixIn, http.server.HTTPServer):
    daemon_threads = True
    allow_reuse_address = True


class Server6(Server4):
    address_family = socket.AF_INET6

    def server_bind(self):
        self.socket.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 1)
        super().server_bind()


def ready(path):
    tmp = path + ".tmp"
    with open(tmp, "w") as f:
        f.write("ready\n")
    os.rename(tmp, path)


def main():
    ap = argparse.ArgumentParser(description="the servers of tests/egress-netns.sh")
    ap.add_argument("mode", choices=["public", "secret"])
    ap.add_argument("--bind", action="append", required=True)
    ap.add_argument("--port", type=int, required=True)
    ap.add_argument("--secret-port", type=int)
    ap.add_argument("--token")
    ap.add_argument("--log")
    ap.add_argument("--ready", required=True)
    args = ap.parse_args()
    if args.mode == "public":
        if args.secret_port is None or len(args.bind) != 1:
            sys.exit("egress-site: public needs one --bind and --secret-port")
        Public.secret_port = args.secret_port
        handler = Public
    else:
        if not args.token or not args.log:
            sys.exit("egress-site: secret needs --token and --log")
        Secret.token, Secret.log = args.token, args.log
        handler = Secret
    servers = []
    for a in args.bind:
        cls = Server6 if ":" in a else Server4
        try:
            servers.append(cls((a, args.port), handler))
        except OSError as e:
            sys.exit("egress-site: cannot bind %s port %d: %s" % (a, args.port, e))
    for srv in servers[1:]:
        threading.Thread(target=srv.serve_forever, daemon=True).start()
    ready(args.ready)
    servers[0].serve_forever()


if __name__ == "__main__":
    main()
