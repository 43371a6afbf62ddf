#!/bin/sh
# Two abx-tick processes started together on one data directory: one does
# the work, the other exits 75 quietly; no snapshot is run twice.
. "$(dirname "$0")/lib/tap.sh"
. "$(dirname "$0")/lib/httpd.sh"
. "$(dirname "$0")/lib/tick-lib.sh"
httpd_start || exit 1
D=$T/data
slow_plugin slow
echo 0.3 >"$T/slow.s"
P=wget,slow,parse_html_urls
abx-add -d "$D" --depth 1 --plugins $P "$BASE/site/" >/dev/null
abx-add -d "$D" --depth 0 --plugins $P "$BASE/site/page1-1.html" "$BASE/site/page2-1.html" >/dev/null

for round in 1 2 3; do
	[ "$round" = 1 ] || abx-add -d "$D" --again --depth 1 --plugins $P "$BASE/site/page$round.html" >/dev/null
	abx-tick -d "$D" >"$T/a.out" 2>"$T/a.err" &
	a=$!
	abx-tick -d "$D" >"$T/b.out" 2>"$T/b.err" &
	b=$!
	wait_exit "$a" 60; ra=$?
	wait_exit "$b" 60; rb=$?
	is "$(printf '%s\n' "$ra" "$rb" | sort -n | tr '\n' ' ')" "0 75 " "round $round: one tick works (0), the other exits 75"
	is "$(cat "$T/a.err" "$T/b.err" "$T/a.out" "$T/b.out")" "" "round $round: both are quiet"
done

is "$(nsnap "$D" sealed)" "$(nsnap "$D")" "every snapshot is sealed"
want=$(( $(reachable "$BASE/site/" 1 | wc -l) + 2 + $(reachable "$BASE/site/page2.html" 1 | wc -l) +
	$(reachable "$BASE/site/page3.html" 1 | wc -l) ))
is "$(nsnap "$D")" "$want" "all the crawls' pages have a snapshot"
is "$(starts slow)" "$want" "the hook ran $want times"
is "$(awk '$1 == "start" { print $2 }' "$T/slow.log" | sort | uniq -d)" "" "no snapshot was run twice"
is "$(awk '$1 == "start" { print $2 }' "$T/slow.log" | sort)" \
	"$(abx-ls -d "$D" -k snapshot --jsonl | jq -r .id | sort)" "each snapshot ran once"
ok "each snapshot's index.jsonl has one result per hook" all_results_once "$D"

# a tick started while another runs: 75, quiet; with -v it says why
echo 1 >"$T/slow.s"
abx-add -d "$D" --again --depth 0 --plugins $P "$BASE/site/page3-1.html" >/dev/null
abx-tick -d "$D" 2>"$T/a.err" &
a=$!
started_more() { [ "$(starts slow)" -gt "$want" ]; }
ok "the first tick is running a hook" wait_for 20 started_more
expect_exit 75 "a second tick exits 75" abx-tick -d "$D"
is "$(cat "$T/stdout" "$T/stderr")" "" "quietly"
expect_exit 75 "with -v too" abx-tick -d "$D" -v
like "$(cat "$T/stderr")" "another abx-tick is running" "-v says why"
expect_exit 1 "-n does not wait for the running tick, and leased work is not due" abx-tick -d "$D" -n
wait_exit "$a" 30
rc=$?
is "$rc" 0 "the first tick finished"
is "$(starts slow)" $((want + 1)) "and ran the new snapshot once"
done_testing
