#!/bin/sh
# status-noanswer.sh — a page that gave no answer at all is still a failure
# (abx(7), HTTP status): a depth-1 crawl whose seed links a page the site
# answers with 404 and a page whose server refuses the connection exits 2
# under cron, names the refused page and not the 404, and the refused
# page's wget result failed, so abx-ctl status lists it among the failed
# results; the 404 page is no failure there.
# shellcheck source-path=SCRIPTDIR source=lib/tap.sh
. "$(dirname "$0")/lib/tap.sh"
# shellcheck source-path=SCRIPTDIR source=lib/httpd.sh
. "$(dirname "$0")/lib/httpd.sh"
plan 7

D=$T/data
mkdir -p "$T/site"
# port 1 on loopback: nothing listens there, the connection is refused
cat >"$T/site/index.html" <<'HTML'
<html><head><title>Links</title></head><body>
<a href="gone.html">broken</a> <a href="http://127.0.0.1:1/refused.html">no answer</a>
</body></html>
HTML
httpd_start --root "$T/site" || exit 1

abx-add -d "$D" --depth 1 --config CRAWL_SCOPE=any --plugins wget,title,parse_html_urls "$BASE/index.html" >/dev/null
expect_exit 2 "a crawl with a page that gave no answer exits 2" abx-tick -d "$D"
like "$(cat "$T/stderr")" "http://127\\.0\\.0\\.1:1/refused\\.html" "and names that page"
is "$(grep -c 'gone\.html' "$T/stderr")" 0 "not the page answered with 404"
snap() { abx-ls -d "$D" -k snapshot --jsonl | jq -r --arg u "$1" 'select(.url == $u) | .id'; }
R=$(snap http://127.0.0.1:1/refused.html)
is "$(abx-ls -d "$D" -k result --jsonl | jq -r --arg s "$R" 'select(.snapshot_id == $s and .plugin == "wget") | .status')" \
	failed "its wget result failed"
abx-ctl -d "$D" status >"$T/status"
is "$(jq -r 'select(.type == "Failed" and .plugin == "wget") | .url' "$T/status")" \
	http://127.0.0.1:1/refused.html "abx-ctl status lists it among the failed results"
is "$(jq -r 'select(.type == "Failed") | .url' "$T/status" | grep -c 'gone\.html')" 0 "not the 404 page"
is "$(jq -r 'select(.type == "HttpError") | .url' "$T/status" | grep -cxF "$BASE/gone.html")" 1 \
	"which is listed as a page the site answered with an error"
