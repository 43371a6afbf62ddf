#!/bin/sh
# queue.sh — a worker costs what its snapshot touches, not the queue: the
# CPU time of one abx-hook run (a snapshot with one no-op hook) in a data
# directory with ABX_BENCH_QUEUE_N (20,000) queued snapshots, against the
# same in one with 1,000, in the same run.
#
# The queues: crawls of 1000 URLs each, made by abx-add: ABX_BENCH_QUEUE_N
# / 1000 of them in one directory, one in the other.  Each round, in each
# directory, abx-claim takes the lease on a queued snapshot of the first
# crawl and runs abx-hook on it under bench/cputime (which
# records the CPU time, user + system, of abx-hook and its hook):
#   hinted   as abx-tick and abx-claim CMD run it: told where the records
#            are ($ABX_HINT), it never loads the active index (store.h:
#            Lean mode);
#   by hand  with $ABX_HINT removed: it loads the active index, as
#            `abx-hook ID` typed by hand does.
# A figure is the median over the rounds (ms of CPU).  The ratio is
# big/small; the goal for the hinted worker is at most 1.2.
# Environment: ABX_BENCH_QUEUE_N (20000), ABX_BENCH_QUEUE_ROUNDS (7).
LC_ALL=C
export LC_ALL
top=$(cd "$(dirname "$0")/.." && pwd) || exit 1
n=${ABX_BENCH_QUEUE_N:-20000}
rounds=${ABX_BENCH_QUEUE_ROUNDS:-7}
for t in abx-add abx-claim abx-hook abx-ls; do
	[ -x "$top/bin/$t" ] || {
		echo "queue: error: $top/bin/$t is not built (run make)" >&2
		exit 69
	}
done
[ -x "$top/bench/cputime" ] || {
	echo "queue: error: $top/bench/cputime is not built (run make bench)" >&2
	exit 69
}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/abx-bench-queue.XXXXXX") || exit 73
trap 'rm -rf "$tmp"' EXIT
trap 'exit 130' INT TERM
unset ABX_DIR ABX_HINT
ABX_SYNC=0
export ABX_SYNC
bin=$top/bin

mkdir -p "$tmp/plugins/noop" || exit 73
printf '#!/bin/sh\necho %s\n' "'{\"type\":\"ArchiveResult\",\"status\":\"succeeded\"}'" \
	>"$tmp/plugins/noop/on_Snapshot__50_noop.sh"
chmod +x "$tmp/plugins/noop/on_Snapshot__50_noop.sh"
ABX_PLUGINS_DIR=$tmp/plugins
export ABX_PLUGINS_DIR

# the two directories (URLs on 127.0.0.1:9: nothing is fetched); the
# snapshots run are the first crawl's in both, so that the records a run
# touches are alike
urls() { awk -v c="$1" 'BEGIN { for (i = 0; i < 1000; i++) printf "http://127.0.0.1:9/c%d/p%d\n", c, i }'; }
urls 0 | "$bin/abx-add" -d "$tmp/small" --plugins noop >/dev/null || exit 70
c=0
while [ $((c * 1000)) -lt "$n" ]; do
	urls "$c" | "$bin/abx-add" -d "$tmp/big" --plugins noop >/dev/null || exit 70
	c=$((c + 1))
done
queued() { "$bin/abx-ls" -d "$tmp/$1" -k snapshot -s queued --jsonl | wc -l | tr -d ' '; }
qbig=$(queued big)
qsmall=$(queued small)

# run DIR VARIANT: one claimed abx-hook run; its CPU is appended to
# $tmp/cpu.DIR.VARIANT (by bench/cputime)
run() {
	id=$("$bin/abx-ls" -d "$tmp/$1" -k snapshot -s queued --jsonl | head -n 1 |
		sed 's/.*"id":"\([^"]*\)".*/\1/')
	[ -n "$id" ] || return 1
	unhint=
	[ "$2" = hinted ] || unhint="-u ABX_HINT"
	# shellcheck disable=SC2086 # $unhint is one option or none
	ABX_BENCH_REAL=$bin/abx-hook ABX_BENCH_CPU_LOG=$tmp/cpu.$1.$2 \
		"$bin/abx-claim" -d "$tmp/$1" -k snapshot -i "$id" \
		env $unhint "$top/bench/cputime" -d "$tmp/$1" "$id" >/dev/null 2>"$tmp/err" || {
		echo "queue: error: abx-hook $id in $1 ($2) failed: $(cat "$tmp/err")" >&2
		exit 70
	}
}

r=0
while [ "$r" -lt "$rounds" ]; do
	for v in hinted byhand; do
		run small "$v"
		run big "$v"
	done
	r=$((r + 1))
done

median() { sort -g | awk '{ v[NR] = $1 } END { if (NR % 2) print v[(NR + 1) / 2]; else print (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
ms() { awk '{ print $1 / 1000 }' "$tmp/cpu.$1.$2" | median; }
for v in hinted byhand; do
	b=$(ms big "$v")
	sm=$(ms small "$v")
	label="abx-hook as abx-tick runs it (hinted)"
	[ "$v" = byhand ] && label="abx-hook by hand (loads the index)"
	goal=
	[ "$v" = hinted ] && goal=$(awk -v b="$b" -v s="$sm" 'BEGIN { print (b / s <= 1.2) ? " [goal <= 1.2x: ok]" : " [goal <= 1.2x: MISSED]" }')
	awk -v l="$label" -v b="$b" -v s="$sm" -v qb="$qbig" -v qs="$qsmall" -v g="$goal" \
		'BEGIN { printf "queue: %s: %.1f ms of CPU with %d snapshots queued, %.1f ms with %d: %.2fx%s\n", l, b, qb, s, qs, b / s, g }'
done
