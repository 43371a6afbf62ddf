#!/bin/sh
# scale.sh — a tool costs what it touches, not the archive's history: the
# same work timed in a data directory holding 100,000 finished crawls and
# in an empty one, in the same run (the issue "the cost of every tool
# follows the work it touches").
#
# The big directory: one crawl of two URLs made by the tools (abx-add,
# abx-tick with a no-op hook, abx-ctl repair), copied with fresh ids by
# bench/gencrawls.py, which writes exactly what the tools write; `abx-ctl
# repair` must then find nothing to change (else the section fails), and
# `abx-seal --index` pages the site index.  Each round, in each directory:
#   abx-add     one crawl of two URLs (timed);
#   abx-claim   the lease on one of its snapshots (-k snapshot -l 600;
#               timed), then released;
#   abx-ls      one finished crawl by id (timed);
#   pass        9 more crawls added, then one abx-tick running the 10
#               (and the size of index/active.jsonl then, before the pass).
# A figure is the median over the rounds of the wall time (ms), and the
# peak RSS of the tool (/usr/bin/time -f %M: the tool and its children,
# the largest).  abx-add and abx-ctl commit durably whatever ABX_SYNC
# says; the rest runs with ABX_SYNC=0.  The ratio is big/empty; the goal is at most 1.2 and every
# RSS under 16 MB.  The tools run from a copy of bin/ made at the start.
# Environment: ABX_BENCH_SCALE_N (100000), ABX_BENCH_SCALE_ROUNDS (5).
LC_ALL=C
export LC_ALL
top=$(cd "$(dirname "$0")/.." && pwd) || exit 1
n=${ABX_BENCH_SCALE_N:-100000}
rounds=${ABX_BENCH_SCALE_ROUNDS:-5}
for t in python3 /usr/bin/time; do
	command -v "$t" >/dev/null 2>&1 || {
		echo "scale: error: $t is not installed" >&2
		exit 69
	}
done
tmp=$(mktemp -d "${TMPDIR:-/tmp}/abx-bench-scale.XXXXXX") || exit 73
trap 'rm -rf "$tmp"' EXIT
trap 'exit 130' INT TERM
unset ABX_DIR ABX_NOW
ABX_SYNC=0   # the same in both directories; syncs cost what the disk does
export ABX_SYNC
mkdir "$tmp/tree" && cp -R "$top/bin" "$tmp/tree/" || exit 73
bin=$tmp/tree/bin
mkdir -p "$tmp/plugins/noop"
printf '#!/bin/sh\nexit 0\n' >"$tmp/plugins/noop/on_Snapshot__10_noop.sh"
chmod +x "$tmp/plugins/noop/on_Snapshot__10_noop.sh"
ABX_PLUGINS_DIR=$tmp/plugins
export ABX_PLUGINS_DIR

# -- the directories
printf 'http://127.0.0.1:9/a\nhttp://127.0.0.1:9/b\n' | "$bin/abx-add" -d "$tmp/tpl" --plugins noop >/dev/null &&
	"$bin/abx-tick" -d "$tmp/tpl" && "$bin/abx-ctl" -d "$tmp/tpl" repair >/dev/null || exit 70
s0=$(date +%s)
python3 "$top/bench/gencrawls.py" "$tmp/tpl" "$tmp/big" "$n" || exit 70
rep=$("$bin/abx-ctl" -d "$tmp/big" repair) || exit 70
case $rep in
*'"torn":0,"requeued":0,"leases_dropped":0,"compacted":0,"tmp_swept":0,"locks_removed":0'*) ;;
*)
	echo "scale: error: abx-ctl repair changed the generated directory: $rep" >&2
	exit 70
	;;
esac
"$bin/abx-seal" -d "$tmp/big" --index || exit 70
# abx-add commits durably whatever ABX_SYNC says: its syncs must not pay
# for writing back the gigabytes just generated
sync
echo "scale: $n finished crawls of 2 snapshots generated and checked (abx-ctl repair: nothing to change) in $(($(date +%s) - s0)) s; $(du -sm "$tmp/big" | cut -f1) MB"
printf 'http://127.0.0.1:9/e\n' | "$bin/abx-add" -d "$tmp/empty" --plugins noop >/dev/null &&
	"$bin/abx-tick" -d "$tmp/empty" || exit 70

# run NAME DIR CMD...: time CMD (ms, into $tmp/NAME.DIR.ms) and its peak
# RSS (KB, into $tmp/NAME.DIR.kb); its stdout into $tmp/out
run() {
	_name=$1 _dir=$2
	shift 2
	_t0=$(date +%s%N)
	/usr/bin/time -f %M -o "$tmp/rss" "$@" >"$tmp/out" 2>"$tmp/err" || {
		echo "scale: error: $* failed:" >&2
		cat "$tmp/err" >&2
		exit 70
	}
	_t1=$(date +%s%N)
	echo $(((_t1 - _t0) / 1000)) >>"$tmp/$_name.$_dir.us"
	tail -n 1 "$tmp/rss" >>"$tmp/$_name.$_dir.kb"
}
med() { sort -n "$1" | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
maxof() { sort -n "$1" | tail -n 1; }

old=$(sed -n "$((n / 2))p" "$tmp/big/crawls.jsonl" | sed 's/.*"id":"\([^"]*\)".*/\1/')
eold=$(head -n 1 "$tmp/empty/crawls.jsonl" | sed 's/.*"id":"\([^"]*\)".*/\1/')
r=0
while [ "$r" -lt "$rounds" ]; do
	for d in big empty; do
		run add "$d" "$bin/abx-add" -d "$tmp/$d" --plugins noop "http://127.0.0.1:9/r$r-0" "http://127.0.0.1:9/r$r-0b"
		run claim "$d" "$bin/abx-claim" -d "$tmp/$d" -k snapshot -l 600
		sid=$(sed 's/.*"id":"\([^"]*\)".*/\1/' "$tmp/out")
		"$bin/abx-claim" -d "$tmp/$d" --release "$sid" || exit 70
		if [ "$d" = big ]; then f=$old; else f=$eold; fi
		run ls "$d" "$bin/abx-ls" -d "$tmp/$d" --jsonl "$f"
		grep -q "\"id\":\"$f\"" "$tmp/out" || {
			echo "scale: error: abx-ls $f did not print it" >&2
			exit 70
		}
		i=1
		while [ "$i" -lt 10 ]; do
			"$bin/abx-add" -d "$tmp/$d" --plugins noop "http://127.0.0.1:9/r$r-$i" "http://127.0.0.1:9/r$r-${i}b" \
				>/dev/null || exit 70
			i=$((i + 1))
		done
		wc -c <"$tmp/$d/index/active.jsonl" >>"$tmp/idx.$d"
		run pass "$d" "$bin/abx-tick" -d "$tmp/$d"
		[ "$("$bin/abx-ls" -d "$tmp/$d" -k crawl -s queued | wc -l)" -eq 0 ] || {
			echo "scale: error: the pass left queued crawls in $d" >&2
			exit 70
		}
	done
	r=$((r + 1))
done
echo "scale: median of $rounds rounds, $n finished crawls vs none (ABX_SYNC=0, no-op hook):"
printf 'scale:   %-28s %10s %10s %7s %9s\n' what "big ms" "empty ms" ratio "big RSS"
bad=0
for w in pass add claim ls; do
	b=$(med "$tmp/$w.big.us")
	e=$(med "$tmp/$w.empty.us")
	kb=$(maxof "$tmp/$w.big.kb")
	case $w in
	pass) label="abx-tick, 10 new crawls" ;;
	add) label="abx-add, one crawl" ;;
	claim) label="abx-claim, one snapshot" ;;
	ls) label="abx-ls, one finished crawl" ;;
	esac
	ratio=$(awk -v b="$b" -v e="$e" 'BEGIN { printf "%.2f", b / e }')
	printf 'scale:   %-28s %10.1f %10.1f %6sx %6d KB\n' "$label" "$(awk -v v="$b" 'BEGIN { print v / 1000 }')" \
		"$(awk -v v="$e" 'BEGIN { print v / 1000 }')" "$ratio" "$kb"
	awk -v r="$ratio" -v kb="$kb" 'BEGIN { exit !(r > 1.2 || kb >= 16384) }' && bad=$((bad + 1))
done
echo "scale:   index/active.jsonl with 10 crawls queued: $(maxof "$tmp/idx.big") bytes beside $n finished ones, $(maxof "$tmp/idx.empty") alone"
if [ "$bad" -gt 0 ]; then
	echo "scale: $bad of 4 figures miss the goal (ratio <= 1.2x, RSS < 16 MB)"
else
	echo "scale: every ratio <= 1.2x and every RSS < 16 MB"
fi
