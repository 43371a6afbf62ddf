#!/bin/sh
# Serving workers (abx-hook --serve) and kill -9: a worker killed in the
# middle of a snapshot wedges nothing and loses nothing (its snapshot is
# run again, the crawl ends with every page sealed once, no lease left
# held); abx-tick killed alone, its workers exit (their stdin's end of
# file, $ABX_PARENT_PID) and no lock is held after them.
. "$(dirname "$0")/lib/tap.sh"
. "$(dirname "$0")/lib/httpd.sh"
. "$(dirname "$0")/lib/procs.sh"
. "$(dirname "$0")/lib/tick-lib.sh"
httpd_start || exit 1
slow_plugin slow
echo 1 >"$T/slow.s"

# no_lock_held DIR: every lock file of DIR can be taken now (flock -n)
no_lock_held() {
	for _l in "$1"/locks/*; do
		[ -f "$_l" ] || continue
		flock -n "$_l" true || { echo "held: $_l"; return 1; }
	done
}
# in_flight: a slow hook is running and more than one snapshot was sealed
in_flight() {
	[ "$(nsnap "$D" sealed)" -ge 2 ] &&
		[ -n "$(awk '$1 == "start" { s[$4] = 1 } $1 == "end" { delete s[$4] } END { for (p in s) print p }' "$T/slow.log")" ]
}

# 1. kill -9 of one serving worker mid-snapshot: its snapshot is put back
# as a one-shot worker's is (failure 1 of 3, due in a minute)
D=$T/a
abx-add -d "$D" --depth 2 --plugins wget,slow,parse_html_urls \
	--config CRAWL_MAX_CONCURRENT_SNAPSHOTS=2 "$BASE/site/" >/dev/null
setsid abx-tick -d "$D" >/dev/null 2>"$T/a.err" &
tick=$!
track_group "$tick"
ok "the crawl is under way, a snapshot in flight" wait_for 60 in_flight
w=$(procs_in "$D" abx-hook | head -1)
ok "a serving worker runs ($w)" test -n "$w"
grep -q -- --serve "/proc/$w/cmdline" 2>/dev/null
is "$?" 0 "it is abx-hook --serve"
kill -9 "$w"
wait_exit "$tick" 180
is "$?" 0 "abx-tick finishes its pass and exits 0"
like "$(cat "$T/a.err")" "abx-hook exited 137 \\(failure 1 of 3\\)" "the killed worker's snapshot is counted failed once"
is "$(abx-ls -d "$D" -k snapshot -s queued --jsonl | jq -r .num_uses_failed)" 1 \
	"and queued again, due in a minute (as a one-shot worker's)"
ok "no lease is left held by the pass" no_lock_held "$D"
ABX_NOW=@$(($(date +%s) + 600)) abx-tick -d "$D" 2>>"$T/a.err"
is "$?" 0 "a pass ten minutes later finishes the crawl"
reachable "$BASE/site/" 2 >"$T/want"
is "$(snapshots "$D" sealed)" "$(cat "$T/want")" "every page within two links is sealed"
is "$(nsnap "$D")" 10 "and no other snapshot exists"
is "$(jq -r 'select(.type == "Snapshot" and .status == "sealed" and .downloaded_at != null) | .id' \
	"$D"/crawls/*/snapshots.jsonl | sort | uniq -d)" "" "each snapshot was sealed once"
bad=""
for s in $(abx-ls -d "$D" -k snapshot --jsonl | jq -r .id); do
	r=$(jq -r 'select(.type == "ArchiveResult" and .plugin == "slow") | .status' "$(snapdir "$D" "$s")/index.jsonl")
	[ "$r" = succeeded ] || bad="$bad $s:$r"
done
is "$bad" "" "the slow hook succeeded on every page, the killed worker's too"
ok "no lease is left held" no_lock_held "$D"
ok "no worker is left" none_in "$D" abx-hook
reap_hooks slow

# 2. kill -9 of abx-tick alone: its workers exit, no lock is held
D=$T/b
: >"$T/slow.log"
abx-add -d "$D" --depth 2 --plugins wget,slow,parse_html_urls \
	--config CRAWL_MAX_CONCURRENT_SNAPSHOTS=2 "$BASE/site/" >/dev/null
setsid abx-tick -d "$D" >/dev/null 2>"$T/b.err" &
tick=$!
track_group "$tick"
ok "the second crawl is under way" wait_for 60 in_flight
ok "its workers run" test -n "$(procs_in "$D" abx-hook)"
kill -9 "$tick"
wait "$tick" 2>/dev/null
is "$?" 137 "abx-tick died of SIGKILL"
ok "its workers exit" wait_for 60 none_in "$D" abx-hook
reap_hooks slow
ok "no lock is held after them" wait_for 20 no_lock_held "$D"
expect_exit 0 "the next abx-tick finishes the crawl" abx-tick -d "$D"
is "$(snapshots "$D" sealed)" "$(cat "$T/want")" "every page within two links is sealed"
ok "each snapshot's index.jsonl has one result per hook" all_results_once "$D"
ok "no worker is left" none_in "$D" abx-hook

done_testing
