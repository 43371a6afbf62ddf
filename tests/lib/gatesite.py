#!/usr/bin/env python3
"""gatesite.py -- a site whose pages reach into a private network zone,
for tests/gate-hooks.sh.  Binds 127.0.0.1 on an ephemeral port, writes the
port to FILE (by rename) once listening, logs each request path to LOG.

    python3 tests/lib/gatesite.py PORTFILE LOG PRIVATE

PRIVATE is an address in a zone other than loopback that Linux delivers
to this server: 0.0.0.0 (the unspecified zone), so the log shows what
went there and nothing leaves the machine.  LOG gets "HOST PATH" a
request (HOST as the client sent it).  At this port:
    /page   a page whose image, style sheet, script and icon are on
            PRIVATE (the style sheet as [::ffff:PRIVATE]), and a second
            image at /r/img2.png; title "Gate page"
    /r/X    302 to http://PRIVATE:PORT/X
    /away   302 to http://PRIVATE:PORT/secret (the page's own fetch)
"""
import http.server
import os
import sys


class Handler(http.server.BaseHTTPRequestHandler):
    def log_message(self, *a):
        pass

    def do_GET(self):
        with open(LOG, "a") as f:
            f.write("%s %s\n" % (self.headers.get("Host", "-"), self.path))
        p = "%s:%d" % (PRIVATE, self.server.server_address[1])
        p6 = "[::ffff:%s]:%d" % (PRIVATE, self.server.server_address[1])
        if self.path == "/page":
            body = ("<!doctype html><html><head><title>Gate page</title>"
                    "<link rel=icon href='http://%s/i.ico'>"
                    "<link rel=stylesheet href='http://%s/s.css'>"
                    "<script src='http://%s/s.js'></script></head>"
                    "<body><p>gate page</p><img src='http://%s/img.png'><img src='/r/img2.png'></body></html>"
                    % (p, p6, p, p)).encode()
            self.send_response(200)
            self.send_header("Content-Type", "text/html; charset=utf-8")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)
        elif self.path == "/away" or self.path.startswith("/r/"):
            self.send_response(302)
            self.send_header("Location", "http://%s/%s" % (p, "secret" if self.path == "/away" else self.path[3:]))
            self.send_header("Content-Length", "0")
            self.end_headers()
        else:
            self.send_response(404)
            self.send_header("Content-Length", "0")
            self.end_headers()


PORTFILE, LOG, PRIVATE = sys.argv[1], sys.argv[2], sys.argv[3]
srv = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
with open(PORTFILE + ".tmp", "w") as f:
    f.write(str(srv.server_address[1]))
os.rename(PORTFILE + ".tmp", PORTFILE)
srv.serve_forever()
