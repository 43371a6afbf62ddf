#!/bin/sh
# view-offline.sh — offline viewing (abx(7), "Viewing an archive"): a
# depth-1 crawl of a small site (a page with a style sheet, an image and a
# link to a second page, which links back); the archived page, opened as
# the README says (the snapshot page from a file: URL, its link "Open the
# archived page"), resolves its style sheet and image to files inside the
# archive and its link to the other page's archived copy.  The check
# parses the HTML the user opens, resolving each href and src against the
# file: URL as a browser does; with chromium, it also loads the snapshot
# page's viewer from the file: URL and reads the computed style.  The
# files wget saved stay as they were, and over HTTP the link still goes
# through the sandboxed viewer.
# shellcheck source-path=SCRIPTDIR source=lib/tap.sh
. "$(dirname "$0")/lib/tap.sh"
# shellcheck source-path=SCRIPTDIR source=lib/httpd.sh
. "$(dirname "$0")/lib/httpd.sh"

D=$T/data
mkdir -p "$T/site/img"
cat >"$T/site/index.html" <<'HTML'
<!doctype html>
<html><head><title>Home</title><link rel="stylesheet" href="style.css"></head><body>
<h1>Home</h1><img id="dot" src="img/dot.png" alt="dot">
<a id="next" href="other.html">the other page</a> <a id="top" href="#h">top</a>
</body></html>
HTML
cat >"$T/site/other.html" <<'HTML'
<html><head><title>Other</title><link rel="stylesheet" href="/style.css"></head><body>
<h1>Other</h1><a id="back" href="/index.html#top">home</a>
</body></html>
HTML
echo 'h1{color:rgb(255, 0, 0)}' >"$T/site/style.css"
echo 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==' |
	base64 -d >"$T/site/img/dot.png"
httpd_start --root "$T/site" || exit 1

C=$(abx-add -d "$D" --depth 1 --plugins wget,headers,parse_html_urls "$BASE/index.html" | jq -r .id)
expect_exit 0 "a depth-1 crawl of the site" abx-tick -d "$D"
sid() { abx-ls -d "$D" -k snapshot --jsonl | jq -r "select(.url == \"$BASE/$1\") | .id"; }
S1=$(sid index.html) S2=$(sid other.html)
ok "both pages are archived" test -n "$S1" -a -n "$S2"

# open PAGE: what the user opens from the snapshot page at a file: URL,
# as "WHAT PATH-BELOW-D EXISTS" lines: the archived page's link, then its
# style sheet, image and links, resolved against the file: URL and its <base>
open_page() {
	python3 - "$D" "$D/crawls/$C/$1/index.html" <<'EOS'
import html.parser, os, sys, urllib.parse, urllib.request
d = os.path.realpath(sys.argv[1])
class P(html.parser.HTMLParser):
    def __init__(self):
        super().__init__(); self.tags = []
    def handle_starttag(self, tag, attrs):
        self.tags.append((tag, dict(attrs)))
def parse(path):
    p = P(); p.feed(open(path, encoding="utf-8", errors="replace").read()); return p.tags
def show(what, url):
    path = urllib.request.url2pathname(urllib.parse.urlsplit(url).path) if url.startswith("file:") else ""
    rel = os.path.relpath(os.path.realpath(path), d) if path else url
    print(what, rel, "yes" if path and os.path.isfile(path) else "no")
page = "file://" + urllib.request.pathname2url(sys.argv[2])
# the snapshot page's link to the archived page, as its script sets it
# from a file: URL (the data-offline attribute)
link = [a for t, a in parse(sys.argv[2]) if t == "a" and "data-offline" in a]
if not link:
    print("page none no"); sys.exit(0)
url = urllib.parse.urljoin(page, link[0]["data-offline"])
show("page", url)
tags = parse(urllib.request.url2pathname(urllib.parse.urlsplit(url).path))
base = url
for t, a in tags:
    if t == "base" and "href" in a:
        base = urllib.parse.urljoin(url, a["href"]); break
for t, a in tags:
    if t == "link" and a.get("rel") == "stylesheet":
        show("css", urllib.parse.urljoin(base, a["href"]))
    elif t == "img":
        show("img", urllib.parse.urljoin(base, a["src"]))
    elif t == "a" and "id" in a:
        show("a#" + a["id"], urllib.parse.urljoin(base, a["href"]).split("#")[0])
EOS
}
open_page "$S1" >"$T/open1"
open_page "$S2" >"$T/open2"
sed 's/^/# /' "$T/open1" "$T/open2"
W1=$(jq -r 'select(.type == "ArchiveResult" and .plugin == "wget") | .output_str' \
	"$D/crawls/$C/$S1/index.jsonl")
W1DIR=crawls/$C/$S1/${W1%/*}
line() { grep "^$2 " "$1"; }
is "$(line "$T/open1" page)" "page crawls/$C/$S1/offline.html yes" \
	"the snapshot page links the archived page's offline copy"
is "$(line "$T/open1" css)" "css $W1DIR/style.css yes" "its style sheet is the archived one"
is "$(line "$T/open1" img)" "img $W1DIR/img/dot.png yes" "its image is the archived one"
is "$(line "$T/open1" a#next)" "a#next crawls/$C/$S2/offline.html yes" \
	"its link to the other page opens that page's archived copy"
is "$(line "$T/open1" a#top)" "a#top crawls/$C/$S1/offline.html yes" "an in-page link stays in the copy"
is "$(line "$T/open2" a#back)" "a#back crawls/$C/$S1/offline.html yes" \
	"the other page's link back opens the first page's copy"
like "$(line "$T/open2" css)" "^css crawls/$C/$S2/.*/style.css yes$" "the other page's style sheet too"

# wget's files stay as they were
ok "wget's original bytes are kept (.orig)" cmp -s "$T/site/index.html" "$D/$W1DIR/index.html.orig"
like "$(cat "$D/crawls/$C/$S1/$W1")" "href=\"$BASE/other.html\"" \
	"wget's converted page is not rewritten (its link stays live)"

# over HTTP the link goes through the sandboxed viewer, never to the copy raw
href=$(python3 - "$D/crawls/$C/$S1/index.html" <<'EOS'
import html.parser, sys
class P(html.parser.HTMLParser):
    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "a" and "data-offline" in a:
            print(a["href"], a.get("data-src"))
P().feed(open(sys.argv[1], encoding="utf-8").read())
EOS
)
like "$href" '^\?view=[0-9]+ offline\.html$' "its href is the viewer's (?view=K), which frames the copy sandboxed"

# a reseal of the crawl writes the same copies
cp "$D/crawls/$C/$S1/offline.html" "$T/copy1"
expect_exit 0 "abx-seal of the crawl" abx-seal -d "$D" "$C"
ok "writes the same copy again" cmp -s "$T/copy1" "$D/crawls/$C/$S1/offline.html"

# chromium, when installed: the viewer at the file: URL opens the copy,
# whose style sheet and image load (a harness page reads them; it may,
# with --allow-file-access-from-files)
if command -v chromium >/dev/null 2>&1; then
	cat >"$T/harness.html" <<EOS
<!doctype html><html><body><pre id="out">waiting</pre>
<iframe id="f" src="file://$D/crawls/$C/$S1/index.html?view=1"></iframe>
<script>
setTimeout(function () {
	var o = document.getElementById("out");
	try {
		var w = document.getElementById("f").contentWindow, d = w.document;
		o.textContent = "at " + w.location.pathname.replace(/^.*\/crawls\//, "crawls/") +
			" color " + w.getComputedStyle(d.querySelector("h1")).color +
			" img " + d.getElementById("dot").naturalWidth;
	} catch (e) { o.textContent = "error " + e; }
}, 3000);
</script></body></html>
EOS
	_sb=
	[ "$(id -u)" -eq 0 ] && _sb=--no-sandbox   # the test's browser: root has no sandbox
	timeout -k 5 180 chromium --headless $_sb --disable-gpu --disable-dev-shm-usage --no-first-run \
		--disable-background-networking --disable-component-update --disable-sync \
		--allow-file-access-from-files --user-data-dir="$T/profile" --virtual-time-budget=6000 \
		--dump-dom "file://$T/harness.html" >"$T/dom.html" 2>"$T/chromium.err"
	if [ -s "$T/dom.html" ]; then
		like "$(cat "$T/dom.html")" "at crawls/$C/$S1/offline.html color rgb\\(255, 0, 0\\) img 1" \
			"chromium: the viewer at a file: URL opens the copy, styled by the archived CSS, its image loaded"
	else
		# no page at all: chromium did not run (a machine too loaded), which says nothing of abx
		pass "# SKIP chromium gave no page: $(tail -c 300 "$T/chromium.err")"
	fi
else
	pass "# SKIP chromium not installed"
fi
done_testing
