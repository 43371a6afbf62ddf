#!/bin/sh
# chrome-own-network.sh — the browser asks the network for the page and
# nothing else: chromium's own services (accounts.google.com,
# update.googleapis.com, clients2.google.com's network time), which it asks
# at every start despite --disable-background-networking, get no request
# through the egress gate and no name looked up.
#   1. The chrome hook run by hand with ABX_GATE set, CHROME_KEEP=false (a
#      browser of its own): every request that reaches the "gate" (a
#      recording proxy, tests/lib/recproxy.py, which forwards only to
#      127.0.0.1) is for the test server, and the capture succeeds through
#      it (the page in a browser context whose proxy is the gate; the
#      browser's own proxy refuses: launch.c browser_no_network).
#   2. The pdf hook's shell fallback (pdf/browser.sh, chrome_run) run by
#      hand without a gate: no connection to a DNS server (port 53), by
#      strace; its PDF made.  With the recording proxy as its gate: only
#      the test server asked of it, and its PDF made.
# A real chromium; skipped without one (or without strace for 2).
# shellcheck source-path=SCRIPTDIR source=lib/tap.sh
. "$(dirname "$0")/lib/tap.sh"
# shellcheck source-path=SCRIPTDIR source=lib/httpd.sh
. "$(dirname "$0")/lib/httpd.sh"

command -v chromium >/dev/null 2>&1 || { echo "1..0 # SKIP chromium is not installed"; exit 0; }
plan 8

mkdir -p "$T/site" "$T/h"
cat >"$T/site/index.html" <<'HTML'
<html><head><title>Own network</title><link rel="stylesheet" href="/s.css"></head>
<body><p>the page, and nothing else</p></body></html>
HTML
printf 'p { color: black }\n' >"$T/site/s.css"
httpd_start --root "$T/site" --log "$T/req.log" || httpd_start --root "$T/site" --log "$T/req.log" ||
	{ echo "# SKIP the test server did not start"; exit 0; }
export CHROME_SANDBOX=false TIMEOUT=60

python3 "$TOP/tests/lib/recproxy.py" "$T/pport" "$T/proxy.log" 2>"$T/proxy.err" &
i=0
while [ ! -s "$T/pport" ] && [ $i -lt 400 ]; do sleep 0.05; i=$((i + 1)); done
[ -s "$T/pport" ] || { echo "# SKIP the recording proxy did not start: $(head -c 300 "$T/proxy.err")"; exit 0; }

(cd "$T/h" && ABX_GATE="127.0.0.1:$(cat "$T/pport")" CHROME_KEEP=false \
	"$SHARE/abx/plugins/chrome/on_Snapshot__29_chrome.bin" --url="$BASE/index.html" >"$T/h.out" 2>"$T/h.err")
is "$(jq -r .status "$T/h.out")" succeeded "the chrome hook captured the page through the gate"
is "$(grep -c "^GET $BASE/index.html " "$T/proxy.log")" 1 "the page went through the gate once"
others=$(grep -v -e "^[A-Z]* $BASE/" "$T/proxy.log")
is "$others" "" "nothing but the test server was asked of the gate"
is "$(grep -c -e google -e googleapis "$T/proxy.log")" 0 "no request for chromium's own services"

if command -v strace >/dev/null 2>&1; then
	mkdir -p "$T/p"
	(cd "$T/p" && strace -f -qq -e trace=connect -o "$T/pdf.trace" \
		sh "$SHARE/abx/plugins/pdf/browser.sh" --url="$BASE/index.html" >"$T/p.out" 2>"$T/p.err")
	is "$(grep -c 'htons(53)' "$T/pdf.trace")" 0 "the shell fallback, without a gate, looked no name up"
	ok "and made its PDF" test -s "$T/p/output.pdf"
else
	pass "# SKIP strace is not installed"
	pass "# SKIP strace is not installed"
fi
: >"$T/proxy.log"
mkdir -p "$T/q"
(cd "$T/q" && ABX_GATE="127.0.0.1:$(cat "$T/pport")" \
	sh "$SHARE/abx/plugins/pdf/browser.sh" --url="$BASE/index.html" >"$T/q.out" 2>"$T/q.err")
ok "the shell fallback made its PDF through the gate" test -s "$T/q/output.pdf"
is "$(grep -v -e "^[A-Z]* $BASE/" "$T/proxy.log")" "" "and asked the gate for nothing but the test server"
