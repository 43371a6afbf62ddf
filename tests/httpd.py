#!/usr/bin/env python3
"""httpd.py -- a small real HTTP server for the abx tests and benchmarks.

Usage:
    python3 tests/httpd.py --port-file FILE [--root DIR] [--latency-ms N]
                           [--pages N] [--log FILE] [--tls PEM] [--verbose]

Binds 127.0.0.1 on an ephemeral port, writes the port number to FILE (by
rename, so a reader never sees it half written) once listening, and serves
until killed.  Python 3 standard library only; one thread per connection.

--root DIR      serve DIR statically (the demo site); no generated paths.
--latency-ms N  sleep N ms before every response (the crawl benchmark).
--pages N       also serve /gen/ (see below).
--log FILE      append each request's raw path (as sent, still
                percent-encoded) to FILE, one per line, flushed at once.
--timing FILE   append "HOST START END PATH" for each request (HOST as the
                client sent it in Host:, START and END the epoch seconds
                when it arrived and when its answer was sent).
--robots FILE   serve FILE as /robots.txt (else /robots.txt is a 404).
--tls PEM       speak https: PEM holds the certificate and its key (a
                client that fails the handshake is dropped, not served).
--verbose       log requests to stderr (quiet by default).

Generated site (without --root).  Every page has a <title>.

    /, /site/            the index: title "abx test site"
    /site/pageN.html     N = 1..3, title "Page N"
    /site/pageN-M.html   M = 1..2, title "Page N-M"
    /site/pageN-M-leaf.html         title "Leaf N-M"

  Links of the index (what parse_html_urls must report, in this order):
    <a href="/site/page1.html">                         -> /site/page1.html
    <a href="http://127.0.0.1:PORT/site/page1.html#frag"> duplicate of page1
    <a href="../site/page2.html">                       -> /site/page2.html
    <A HREF='/site/page3.html'>                         -> /site/page3.html
    <a href="/site/style.css">                          -> /site/style.css
    <a href="mailto:...">, <a href="javascript:...">    ignored
  and resources that are not outlinks: <img src="/site/img.png">,
  <link rel="stylesheet" href="/site/style.css">, <link rel="icon"
  href="/favicon.ico">.
  pageN links pageN-1, pageN-2 (relative) and back to /site/;
  pageN-M links pageN-M-leaf (relative) and back to pageN;
  a leaf links back to /site/.
  So from /site/: depth <= 0 is {/site/}; depth <= 1 adds the 3 pages and
  style.css; depth <= 2 adds the 6 pageN-M; depth <= 3 adds the 6 leaves.

Special paths:
    /favicon.ico   a real ICO (one 16x16 PNG image inside)
    /site/style.css, /site/img.png (a real 16x16 PNG)
    /redirect      302 to /site/page1.html
    /missing       404 (so is any unknown path)
    /slow?s=N      sleeps N seconds (float), then serves a page
    /ratelimit?key=K&n=N[&ra=S][&code=C]
                   the first N requests with key K answer C (429 by
                   default) with "Retry-After: S" if ra is given; later
                   ones serve a page
    /big           a ~5 MB HTML page: 60000 links to /big/itemK.html,
                   K = i mod 1000, so 1000 distinct outlinks
    /latin1        title bytes "caf\\xe9 \\xff", charset=iso-8859-1
    /headers       a page with the response header "X-Abx-Test: yes"; its
                   <TITLE> spans lines and has entities, and reads
                   Headers & <more> "x" 'y'  once decoded
    /multi         Set-Cookie twice and a "Status: 201 Made" header; the
                   title is Russian "Privet" in windows-1251 bytes, named
                   by a <meta charset> only
    /nul           a page that begins with a NUL byte (binary), titled
    /spoofgate     a page titled "Not the gate" whose answer (200) carries
                   the egress gate's own header "X-Abx-Gate: refused
                   zone=loopback" and a body line beginning "abx-gate "
    /iconlink      a page whose <link rel="shortcut icon"> is site/img.png

/gen/ (with --pages N): /gen/ is an index linking only /gen/p0.html.
/gen/pI.html (I = 0..N-1) links its children p(2I+1) and p(2I+2) (those
< N) and its parent p((I-1)//2): a binary heap.  Page pI is at depth
floor(log2(I+1)) from /gen/p0.html, so depth <= d reaches
min(N, 2**(d+1) - 1) pages; from /gen/ add one.
"""

import argparse
import http.server
import os
import ssl
import struct
import sys
import threading
import time
import urllib.parse
import zlib


def png_bytes(w=16, h=16, rgb=(0x2a, 0x6f, 0x97)):
    """A valid truecolour PNG of one colour."""
    def chunk(kind, data):
        c = struct.pack(">I", len(data)) + kind + data
        return c + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)
    row = b"\x00" + bytes(rgb) * w
    return (b"\x89PNG\r\n\x1a\n"
            + chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, 8, 2, 0, 0, 0))
            + chunk(b"IDAT", zlib.compress(row * h))
            + chunk(b"IEND", b""))


def ico_bytes():
    """An ICO file holding one PNG image (Windows Vista+ format)."""
    png = png_bytes(rgb=(0xc0, 0x39, 0x2b))
    header = struct.pack("<HHH", 0, 1, 1)
    entry = struct.pack("<BBBBHHII", 16, 16, 0, 0, 1, 32, len(png), 6 + 16)
    return header + entry + png


PNG = png_bytes()
ICO = ico_bytes()
CSS = b"body { font-family: sans-serif; margin: 2em; }\n"


def page(title, body):
    return ("<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\">\n"
            "<title>%s</title>\n"
            "<link rel=\"stylesheet\" href=\"/site/style.css\">\n"
            "</head>\n<body>\n<h1>%s</h1>\n%s\n</body></html>\n"
            % (title, title, body)).encode()


def index_page(port):
    return page("abx test site", "\n".join([
        '<p><a href="/site/page1.html">Page 1</a></p>',
        '<p><a href="http://127.0.0.1:%d/site/page1.html#frag">Page 1 again</a></p>' % port,
        '<p><a href="../site/page2.html">Page 2</a></p>',
        "<p><A HREF='/site/page3.html'>Page 3</A></p>",
        '<p><a href="/site/style.css">the stylesheet</a></p>',
        '<p><a href="mailto:webmaster@example.com">mail</a>',
        '<a href="javascript:void(0)">js</a></p>',
        '<img src="/site/img.png" alt="a square">',
        '<link rel="icon" href="/favicon.ico">',
    ]))


def site_page(name):
    """The page for /site/NAME, or None."""
    stem = name[:-5] if name.endswith(".html") else None
    if not stem:
        return None
    parts = stem.split("-")
    if not parts[0].startswith("page"):
        return None
    n = parts[0][4:]
    if n not in ("1", "2", "3"):
        return None
    if len(parts) == 1:
        return page("Page %s" % n,
                    '<p><a href="page%s-1.html">Page %s-1</a> '
                    '<a href="page%s-2.html">Page %s-2</a></p>\n'
                    '<p><a href="/site/">Home</a></p>\n'
                    '<img src="img.png" alt="">' % (n, n, n, n))
    if parts[1] not in ("1", "2"):
        return None
    m = parts[1]
    if len(parts) == 2:
        return page("Page %s-%s" % (n, m),
                    '<p><a href="page%s-%s-leaf.html">Leaf</a> '
                    '<a href="page%s.html">Up</a></p>' % (n, m, n))
    if len(parts) == 3 and parts[2] == "leaf":
        return page("Leaf %s-%s" % (n, m), '<p><a href="/site/">Home</a></p>')
    return None


def gen_page(i, n):
    links = ['<a href="p%d.html">child %d</a>' % (c, c)
             for c in (2 * i + 1, 2 * i + 2) if c < n]
    if i > 0:
        links.append('<a href="p%d.html">parent</a>' % ((i - 1) // 2))
    return page("Generated page %d" % i, "<p>%s</p>" % " ".join(links))


_big = None
_big_lock = threading.Lock()


def big_page():
    global _big
    with _big_lock:
        if _big is None:
            rows = ['<p>Item %d: <a href="/big/item%d.html">item %d</a> '
                    'lorem ipsum dolor sit amet.</p>' % (i, i % 1000, i % 1000)
                    for i in range(60000)]
            _big = page("Big page", "\n".join(rows))
    return _big


class Handler(http.server.SimpleHTTPRequestHandler):
    server_version = "abx-test-httpd/1"
    protocol_version = "HTTP/1.0"

    def end_headers(self):
        # HTTP/1.0: every connection closes after its response.  Said
        # aloud, because wget otherwise keeps an HTTP/1.0 connection for
        # reuse, and on a loaded machine reused it before it saw the close:
        # "No data received", and with --tries=1 a requisite was lost.
        self.send_header("Connection", "close")
        super().end_headers()

    def log_message(self, fmt, *args):
        if self.server.opts.verbose:
            sys.stderr.write("httpd: %s\n" % (fmt % args))

    def note_request(self):
        opts = self.server.opts
        if opts.log:
            with self.server.log_lock:
                opts.log.write(self.path + "\n")
                opts.log.flush()
        if opts.latency_ms:
            time.sleep(opts.latency_ms / 1000.0)

    def note_timing(self, start):
        opts = self.server.opts
        if opts.timing:
            with self.server.log_lock:
                opts.timing.write("%s %.6f %.6f %s\n" % (self.headers.get("Host", "-"), start,
                                                        time.time(), self.path))
                opts.timing.flush()

    def do_GET(self):
        start = time.time()
        self.note_request()
        if self.server.opts.root:
            super().do_GET()
        else:
            self.generated(head=False)
        self.note_timing(start)

    def do_HEAD(self):
        self.note_request()
        if self.server.opts.root:
            return super().do_HEAD()
        self.generated(head=True)

    def reply(self, code, body, ctype="text/html; charset=utf-8", headers=(), head=False):
        self.send_response(code)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(body)))
        for k, v in headers:
            self.send_header(k, v)
        self.end_headers()
        if not head:
            self.wfile.write(body)

    def generated(self, head):
        url = urllib.parse.urlsplit(self.path)
        path = url.path
        port = self.server.server_address[1]
        pages = self.server.opts.pages
        if path in ("/", "/site/"):
            return self.reply(200, index_page(port), head=head)
        if path == "/robots.txt" and self.server.opts.robots:
            with open(self.server.opts.robots, "rb") as f:
                return self.reply(200, f.read(), "text/plain", head=head)
        if path == "/favicon.ico":
            return self.reply(200, ICO, "image/x-icon", head=head)
        if path == "/site/style.css":
            return self.reply(200, CSS, "text/css", head=head)
        if path == "/site/img.png":
            return self.reply(200, PNG, "image/png", head=head)
        if path.startswith("/site/"):
            body = site_page(path[len("/site/"):])
            if body is not None:
                return self.reply(200, body, head=head)
        if path == "/redirect":
            return self.reply(302, b"", headers=[("Location", "/site/page1.html")], head=head)
        if path == "/slow":
            q = urllib.parse.parse_qs(url.query)
            try:
                secs = float(q.get("s", ["1"])[0])
            except ValueError:
                secs = 1.0
            time.sleep(max(0.0, min(secs, 3600.0)))
            return self.reply(200, page("Slow page", "<p>slept %g s</p>" % secs), head=head)
        if path == "/ratelimit":
            q = urllib.parse.parse_qs(url.query)
            key = q.get("key", [""])[0]
            with self.server.log_lock:
                seen = self.server.ratelimit.get(key, 0)
                self.server.ratelimit[key] = seen + 1
            if seen < int(q.get("n", ["1"])[0]):
                hdrs = [("Retry-After", q["ra"][0])] if "ra" in q else []
                return self.reply(int(q.get("code", ["429"])[0]), page("Slow down", "<p>later</p>"),
                                  headers=hdrs, head=head)
            return self.reply(200, page("Rate limited page", "<p>served</p>"), head=head)
        if path == "/big":
            return self.reply(200, big_page(), head=head)
        if path == "/latin1":
            body = (b"<!DOCTYPE html>\n<html><head><title>caf\xe9 \xff</title></head>\n"
                    b"<body><p>Latin-1 bytes: caf\xe9.</p></body></html>\n")
            return self.reply(200, body, "text/html; charset=iso-8859-1", head=head)
        if path == "/headers":
            body = page("Headers", "<p>custom headers</p>").replace(
                b"<title>Headers</title>",
                b"<TITLE lang=en>\n  Headers &amp; &lt;more&gt;\n  &quot;x&quot; &#39;y&#39;\n</TITLE>")
            return self.reply(200, body,
                              headers=[("X-Abx-Test", "yes"), ("X-Abx-Other", "two words")],
                              head=head)
        if path == "/multi":
            body = b"<meta charset='windows-1251'><title>\xcf\xf0\xe8\xe2\xe5\xf2</title>\n"
            return self.reply(200, body, "text/html",
                              headers=[("Set-Cookie", "a=1"), ("Set-Cookie", "b=2"),
                                       ("Status", "201 Made")], head=head)
        if path == "/iconlink":
            return self.reply(200, page("Icon link", '<link rel="shortcut icon" href="site/img.png">'),
                              head=head)
        if path == "/spoofgate":
            return self.reply(200, b"abx-gate refused nothing: this is the site\n<title>Not the gate</title>\n",
                              "text/html", headers=[("X-Abx-Gate", "refused zone=loopback")], head=head)
        if path == "/nul":
            return self.reply(200, b"\x00<title>binary</title>\n", head=head)
        if path == "/latetitle":   # a title that begins past the first MiB
            return self.reply(200, b"<html><head>" + b" " * (1 << 20) + b"<title>late</title>\n",
                              head=head)
        if pages and path == "/gen/":
            return self.reply(200, page("Generated site", '<a href="p0.html">start</a>'), head=head)
        if pages and path.startswith("/gen/p") and path.endswith(".html"):
            num = path[len("/gen/p"):-len(".html")]
            if num.isdigit() and int(num) < pages and str(int(num)) == num:
                return self.reply(200, gen_page(int(num), pages), head=head)
        self.reply(404, page("Not found", "<p>no such page</p>"), head=head)


class Server(http.server.ThreadingHTTPServer):
    daemon_threads = True
    request_queue_size = 128

    def handle_error(self, request, client_address):
        # A client that hangs up early (a killed hook) is not an error here.
        if self.opts.verbose:
            super().handle_error(request, client_address)


def main():
    ap = argparse.ArgumentParser(description="HTTP server for the abx tests")
    ap.add_argument("--port-file", required=True)
    ap.add_argument("--root")
    ap.add_argument("--latency-ms", type=int, default=0)
    ap.add_argument("--pages", type=int, default=0)
    ap.add_argument("--log")
    ap.add_argument("--timing")
    ap.add_argument("--robots")
    ap.add_argument("--tls")
    ap.add_argument("--verbose", action="store_true")
    opts = ap.parse_args()
    if opts.root:
        opts.root = os.path.abspath(opts.root)
    opts.log = open(opts.log, "a", encoding="utf-8", errors="surrogateescape") if opts.log else None
    opts.timing = open(opts.timing, "a", encoding="utf-8", errors="surrogateescape") if opts.timing else None

    handler = Handler
    if opts.root:
        def handler(*a, **kw):
            return Handler(*a, directory=opts.root, **kw)
    srv = Server(("127.0.0.1", 0), handler)
    if opts.tls:
        ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        ctx.load_cert_chain(opts.tls)
        # the handshake happens in the connection's thread, at its first read
        srv.socket = ctx.wrap_socket(srv.socket, server_side=True, do_handshake_on_connect=False)
    srv.opts = opts
    srv.log_lock = threading.Lock()
    srv.ratelimit = {}

    tmp = "%s.%d.tmp" % (opts.port_file, os.getpid())
    with open(tmp, "w") as f:
        f.write("%d\n" % srv.server_address[1])
    os.rename(tmp, opts.port_file)
    try:
        srv.serve_forever()
    except KeyboardInterrupt:
        pass


if __name__ == "__main__":
    main()
