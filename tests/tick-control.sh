#!/bin/sh
# abx-ctl pause, resume and cancel in the middle of a crawl that abx-tick
# is running: a pause stops new snapshots within a second and the tick ends
# with the crawl paused; resume and a tick finish it; a cancel interrupts the
# running hooks at once and seals the crawl and its snapshots.
. "$(dirname "$0")/lib/tap.sh"
. "$(dirname "$0")/lib/httpd.sh"
. "$(dirname "$0")/lib/tick-lib.sh"
httpd_start || exit 1
D=$T/data
slow_plugin slow
echo 1.5 >"$T/slow.s"
C=$(abx-add -d "$D" --depth 1 --plugins wget,slow,parse_html_urls \
	--config CRAWL_MAX_CONCURRENT_SNAPSHOTS=1 "$BASE/site/" | jq -r .id)

# --- pause
abx-tick -d "$D" 2>"$T/tick.err" &
tick=$!
two_started() { [ "$(starts slow)" -ge 2 ]; }
ok "the crawl runs its second snapshot" wait_for 30 two_started
t0=$(date +%s.%N)
expect_exit 0 "abx-ctl pause CRAWL" abx-ctl -d "$D" pause "$C"
n0=$(starts slow)
wait_exit "$tick" 15
rc=$?
is "$rc" 0 "the tick ends after the running snapshot (exit 0: it did work)"
is "$(cat "$T/tick.err")" "" "quietly"
is "$(awk -v t="$t0" '$1 == "start" && $5 > t + 1.0' "$T/slow.log")" "" "no snapshot started later than 1 s after the pause"
ok "at most one started within that second ($n0 before, $(starts slow) after)" test "$(starts slow)" -le $((n0 + 1))
is "$(abx-ls -d "$D" "$C" | jq -r .status)" paused "the crawl is paused"
is "$(abx-ls -d "$D" -k snapshot --jsonl | jq -r 'select(.status != "sealed") | .status' | sort -u)" paused \
	"its unfinished snapshots are paused"
is "$(abx-ls -d "$D" -k snapshot -s paused --jsonl | jq -r .retry_at | sort -u)" "9999-12-31T23:59:59.999999Z" \
	"with the paused marker"
ok "none holds a lease" sh -c "abx-ls -d '$D' -k snapshot --jsonl | jq -e 'select(.lease != null)' >/dev/null; [ \$? -ne 0 ]"
npaused=$(nsnap "$D" paused)
ok "some work is left ($npaused paused snapshots)" test "$npaused" -ge 1
s0=$(date +%s)
expect_exit 1 "a tick finds nothing due while paused" abx-tick -d "$D"
ok "and returns at once" test $(( $(date +%s) - s0 )) -le 3
nstart=$(starts slow)

# --- resume
expect_exit 0 "abx-ctl resume CRAWL" abx-ctl -d "$D" resume "$C"
is "$(abx-ls -d "$D" "$C" | jq -r .status)" queued "the crawl is queued"
expect_exit 0 "a tick finishes it" abx-tick -d "$D"
is "$(abx-ls -d "$D" "$C" | jq -r .status)" sealed "the crawl is sealed"
reachable "$BASE/site/" 1 >"$T/want"
is "$(snapshots "$D" sealed)" "$(cat "$T/want")" "every page within one link is sealed"
is "$(nsnap "$D")" "$(wc -l <"$T/want" | tr -d ' ')" "and nothing else"
ok "the paused snapshots ran after the resume" test "$(starts slow)" -ge $((nstart + npaused))
ok "each snapshot's index.jsonl has one result per hook" all_results_once "$D"

# --- cancel: hooks that would sleep 30 s are interrupted
D2=$T/data2
slow_plugin long
echo 30 >"$T/long.s"
C2=$(abx-add -d "$D2" --depth 1 --plugins long --config CRAWL_MAX_CONCURRENT_SNAPSHOTS=2 \
	"$BASE/site/page1.html" "$BASE/site/page2.html" "$BASE/site/page3.html" | jq -r .id)
s0=$(date +%s)
abx-tick -d "$D2" 2>"$T/tick.err" &
tick=$!
two_long() { [ "$(starts long)" -ge 2 ]; }
ok "two snapshots are running their 30 s hook" wait_for 30 two_long
pids=$(hook_pids long)
ok "their hook processes are alive" alive "$pids"
expect_exit 0 "abx-ctl cancel CRAWL" abx-ctl -d "$D2" cancel "$C2"
gone() { ! alive "$pids"; }
ok "the running hooks are gone within 3 s" wait_for 3 gone
wait_exit "$tick" 10
rc=$?
is "$rc" 0 "the tick ends (exit 0)"
ok "long before the hooks' 30 s ($(( $(date +%s) - s0 )) s)" test $(( $(date +%s) - s0 )) -lt 20
is "$(grep -c '^end' "$T/long.log")" 0 "no hook ran to completion"
is "$(starts long)" 2 "and no other snapshot started"
is "$(abx-ls -d "$D2" "$C2" | jq -r '.status + " " + (.retry_at | tostring)')" "sealed null" "the crawl is sealed"
is "$(abx-ls -d "$D2" -k snapshot --jsonl | jq -r '.status + " " + (.retry_at | tostring)' | sort -u)" "sealed null" \
	"and all its snapshots"
ok "none holds a lease" sh -c "abx-ls -d '$D2' -k snapshot --jsonl | jq -e 'select(.lease != null)' >/dev/null; [ \$? -ne 0 ]"
is "$(nsnap "$D2")" 3 "no outlink of a cancelled crawl was queued"
indexed() {
	awk '$1 == "start" { print $2 }' "$T/long.log" | while read -r _s; do
		[ -s "$(snapdir "$D2" "$_s")/index.jsonl" ] || echo "$_s"
	done | grep -q . && return 1
	return 0
}
ok "the cancelled snapshots that ran have their index files" indexed
expect_exit 1 "nothing is due afterwards" abx-tick -d "$D2"
done_testing
