#!/bin/sh
# A kill -9 storm over a real crawl: abx-tick (a pass, or the daemon) is
# started again and again on one data directory and killed at random
# moments, each time one of: its main pid alone, one of its workers alone,
# its whole process group, the daemon.  After every kill, once the killed
# run's last abx process has exited, the store lock must be free at
# once (flock -n), and abx-tick -n must run.  Then abx-tick alone
# finishes the crawl, and:
#   every page is sealed, each once; no URL has two snapshots; no hook's
#   result is recorded twice; every JSONL line is valid JSON; no abx
#   process and no hook is left.
# Short in make check (a 63-page crawl, 25 kills); the long run of the
# issue: ABX_STORM_PAGES=300 ABX_STORM_KILLS=120 prove tests/kill-storm.sh
# ($ABX_STORM_SEED replays a run; $ABX_STORM_LATENCY_MS, default 150, is
# how long each page takes to answer: longer makes for more kills).
. "$(dirname "$0")/lib/tap.sh"
. "$(dirname "$0")/lib/httpd.sh"
. "$(dirname "$0")/lib/tick-lib.sh"
. "$(dirname "$0")/lib/procs.sh"
pages=${ABX_STORM_PAGES:-63}
kills=${ABX_STORM_KILLS:-25}
seed=${ABX_STORM_SEED:-$$}
diag "seed $seed, $pages pages, $kills kills"
httpd_start --pages "$pages" --latency-ms "${ABX_STORM_LATENCY_MS:-150}" || exit 1
D=$T/data
# every page queued at depth 0; their outlinks (depth 1) are the same pages,
# so discovery under kills must never queue one twice
i=0
while [ "$i" -lt "$pages" ]; do
	echo "$BASE/gen/p$i.html"
	i=$((i + 1))
done >"$T/urls"
C=$(abx-add -d "$D" --depth 1 --plugins wget,parse_html_urls \
	--config CRAWL_MAX_CONCURRENT_SNAPSHOTS=4 <"$T/urls" | jq -r .id)
ok "a crawl of $pages pages is queued" test -n "$C" || exit 1

# rnd N: a number in [0, N), the next of the seeded sequence (the caller
# steps n_rnd: rnd runs in a subshell, $(...))
n_rnd=0
rnd() {
	awk -v s="$seed" -v k="$n_rnd" -v n="$1" 'BEGIN { srand(s + k * 7919); print int(rand() * n) }'
}
abx_procs() { pgrep -f "abx-(tick|hook) .*-d $D" 2>/dev/null | grep -v "^$$\$"; }
no_abx() { [ -z "$(abx_procs)" ]; }
sealed_all() { [ "$(abx-ls -d "$D" "$C" | jq -r .status)" = sealed ]; }

busy=0
k=0
modes="main worker group daemon"
while [ "$k" -lt "$kills" ] && ! sealed_all; do
	n_rnd=$((n_rnd + 1))
	mode=$(echo "$modes" | cut -d' ' -f$(($(rnd 4) + 1)))
	if [ "$mode" = daemon ]; then
		setsid abx-tick -d "$D" --daemon --poll 0.5 2>>"$T/storm.err" &
	else
		setsid abx-tick -d "$D" 2>>"$T/storm.err" &
	fi
	pid=$!
	# a random moment: 0.1 .. 1.5 s in
	n_rnd=$((n_rnd + 1))
	sleep "$(awk -v r="$(rnd 15)" 'BEGIN { printf "%.1f", 0.1 + r / 10 }')"
	case $mode in
	worker)
		w=$(pgrep -P "$pid" -f abx-hook | head -1)
		if [ -n "$w" ]; then kill -9 "$w"; else kill -9 "$pid" 2>/dev/null; fi
		# the tick goes on: let it, then kill its group
		sleep 0.3
		kill -9 "-$pid" 2>/dev/null
		;;
	group) kill -9 "-$pid" 2>/dev/null ;;
	*) kill -9 "$pid" 2>/dev/null ;;
	esac
	wait "$pid" 2>/dev/null
	k=$((k + 1))
	echo "$mode" >>"$T/modes"
	# the killed run's last abx process (orphaned workers finish or stop)
	wait_for 60 no_abx || { fail "kill $k ($mode): abx processes still alive after 60 s"; abx_procs; }
	# no abx process is left, so nothing may hold the store lock: it is
	# free at once (flock -n), not after some wait
	if ! flock -n "$D/locks/store.lock" true; then
		busy=$((busy + 1))
		diag "kill $k ($mode): the store lock is held with no abx process alive"
	fi
	timeout 5 abx-tick -d "$D" -n >/dev/null 2>&1
	rc=$?
	[ "$rc" -le 1 ] || fail "kill $k ($mode): abx-tick -n exited $rc"
done
diag "$k kills ($(sort "$T/modes" | uniq -c | awk '{printf "%s%s %s", (NR > 1 ? ", " : ""), $1, $2}'))"
is "$busy" 0 "after every kill the store lock was free as soon as the last abx process was gone"

# -- abx-tick alone finishes the crawl; a snapshot whose worker was killed
# waits a minute before its retry, so each further pass runs ten minutes
# later on abx's clock ($ABX_NOW)
n=0
while ! sealed_all && [ "$n" -lt 10 ]; do
	if [ "$n" -eq 0 ]; then
		abx-tick -d "$D" 2>>"$T/finish.err"
	else
		ABX_NOW=@$(($(date +%s) + 600 * n)) abx-tick -d "$D" 2>>"$T/finish.err"
	fi
	n=$((n + 1))
done
ok "abx-tick alone finishes the crawl ($n passes)" sealed_all
is "$(abx-ls -d "$D" -k snapshot -s sealed --jsonl | jq -r .url | grep -c '/gen/p[0-9]*\.html$')" "$pages" \
	"all $pages pages are sealed"
J=$D/crawls/$C/snapshots.jsonl
is "$(jq -r 'select(.type == "Snapshot") | "\(.url) \(.id)"' "$J" | sort -u | awk '{print $1}' | uniq -d)" "" \
	"no URL has two snapshots"
is "$(jq -r 'select(.type == "Snapshot" and .status == "sealed" and .downloaded_at != null) | .id' "$J" |
	sort | uniq -d)" "" "each snapshot was sealed once"
ok "each snapshot's index.jsonl has one result per hook" all_results_once "$D"
find "$D" -name '*.jsonl' >"$T/jsonl"
bad=0
while read -r f; do
	jq -c . "$f" >/dev/null 2>&1 || { bad=$((bad + 1)); diag "invalid JSON in $f"; }
done <"$T/jsonl"
is "$bad" 0 "every JSONL line in the data directory is valid JSON"
failed3=$(abx-ls -d "$D" -k snapshot --jsonl | jq -r 'select(.notes // "" | test("three times")) | .url' | wc -l)
diag "$failed3 pages were given up after three killed workers"
ok "no abx process is left" no_abx
[ -n "${ABX_STORM_KEEP:-}" ] && cp -a "$D" "$ABX_STORM_KEEP"
# a hook's wget runs in the snapshot's directory, under $D
ok "no hook is left" none_in "$D" wget
for p in $(procs_in "$D" wget); do ps -o pid,ppid,pgid,sid,etime,stat,cmd -p "$p" | sed 's/^/# left: /'; done
done_testing
