#!/bin/sh
# capture-js-wacz.sh — a WACZ of a crawl replays what the browser loaded
# (issue 28): a page whose content is written by JavaScript from a second
# request (fetch('/data.json')) is archived with every shipped plugin;
# `abx-seal --pack F.wacz` then holds that response in a WARC and in the
# index, as well as the page.  (tests/chrome-capture.sh proves the WARC
# and the index for a static page's image, not for a script's request.)
# A real chromium and the test server; skipped without chromium.
# shellcheck source-path=SCRIPTDIR source=lib/tap.sh
. "$(dirname "$0")/lib/tap.sh"
# shellcheck source-path=SCRIPTDIR source=lib/httpd.sh
. "$(dirname "$0")/lib/httpd.sh"

command -v chromium >/dev/null 2>&1 || { echo "1..0 # SKIP chromium is not installed"; exit 0; }
plan 8

mkdir -p "$T/site"
cat >"$T/site/index.html" <<'HTML'
<!DOCTYPE html>
<html><head><title>Scripted</title></head><body><p id="out">loading</p>
<script>
fetch('/data.json').then(function (r) { return r.json(); }).then(function (d) {
	document.getElementById('out').textContent = d.msg;
});
</script></body></html>
HTML
echo '{"msg": "written by the script from data.json"}' >"$T/site/data.json"
httpd_start --root "$T/site" --log "$T/req.log" || httpd_start --root "$T/site" --log "$T/req.log" ||
	{ echo "# SKIP the test server did not start"; exit 0; }
export CHROME_SANDBOX=false TIMEOUT=60

D=$T/data
abx-add -d "$D" --depth 0 \
	--plugins wget,title,favicon,headers,chrome,screenshot,pdf,dom,parse_html_urls,hashes \
	"$BASE/index.html" >/dev/null
expect_exit 0 "a crawl of a page written by a script" abx-tick -d "$D"
like "$(cat "$D"/crawls/*/*/dom/output.html)" "written by the script from data.json" \
	"the DOM holds what the script wrote from its second request"
is "$(grep -c -x /data.json "$T/req.log")" 1 "data.json was asked for once (by the browser)"
C=$(abx-ls -d "$D" -k crawl --jsonl | jq -r .id | head -n 1)
expect_exit 0 "abx-seal --pack F.wacz" abx-seal -d "$D" --pack "$T/f.wacz" "$C"
ok "the WACZ reads back" sh -c "python3 '$TOP/tests/lib/wacz-check.py' '$T/f.wacz' >'$T/check.json'"
mkdir -p "$T/x"
bsdtar -xf "$T/f.wacz" -C "$T/x"
# the response records of every WARC in the WACZ, by URI
for w in "$T"/x/archive/*.warc.gz; do
	gzip -dc "$w" | tr -d '\r' | awk '/^WARC-Type: /{ t = $2 } /^WARC-Target-URI: /{ if (t == "response") print $2 }'
done | tr -d '<>' >"$T/responses"
ok "a WARC in the WACZ holds the response for data.json" grep -q -x "$BASE/data.json" "$T/responses"
like "$(grep 'data\.json' "$T/x/indexes/index.cdxj")" '"status": *"?200' "and the index has it, status 200"
like "$(grep 'data\.json' "$T/x/indexes/index.cdxj")" '"filename": *"[^"]*chrome-capture\.warc\.gz"' \
	"in the browser's WARC"
