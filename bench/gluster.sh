#!/bin/sh
# gluster.sh — abx on a GlusterFS volume (the two-mount rig of
# tests/lib/gluster-rig.sh, coherent options), as ratios measured in the
# same run:
#   1. a durable claim in-process against the volume's own floor (flock +
#      512-byte append + fdatasync on it): bench/fsfloor on the volume, and
#      on the local disk for comparison (goal on the volume: <= 2x);
#   2. a claiming process (abx-claim, exec to exit) on the volume against
#      one on the local disk.
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

"$dir/fsfloor" -d "$M1" -r 5 -k 20 || exit $?
"$dir/fsfloor" -d "${TMPDIR:-/tmp}" -r 5 -k 20 || exit $?

# claiming processes: N claims, each its own abx-claim, on each side
N=100
ms() { date +%s%N | cut -c1-13; }
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
