#!/bin/sh
# user-gate-spoof.sh — a site cannot pass its answer off as the egress
# gate's (abx-gate(1): X-Abx-Gate marks the gate's own answers, and a
# response that has it is no answer from the site, hookcurl.h).  The test
# site's /spoofgate answers 200 with "X-Abx-Gate: refused zone=loopback"
# and a body line beginning "abx-gate ".  Crawled over http the gate drops
# the header on its way; over https (a CONNECT tunnel the gate does not
# read) the title and headers hooks see it and take the answer as the
# site's all the same, and so do they when they read wget's capture of it.
# Either way: the title and headers results
# succeeded, the snapshot has http_status 200, the tick exits 0.
# shellcheck source-path=SCRIPTDIR source=lib/tap.sh
. "$(dirname "$0")/lib/tap.sh"
# shellcheck source-path=SCRIPTDIR source=lib/httpd.sh
. "$(dirname "$0")/lib/httpd.sh"
plan 21

# spoof_crawl NAME PLUGINS URL [abx-add options]: PLUGINS (title and
# headers among them) of URL in $T/NAME
spoof_crawl() {
	_name=$1 _pl=$2 _u=$3
	shift 3
	abx-add -d "$T/$_name" --plugins "$_pl" "$@" "$_u" >/dev/null
	expect_exit 0 "$_name: the crawl of $_u exits 0" abx-tick -d "$T/$_name"
	is "$(abx-ls -d "$T/$_name" -k snapshot --jsonl | jq -r '.http_status // "none"')" 200 \
		"$_name: the snapshot has the site's http_status 200"
	for _p in title headers; do
		is "$(abx-ls -d "$T/$_name" -k result --jsonl | jq -r --arg p "$_p" 'select(.plugin == $p) | .status')" \
			succeeded "$_name: its $_p result succeeded"
	done
	is "$(abx-ls -d "$T/$_name" -k result --jsonl | jq -r 'select(.plugin == "title") | .output_str')" \
		"Not the gate" "$_name: the title is the page's"
	_hj=$(find "$T/$_name" -path '*/headers/headers.json' | head -n 1)
	ok "$_name: headers.json was written" test -s "${_hj:-/nonexistent}"
}

httpd_start || exit 1
spoof_crawl http title,headers "$BASE/spoofgate"
ok "http: the gate dropped the site's X-Abx-Gate on its way" \
	sh -c "test -s '$_hj' && ! grep -qi 'x-abx-gate' '$_hj'"

if ! openssl req -x509 -newkey rsa:2048 -nodes -keyout "$T/key.pem" -out "$T/cert.pem" -days 2 \
	-subj /CN=127.0.0.1 -addext subjectAltName=IP:127.0.0.1 >"$T/openssl.out" 2>&1; then
	diag "openssl could not make a certificate: $(head -c 400 "$T/openssl.out")"
	exit 1
fi
cat "$T/key.pem" "$T/cert.pem" >"$T/server.pem"
httpd_start --tls "$T/server.pem" || exit 1
spoof_crawl https title,headers "https://127.0.0.1:$HTTPD_PORT/spoofgate" --config CHECK_SSL_VALIDITY=false
ok "https: the header came through the tunnel, as the site sent it" grep -qi 'x-abx-gate' "$_hj"
# the headers and title hooks read wget's capture of the page (capture.c)
spoof_crawl https-wget wget,title,headers "https://127.0.0.1:$HTTPD_PORT/spoofgate" \
	--config CHECK_SSL_VALIDITY=false
ok "https-wget: the header is in the capture's headers too" grep -qi 'x-abx-gate' "$_hj"
