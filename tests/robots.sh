#!/bin/sh
# ROBOTS_TXT=obey (robots.h): the host's robots.txt is fetched once, the
# group for abx is used rather than "*", a disallowed page is sealed
# unrun with the reason, and its Crawl-delay spaces the host's pages;
# with the default (ignore) robots.txt is never asked for.
. "$(dirname "$0")/lib/tap.sh"
. "$(dirname "$0")/lib/httpd.sh"
. "$(dirname "$0")/lib/tick-lib.sh"
cat >"$T/robots.txt" <<'EOR'
# the generic group: not ours
User-agent: *
Disallow: /site/page2
Crawl-delay: 3

User-agent: abx
User-agent: other
Disallow: /site/page3.html
Allow: /site/page3.html$x
Crawl-delay: 0.5
EOR
httpd_start --timing "$T/timing" --robots "$T/robots.txt" || exit 1
D=$T/data
printf 'HOST_MAX_CONCURRENT=1\n' >"$T/conf"

urls() { for p in page1 page2 page3; do echo "$BASE/site/$p.html"; done; }
mkdir -p "$D"
cp "$T/conf" "$D/abx.conf"
urls | abx-add -d "$D" --plugins headers --config ROBOTS_TXT=obey >/dev/null
expect_exit 0 "abx-tick runs a crawl with ROBOTS_TXT=obey" abx-tick -d "$D"
is "$(grep -c ' /robots.txt$' "$T/timing")" 1 "robots.txt was fetched once"
is "$(awk '$4 ~ /page/ { print $4 }' "$T/timing" | sort | tr '\n' ' ')" "/site/page1.html /site/page2.html " \
	"the pages abx's group allows were fetched, and only those"
S=$(abx-ls -d "$D" -k snapshot --jsonl | jq -r 'select(.url | test("page3")) | .id')
is "$(abx-ls -d "$D" "$S" | jq -r '"\(.status) \(.sealed_reason): \(.notes)"')" \
	"sealed robots_txt: not archived: ROBOTS_TXT=obey and the host's robots.txt disallows it" "the disallowed page is sealed unrun, and says why"
gap=$(awk '$4 ~ /page[12]/ { print $2, $3 }' "$T/timing" | sort -n | awk 'NR == 1 { e = $2 } NR == 2 { printf "%d", ($1 - e >= 0.5) }')
is "$gap" 1 "Crawl-delay: 0.5 spaced the host's pages"
key=$(printf '127.0.0.1%%3A%s' "$HTTPD_PORT")
is "$(jq -r .status "$D/hosts/$key/robots.json")" 200 "hosts/HOST/robots.json records the fetch"

# the default: ignore
: >"$T/timing"
D2=$T/data2
urls | abx-add -d "$D2" --plugins headers >/dev/null
expect_exit 0 "abx-tick runs the same crawl with the default ROBOTS_TXT" abx-tick -d "$D2"
is "$(grep -c 'robots.txt' "$T/timing")" 0 "robots.txt is not asked for"
is "$(grep -c '/site/page' "$T/timing")" 3 "every page is fetched"
expect_exit 65 "a bad ROBOTS_TXT is refused" abx-add -d "$D2" --config ROBOTS_TXT=maybe "$BASE/"
like "$(cat "$T/stderr")" "ROBOTS_TXT=maybe.*obey or ignore" "naming the value and the valid ones"
done_testing
