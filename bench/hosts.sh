#!/bin/sh
# hosts.sh — host pacing costs no more than the rule it enforces.  Four
# hosts (four tests/httpd.py servers on 127.0.0.1, one port each: a host is
# host:port), 50 pages each (an index linking 49 leaves), 50 ms a
# response.  abx crawls the four index pages to depth 1 in one crawl with
# --plugins wget,parse_html_urls, 4 slots and HOST_MAX_CONCURRENT=1 (one
# page of a host at a time); the baseline is what that rule allows a
# serial fetcher: four `wget -r -l 1` run at once, one per host.  Also the
# same abx crawl with the default pacing (HOST_MAX_CONCURRENT=4), which
# lets the crawl's 4 slots work on any host, and the rule enforced without
# pacing: four crawls of one host each, one slot each, run by four ticks at
# once (abx's own per-page cost under the same rule: what pacing adds is
# the difference).  Medians over the rounds
# (ABX_BENCH_HOSTS_ROUNDS, default 2); the order alternates.  Goal: abx
# with one page a host within 1.25x of the four wget -r.
LC_ALL=C
export LC_ALL
top=$(cd "$(dirname "$0")/.." && pwd) || exit 1
rounds=${ABX_BENCH_HOSTS_ROUNDS:-2}
per=50
latency=50
for t in python3 wget; do
	command -v "$t" >/dev/null 2>&1 || {
		echo "hosts: error: $t is not installed" >&2
		exit 69
	}
done
for t in abx-add abx-tick abx-hook; do
	[ -x "$top/bin/$t" ] || {
		echo "hosts: error: $top/bin/$t is not built (run make)" >&2
		exit 69
	}
done
tmp=$(mktemp -d "${TMPDIR:-/tmp}/abx-bench-hosts.XXXXXX") || exit 73
pids=""
cleanup() {
	for p in $pids; do kill "$p" 2>/dev/null; done
	wait 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 130' INT TERM
unset ABX_DIR ABX_SYNC ABX_PLUGINS_DIR
mkdir "$tmp/tree" && cp -R "$top/bin" "$top/share" "$tmp/tree/" || exit 73
bin=$tmp/tree/bin

urls=""
for h in 1 2 3 4; do
	mkdir "$tmp/site$h" || exit 73
	python3 - "$tmp/site$h" "$per" "$h" <<'PY' || exit 70
import os, sys
root, n, h = sys.argv[1], int(sys.argv[2]), sys.argv[3]
def page(title, links):
    items = "".join('<li><a href="%s">%s</a></li>\n' % (l, l) for l in links)
    return ("<!DOCTYPE html>\n<html><head><title>%s</title></head><body><ul>\n%s</ul></body></html>\n"
            % (title, items))
with open(os.path.join(root, "index.html"), "w") as f:
    f.write(page("Host %s" % h, ["p%d.html" % i for i in range(1, n)]))
for i in range(1, n):
    with open(os.path.join(root, "p%d.html" % i), "w") as f:
        f.write(page("Host %s page %d" % (h, i), ["index.html"]))
PY
	python3 "$top/tests/httpd.py" --port-file "$tmp/port$h" --root "$tmp/site$h" --latency-ms "$latency" &
	pids="$pids $!"
done
for h in 1 2 3 4; do
	i=0
	while [ ! -s "$tmp/port$h" ] && [ "$i" -lt 100 ]; do
		sleep 0.1
		i=$((i + 1))
	done
	[ -s "$tmp/port$h" ] || {
		echo "hosts: error: tests/httpd.py did not start" >&2
		exit 70
	}
	urls="$urls http://127.0.0.1:$(cat "$tmp/port$h")/index.html"
done

now() { date +%s.%N; }
elapsed() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.3f", b - a }'; }
median() { sort -g | awk '{ v[NR] = $1 } END { if (NR % 2) print v[(NR + 1) / 2]; else print (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

run_wget() {
	s=$(now)
	wp=""
	for u in $urls; do
		wget -r -l 1 --no-parent -q -P "$tmp/wget.$1" "$u" &
		wp="$wp $!"
	done
	for p in $wp; do wait "$p"; done
	e=$(now)
	echo "wget $(elapsed "$s" "$e") $(find "$tmp/wget.$1" -name '*.html' | wc -l | tr -d ' ')" >>"$tmp/res"
}
run_split() { # ROUND: four crawls, one slot each, four ticks (one a host name)
	d=$tmp/abx.$1.split
	s=$(now)
	ids=""
	for u in $urls; do
		ids="$ids $("$bin/abx-add" -d "$d" --depth 1 --plugins wget,parse_html_urls \
			--config CRAWL_MAX_CONCURRENT_SNAPSHOTS=1 --config HOST_MAX_CONCURRENT=64 "$u" | sed 's/.*"id":"\([^"]*\)".*/\1/')"
	done
	tp=""
	k=0
	for id in $ids; do
		k=$((k + 1))
		# shellcheck disable=SC2016
		unshare -u sh -c 'hostname "bench-$1" && exec "$2" -d "$3" --crawl "$4" >/dev/null' sh "$k" "$bin/abx-tick" "$d" "$id" &
		tp="$tp $!"
	done
	for p in $tp; do wait "$p"; done
	e=$(now)
	echo "split $(elapsed "$s" "$e") $(wc -l <"$d/index.jsonl" | tr -d ' ')" >>"$tmp/res"
}
run_abx() { # ROUND NAME HOST_MAX_CONCURRENT
	d=$tmp/abx.$1.$2
	s=$(now)
	# shellcheck disable=SC2086
	"$bin/abx-add" -d "$d" --depth 1 --plugins wget,parse_html_urls \
		--config CRAWL_MAX_CONCURRENT_SNAPSHOTS=4 --config "HOST_MAX_CONCURRENT=$3" $urls >/dev/null || return 1
	"$bin/abx-tick" -d "$d" >/dev/null || echo "hosts: warning: abx-tick failed ($2)" >&2
	e=$(now)
	echo "$2 $(elapsed "$s" "$e") $(wc -l <"$d/index.jsonl" | tr -d ' ')" >>"$tmp/res"
}

echo "hosts: 4 hosts x $per pages, $latency ms a response, depth 1, --plugins wget,parse_html_urls, 4 slots; $rounds rounds"
: >"$tmp/res"
r=0
while [ "$r" -lt "$rounds" ]; do
	[ $((r % 2)) -eq 0 ] && run_wget "$r"
	run_abx "$r" paced1 1
	run_abx "$r" paced4 4
	unshare -u true 2>/dev/null && run_split "$r"
	[ $((r % 2)) -eq 1 ] && run_wget "$r"
	r=$((r + 1))
done
tw=$(awk '$1 == "wget" { print $2 }' "$tmp/res" | median)
nw=$(awk '$1 == "wget" { print $3 }' "$tmp/res" | sort -n | head -n 1)
ts=$(awk '$1 == "split" { print $2 }' "$tmp/res" | median)
for k in paced1 paced4; do
	ta=$(awk -v k="$k" '$1 == k { print $2 }' "$tmp/res" | median)
	na=$(awk -v k="$k" '$1 == k { print $3 }' "$tmp/res" | sort -n | uniq | tr '\n' '/' | sed 's,/$,,')
	if [ "$k" = paced1 ]; then
		label="HOST_MAX_CONCURRENT=1"
		goal=$(awk -v a="$ta" -v w="$tw" 'BEGIN { print (a / w <= 1.25) ? "ok" : "MISSED" }')
		goal=" [target <= 1.25x: $goal]"
	else
		label="HOST_MAX_CONCURRENT=4 (default)"
		goal=""
	fi
	echo "hosts: abx $label / 4 parallel wget -r: $(awk -v a="$ta" -v w="$tw" 'BEGIN { printf "%.2fx (%.2f s vs %.2f s)", a / w, a, w }'); $na snapshots, wget saved $nw pages$goal"
	[ "$k" = paced1 ] && [ -n "$ts" ] &&
		echo "hosts: abx HOST_MAX_CONCURRENT=1 / 4 unpaced one-slot crawls (same rule, no pacing): $(awk -v a="$ta" -v w="$ts" 'BEGIN { printf "%.2fx (%.2f s vs %.2f s)", a / w, a, w }')"
done
