#!/bin/sh
# chromekeep.sh — the chrome plugin's kept browser (abx-internals(7), "The
# kept browser"): a crawl of PAGES pages (tests/httpd.py's /gen/ pages,
# every response delayed by 50 ms, the URLs given at depth 0) with
# --plugins chrome at SLOTS slots, in three variants, alternated in one
# run, each round in a fresh data directory:
#   kept      the default: each serving worker keeps one browser up;
#   own       CHROME_KEEP=false: a browser a snapshot, as before;
#   unshared  WORKER_MAX_SNAPSHOTS=1: a keeper and its browser a snapshot
#             (what a keeper would cost a one-shot worker, which starts
#             none: the keeper's own price, with nothing to share).
# Reported against own: the wall time (median over the rounds), the CPU
# time (user + system) of the whole crawl per snapshot (abx-tick and
# every process under it, chromium's included: all are reaped in a chain
# up to this shell), and, from one more run of each traced with perf's
# sched_process_exit tracepoint (no ptrace), the processes per snapshot:
# the exits of thread-group leaders (a chromium thread is not counted).
# The tools run from a copy of bin/ and share/ made at the start.
# Environment: ABX_BENCH_KEEP_ROUNDS (default 2), ABX_BENCH_KEEP_PAGES
# (default 15), ABX_BENCH_KEEP_SLOTS (default 2).
LC_ALL=C
export LC_ALL
top=$(cd "$(dirname "$0")/.." && pwd) || exit 1
rounds=${ABX_BENCH_KEEP_ROUNDS:-2}
pages=${ABX_BENCH_KEEP_PAGES:-15}
slots=${ABX_BENCH_KEEP_SLOTS:-2}

for t in python3 chromium; do
	command -v "$t" >/dev/null 2>&1 || {
		echo "chromekeep: skipped: $t is not installed" >&2
		exit 0
	}
done
tmp=$(mktemp -d "${TMPDIR:-/tmp}/abx-bench-keep.XXXXXX") || exit 73
hp=
trap '[ -n "$hp" ] && kill "$hp" 2>/dev/null; rm -rf "$tmp"' EXIT
trap 'exit 130' INT TERM
unset ABX_DIR ABX_SYNC ABX_PLUGINS_DIR CHROME_KEEP WORKER_MAX_SNAPSHOTS
export CHROME_SANDBOX=false
mkdir "$tmp/tree" && cp -R "$top/bin" "$top/share" "$tmp/tree/" || exit 73
bin=$tmp/tree/bin

python3 "$top/tests/httpd.py" --port-file "$tmp/port" --pages "$pages" --latency-ms 50 2>"$tmp/httpd.err" &
hp=$!
i=0
while [ ! -s "$tmp/port" ] && [ $i -lt 600 ]; do sleep 0.05; i=$((i + 1)); done
[ -s "$tmp/port" ] || {
	echo "chromekeep: error: tests/httpd.py did not start: $(head -c 300 "$tmp/httpd.err")" >&2
	exit 70
}
i=0
while [ $i -lt "$pages" ]; do
	echo "http://127.0.0.1:$(cat "$tmp/port")/gen/p$i.html"
	i=$((i + 1))
done >"$tmp/urls"

now() { date +%s.%N; }
# cpu: $cpuv, the user + system seconds of this shell's waited-for children
cpu() {
	times >"$tmp/times"
	cpuv=$(awk 'NR == 2 { for (i = 1; i <= 2; i++) { split($i, a, "m"); sub(/s$/, "", a[2]); t += a[1] * 60 + a[2] } print t + 0 }' "$tmp/times")
}
median() { sort -g | awk '{ v[NR] = $1 } END { if (NR % 2) print v[(NR + 1) / 2]; else print (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
# variant NAME: its settings, as VAR=value words for env
variant() {
	case $1 in
	kept) echo CHROME_KEEP=true ;;
	own) echo CHROME_KEEP=false ;;
	unshared) echo CHROME_KEEP=true WORKER_MAX_SNAPSHOTS=1 ;;
	esac
}
# crawl NAME DIR [PREFIX...]: the crawl, run by PREFIX (perf), its status
crawl() {
	_v=$1 _d=$2
	shift 2
	# shellcheck disable=SC2046 # VAR=value words
	env $(variant "$_v") "$bin/abx-add" -d "$_d" --depth 0 --plugins chrome \
		--config "CRAWL_MAX_CONCURRENT_SNAPSHOTS=$slots" <"$tmp/urls" >/dev/null || return 1
	# shellcheck disable=SC2046
	env $(variant "$_v") "$@" "$bin/abx-tick" -d "$_d" >/dev/null 2>"$_d.err"
}
# run ROUND NAME: "NAME WALL CPU SUCCEEDED" into $tmp/res
run() {
	d=$tmp/$2.$1
	cpu
	c0=$cpuv
	s=$(now)
	crawl "$2" "$d" || echo "chromekeep: warning: the $2 crawl failed: $(head -c 300 "$d.err")" >&2
	e=$(now)
	cpu
	ok=$("$bin/abx-ls" -d "$d" -k result --jsonl | grep -c '"status":"succeeded"')
	echo "$2 $(awk -v a="$s" -v b="$e" 'BEGIN { printf "%.3f", b - a }') $(awk -v a="$c0" -v b="$cpuv" 'BEGIN { printf "%.3f", b - a }') $ok" >>"$tmp/res"
	rm -rf "$d"
}

r=1
while [ "$r" -le "$rounds" ]; do
	if [ $((r % 2)) -eq 1 ]; then order="kept own unshared"; else order="unshared own kept"; fi
	for v in $order; do run "$r" "$v"; done
	r=$((r + 1))
done
procs=
if command -v perf >/dev/null 2>&1 &&
	perf record -q -e sched:sched_process_exit -o "$tmp/probe.data" -- true >/dev/null 2>&1; then
	procs=1
	for v in kept own unshared; do
		crawl "$v" "$tmp/$v.perf" perf record -q -e sched:sched_process_exit -o "$tmp/$v.data" --
		perf script -i "$tmp/$v.data" -F pid,tid 2>/dev/null |
			awk -F/ '{ gsub(/ /, ""); if ($1 == $2) n++ } END { print n + 0 }' >"$tmp/$v.procs"
	done
fi

# wall V, cpu V (ms per snapshot), done V, nproc V (per snapshot)
wall() { awk -v v="$1" '$1 == v { print $2 }' "$tmp/res" | median; }
cpums() { awk -v v="$1" -v n="$pages" '$1 == v { print $3 * 1000 / n }' "$tmp/res" | median; }
succ() { awk -v v="$1" '$1 == v { print $4 }' "$tmp/res" | sort -u | tr '\n' ' ' | sed 's/ $//'; }
nproc_() { [ -n "$procs" ] && awk -v n="$pages" '{ printf "%.1f", $1 / n }' "$tmp/$1.procs" || echo "?"; }
echo "chromekeep: $pages pages at 50 ms, $slots slots, $rounds rounds alternated; chrome results succeeded: kept $(succ kept), own $(succ own), unshared $(succ unshared)"
for v in kept unshared; do
	case $v in
	kept) what="kept browser / a browser a snapshot (CHROME_KEEP=false)" ;;
	unshared) what="a keeper a snapshot (WORKER_MAX_SNAPSHOTS=1) / a browser a snapshot" ;;
	esac
	echo "chromekeep: $what: wall $(awk -v a="$(wall "$v")" -v b="$(wall own)" 'BEGIN { printf "%.2fx (%.2f s vs %.2f s)", a / b, a, b }'); CPU per snapshot $(printf %.0f "$(cpums "$v")") vs $(printf %.0f "$(cpums own)") ms; processes per snapshot $(nproc_ "$v") vs $(nproc_ own)"
done
