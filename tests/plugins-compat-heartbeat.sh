#!/bin/sh
# ArchiveBox's plugins under abx (issue 9, points 1 and 8): the crawl
# heartbeat, and a CrawlSetup daemon's pid file.
# Two crawls run at once by two ticks (abx-tick --crawl) with a stand-in of
# abx-plugins' chrome plugin (tests/data/plugins-compat/chrome: a browser
# per crawl launched by a CrawlSetup daemon, and the real kill-zombies rule
# that reads <crawl dir>/.heartbeat.json): setting up the second crawl
# leaves the first crawl's browser alone; the heartbeat is abx-dl's format,
# kept fresh, and removed at the crawl's end; a tick killed with SIGKILL
# leaves it stale, and the next crawl's setup reclaims the dead crawl's
# browser.
. "$(dirname "$0")/lib/tap.sh"
export ABX_PLUGINS_DIR="$T/plugins" ABX_SHARE_DIR="$T/noshare" ABX_SYNC=0
if ! unshare -u true 2>/dev/null; then
	echo "1..0 # SKIP unshare -u (a second host name for a second tick) is not permitted here"
	exit 0
fi
mkdir -p "$T/plugins"
cp -R "$TOP/tests/data/plugins-compat/chrome" "$T/plugins/"
D=$T/data
A=$(abx-add -d "$D" --plugins chrome --config CHROME_HOLD=14 http://127.0.0.1:9/a | jq -r .id)
B=$(abx-add -d "$D" --plugins chrome http://127.0.0.1:9/b | jq -r .id)
HB=$D/crawls/$A/.heartbeat.json

abx-tick -d "$D" --crawl "$A" >"$T/a.out" 2>"$T/a.err" &
TA=$!
ok "crawl A's browser is up" wait_for 20 test -s "$D/crawls/$A/chrome/chrome.pid"
BA=$(cat "$D/crawls/$A/chrome/chrome.pid")
ok "crawl A has a heartbeat while it runs" test -f "$HB"
PF=$D/crawls/$A/chrome/on_CrawlSetup__90_chrome_launch.daemon.bg.pid
ok "its CrawlSetup daemon keeps its pid file while the crawl runs (point 8)" test -s "$PF"
DP=$(cut -d' ' -f1 "$PF" 2>/dev/null)
ok "naming the running daemon" grep -q chrome_launch "/proc/${DP:-0}/cmdline"
is "$(jq -c 'keys' "$HB")" '["crawl_id","kill_after_seconds","last_alive_at","owner_pid","runtime"]' \
	"the heartbeat has abx-dl's keys"
like "$(cat "$HB")" '^\{"crawl_id":"[^"]+","kill_after_seconds":180,"last_alive_at":[0-9]+\.[0-9]+,"owner_pid":[0-9]+,"runtime":"abx"\}$' \
	"in abx-dl's form: compact, keys sorted, one line"
is "$(jq -r '"\(.crawl_id) \(.owner_pid) \(.runtime)"' "$HB")" "$A $TA abx" \
	"it names the crawl, its owner (the tick running the crawl) and ABX_RUNTIME"
L1=$(jq -r .last_alive_at "$HB")
now=$(date +%s.%N)
# (written every 5 s: read up to 5 s later, and more at a high load)
ok "last_alive_at is the time it was written" test "$(echo "$now - $L1 < 10 && $L1 - $now < 1" | bc)" = 1

fresher() { [ "$(echo "$(jq -r .last_alive_at "$HB" 2>/dev/null || echo 0) > $L1" | bc)" = 1 ]; }
ok "the heartbeat is kept fresh while the crawl runs (every 5 s)" wait_for 7 fresher

# crawl B is set up while A runs: its kill-zombies must spare A's browser.
# A second tick of the data directory runs only on another host (the tick
# lock is per host): a UTS namespace with another host name stands in.
# shellcheck disable=SC2016  # $1 $2: the inner shell's
expect_exit 0 "crawl B runs to its end meanwhile, by a tick of another host" \
	unshare -u sh -c 'hostname abx-test-other && exec abx-tick -d "$1" --crawl "$2"' sh "$D" "$B"
ok "crawl B's setup left crawl A's browser alive" test -d "/proc/$BA"
ok "crawl B's heartbeat is removed at its end" test ! -e "$D/crawls/$B/.heartbeat.json"
# (crawl A's chrome result may be in by now too, at a high load)
SB=$(abx-ls -d "$D" -k snapshot --jsonl | jq -r "select(.crawl_id == \"$B\") | .id")
is "$(abx-ls -d "$D" -k archiveresult --jsonl |
	jq -r "select(.plugin == \"chrome\" and .snapshot_id == \"$SB\") | .status" | sort | uniq -c | tr -s ' ')" \
	" 1 succeeded" "crawl B's page was archived in its own browser"

wait "$TA"
is "$?" 0 "crawl A's tick exits 0"
is "$(abx-ls -d "$D" -k archiveresult --jsonl | jq -r "select(.hook_name == \"on_Snapshot__30_chrome_page\") | .status" | sort | tr '\n' ' ')" \
	"succeeded succeeded " "crawl A's page kept its browser to the end"
ok "crawl A's heartbeat is removed at its end" test ! -e "$HB"
ok "its daemon's pid file is removed after the crawl" test ! -e "$PF"
ok "and its browser stopped with its daemon" wait_for 10 test ! -d "/proc/$BA"

# a tick killed with SIGKILL: the heartbeat stays, stale (its owner is
# dead), and the next crawl's setup kills the dead crawl's browser
C=$(abx-add -d "$D" --plugins chrome --config CHROME_HOLD=60 http://127.0.0.1:9/c | jq -r .id)
E=$(abx-add -d "$D" --plugins chrome http://127.0.0.1:9/e | jq -r .id)
abx-tick -d "$D" --crawl "$C" >/dev/null 2>&1 &
TC=$!
ok "crawl C's browser is up" wait_for 20 test -s "$D/crawls/$C/chrome/chrome.pid"
BC=$(cat "$D/crawls/$C/chrome/chrome.pid")
kill -9 "$TC"
wait "$TC" 2>/dev/null
ok "a killed tick leaves its heartbeat" test -f "$D/crawls/$C/.heartbeat.json"
is "$(jq -r .owner_pid "$D/crawls/$C/.heartbeat.json")" "$TC" "naming the dead tick as its owner"
ok "crawl C's browser outlived its tick" test -d "/proc/$BC"
# shellcheck disable=SC2016  # $1 $2: the inner shell's
expect_exit 0 "crawl E runs" \
	unshare -u sh -c 'hostname abx-test-other && exec abx-tick -d "$1" --crawl "$2"' sh "$D" "$E"
ok "crawl E's setup killed the dead crawl's browser (a stale heartbeat)" wait_for 5 test ! -d "/proc/$BC"
like "$(cat "$D/crawls/$E/chrome/on_CrawlSetup__89_chrome_kill_zombies.stdout.log")" '^[12] chrome zombies' \
	"its kill-zombies hook says so"
done_testing
