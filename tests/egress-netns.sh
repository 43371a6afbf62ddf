#!/bin/sh
# The egress gate (abx(7) SECURITY): a crawl of a public site, with every
# shipped plugin, at depth 1, cannot reach a secret service on the
# archiving host's loopback or private address, by any route a page can
# take: its own redirect, an outlink's, a requisite's, IPv6 and numeric
# spellings of 127.0.0.1, names with a trailing dot, a name that resolves
# to loopback, a name whose answer changes between lookups (rebinding), a
# name with a public and a loopback address, an icon.
#
# Two network namespaces the test makes and removes (tests/lib/netns.sh):
# A, the archiving host, where every abx tool runs and the secret service
# listens on port $S of 127.0.0.1, ::1, ::7f00:1 and the private
# 10.77.0.1; B, the public internet, reached from A over a veth, with
# TEST-NET addresses only, serving the public site on port 80
# (tests/lib/egress-site.py: its pages and their routes are listed there)
# and names on 53 (tests/lib/dnsd.py, TTL 0: pub.test the public site;
# loop.test, loop6.test and localhost loopback, as RFC 6761 asks of a
# resolver, so that "localhost." is loopback for every fetcher; priv.test
# the private address; mixed.test a public and a loopback address;
# rebind.test and rebind-page.test the public address once, then
# 127.0.0.1).
# A control first shows that the harness sees a leak: curl in A, with no
# proxy, reaches the secret service by name.  Then, after
# abx-add --depth 1 http://pub.test/ and abx-tick until the crawl is
# sealed: the secret service saw no request, its token is in no file of
# the data directory (gzip members read too), the public pages were
# archived, the pages whose own fetch is redirected into loopback or the
# private address are sealed "network_zone", and a result's notes name
# the loopback zone.  The secret service's log names the route of each
# request it saw (one path a route).
#
# Skipped where network namespaces cannot be made (not root, no ip(8), no
# veth) or chromium is not installed.
. "$(dirname "$0")/lib/tap.sh"
. "$(dirname "$0")/lib/netns.sh"
skip_all() { echo "1..0 # SKIP $1"; exit 0; }
CHROMIUM=$(command -v chromium || command -v chromium-browser) || skip_all "chromium is not installed"
trap 'netns_remove; cleanup' EXIT
trap 'exit 143' TERM
trap 'exit 130' INT
trap 'exit 129' HUP
netns_make "$$" || skip_all "network namespaces cannot be made here: $NETNS_WHY"
# the hooks of today reach the network directly; the gate sets its own
unset http_proxy https_proxy HTTP_PROXY HTTPS_PROXY ALL_PROXY all_proxy no_proxy NO_PROXY

S=8377
TOKEN=abx-secret-$$-$(od -An -N8 -tx1 /dev/urandom | tr -d ' \n')
L=$TOP/tests/lib
: >"$T/secret.log"
netns_b python3 "$L/dnsd.py" --bind "$NETNS_DNS" --ready "$T/dns.ready" --log "$T/dns.log" \
	"pub.test=$NETNS_PUBLIC" "loop.test=127.0.0.1" "loop6.test=::1" "priv.test=$NETNS_PRIVATE" \
	"mixed.test=$NETNS_PUBLIC,127.0.0.1" "rebind.test=$NETNS_PUBLIC/127.0.0.1" \
	"rebind-page.test=$NETNS_PUBLIC/127.0.0.1" "localhost=127.0.0.1,::1" 2>"$T/dns.err" &
netns_b python3 "$L/egress-site.py" public --bind "$NETNS_PUBLIC" --port 80 --secret-port "$S" \
	--ready "$T/public.ready" 2>"$T/public.err" &
netns_a python3 "$L/egress-site.py" secret --bind 127.0.0.1 --bind "$NETNS_PRIVATE" --bind ::1 \
	--bind "$NETNS_COMPAT" --port "$S" --token "$TOKEN" --log "$T/secret.log" \
	--ready "$T/secret.ready" 2>"$T/secret.err" &
for f in dns public secret; do
	if ! wait_for 30 test -e "$T/$f.ready"; then
		echo "Bail out! the $f server did not start: $(head -c 400 "$T/$f.err")"
		exit 1
	fi
done
# the secret service's requests, one a line ("METHOD PATH HOST")
nsecret() { wc -l <"$T/secret.log" | tr -d ' '; }

# controls: the public site is reachable from A by name; curl with no
# proxy reaches the secret service by a name, and its private address
like "$(netns_a curl -s --noproxy '*' -m 10 http://pub.test/)" "<title>Public seed</title>" \
	"control: from A, http://pub.test/ is the public site in B (DNS and route work)"
like "$(netns_a curl -s --noproxy '*' -m 10 "http://loop.test:$S/control")" "$TOKEN" \
	"control: curl in A with no proxy gets the secret page at http://loop.test:$S/"
is "$(nsecret)" 1 "control: the secret service logged that request (the harness sees a leak)"
like "$(netns_a curl -s --noproxy '*' -m 10 "http://priv.test:$S/control")" "$TOKEN" \
	"control: and at its private address, by name"
: >"$T/secret.log"

D=$T/data
mkdir -p "$D"
{
	echo "TIMEOUT=20"
	echo "CHROME_BINARY=$CHROMIUM"
	echo "CHROME_SANDBOX=false"
} >"$D/abx.conf"
start=$(date +%s)
C=$(netns_a abx-add -d "$D" --depth 1 http://pub.test/ 2>"$T/add.err" | jq -r .id)
like "$C" '^[0-9A-Za-z_-]+$' "abx-add queues the crawl of http://pub.test/, every shipped plugin"
case $C in
'' | null)
	echo "Bail out! abx-add failed: $(head -c 400 "$T/add.err")"
	exit 1
	;;
esac
crawl_status() { netns_a abx-ls -d "$D" "$C" | jq -r .status; }
# passes until the crawl is sealed, for at most 300 s in all (a few on an
# idle machine; chromium is slow on a loaded one)
end=$((start + 300))
while [ "$(crawl_status)" != sealed ] && [ "$(date +%s)" -lt "$end" ]; do
	# in the background, so that a signal to the test ends it at once
	netns_a timeout $((end - $(date +%s))) abx-tick -d "$D" >>"$T/tick.out" 2>>"$T/tick.err" &
	wait $!
	[ "$(crawl_status)" = sealed ] || sleep 1
done
is "$(crawl_status)" sealed "the crawl ended (sealed) in $(($(date +%s) - start)) s"
[ "$(crawl_status)" = sealed ] || diag "tick stderr: $(tail -c 600 "$T/tick.err")"

# what must not have happened
is "$(nsecret)" 0 "the secret service logged no request"
if [ "$(nsecret)" -ne 0 ]; then
	diag "requests that reached it (count, method, path: the route, Host:):"
	sort "$T/secret.log" | uniq -c | sed 's/^ */#   /' >&2
fi
find "$D" -type f >"$T/files"
: >"$T/leaked"
while IFS= read -r f; do
	case $f in
	*.gz) gzip -dc -- "$f" 2>/dev/null | grep -qaF -- "$TOKEN" && echo "$f" >>"$T/leaked" ;;
	*) grep -qaF -- "$TOKEN" "$f" && echo "$f" >>"$T/leaked" ;;
	esac
done <"$T/files"
is "$(wc -l <"$T/leaked" | tr -d ' ')" 0 "the secret token is in no file of the data directory (WARC members read too)"
if [ -s "$T/leaked" ]; then
	diag "files that hold it (the first 20):"
	sed "s|^$D/|#   |" "$T/leaked" | sort | head -n 20 >&2
fi

# what must have happened
netns_a abx-ls -d "$D" -k snapshot --jsonl >"$T/snaps"
netns_a abx-ls -d "$D" -k archiveresult --jsonl >"$T/results"
snap() { jq -r --arg u "$1" "select(.url == \$u) | $2" "$T/snaps"; }
is "$(snap http://pub.test/ '.sealed_reason + " " + .title')" "archived Public seed" \
	"control: the seed is archived, its title recorded"
sid=$(snap http://pub.test/ .id)
page=$(jq -r --arg s "$sid" 'select(.snapshot_id == $s and .plugin == "wget") | .output_str' "$T/results")
ok "control: the seed's wget output ($page) holds the page" \
	grep -qF "<title>Public seed</title>" "$D/crawls/$C/$sid/$page"
is "$(snap http://pub.test/about.html '.sealed_reason + " " + .title')" "archived About the public site" \
	"control: its public outlink is archived at depth 1"
is "$(snap http://pub.test/r/loop .sealed_reason)" network_zone \
	"the page whose own fetch redirects to http://127.0.0.1:$S/ is sealed network_zone, not archived"
got=""
for u in http://pub.test/r/priv http://pub.test/r/loop6 "http://rebind-page.test:$S/page-rebind"; do
	got="$got$u $(snap "$u" .sealed_reason)|"
done
is "$got" "http://pub.test/r/priv network_zone|http://pub.test/r/loop6 network_zone|http://rebind-page.test:$S/page-rebind network_zone|" \
	"so are those redirected to the private address and to [::1], and the one whose name rebinds to loopback"
is "$(snap "http://127.0.0.1:$S/direct-literal" .sealed_reason) $(snap "http://loop.test:$S/direct-name" .sealed_reason)" \
	"network_zone network_zone" "control: outlinks into loopback, by literal and by name, are not queued to run"
jq -r 'select((.notes // "") | test("loopback")) | .notes' "$T/results" >"$T/notes"
ok "a result's notes name a refused URL and its zone, loopback" test -s "$T/notes"
if [ ! -s "$T/notes" ]; then
	diag "the results' notes, each once (the first 5):"
	jq -r '.notes // empty' "$T/results" | grep . | sort -u | head -n 5 | cut -c1-200 | sed 's/^/#   /' >&2
fi
no_sanitizer_report() { ! grep -q "AddressSanitizer\|runtime error:" "$T/tick.err"; }
ok "abx-tick's stderr has no sanitizer report" no_sanitizer_report
done_testing
