#!/bin/sh
# No dead lease on a record, and "sealed" says why: a crawl cancelled while
# abx-tick runs it keeps no lease, and its snapshots say "cancelled" (a
# never-run one has no downloaded_at); a crawl paused while it runs keeps no
# lease once the tick leaves it, nor through resume, and the log says it
# stays paused (once), never "requeued"; a lease whose holder died is
# cleared by the next abx-ctl.
. "$(dirname "$0")/lib/tap.sh"
. "$(dirname "$0")/lib/httpd.sh"
. "$(dirname "$0")/lib/tick-lib.sh"
httpd_start || exit 1

# --- cancel while the tick runs the crawl
D=$T/data
slow_plugin long
echo 30 >"$T/long.s"
C=$(abx-add -d "$D" --plugins long --config CRAWL_MAX_CONCURRENT_SNAPSHOTS=2 \
	"$BASE/site/page1.html" "$BASE/site/page2.html" "$BASE/site/page3.html" | jq -r .id)
abx-tick -d "$D" 2>"$T/tick1.err" &
tick=$!
two_long() { [ "$(starts long)" -ge 2 ]; }
ok "two snapshots are running" wait_for 30 two_long
expect_exit 0 "abx-ctl cancel CRAWL" abx-ctl -d "$D" cancel "$C"
wait_exit "$tick" 20
is "$(abx-ls -d "$D" "$C" | jq -c '[.status, .lease, .sealed_reason]')" '["sealed",null,"cancelled"]' \
	"the cancelled crawl is sealed, holds no lease, and says why"
is "$(abx-ls -d "$D" -k snapshot --jsonl | jq -c 'select(.lease != null) | .id')" "" "no snapshot holds a lease"
is "$(abx-ls -d "$D" -k snapshot --jsonl | jq -r .sealed_reason | sort -u)" cancelled \
	"every snapshot says it was cancelled"
is "$(abx-ls -d "$D" -k snapshot --jsonl | jq -r 'select(.url | endswith("page3.html")) | .downloaded_at')" null \
	"the one that never ran has no downloaded_at"
is "$(abx-ls -d "$D" -k snapshot -s sealed --jsonl | jq -r 'select(.sealed_reason == "archived") | .url')" "" \
	"the 'what is archived' recipe lists none of them"
reap_hooks long

# --- pause while the tick runs the crawl, then resume
D2=$T/data2
slow_plugin slow
echo 1.5 >"$T/slow.s"
C2=$(abx-add -d "$D2" --depth 1 --plugins wget,slow,parse_html_urls \
	--config CRAWL_MAX_CONCURRENT_SNAPSHOTS=1 "$BASE/site/" | jq -r .id)
abx-tick -v -d "$D2" 2>"$T/tick2.err" &
tick=$!
two_started() { [ "$(starts slow)" -ge 2 ]; }
ok "the crawl runs its second snapshot" wait_for 30 two_started
expect_exit 0 "abx-ctl pause CRAWL" abx-ctl -d "$D2" pause "$C2"
wait_exit "$tick" 20
is "$(abx-ls -d "$D2" "$C2" | jq -c '[.status, .lease]')" '["paused",null]' \
	"the paused crawl holds no lease once the tick has left it"
is "$(grep -c "crawl $C2 paused: .* finish" "$T/tick2.err")" 1 "the log says once that running snapshots finish"
is "$(grep "crawl $C2" "$T/tick2.err" | grep -c requeued)" 0 "and never that the paused crawl was requeued"
like "$(cat "$T/tick2.err")" "crawl $C2 stays paused" "it says that it stays paused"
expect_exit 0 "abx-ctl resume CRAWL" abx-ctl -d "$D2" resume "$C2"
is "$(abx-ls -d "$D2" "$C2" | jq -c '[.status, .lease]')" '["queued",null]' "resumed, it holds no lease"
expect_exit 0 "a tick finishes it" abx-tick -d "$D2"
is "$(abx-ls -d "$D2" "$C2" | jq -c '[.status, .lease, .sealed_reason]')" '["sealed",null,"finished"]' \
	"the crawl is sealed, finished"
is "$(abx-ls -d "$D2" -k snapshot --jsonl | jq -r .sealed_reason | sort -u)" archived "its snapshots were archived"

# --- a holder that died: the next abx-ctl clears its lease
D3=$T/data3
C3=$(abx-add -d "$D3" --plugins slow "$BASE/site/page1.html" | jq -r .id)
abx-claim -d "$D3" -i "$C3" sleep 60 &
claim=$!
# held, and said so in the record: the flock is taken before the commit
# that names it, and a kill in between would leave nothing to clear
leased() {
	abx-claim -d "$D3" --test "$C3" &&
		[ "$(abx-ls -d "$D3" "$C3" | jq -r '.lease.flock')" = true ]
}
ok "abx-claim holds the crawl" wait_for 10 leased
for p in $(pgrep -P "$claim"); do kill -9 "$p"; done
kill -9 "$claim" 2>/dev/null
wait "$claim" 2>/dev/null
ok "its holder is gone" wait_for 10 sh -c "! abx-claim -d '$D3' --test '$C3'"
is "$(abx-ls -d "$D3" "$C3" | jq -r '.lease.flock')" true "the record still names the dead holder's lease"
expect_exit 0 "abx-ctl pause CRAWL" abx-ctl -d "$D3" pause "$C3"
is "$(abx-ls -d "$D3" "$C3" | jq -c '[.status, .lease]')" '["paused",null]' "the pause cleared the dead lease"
done_testing
