#!/bin/sh
# status-shown.sh — what the site answered is shown where a user looks
# (abx(7), HTTP status): a crawl of a page with two broken links (one with
# "&" in its URL) marks each 404 on the snapshot's page (a found page says
# HTTP 200, unmarked), on the crawl page's row (and counts them), in the
# site index and abx-ls --html before the URL, and in index.json; abx-ctl
# status counts the sealed snapshots answered 4xx/5xx by code (HttpStatus)
# and lists the --last N latest (HttpError, with the URL), as a table on a
# terminal whose lines fit 80 columns.  Every URL is HTML-escaped; a
# removed snapshot is counted nowhere.
# shellcheck source-path=SCRIPTDIR source=lib/tap.sh
. "$(dirname "$0")/lib/tap.sh"
# shellcheck source-path=SCRIPTDIR source=lib/httpd.sh
. "$(dirname "$0")/lib/httpd.sh"
plan 30

D=$T/data
P=wget,title,headers,parse_html_urls
mkdir -p "$T/site"
cat >"$T/site/index.html" <<'HTML'
<html><head><title>Links</title></head><body>
<a href="ok.html">fine</a> <a href="gone.html?a=1&amp;b=2">broken</a> <a href="lost.html">lost</a>
</body></html>
HTML
echo '<html><head><title>Fine</title></head><body>ok</body></html>' >"$T/site/ok.html"
httpd_start --root "$T/site" || exit 1

C=$(abx-add -d "$D" --depth 1 --plugins "$P" "$BASE/index.html" | jq -r .id)
expect_exit 0 "a crawl with two broken links exits 0" abx-tick -d "$D"
snap() { abx-ls -d "$D" -k snapshot --jsonl | jq -r --arg u "$BASE/$1" "select(.url == \$u) | $2"; }
G=$(snap 'gone.html?a=1&b=2' .id)
L=$(snap lost.html .id)
O=$(snap ok.html .id)
is "$(snap 'gone.html?a=1&b=2' .http_status) $(snap lost.html .http_status)" "404 404" \
	"both broken links are archived with http_status 404"

# the snapshot's own page
page=$D/crawls/$C/$G/index.html
like "$(cat "$page")" '<div class="meta">sealed · <span class="httperr">HTTP 404</span> · ' \
	"the broken page's index.html says HTTP 404, marked, beside its status"
like "$(cat "$page")" 'gone\.html\?a=1&amp;b=2' "its URL is HTML-escaped there"
is "$(grep -c 'gone\.html?a=1&b=2' "$page")" 0 "and never raw"
like "$(cat "$D/crawls/$C/$O/index.html")" '<span class="http">HTTP 200</span>' \
	"a page that was found says HTTP 200"
is "$(grep -c 'class="httperr"' "$D/crawls/$C/$O/index.html")" 0 "unmarked"
is "$(jq -r .http_status "$D/crawls/$C/$G/index.json")" 404 "index.json has http_status"

# the crawl's page
cp=$D/crawls/$C/index.html
row() { tr '\n' ' ' <"$cp" | sed 's/<tr>/\n<tr>/g' | grep -F "$1"; }
like "$(row "$G/index.html")" 'archived · <span class="httperr">HTTP 404</span>' \
	"the crawl page's row of the broken page says HTTP 404 beside archived"
like "$(row "$L/index.html")" 'HTTP 404' "and so does the other broken page's"
is "$(row "$O/index.html" | grep -c 'HTTP ')" 0 "the row of a page that was found says nothing of it"
like "$(cat "$cp")" '<span class="httperr">2 answered HTTP 4xx/5xx</span>' "the outcomes count them"
is "$(grep -c 'gone\.html?a=1&b=2' "$cp")" 0 "the URL is escaped there too"

# the site index
like "$(cat "$D/index.html")" '<span class="httperr">HTTP 404</span> <a href="[^"]*gone\.html\?a=1&amp;b=2">' \
	"the site index shows HTTP 404 before the broken page's URL, escaped"
is "$(grep -c 'HTTP 404' "$D/index.html")" 2 "on both broken pages' rows only"
is "$(jq -r --arg g "$G" 'select(.id == $g) | .http_status' "$D/index.jsonl")" 404 \
	"index.jsonl's line carries http_status"

# abx-ls --html, as its table does
abx-ls -d "$D" -k snapshot --html >"$T/ls.html"
like "$(cat "$T/ls.html")" '<span class="httperr">HTTP 404</span> <a rel="noopener noreferrer" href="[^"]*gone\.html\?a=1&amp;b=2">' \
	"abx-ls --html shows HTTP 404 before the broken page's URL, escaped"
is "$(grep -o 'class="httperr"' "$T/ls.html" | wc -l | tr -d ' ')" 2 "on both broken pages' rows only"

# abx-ctl status
expect_exit 0 "abx-ctl status" abx-ctl -d "$D" status
is "$(jq -c 'select(.type == "HttpStatus") | [.kind, .http_status, .count]' "$T/stdout")" '["Snapshot",404,2]' \
	"it counts the sealed snapshots answered 404"
is "$(jq -r 'select(.type == "HttpError") | .url' "$T/stdout" | sort | tr '\n' ' ')" \
	"$BASE/gone.html?a=1&b=2 $BASE/lost.html " "and lists them with their URLs"
is "$(jq -r 'select(.type == "HttpError") | "\(.http_status) \(.crawl_id)"' "$T/stdout" | sort -u)" "404 $C" \
	"with their code and crawl"
is "$(jq -r 'select(.type == "HttpError") | .snapshot_id' "$T/stdout" | grep -c -e "$G" -e "$L")" 2 \
	"and snapshot ids"
abx-ctl -d "$D" status --last 1 >"$T/stdout"
is "$(jq -r 'select(.type == "HttpError") | .url' "$T/stdout" | wc -l | tr -d ' ')" 1 "--last 1: the latest one"
abx-ctl -d "$D" status --last 0 >"$T/stdout"
is "$(jq -r 'select(.type == "HttpError") | .url' "$T/stdout" | wc -l | tr -d ' ')" 0 \
	"--last 0: none listed (still counted: $(jq -r 'select(.type == "HttpStatus") | .count' "$T/stdout"))"

# on a terminal
if command -v script >/dev/null 2>&1; then
	script -qc "stty cols 80; abx-ctl -d '$D' status" /dev/null </dev/null | tr -d '\r' >"$T/tty"
	like "$(cat "$T/tty")" 'HttpStatus Snapshot +HTTP 404 +2' "on a terminal: the count by code"
	like "$(cat "$T/tty")" "HttpError +HTTP 404 +$BASE/lost.html" "and each broken page's URL"
	is "$(awk 'length > 80' "$T/tty")" "" "each line fits 80 columns"
else
	for _ in 1 2 3; do pass "# SKIP no script(1)"; done
fi

# removed: counted nowhere
abx-ctl -d "$D" remove "$L" >/dev/null
is "$(abx-ctl -d "$D" status | jq -c 'select(.type == "HttpStatus") | .count')" 1 \
	"a removed snapshot is no longer counted by abx-ctl status"
is "$(grep -c 'HTTP 404' "$D/index.html")" 1 "nor shown by the site index"
