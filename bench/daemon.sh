#!/bin/sh
# daemon.sh — daemon wake-up: the time from abx-add to the first hook
# starting under abx-tick --daemon, against the time to spawn that hook
# directly (see the top of bench/wakebench.c; 15 rounds after 2 warm-up).
# The tools run from a copy of bin/ made at the start.  Arguments are
# passed on to wakebench (-r ROUNDS, -w WARMUP).
top=$(cd "$(dirname "$0")/.." && pwd) || exit 1
for f in wakebench stamp; do
	[ -x "$top/bench/$f" ] || {
		echo "daemon: error: $top/bench/$f is not built (run make bench)" >&2
		exit 69
	}
done
tmp=$(mktemp -d "${TMPDIR:-/tmp}/abx-bench-daemon.XXXXXX") || exit 73
trap 'rm -rf "$tmp"' EXIT
trap 'exit 130' INT TERM
mkdir "$tmp/tree" && cp -R "$top/bin" "$top/share" "$tmp/tree/" && cp "$top/bench/stamp" "$tmp/stamp" || exit 73
"$top/bench/wakebench" -b "$tmp/tree/bin" -s "$tmp/stamp" "$@"
