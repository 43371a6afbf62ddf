#!/bin/sh
# tick.sh — abx-tick's own cost (see the top of bench/tickbench.c):
#   1. scheduler overhead per snapshot: abx-tick over 1,000 snapshots with
#      one no-op hook each (durable commits), against a C loop that
#      posix_spawns the same hook 1,000 times (and a shell loop);
#   2. where that time goes, per snapshot, in a 1-slot run traced with
#      perf's sched tracepoints (fork, exec, exit; no ptrace, no syscall
#      tracing): the hook itself (fork to exit), the worker around it (a
#      child of abx-tick that has the hook as its child: fork to exit,
#      less the hook; a serving worker's kept gate is the worker's), the
#      other children of abx-tick (CrawlSetup and
#      CrawlCleanup phases), and abx-tick's own bookkeeping (the rest of
#      its lifetime); and how many processes are started per snapshot,
#      in all and by program (a serving worker runs many snapshots: every
#      figure is divided by the snapshots, not by the workers);
#   3. tick cost: a pass with 10 due snapshots among 100k sealed ones
#      against a pass with the 10 alone.
# The tools run from a copy of bin/ and share/ made at the start, so that
# a rebuild of the tree meanwhile does not change what is measured.
# Environment: ABX_BENCH_TICK_N (1000), ABX_BENCH_TICK_ROUNDS (3),
# ABX_BENCH_TICK_SPLIT_N (1000), ABX_BENCH_COST_ROUNDS (7).
LC_ALL=C
export LC_ALL
top=$(cd "$(dirname "$0")/.." && pwd) || exit 1
tb=$top/bench/tickbench
[ -x "$tb" ] || {
	echo "tick: error: $tb is not built (run make bench)" >&2
	exit 69
}
n=${ABX_BENCH_TICK_N:-1000}
rounds=${ABX_BENCH_TICK_ROUNDS:-3}
split_n=${ABX_BENCH_TICK_SPLIT_N:-1000}
cost_rounds=${ABX_BENCH_COST_ROUNDS:-7}

tmp=$(mktemp -d "${TMPDIR:-/tmp}/abx-bench-tick.XXXXXX") || exit 73
trap 'rm -rf "$tmp"' EXIT
trap 'exit 130' INT TERM
unset ABX_DIR ABX_SYNC
mkdir "$tmp/tree" && cp -R "$top/bin" "$top/share" "$tmp/tree/" || exit 73
bin=$tmp/tree/bin

"$tb" overhead -n "$n" -r "$rounds" -b "$bin" || exit $?

# -- the split
if command -v perf >/dev/null 2>&1 &&
	perf record -q -e sched:sched_process_exec -o "$tmp/probe.data" -- true >/dev/null 2>&1; then
	mkdir -p "$tmp/plugins/noop"
	printf '#!/bin/sh\nexit 0\n' >"$tmp/plugins/noop/on_Snapshot__10_noop.sh"
	chmod +x "$tmp/plugins/noop/on_Snapshot__10_noop.sh"
	i=0
	while [ "$i" -lt "$split_n" ]; do
		echo "https://www.example.localhost/split/page-$i.html"
		i=$((i + 1))
	done >"$tmp/urls"
	ABX_PLUGINS_DIR=$tmp/plugins "$bin/abx-add" -d "$tmp/split" --plugins noop \
		--config CRAWL_MAX_CONCURRENT_SNAPSHOTS=1 <"$tmp/urls" >/dev/null || exit 70
	ABX_PLUGINS_DIR=$tmp/plugins perf record -q -o "$tmp/sched.data" \
		-e sched:sched_process_fork,sched:sched_process_exec,sched:sched_process_exit \
		-- "$bin/abx-tick" -d "$tmp/split" >/dev/null 2>"$tmp/perf.err" || {
		echo "tick: error: the traced abx-tick failed:" >&2
		cat "$tmp/perf.err" >&2
		exit 70
	}
	perf script -i "$tmp/sched.data" -F pid,time,event,trace 2>/dev/null | awk -v n="$split_n" '
	function val(k,   i) { for (i = 4; i <= NF; i++) if (index($i, k "=") == 1) return substr($i, length(k) + 2); return "" }
	{
		pid = $1; t = $2; sub(/:$/, "", t); ev = $3
		if (ev ~ /fork/) { c = val("child_pid"); forkt[c] = t; parent[c] = pid; forks++ }
		else if (ev ~ /exec/) { f = val("filename"); sub(/.*\//, "", f); file[pid] = f; exect[pid] = t; execs++
			if (f == "abx-tick" && tick == "") tick = pid }
		else if (ev ~ /exit/) exitt[pid] = t
	}
	END {
		total = exitt[tick] - exect[tick]
		for (p in parent) if (parent[p] == tick) worker[p] = 1
		for (p in parent) if ((parent[p] in worker) && (p in exitt) && file[p] != "abx-gate") { hooks[parent[p]] += exitt[p] - forkt[p]; nh[parent[p]]++ }
		for (w in worker) {
			if (!(w in exitt)) continue
			life = exitt[w] - forkt[w]
			if (nh[w]) { W += life; H += hooks[w]; nw++ } else { P += life; np++ }
		}
		for (p in file) byprog[file[p]]++
		own = total - W - P
		# per snapshot: a serving worker runs many (WORKER_MAX_SNAPSHOTS)
		printf "tick: split, 1 slot, %d snapshots, %d workers (perf sched tracepoints): %.2f ms per snapshot = the hooks %.2f ms (%.0f%%) + the worker around them %.2f ms (%.0f%%) + abx-tick bookkeeping %.2f ms (%.0f%%) + %d other children of abx-tick (CrawlSetup/Cleanup phases) %.2f ms (%.0f%%)\n",
			n, nw, total * 1e3 / n, H * 1e3 / n, 100 * H / total, (W - H) * 1e3 / n, 100 * (W - H) / total,
			own * 1e3 / n, 100 * own / total, np, P * 1e3 / n, 100 * P / total
		printf "tick: processes per snapshot: %.2f execve, %.2f forks/spawns (%d execve, %d forks in all)\n",
			execs / n, forks / n, execs, forks
		line = ""
		for (f in byprog) line = line sprintf(" %s %.2f", f, byprog[f] / n)
		printf "tick: execve per snapshot by program:%s\n", line
	}'
else
	echo "tick: split: skipped (perf with sched tracepoints is not available here)"
fi

"$tb" cost -r "$cost_rounds" -b "$bin"
