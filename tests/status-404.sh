#!/bin/sh
# status-404.sh — HTTP status is data, not failure (abx(7), HTTP STATUS): a
# crawl whose seed links a page the site answers with 404 exits 0 under cron
# and prints nothing; the hooks that fetched the broken page succeeded and
# the snapshots keep "http_status"; retry --failed finds nothing to do.  A
# seed that answers 404 is still a failure (exit 2, named), and
# FAIL_ON_HTTP_ERROR=true makes every 4xx/5xx one.
# shellcheck source-path=SCRIPTDIR source=lib/tap.sh
. "$(dirname "$0")/lib/tap.sh"
# shellcheck source-path=SCRIPTDIR source=lib/httpd.sh
. "$(dirname "$0")/lib/httpd.sh"
plan 17

D=$T/data
P=wget,title,headers,parse_html_urls
# a page linking one that exists and one that does not
mkdir -p "$T/site"
cat >"$T/site/index.html" <<'HTML'
<html><head><title>Links</title></head><body>
<a href="ok.html">fine</a> <a href="gone.html">broken</a>
</body></html>
HTML
echo '<html><head><title>Fine</title></head><body>ok</body></html>' >"$T/site/ok.html"
httpd_start --root "$T/site" || exit 1

C=$(abx-add -d "$D" --depth 1 --plugins "$P" "$BASE/index.html" | jq -r .id)
expect_exit 0 "a crawl with a broken link exits 0 under cron" abx-tick -d "$D"
is "$(cat "$T/stdout" "$T/stderr")" "" "and prints nothing"
snap() { abx-ls -d "$D" -k snapshot --jsonl | jq -r "select(.url == \"$BASE/$1\") | $2"; }
is "$(snap gone.html .status)" sealed "the broken link's snapshot is sealed"
is "$(snap gone.html .http_status)" 404 "its record keeps http_status 404"
is "$(snap ok.html .http_status)" 200 "a page that was found keeps http_status 200"
G=$(snap gone.html .id)
res() { abx-ls -d "$D" -k result --jsonl | jq -r "select(.snapshot_id == \"$G\" and .plugin == \"$1\") | $2"; }
is "$(res wget .status) $(res title .status) $(res headers .status)" "succeeded succeeded succeeded" \
	"wget, title and headers succeeded on the 404 page"
is "$(res wget .output_str)" "HTTP 404 File not found: no page saved" "wget says what the site answered"
is "$(res wget .output_json.http_status)" 404 "and its result carries the status"
is "$(abx-ls -d "$D" -k result --jsonl | jq -r 'select(.status == "failed") | .plugin')" "" \
	"no result failed"
abx-ctl -d "$D" retry --failed "$C" >"$T/stdout" 2>"$T/stderr"
is "$(abx-ls -d "$D" -k snapshot --jsonl | jq -r .status | sort -u)" sealed "retry --failed queued nothing"
expect_exit 1 "a second tick finds nothing due (retry queued nothing)" abx-tick -d "$D"
is "$(cat "$T/stderr")" "" "and says nothing"

# a seed that is missing: reported, exit 2
D2=$T/data2
abx-add -d "$D2" --plugins "$P" "$BASE/nothere.html" >/dev/null
expect_exit 2 "a seed answered with 404 exits 2" abx-tick -d "$D2"
like "$(cat "$T/stderr")" "nothere.html" "and names it"
is "$(abx-ls -d "$D2" -k snapshot --jsonl | jq -r .http_status)" 404 "its record keeps the status too"

# FAIL_ON_HTTP_ERROR: every 4xx/5xx a failure
D3=$T/data3
abx-add -d "$D3" --depth 1 --config FAIL_ON_HTTP_ERROR=true --plugins "$P" "$BASE/index.html" >/dev/null
expect_exit 2 "FAIL_ON_HTTP_ERROR=true: the broken link fails the tick" abx-tick -d "$D3"
like "$(cat "$T/stderr")" "gone.html" "and names it"
