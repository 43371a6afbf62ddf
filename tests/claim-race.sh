#!/bin/sh
# Race: 4 processes claim in a loop from 1,000 due snapshots; every snapshot
# is claimed exactly once.
. "$(dirname "$0")/lib/tap.sh"
plan 4
D=$T/data
N=1000
i=0
while [ $i -lt $N ]; do echo "http://127.0.0.1:1/page/$i"; i=$((i + 1)); done |
	ABX_SYNC=0 abx-add -d "$D" >/dev/null
is "$(abx-ls -d "$D" -k snapshot -s queued | wc -l | tr -d ' ')" $N "$N snapshots queued"

claimer() {
	while abx-claim -d "$D" -k snapshot -l 3600 >>"$T/claims.$1"; do :; done
}
for w in 1 2 3 4; do claimer $w & done
wait
cat "$T"/claims.* | jq -r .id | sort >"$T/all"
is "$(wc -l <"$T/all" | tr -d ' ')" $N "$N claims in all"
is "$(sort -u "$T/all" | wc -l | tr -d ' ')" $N "no snapshot claimed twice"
is "$(abx-ls -d "$D" -k snapshot -s started | wc -l | tr -d ' ')" $N "all $N are started"
done_testing
