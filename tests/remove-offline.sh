#!/bin/sh
# remove-offline.sh — abx-ctl remove takes a snapshot out of its crawl's
# offline copies (offline.h): before, the crawl's other copies link its
# copy ("../ID/offline.html"); after its removal, files kept or deleted,
# they link the live URL instead, and the removed snapshot's own copy is
# not rewritten.  A depth-1 crawl of the test site, whose pages link
# each other.
. "$(dirname "$0")/lib/tap.sh"
. "$(dirname "$0")/lib/httpd.sh"
httpd_start || exit 1
D=$T/data
C=$(abx-add -d "$D" --depth 1 --plugins wget,parse_html_urls "$BASE/site/" | jq -r .id)
abx-tick -d "$D" >/dev/null 2>&1
snap() { abx-ls -d "$D" -k snapshot --jsonl | jq -r --arg u "$BASE$1" 'select(.url == $u) | .id'; }
S0=$(snap /site/)
S2=$(snap /site/page2.html)
S3=$(snap /site/page3.html)
ok "the crawl is sealed with the seed, page2 and page3" test -n "$S0" -a -n "$S2" -a -n "$S3"
O=$D/crawls/$C/$S0/offline.html
ok "the seed has an offline copy" test -s "$O"
ok "which links page2's copy" grep -q "\.\./$S2/offline\.html" "$O"
ok "and page3's" grep -q "\.\./$S3/offline\.html" "$O"
cp "$D/crawls/$C/$S2/offline.html" "$T/s2.before"

expect_exit 0 "abx-ctl remove page2 (files kept)" abx-ctl -d "$D" remove "$S2"
is "$(grep -c "\.\./$S2/offline\.html" "$O")" 0 "the seed's copy no longer links page2's copy"
ok "but the live page2" grep -qi "href=.$BASE/site/page2.html" "$O"
ok "and still page3's copy" grep -q "\.\./$S3/offline\.html" "$O"
ok "page2's own copy was not rewritten" cmp -s "$T/s2.before" "$D/crawls/$C/$S2/offline.html"

expect_exit 0 "abx-ctl remove --delete page3" abx-ctl -d "$D" remove --delete "$S3"
is "$(grep -c "\.\./$S3/offline\.html" "$O")" 0 "the seed's copy no longer links page3's deleted copy"
ok "but the live page3" grep -qi "href=.$BASE/site/page3.html" "$O"
is "$(grep -rl "\.\./\($S2\|$S3\)/offline\.html" "$D/crawls/$C" --include=offline.html | grep -cv "/$S2/")" 0 \
	"no copy of the crawl links a removed one (but page2's own, kept as it was)"
done_testing
