#!/bin/sh
# Two hosts tick one crawl on a GlusterFS volume (coherent options), each
# through its own mount and with its own name (ABX_HOST): every page is
# sealed once, no snapshot is run by both at once, every JSONL file is
# valid; then kill -9 of one host's tick in the middle of a crawl, and the
# other host finishes it.
. "$(dirname "$0")/lib/tap.sh"
. "$(dirname "$0")/lib/httpd.sh"
. "$(dirname "$0")/lib/tick-lib.sh"
. "$(dirname "$0")/lib/gluster-rig.sh"
rig_start coherent
httpd_start || exit 1
plan 17
A=$M1/data B=$M2/data
slow_plugin slow
echo 0.2 >"$T/slow.s"
P=wget,slow,parse_html_urls
C=$(abx-add -d "$A" --depth 1 --plugins $P --config CRAWL_MAX_CONCURRENT_SNAPSHOTS=2 "$BASE/site/" |
	jq -r .id)
# a second crawl, so that both hosts have work at once (a crawl is run by
# one tick at a time: the other finds its lease held)
Cb=$(abx-add -d "$B" --depth 1 --plugins $P --config CRAWL_MAX_CONCURRENT_SNAPSHOTS=2 \
	"$BASE/site/page3.html" | jq -r .id)

# tick_both: one pass on each host, started together
tick_both() {
	ABX_HOST=host-a abx-tick -d "$A" >>"$T/a.out" 2>>"$T/a.err" &
	a=$!
	ABX_HOST=host-b abx-tick -d "$B" >>"$T/b.out" 2>>"$T/b.err" &
	b=$!
	wait_exit "$a" 60; ra=$?
	wait_exit "$b" 60; rb=$?
	echo "$ra $rb" >>"$T/rcs"
}
sealed_all() {
	[ "$(abx-ls -d "$A" "$C" | jq -r .status)" = sealed ] &&
		[ "$(abx-ls -d "$B" "$Cb" | jq -r .status)" = sealed ]
}
start=$(date +%s)
n=0
while [ $n -lt 6 ] && ! sealed_all; do tick_both; n=$((n + 1)); done
diag "two hosts, $n passes each: $(( $(date +%s) - start )) s"
reachable "$BASE/site/" 1 >"$T/want"
reachable "$BASE/site/page3.html" 1 >"$T/wantb"
want=$(( $(wc -l <"$T/want") + $(wc -l <"$T/wantb") ))
is "$(tr ' ' '\n' <"$T/rcs" | grep -v '^[01]$')" "" "every pass of both hosts' ticks exited 0 or 1 (nothing left to do)"
# (a tick that waits long for the store's lock says so: at a high load that
# is no error)
is "$(cat "$T/a.err" "$T/b.err" | grep -v -e '^abx-tick: warning: waiting for the lock ')" "" \
	"no tick said anything on stderr"
ok "the crawl is sealed" sealed_all
crawl_pages() {
	abx-ls -d "$1" -k snapshot -s sealed --jsonl | jq -r "select(.crawl_id == \"$2\") | \"\(.depth) \(.url)\"" |
		LC_ALL=C sort
}
is "$(crawl_pages "$B" "$C")" "$(cat "$T/want")" "every page of the first crawl is sealed, as host-b sees"
is "$(crawl_pages "$A" "$Cb")" "$(cat "$T/wantb")" "every page of the second crawl is sealed, as host-a sees"
is "$(starts slow)" "$want" "the hook ran $want times"
is "$(awk '$1 == "start" { print $2 }' "$T/slow.log" | sort | uniq -d)" "" "no snapshot was run twice"
is "$(grep -c '^overlap' "$T/slow.log")" 0 "no snapshot was run by both hosts at once"
ok "each snapshot's index.jsonl has one result per hook" all_results_once "$A"
diag "hooks run by host: $(cat "$A"/crawls/*/snapshots.jsonl | jq -r 'select(.type == "Process") | .host' |
	sort | uniq -c | tr '\n' ' ')"
find "$A" -name '*.jsonl' ! -path "$A/tmp/*" >"$T/jsonl"
bad=0
while read -r j; do
	jq -c . "$j" >/dev/null 2>&1 || { bad=$((bad + 1)); diag "invalid JSONL: $j"; }
done <"$T/jsonl"
is $bad 0 "every JSONL file is valid ($(wc -l <"$T/jsonl" | tr -d ' ') files)"

# kill -9 of host-a's tick (its process group) while it runs hooks; host-b
# finishes the crawl
echo 0.5 >"$T/slow.s"
: >"$T/slow.log"
C2=$(abx-add -d "$B" --again --depth 1 --plugins $P --config CRAWL_MAX_CONCURRENT_SNAPSHOTS=2 \
	"$BASE/site/page2.html" | jq -r .id)
ABX_HOST=host-a setsid abx-tick -d "$A" 2>"$T/killed.err" &
tick=$!
track_group "$tick"
in_flight() { [ "$(starts slow)" -ge 2 ]; }
ok "host-a's tick runs hooks" wait_for 40 in_flight
kill -9 "-$tick"
wait "$tick" 2>/dev/null
is "$?" 137 "host-a's tick died of SIGKILL"
ok "snapshots were left started" test -n "$(abx-ls -d "$B" -k snapshot -s started --jsonl)"
n=0
sealed2() { [ "$(abx-ls -d "$B" "$C2" | jq -r .status)" = sealed ]; }
while [ $n -lt 6 ] && ! sealed2; do
	ABX_HOST=host-b abx-tick -d "$B" >/dev/null 2>>"$T/b2.err"; n=$((n + 1))
done
ok "host-b finishes the crawl ($n passes)" sealed2
reachable "$BASE/site/page2.html" 1 >"$T/want2"
is "$(crawl_pages "$B" "$C2")" "$(cat "$T/want2")" "every page of it is sealed"
is "$(grep -c '^overlap' "$T/slow.log")" 0 "no snapshot was run by both hosts at once"
ok "each snapshot's index.jsonl has one result per hook" all_results_once "$B"
done_testing
