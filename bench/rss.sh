#!/bin/sh
# rss.sh — peak RSS of abx-tick over a data dir of 100k sealed snapshots
# (1000 crawls x 100, built through the store API), in passes that each run
# 10 due snapshots with a no-op hook; and over the 10 alone.  Its own peak
# (VmHWM at its exit) is the figure; wait4's ru_maxrss, what
# /usr/bin/time -f %M prints, counts its children too.  See the top of
# bench/tickbench.c.  The tools run from a copy of bin/ made at the start.
# Environment: ABX_BENCH_RSS_ROUNDS (default 3).
top=$(cd "$(dirname "$0")/.." && pwd) || exit 1
tb=$top/bench/tickbench
[ -x "$tb" ] || {
	echo "rss: error: $tb is not built (run make bench)" >&2
	exit 69
}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/abx-bench-rss.XXXXXX") || exit 73
trap 'rm -rf "$tmp"' EXIT
trap 'exit 130' INT TERM
mkdir "$tmp/tree" && cp -R "$top/bin" "$top/share" "$tmp/tree/" || exit 73
unset ABX_DIR ABX_SYNC
"$tb" rss -r "${ABX_BENCH_RSS_ROUNDS:-3}" -b "$tmp/tree/bin"
