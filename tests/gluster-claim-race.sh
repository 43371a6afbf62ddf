#!/bin/sh
# The claim race across two hosts: one data directory on a GlusterFS volume
# (coherent options, abx(7) ASSUMPTIONS) mounted twice; 1,000 due snapshots;
# four claimers, two on each mount, each mount its own host (ABX_HOST).
# Every snapshot is claimed exactly once, and every journal line is valid.
. "$(dirname "$0")/lib/tap.sh"
. "$(dirname "$0")/lib/gluster-rig.sh"
rig_start coherent
plan 6
N=1000
i=0
while [ $i -lt $N ]; do echo "http://127.0.0.1:1/page/$i"; i=$((i + 1)); done |
	ABX_SYNC=0 abx-add -d "$M1/data" >/dev/null
is "$(abx-ls -d "$M2/data" -k snapshot -s queued | wc -l | tr -d ' ')" $N \
    "$N snapshots queued on one mount, seen on the other"

claimer() {
	while ABX_HOST=$2 abx-claim -d "$3/data" -k snapshot -l 3600 >>"$T/claims.$1" 2>>"$T/err.$1"; do :; done
}
start=$(date +%s)
claimer 1 host-a "$M1" & claimer 2 host-a "$M1" &
claimer 3 host-b "$M2" & claimer 4 host-b "$M2" &
wait
diag "$N claims by 4 claimers on 2 mounts: $(( $(date +%s) - start )) s"
cat "$T"/claims.* | jq -r .id | sort >"$T/all"
is "$(wc -l <"$T/all" | tr -d ' ')" $N "$N claims in all"
is "$(sort -u "$T/all" | wc -l | tr -d ' ')" $N "no snapshot claimed twice"
# (a claimer that waits long for the store's lock says so: at a high load
# that is no error)
is "$(cat "$T"/err.* | grep -v -e '^$' -e '^abx-claim: warning: waiting for the lock ' | head -3)" "" \
	"no claimer reported an error"
is "$(abx-ls -d "$M1/data" -k snapshot -s started | wc -l | tr -d ' ')" $N "all $N are started"
bad=0
for j in "$M1"/data/crawls.jsonl "$M1"/data/crawls/*/snapshots.jsonl; do
	jq -c . "$j" >/dev/null 2>&1 || bad=$((bad + 1))
done
is $bad 0 "every journal is valid JSONL"
done_testing
