#!/bin/sh
# The crawl limits: depth, CRAWL_MAX_URLS, CRAWL_MAX_SIZE and CRAWL_TIMEOUT.
. "$(dirname "$0")/lib/tap.sh"
. "$(dirname "$0")/lib/httpd.sh"
. "$(dirname "$0")/lib/tick-lib.sh"
httpd_start --log "$T/requests.log" || exit 1
P=wget,parse_html_urls

# crawl_urls DIR CRAWL: "DEPTH URL" of the crawl's snapshots
crawl_urls() {
	abx-ls -d "$1" -k snapshot --jsonl | jq -r --arg c "$2" 'select(.crawl_id == $c) | "\(.depth) \(.url)"' |
		LC_ALL=C sort
}

# --- depth
D=$T/depth
for depth in 0 1; do
	C=$(abx-add -d "$D" --again --depth $depth --plugins $P "$BASE/site/" | jq -r .id)
	expect_exit 0 "a depth-$depth crawl" abx-tick -d "$D"
	reachable "$BASE/site/" $depth >"$T/want"
	is "$(crawl_urls "$D" "$C")" "$(cat "$T/want")" "depth $depth archives the $(wc -l <"$T/want" | tr -d ' ') pages within $depth links"
	is "$(abx-ls -d "$D" "$C" | jq -r .status)" sealed "and is sealed"
done
is "$(abx-ls -d "$D" -k snapshot --jsonl | jq -r .status | sort -u)" sealed "every snapshot is sealed"

# --- CRAWL_MAX_URLS: exactly N snapshots, where more are reachable
D=$T/urls
C=$(abx-add -d "$D" --depth 2 --plugins $P --config CRAWL_MAX_URLS=5 "$BASE/site/" | jq -r .id)
expect_exit 0 "a depth-2 crawl with CRAWL_MAX_URLS=5" abx-tick -d "$D"
is "$(nsnap "$D")" 5 "makes exactly 5 snapshots"
is "$(nsnap "$D" sealed)" 5 "all sealed"
reachable "$BASE/site/" 2 >"$T/want"
is "$(snapshots "$D" | LC_ALL=C comm -23 - "$T/want")" "" "all of them pages within two links"
is "$(snapshots "$D" | awk '{print $1}' | sort | uniq -c | awk '{print $2 ":" $1}' | tr '\n' ' ')" "0:1 1:3 2:1 " \
	"breadth first: the root, its 3 pages and one more"
is "$(abx-ls -d "$D" "$C" | jq -r .status)" sealed "the crawl is sealed"

# --- CRAWL_MAX_SIZE: counted for real; the crawl stops, queued snapshots
# are sealed unrun with a note saying why
D=$T/size
: >"$T/requests.log"
C=$(abx-add -d "$D" --depth 1 --plugins wget --config CRAWL_MAX_SIZE=1kb \
	--config CRAWL_MAX_CONCURRENT_SNAPSHOTS=1 \
	"$BASE/site/page1.html" "$BASE/site/page2.html" "$BASE/site/page3.html" | jq -r .id)
expect_exit 0 "a crawl with CRAWL_MAX_SIZE=1kb" abx-tick -d "$D"
is "$(abx-ls -d "$D" "$C" | jq -r '.status + " " + .limits.stop_reason')" "sealed crawl_max_size" \
	"the crawl is sealed with limits.stop_reason crawl_max_size"
ok "limits.total_size counts the bytes archived ($(abx-ls -d "$D" "$C" | jq -r .limits.total_size))" \
	test "$(abx-ls -d "$D" "$C" | jq -r .limits.total_size)" -ge 1024
is "$(nsnap "$D" sealed)" 3 "all three snapshots are sealed"
ran=$(abx-ls -d "$D" -k snapshot --jsonl | jq -r 'select(.downloaded_at != null) | .url')
is "$ran" "$BASE/site/page1.html" "only the first one ran"
first=$(abx-ls -d "$D" -k snapshot --jsonl | jq -r 'select(.downloaded_at != null) | .id')
ok "its size was over the limit ($(du -sb "$(snapdir "$D" "$first")" | cut -f1) bytes)" \
	test "$(du -sb "$(snapdir "$D" "$first")" | cut -f1)" -ge 1024
is "$(abx-ls -d "$D" -k snapshot --jsonl | jq -r 'select(.downloaded_at == null) | .notes' | sort -u)" \
	"not archived: crawl_max_size reached" "the others are sealed with a note saying why"
ok "they were never fetched" sh -c "! grep -Eq '/site/page[23]' '$T/requests.log'"
is "$(nsnap "$D")" 3 "no outlink was queued after the limit"

# --- CRAWL_TIMEOUT: with a slow hook, the crawl stops when it is reached
D=$T/timeout
slow_plugin slow
echo 1 >"$T/slow.s"
C=$(abx-add -d "$D" --depth 0 --plugins slow --config CRAWL_TIMEOUT=2 --config CRAWL_MAX_CONCURRENT_SNAPSHOTS=1 \
	"$BASE/site/page1.html" "$BASE/site/page2.html" "$BASE/site/page3.html" \
	"$BASE/site/page1-1.html" "$BASE/site/page2-1.html" "$BASE/site/page3-1.html" | jq -r .id)
s0=$(date +%s)
expect_exit 0 "a crawl with CRAWL_TIMEOUT=2 and 6 one-second snapshots" abx-tick -d "$D"
el=$(( $(date +%s) - s0 ))
ok "stops early (${el} s)" test "$el" -le 5
is "$(abx-ls -d "$D" "$C" | jq -r '.status + " " + .limits.stop_reason')" "sealed crawl_timeout" \
	"the crawl is sealed with limits.stop_reason crawl_timeout"
is "$(nsnap "$D" sealed)" 6 "all snapshots are sealed"
nran=$(abx-ls -d "$D" -k snapshot --jsonl | jq -r 'select(.downloaded_at != null) | .id' | wc -l | tr -d ' ')
ok "2 or 3 of them ran ($nran)" test "$nran" -ge 2 -a "$nran" -le 3
is "$(starts slow)" "$nran" "the hook ran for those only"
is "$(abx-ls -d "$D" -k snapshot --jsonl | jq -r 'select(.downloaded_at == null) | .notes' | sort -u)" \
	"not archived: crawl_timeout reached" "the rest are sealed with a note saying why"
expect_exit 1 "nothing is due afterwards" abx-tick -d "$D"
done_testing
