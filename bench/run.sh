#!/bin/sh
# run.sh — the entry point of make bench.
#
# Prints a header (date, kernel, CPUs), then runs every other bench/*.sh in
# name order (C collation), each of which prints its own lines.  A section
# that fails (or runs longer than $ABX_BENCH_TIMEOUT seconds, default 1800:
# the GlusterFS section took 15 min at a load of 20) gets an error line and
# the next one still runs; the exit status is 1 if any failed.  Sections run from the top of the source tree, with stdin
# from /dev/null.
LC_ALL=C
export LC_ALL
here=$(cd "$(dirname "$0")" && pwd) || exit 1
cd "$here/.." || exit 1

tmo=${ABX_BENCH_TIMEOUT:-1800}
rev=$(git rev-parse --short HEAD 2>/dev/null) || rev=unknown
echo "bench: $(date -u +%Y-%m-%dT%H:%M:%SZ), kernel $(uname -r), $(nproc) CPUs, commit $rev"

t0=$(date +%s)
n=0
failed=""
for f in bench/*.sh; do
	[ -f "$f" ] || continue
	[ "$f" = bench/run.sh ] && continue
	name=${f#bench/}
	n=$((n + 1))
	s0=$(date +%s)
	if command -v timeout >/dev/null 2>&1; then
		timeout "$tmo" sh "$f" </dev/null
	else
		sh "$f" </dev/null
	fi
	rc=$?
	if [ "$rc" -ne 0 ]; then
		if [ "$rc" -eq 124 ]; then
			echo "bench: error: $name timed out after $tmo s"
		else
			echo "bench: error: $name failed (exit status $rc)"
		fi
		failed="$failed ${name%.sh}"
	fi
	echo "bench: $name: $(($(date +%s) - s0)) s"
done

if [ -n "$failed" ]; then
	echo "bench: $n sections in $(($(date +%s) - t0)) s; failed:$failed"
	exit 1
fi
echo "bench: $n sections in $(($(date +%s) - t0)) s, all done"
