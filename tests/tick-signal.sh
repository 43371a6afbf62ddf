#!/bin/sh
# SIGTERM to abx-tick in the middle of a crawl: the running hooks are
# stopped, the snapshots in flight are requeued (not sealed half done), and
# abx-tick exits 143; a later tick completes everything.  A second signal
# kills hooks that ignore SIGTERM at once.
. "$(dirname "$0")/lib/tap.sh"
. "$(dirname "$0")/lib/httpd.sh"
. "$(dirname "$0")/lib/tick-lib.sh"
httpd_start || exit 1
D=$T/data
slow_plugin slow
echo 30 >"$T/slow.s"
C=$(abx-add -d "$D" --depth 0 --plugins wget,slow,title --config CRAWL_MAX_CONCURRENT_SNAPSHOTS=2 \
	"$BASE/site/page1.html" "$BASE/site/page2.html" "$BASE/site/page3.html" | jq -r .id)

abx-tick -d "$D" 2>"$T/tick.err" &
tick=$!
two_started() { [ "$(starts slow)" -ge 2 ]; }
ok "two snapshots are in flight" wait_for 30 two_started
pids=$(hook_pids slow)
flight=$(awk '$1 == "start" { print $2 }' "$T/slow.log" | sort)
kill -TERM "$tick"
wait_exit "$tick" 15
rc=$?
is "$rc" 143 "abx-tick exits 143 on SIGTERM"
is "$(cat "$T/tick.err")" "" "without a word on stderr"
gone() { ! alive "$pids"; }
ok "the hook processes are gone" gone
is "$(grep -c '^end' "$T/slow.log")" 0 "no hook ran to completion"
bad=""
for s in $flight; do
	st=$(abx-ls -d "$D" "$s" | jq -r '[.status, (.retry_at != null), .lease, .downloaded_at] | map(tostring) | join(" ")')
	[ "$st" = "queued true null null" ] || bad="$bad $s:$st"
	[ -e "$(snapdir "$D" "$s")/index.jsonl" ] && bad="$bad $s:has-index"
done
is "$bad" "" "the snapshots in flight are queued again: no lease, not sealed, no index files"
now=$(date -u +%Y-%m-%dT%H:%M:%S.999999Z)
is "$(abx-ls -d "$D" -k snapshot --jsonl | jq -r --arg now "$now" 'select(.retry_at > $now) | .id')" "" \
	"all due now"
is "$(abx-ls -d "$D" -k snapshot --jsonl | jq -r .status | sort | uniq -c | awk '{print $1, $2}')" "3 queued" \
	"the snapshot not yet started is still queued"
is "$(abx-ls -d "$D" "$C" | jq -r --arg now "$now" '[.status != "sealed", .lease == null, .retry_at <= $now] | map(tostring) | join(" ")')" \
	"true true true" "the crawl is not sealed, unleased and due now"

echo 0.2 >"$T/slow.s"
expect_exit 0 "a later tick completes everything" abx-tick -d "$D"
is "$(abx-ls -d "$D" "$C" | jq -r .status)" sealed "the crawl is sealed"
is "$(nsnap "$D" sealed)" 3 "all three snapshots are sealed"
ok "each snapshot's index.jsonl has one result per hook" all_results_once "$D"
bad=""
for s in $(abx-ls -d "$D" -k snapshot --jsonl | jq -r .id); do
	r=$(jq -r 'select(.type == "ArchiveResult") | .plugin + ":" + .status' "$(snapdir "$D" "$s")/index.jsonl" |
		sort | tr '\n' ' ')
	[ "$r" = "slow:succeeded title:succeeded wget:succeeded " ] || bad="$bad $s:$r"
done
is "$bad" "" "every result is the successful rerun, not the interrupted attempt"

# a hook that ignores SIGTERM: the first signal waits for its grace, the
# second kills it at once
mkdir -p "$T/plugins/stubborn"
cat >"$T/plugins/stubborn/on_Snapshot__50_stubborn.sh" <<EOF
#!/bin/sh
trap '' TERM
echo "start \$\$" >>"$T/stubborn.log"
sleep 30
echo '{"type":"ArchiveResult","status":"succeeded"}'
EOF
chmod +x "$T/plugins/stubborn/on_Snapshot__50_stubborn.sh"
D2=$T/data2
abx-add -d "$D2" --plugins stubborn "$BASE/site/page1.html" >/dev/null
abx-tick -d "$D2" 2>"$T/tick.err" &
tick=$!
stubborn_started() { [ -s "$T/stubborn.log" ]; }
ok "a stubborn hook runs" wait_for 20 stubborn_started
spid=$(awk '{ print $2 }' "$T/stubborn.log")
kill -INT "$tick"
sleep 1
ok "after a first SIGINT it is still running (in its grace)" alive "$spid"
kill -INT "$tick"
s0=$(date +%s)
wait_exit "$tick" 10
rc=$?
is "$rc" 130 "a second SIGINT: abx-tick exits 130"
ok "within 2 s" test $(( $(date +%s) - s0 )) -le 2
sgone() { ! alive "$spid"; }
ok "and the stubborn hook is gone" sgone
is "$(abx-ls -d "$D2" -k snapshot --jsonl | jq -r '.status + " " + (.lease | tostring)')" "queued null" \
	"its snapshot is requeued"
done_testing
