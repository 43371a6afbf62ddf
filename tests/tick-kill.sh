#!/bin/sh
# kill -9 of abx-tick (its whole process group) in the middle of a crawl:
# the next abx-tick finishes the crawl, every page sealed exactly once, no
# duplicate snapshot, each hook's result recorded once.
. "$(dirname "$0")/lib/tap.sh"
. "$(dirname "$0")/lib/httpd.sh"
. "$(dirname "$0")/lib/tick-lib.sh"
httpd_start || exit 1
D=$T/data
slow_plugin slow
echo 2 >"$T/slow.s"
C=$(abx-add -d "$D" --depth 2 --plugins wget,slow,parse_html_urls \
	--config CRAWL_MAX_CONCURRENT_SNAPSHOTS=2 "$BASE/site/" | jq -r .id)

setsid abx-tick -d "$D" 2>"$T/tick1.err" &
tick=$!
track_group "$tick"
is "$(ps -o pgid= -p "$tick" | tr -d ' ')" "$tick" "abx-tick leads its own process group"

# kill it once the depth-1 pages run and a slow hook is in the middle of
# its 2 s
in_flight() {
	[ "$(nsnap "$D" sealed)" -ge 2 ] &&
		[ -n "$(awk '$1 == "start" { s[$4] = 1 } $1 == "end" { delete s[$4] } END { for (p in s) print p }' "$T/slow.log")" ]
}
ok "the crawl is under way, snapshots in flight" wait_for 40 in_flight
kill -9 "-$tick"
wait "$tick" 2>/dev/null
is "$?" 137 "abx-tick died of SIGKILL"
sealed1=$(nsnap "$D" sealed)
done1=$(abx-ls -d "$D" -k snapshot -s sealed --jsonl | jq -r .id)
total1=$(nsnap "$D")
ok "it was killed mid-crawl ($sealed1 of $total1 known snapshots sealed)" test "$sealed1" -lt 10
flight=$(abx-ls -d "$D" -k snapshot -s started --jsonl | jq -r .id | sort)
ok "with snapshots left started" test -n "$flight"

expect_exit 0 "the next tick finishes the crawl" abx-tick -d "$D"
reachable "$BASE/site/" 2 >"$T/want"
is "$(snapshots "$D" sealed)" "$(cat "$T/want")" "every page within two links is sealed"
is "$(nsnap "$D")" 10 "and no other snapshot exists"
is "$(abx-ls -d "$D" "$C" | jq -r .status)" sealed "the crawl is sealed"
is "$(jq -r 'select(.type == "Snapshot") | .id' "$D/crawls/$C/snapshots.jsonl" | sort -u | wc -l | tr -d ' ')" 10 \
	"the journal never held more than ten snapshot ids"
is "$(jq -r 'select(.type == "Snapshot") | "\(.url) \(.id)"' "$D/crawls/$C/snapshots.jsonl" | sort -u |
	awk '{print $1}' | uniq -d)" "" "no URL ever had two snapshot ids"
is "$(jq -r 'select(.type == "Snapshot" and .status == "sealed" and .downloaded_at != null) | .id' \
	"$D/crawls/$C/snapshots.jsonl" | sort | uniq -d)" "" "each snapshot was sealed once"
is "$(jq -r .url "$D/index.jsonl" | sort | uniq -d)" "" "the site index lists each page once"
is "$(wc -l <"$D/index.jsonl" | tr -d ' ')" 10 "and all ten"
ok "each snapshot's index.jsonl has one result per hook" all_results_once "$D"
bad=""
for s in $flight; do
	r=$(jq -r 'select(.type == "ArchiveResult" and .plugin == "slow") | .status' "$(snapdir "$D" "$s")/index.jsonl")
	[ "$r" = succeeded ] || bad="$bad $s:$r"
done
is "$bad" "" "the snapshots in flight at the kill were run again to success"
# The hooks lead their own sessions, so a kill -9 of the tick's process
# group leaves them running.  The next run of their snapshot must not run
# beside them: two runs of one hook at once write into the same directory
# (wget's rerun is then "skipped: another hook is writing", and the
# orphan's files are never recorded).
is "$(awk '$1 == "overlap" { print $2 }' "$T/slow.log")" "" \
	"no hook of the killed tick was still running when its snapshot ran again"
again=""
for s in $done1; do
	[ "$(grep -c "^start $s " "$T/slow.log")" = 1 ] || again="$again $s"
done
is "$again" "" "the snapshots sealed before the kill were not run again"
echo "$flight" >"$T/flight"
is "$(awk '$1 == "start" { print $2 }' "$T/slow.log" | sort | uniq -d | comm -23 - "$T/flight")" "" \
	"only snapshots in flight at the kill were run twice"
expect_exit 1 "then nothing is due" abx-tick -d "$D"
is "$(cat "$T/tick1.err")" "" "the killed tick had printed nothing"
done_testing
