#!/bin/sh
# The claim race of gluster-claim-race.sh, each mount a host of its own
# boot ($ABX_TEST_BOOT_ID): the index one host wrote is reused by the
# other (lib/store/index.c, its chain of marks checked), with claims of
# both interleaved on the lock.  Every snapshot is claimed exactly once,
# and either host reads what the journals say.
# shellcheck source-path=SCRIPTDIR source=lib/tap.sh
. "$(dirname "$0")/lib/tap.sh"
# shellcheck source-path=SCRIPTDIR source=lib/gluster-rig.sh
. "$(dirname "$0")/lib/gluster-rig.sh"
rig_start coherent
plan 7
N=300
i=0
while [ $i -lt $N ]; do echo "http://127.0.0.1:1/page/$i"; i=$((i + 1)); done |
	ABX_TEST_BOOT_ID=boot-a ABX_SYNC=0 abx-add -d "$M1/data" >/dev/null
I=$M2/data/index/active.jsonl
ino0=$(stat -c %i "$I")
ABX_TEST_BOOT_ID=boot-b abx-claim -d "$M2/data" -k snapshot -l 3600 >"$T/claims.0" 2>"$T/err.0"
is "$(stat -c %i "$I")" "$ino0" "another boot's claim reused the index (one file)"
claimer() {
	while ABX_TEST_BOOT_ID=$2 ABX_HOST=$2 abx-claim -d "$3/data" -k snapshot -l 3600 >>"$T/claims.$1" \
	    2>>"$T/err.$1"; do :; done
}
claimer 1 boot-a "$M1" & claimer 2 boot-a "$M1" &
claimer 3 boot-b "$M2" & claimer 4 boot-b "$M2" &
wait
diag "boot lines in the index at the end: $(grep -c '"type":"Index"' "$I")"
cat "$T"/claims.* | jq -r .id | sort >"$T/all"
is "$(wc -l <"$T/all" | tr -d ' ')" $N "$N claims in all"
is "$(sort -u "$T/all" | wc -l | tr -d ' ')" $N "no snapshot claimed twice"
is "$(cat "$T"/err.* | grep -v -e '^$' -e '^abx-claim: warning: waiting for the lock ' | head -3)" "" \
	"no claimer reported an error"
is "$(ABX_TEST_BOOT_ID=boot-a abx-ls -d "$M1/data" -k snapshot -s started | wc -l | tr -d ' ')" $N \
	"all $N are started, read by one boot"
is "$(ABX_TEST_BOOT_ID=boot-b abx-ls -d "$M2/data" -k snapshot -s started | wc -l | tr -d ' ')" $N \
	"... and by the other"
bad=0
for j in "$M1"/data/crawls.jsonl "$M1"/data/crawls/*/snapshots.jsonl; do
	jq -c . "$j" >/dev/null 2>&1 || bad=$((bad + 1))
done
is $bad 0 "every journal is valid JSONL"
done_testing
