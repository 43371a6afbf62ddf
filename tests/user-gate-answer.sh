#!/bin/sh
# user-gate-answer.sh — the egress gate's own answer is no answer from the
# site (abx-gate(1): a response with X-Abx-Gate).  A depth-1 crawl whose
# seed links a page the site answers with 404 and a page whose server
# refuses the connection, with wget's capture of the refused page failing:
# the title and headers hooks fetch it themselves through the gate, which
# answers 502; the snapshot gets no http_status from that, both results
# failed naming the cause, and the tick exits 2 naming the page; the
# favicon hook, whose /favicon.ico the gate answers likewise, failed too
# (the site did not say it has no icon).  The 404
# beside it is still http_status 404 and its headers result succeeded.
# shellcheck source-path=SCRIPTDIR source=lib/tap.sh
. "$(dirname "$0")/lib/tap.sh"
# shellcheck source-path=SCRIPTDIR source=lib/httpd.sh
. "$(dirname "$0")/lib/httpd.sh"
plan 12

D=$T/data
mkdir -p "$T/site"
# port 1 on loopback: nothing listens there, the connection is refused
cat >"$T/site/index.html" <<'HTML'
<html><head><title>Links</title></head><body>
<a href="gone.html">broken</a> <a href="http://127.0.0.1:1/refused.html">no answer</a>
</body></html>
HTML
httpd_start --root "$T/site" || exit 1

abx-add -d "$D" --depth 1 --config CRAWL_SCOPE=any --plugins wget,title,headers,favicon,parse_html_urls \
	"$BASE/index.html" >/dev/null
expect_exit 2 "a crawl with a page that gave no answer exits 2" abx-tick -d "$D"
like "$(cat "$T/stderr")" "http://127\\.0\\.0\\.1:1/refused\\.html" "and names that page"
snap() { abx-ls -d "$D" -k snapshot --jsonl | jq -c --arg u "$1" 'select(.url == $u)'; }
R=$(snap http://127.0.0.1:1/refused.html | jq -r .id)
is "$(snap http://127.0.0.1:1/refused.html | jq -r '.http_status // "none"')" none \
	"the refused page has no http_status (the gate's 502 is not the site's)"
res() { abx-ls -d "$D" -k result --jsonl | jq -c --arg s "$1" --arg p "$2" \
	'select(.snapshot_id == $s and .plugin == $p)'; }
is "$(res "$R" headers | jq -r .status)" failed "its headers result failed"
like "$(res "$R" headers | jq -r '.output_str + " " + (.notes // "")')" \
	"no answer: .*could not reach http://127\\.0\\.0\\.1:1/refused\\.html" "naming the cause"
is "$(res "$R" title | jq -r .status)" failed "its title result failed"
like "$(res "$R" title | jq -r '.output_str + " " + (.notes // "")')" \
	"no answer: .*127\\.0\\.0\\.1.*onnection refused" "naming the cause"
is "$(res "$R" favicon | jq -r .status)" failed "its favicon result failed (no icon is no answer)"
like "$(res "$R" favicon | jq -r '.output_str + " " + (.notes // "")')" \
	"no answer: the egress gate could not reach http://127\.0\.0\.1:1/favicon\.ico" "naming the cause"
G=$(snap "$BASE/gone.html" | jq -r .id)
is "$(snap "$BASE/gone.html" | jq -r .http_status)" 404 "the 404 page is still http_status 404"
is "$(res "$G" headers | jq -r .status)" succeeded "and its headers result succeeded"
abx-ctl -d "$D" status >"$T/status"
is "$(jq -r 'select(.type == "HttpError") | .url' "$T/status" | grep -c 'refused')" 0 \
	"abx-ctl status lists no HTTP error for the refused page"
