#!/bin/sh
# gluster.sh — abx on a GlusterFS volume (the two-mount rig of
# tests/lib/gluster-rig.sh, coherent options), as ratios measured in the
# same run:
#   1. a durable claim in-process against the volume's own floor (flock +
#      512-byte append + fdatasync on it): bench/fsfloor on the volume, and
#      on the local disk for comparison (goal on the volume: <= 2x);
#      then the brick's operations (gluster volume profile) for 20 claims
#      alone and 20 floor operations alone, per operation: every durable
#      claim must reach the brick as an FSYNC, or the bench fails;
#   2. a claiming process (abx-claim, exec to exit) on the volume against
#      one on the local disk;
#   3. a 200-page crawl by two ticks on the two mounts against one tick on
#      the local disk (goal: <= 3x), alternated: local, volume, local,
#      volume, each in a fresh data directory; the ratio is of the sums,
#      and the load average is printed with it; and the brick's operations
#      a page over the volume's crawls (gluster volume profile, cleared
#      before each and read after: every process of the crawl, hooks and
#      wget included), the most frequent first.
# Environment: ABX_BENCH_GLUSTER_PAGES (100: pages a seed, two seeds),
# ABX_BENCH_GLUSTER_ROUNDS (2), ABX_BENCH_GLUSTER_ONLY=crawl (section 3
# alone: a quicker loop, e.g. with PAGES=10 under strace -f on the ticks),
# ABX_BENCH_GLUSTER_BASE: another build of abx (a directory with bin/ and
# share/, such as a git worktree of an older commit after make) whose
# crawls alternate with this one's in section 3 (local, volume, base
# local, base volume, each round), reported as this build / the base on
# the volume and locally: two builds compared in one run.
# Skipped, with the reason, where the rig cannot start (needs root,
# /dev/fuse, glusterfs-server and glusterfs-client).
dir=$(cd "$(dirname "$0")" && pwd)
if [ ! -x "$dir/fsfloor" ]; then
	echo "gluster: error: $dir/fsfloor is not built (run make bench)" >&2
	exit 69
fi
# the rig's helpers need tap.sh's $T, wait_for and cleanup; it prints nothing
# shellcheck source=../tests/lib/tap.sh
. "$dir/../tests/lib/tap.sh"
. "$dir/../tests/lib/gluster-rig.sh"
why=$(rig_why)
if [ -n "$why" ]; then
	echo "gluster: skipped: $why"
	exit 0
fi
rig_start coherent >/dev/null
pages=${ABX_BENCH_GLUSTER_PAGES:-100}
rounds=${ABX_BENCH_GLUSTER_ROUNDS:-2}
ms() { date +%s%N | cut -c1-13; }

if [ "${ABX_BENCH_GLUSTER_ONLY:-}" != crawl ]; then
"$dir/fsfloor" -d "$M1" -r 5 -k 20 || exit $?
"$dir/fsfloor" -d "${TMPDIR:-/tmp}" -r 5 -k 20 || exit $?

# the brick's operations: fsfloor -p runs this around its claims alone and
# its floor operations alone, the profile cleared before and read after
rig_gluster volume profile "$RIG_VOL" start >/dev/null || exit 1
RIG_DIR=$RIG
export RIG_DIR RIG_VOL
# shellcheck disable=SC2016 # expanded by the sh that fsfloor runs
"$dir/fsfloor" -d "$M1" -r 1 -k 20 -w 0 -p '
	if [ "$FSFLOOR_PHASE" = before ]; then a=clear; else a=cumulative; fi
	gluster --mode=script --glusterd-sock="$RIG_DIR/run/gd.sock" --log-file="$RIG_DIR/log/cli.log" \
	    volume profile "$RIG_VOL" info $a >"$RIG_DIR/profile.$FSFLOOR_WHAT"' >/dev/null || exit $?
rig_gluster volume profile "$RIG_VOL" stop >/dev/null
# brick_ops WHAT N: "total (FOP count, ...)" per operation, FSYNC first
brick_ops() {
	awk -v n="$2" '/No. of calls/ { t = 1; next }
	t && $NF ~ /^[A-Z]+$/ && $(NF - 1) ~ /^[0-9]+$/ { c[$NF] += $(NF - 1); all += $(NF - 1) }
	END {
		printf "%.1f (FSYNC %.2f", all / n, c["FSYNC"] / n
		for (f in c) if (f != "FSYNC") printf ", %s %.2f", f, c[f] / n
		printf ")\n"
	}' "$RIG/profile.$1"
}
fsyncs=$(brick_ops claim 20 | sed 's/.*(FSYNC \([0-9.]*\).*/\1/')
echo "gluster: brick operations per durable claim: $(brick_ops claim 20)"
echo "gluster: brick operations per floor operation: $(brick_ops floor 20)"
if ! awk -v f="$fsyncs" 'BEGIN { exit !(f >= 1) }'; then
	echo "gluster: error: $fsyncs FSYNC at the brick per durable claim (20 claims): a claim's journal line is not synced to the volume" >&2
	exit 1
fi

# claiming processes: N claims, each its own abx-claim, on each side
N=100
for side in volume local; do
	if [ $side = volume ]; then D=$M1/procs; else D=$T/procs; fi
	i=0
	while [ $i -lt $N ]; do echo "http://127.0.0.1:1/p/$i"; i=$((i + 1)); done |
		ABX_SYNC=0 abx-add -d "$D" >/dev/null || exit 1
	t0=$(ms)
	i=0
	while [ $i -lt $N ]; do abx-claim -d "$D" -k snapshot -l 3600 >/dev/null || exit 1; i=$((i + 1)); done
	eval "t_$side=$(( $(ms) - t0 ))"
done
# shellcheck disable=SC2154
awk -v v="$t_volume" -v l="$t_local" -v n=$N 'BEGIN {
	printf "gluster: a claiming process (abx-claim, durable): %.1f ms on the volume, %.1f ms local: %.1fx (%d each)\n",
	    v / n, l / n, v / l, n }'
fi

# a 200-page crawl: two crawls of 100 pages, one tick on each mount (each
# its own host, 4 slots each), against one crawl of the same two seeds by
# one tick on local disk with 8 slots (a tick runs one crawl at a time);
# --plugins wget,parse_html_urls, 50 ms a response
mkdir -p "$T/site"
python3 "$dir/site.py" "$T/site" "$pages" || exit 70
python3 "$dir/../tests/httpd.py" --port-file "$T/port" --root "$T/site" --latency-ms 50 &
hp=$!
i=0
while [ ! -s "$T/port" ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
U=http://127.0.0.1:$(cat "$T/port")
c_volume=0 c_local=0 c_bvolume=0 c_blocal=0
base=${ABX_BENCH_GLUSTER_BASE:-}
if [ -n "$base" ] && { [ ! -x "$base/bin/abx-tick" ] || [ ! -d "$base/share" ]; }; then
	echo "gluster: error: ABX_BENCH_GLUSTER_BASE=$base: no built abx there (bin/abx-tick, share/)" >&2
	exit 66
fi
crawl() { # crawl SIDE ROUND [PATH]: SIDE volume, local, bvolume or blocal (the base build's)
	if [ -n "${3:-}" ]; then
		_path=$PATH
		PATH=$3:$PATH
	fi
	_d=crawl$2$(case $1 in b*) echo b ;; esac)
	case $1 in
	*volume) A=$M1/$_d B=$M2/$_d ;;
	*) A=$T/$_d B=$T/$_d ;;
	esac
	crawl_in "$@"
	if [ -n "${3:-}" ]; then PATH=$_path; fi
}
crawl_in() {
	if [ "${1#b}" = volume ]; then
		ca=$(abx-add -d "$A" --depth 1 --plugins wget,parse_html_urls "$U/a/index.html" | jq -r .id)
		cb=$(abx-add -d "$B" --depth 1 --plugins wget,parse_html_urls "$U/b/index.html" | jq -r .id)
	else
		abx-add -d "$A" --depth 1 --plugins wget,parse_html_urls --config CRAWL_MAX_CONCURRENT_SNAPSHOTS=8 \
			"$U/a/index.html" "$U/b/index.html" >/dev/null
	fi
	if [ "${1#b}" = volume ]; then
		rig_gluster volume profile "$RIG_VOL" info clear >/dev/null
	fi
	t0=$(ms)
	if [ "${1#b}" = volume ]; then
		ABX_HOST=host-a abx-tick -d "$A" --crawl "$ca" >/dev/null 2>&1 &
		pa=$!
		ABX_HOST=host-b abx-tick -d "$B" --crawl "$cb" >/dev/null 2>&1
		wait "$pa"
		rig_gluster volume profile "$RIG_VOL" info cumulative >"$RIG/profile.crawl.$1.$2"
	else
		abx-tick -d "$A" >/dev/null 2>&1
	fi
	eval "c_$1=\$((c_$1 + $(ms) - t0))"
	eval "n_$1=$(abx-ls -d "$A" -k snapshot -s sealed --jsonl | wc -l | tr -d ' ')"
}
rig_gluster volume profile "$RIG_VOL" start >/dev/null 2>&1
load0=$(cut -d' ' -f1 /proc/loadavg)
round=1
while [ $round -le "$rounds" ]; do
	crawl local $round
	crawl volume $round
	if [ -n "$base" ]; then
		crawl blocal $round "$base/bin"
		crawl bvolume $round "$base/bin"
	fi
	round=$((round + 1))
done
load1=$(cut -d' ' -f1 /proc/loadavg)
kill "$hp" 2>/dev/null
# shellcheck disable=SC2154
awk -v v="$c_volume" -v l="$c_local" -v nv="$n_volume" -v nl="$n_local" -v p=$((2 * pages)) -v r="$rounds" \
    -v la="$load0" -v lb="$load1" 'BEGIN {
	printf "gluster: a %d-page crawl: two ticks on two mounts %.2f s (%d sealed), one tick on local disk %.2f s (%d sealed): %.2fx (%d rounds alternated, mean; load %s to %s)\n",
	    p, v / (1000 * r), nv, l / (1000 * r), nl, v / l, r, la, lb }'
# crawl_ops SIDE: the brick's operations a page over SIDE's volume crawls
crawl_ops() {
	cat "$RIG"/profile.crawl."$1".* 2>/dev/null | awk -v n=$((2 * pages * rounds)) -f "$dir/brickops.awk"
}
echo "gluster: brick operations a page in the two-mount crawl: $(crawl_ops volume)"
if [ -n "$base" ]; then
	# shellcheck disable=SC2154
	awk -v v="$c_volume" -v l="$c_local" -v bv="$c_bvolume" -v bl="$c_blocal" -v nv="$n_bvolume" \
	    -v nl="$n_blocal" -v r="$rounds" -v b="$base" 'BEGIN {
		printf "gluster: the base build (%s): two ticks on two mounts %.2f s (%d sealed), one tick on local disk %.2f s (%d sealed): %.2fx\n",
		    b, bv / (1000 * r), nv, bl / (1000 * r), nl, bv / bl
		printf "gluster: this build / the base: %.2fx on the volume, %.2fx on local disk\n", v / bv, l / bl }'
	echo "gluster: the base build's brick operations a page: $(crawl_ops bvolume)"
fi
