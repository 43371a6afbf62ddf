#!/bin/sh
# capture-requests.sh — capture once (issue 28): with every shipped plugin,
# a crawl asks the site for each page at most twice (wget's capture and the
# browser's load), for /favicon.ico at most once per host per crawl, and
# for each requisite at most twice per page that uses it; the title, the
# headers and the favicon come from what was captured (title 54, headers
# 55, favicon 56 read chrome's WARC, else wget's: share/abx/plugins/
# _lib/capture.c), and the records still say what the site answered.
# A depth-1 crawl of 3 pages on the test server (tests/httpd.py --log:
# every request's path), with a real chromium; skipped without one.
# shellcheck source-path=SCRIPTDIR source=lib/tap.sh
. "$(dirname "$0")/lib/tap.sh"
# shellcheck source-path=SCRIPTDIR source=lib/httpd.sh
. "$(dirname "$0")/lib/httpd.sh"

command -v chromium >/dev/null 2>&1 || { echo "1..0 # SKIP chromium is not installed"; exit 0; }
plan 14

mkdir -p "$T/site"
cat >"$T/site/index.html" <<'HTML'
<html><head><title>Home &amp; away</title><link rel="stylesheet" href="style.css"></head>
<body><img src="img.png"><a href="a.html">A</a> <a href="b.html">B</a></body></html>
HTML
cat >"$T/site/a.html" <<'HTML'
<html><head><title>Page A</title><link rel="stylesheet" href="style.css"></head>
<body><img src="img.png"><a href="index.html">home</a></body></html>
HTML
cat >"$T/site/b.html" <<'HTML'
<html><head><title>Page B</title></head><body><a href="index.html">home</a></body></html>
HTML
echo 'body { color: #333 }' >"$T/site/style.css"
# a 1x1 PNG, and an icon at the site's root
printf '\211PNG\r\n\032\n\0\0\0\rIHDR\0\0\0\1\0\0\0\1\10\6\0\0\0\37\25\304\211\0\0\0\rIDATx\234c\370\377\377?\0\5\376\2\376\247\65\201\204\0\0\0\0IEND\256B`\202' >"$T/site/img.png"
cp "$T/site/img.png" "$T/site/favicon.ico"
# (twice: on a loaded machine python's start alone can take most of httpd_start's wait)
httpd_start --root "$T/site" --log "$T/req.log" || httpd_start --root "$T/site" --log "$T/req.log" ||
	{ echo "# SKIP the test server did not start"; exit 0; }
export CHROME_SANDBOX=false TIMEOUT=60

D=$T/data
P=wget,title,favicon,headers,chrome,screenshot,pdf,dom,parse_html_urls,hashes
abx-add -d "$D" --depth 1 --plugins "$P" "$BASE/index.html" >/dev/null
expect_exit 0 "a depth-1 crawl with every shipped plugin" abx-tick -d "$D"
is "$(abx-ls -d "$D" -k snapshot --jsonl | jq -r .status | sort | uniq -c | tr -s ' ')" " 3 sealed" \
	"3 snapshots, sealed"
asked() { grep -c -x -e "$1" "$T/req.log"; }
most() {
	_c=$(asked "$1")
	if [ "$_c" -le "$2" ]; then pass "$1 asked $_c times (at most $2)"; else
		fail "$1 asked $_c times (at most $2)"
		diag "$(sort "$T/req.log" | uniq -c)"
	fi
}
for p in /index.html /a.html /b.html; do most "$p" 2; done
most /style.css 4
most /img.png 4
# the browser's own loads of the icon are in its WARC (two records each)
brow=0
for w in "$D"/crawls/*/*/chrome/capture.warc.gz; do
	c=$(gzip -dc "$w" | grep -a -c "^WARC-Target-URI: <*$BASE/favicon.ico")
	brow=$((brow + c / 2))
done
fav=$(asked /favicon.ico)
own=$((fav - brow))
if [ "$own" -le 1 ]; then pass "/favicon.ico asked $own times by the fetchers besides the browser (at most 1)"; else
	fail "/favicon.ico asked $own times by the fetchers besides the browser (at most 1)"
fi
if [ "$fav" -le 1 ]; then pass "/favicon.ico asked $fav times in the crawl (at most 1)"; else
	fail "/favicon.ico asked $fav times in the crawl (at most 1): the browser's own loads $brow"
fi
snap() { abx-ls -d "$D" -k snapshot --jsonl | jq -r "select(.url == \"$BASE/$1\") | $2"; }
is "$(snap index.html .title) | $(snap a.html .title) | $(snap b.html .title)" \
	"Home & away | Page A | Page B" "each snapshot's title is its page's"
is "$(snap index.html .http_status) $(snap a.html .http_status)" "200 200" "and its http_status 200"
S=$(abx-ls -d "$D" -k snapshot --jsonl | jq -r "select(.url == \"$BASE/a.html\") | .id")
SD=$(echo "$D"/crawls/*/*/"$S" | head -n 1)
[ -d "$SD" ] || SD=$(dirname "$(find "$D" -path "*$S*/title/title.txt" | head -n 1)")/..
is "$(jq -r '.status, ."content-type"' "$SD/headers/headers.json" | tr '\n' ' ')" "200 text/html " \
	"headers.json has the page's status and Content-Type"
is "$(cmp "$SD/favicon/favicon.ico" "$T/site/favicon.ico" && echo same)" same "the favicon is the site's icon"
failed_results() { abx-ls -d "$D" -k result --jsonl | jq -r "select(.status == \"failed\") | \"\(.plugin): \(.output_str)\""; }
is "$(failed_results)" "" "no result failed"
