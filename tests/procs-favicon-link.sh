#!/bin/sh
# procs-favicon-link.sh — the favicon hook takes the page's icon link from
# the browser (issue 28: no second parser started a snapshot): the chrome
# hook writes the first <link rel~=icon> of the page, as the browser
# resolved it against the document's <base>, into chrome/icon.txt, and
# the favicon hook (56) fetches that icon, not /favicon.ico.  A page with
# no icon link gets no icon.txt, and the site's /favicon.ico.  Crawls of
# the test server with chrome and favicon, a real chromium; skipped
# without one.
# shellcheck source-path=SCRIPTDIR source=lib/tap.sh
. "$(dirname "$0")/lib/tap.sh"
# shellcheck source-path=SCRIPTDIR source=lib/httpd.sh
. "$(dirname "$0")/lib/httpd.sh"

command -v chromium >/dev/null 2>&1 || { echo "1..0 # SKIP chromium is not installed"; exit 0; }
plan 8

mkdir -p "$T/site/d" "$T/site/icons"
cat >"$T/site/index.html" <<'HTML'
<html><head><title>Linked</title><base href="/icons/">
<link rel="Shortcut ICON" href="mine.png"></head><body>icon</body></html>
HTML
cat >"$T/site/d/plain.html" <<'HTML'
<html><head><title>Plain</title></head><body>no icon link</body></html>
HTML
printf '\211PNG\r\n\032\n\0\0\0\rIHDR\0\0\0\1\0\0\0\1\10\6\0\0\0\37\25\304\211\0\0\0\rIDATx\234c\370\377\377?\0\5\376\2\376\247\65\201\204\0\0\0\0IEND\256B`\202' >"$T/site/icons/mine.png"
printf 'ICO-root' >"$T/site/favicon.ico"
httpd_start --root "$T/site" --log "$T/req.log" || httpd_start --root "$T/site" --log "$T/req.log" ||
	{ echo "# SKIP the test server did not start"; exit 0; }
export CHROME_SANDBOX=false TIMEOUT=60

# crawl NAME PATH: a crawl of one page with chrome and favicon; its
# snapshot's directory in $SD
crawl() {
	abx-add -d "$T/$1" --plugins chrome,favicon "$BASE/$2" >/dev/null
	expect_exit 0 "a crawl of $2 with chrome and favicon" abx-tick -d "$T/$1"
	SD=$(dirname "$(find "$T/$1" -path "*/chrome/.run" | head -n 1)")/..
}

crawl a index.html
is "$(cat "$SD/chrome/icon.txt")" "$BASE/icons/mine.png" \
	"chrome/icon.txt: the first <link rel~=icon>, resolved against <base>"
is "$(cmp "$SD/favicon/favicon.png" "$T/site/icons/mine.png" 2>&1 && echo same)" same \
	"the favicon is the linked icon"
is "$(grep -c -x /favicon.ico "$T/req.log")" 0 "/favicon.ico not asked for"

crawl b d/plain.html
is "$([ -e "$SD/chrome/icon.txt" ] && echo present || echo absent)" absent "no icon link: no icon.txt"
is "$(cat "$SD/favicon/favicon.ico" 2>&1)" "ICO-root" "the favicon is the site's /favicon.ico"
is "$(abx-ls -d "$T/b" -k result --jsonl | jq -r 'select(.plugin == "favicon") | .status')" succeeded \
	"the favicon result succeeded"
