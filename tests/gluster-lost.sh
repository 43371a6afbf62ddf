#!/bin/sh
# A lost host's work is recovered, on a GlusterFS volume (coherent options):
#  1. host-b holds a snapshot's lease (abx-claim ... CMD) on its mount and is
#     cut off (its client killed): the brick drops its locks, and host-a
#     claims the snapshot through the other mount;
#  2. the brick restarts under a host that holds a lease: the lock is gone,
#     host-a claims the item, and when host-b's command then tries to seal
#     it, it finds its lease lost and commits nothing (exit 75).
. "$(dirname "$0")/lib/tap.sh"
. "$(dirname "$0")/lib/gluster-rig.sh"
rig_start coherent
plan 9
A=$M1/data B=$M2/data
abx-add -d "$A" http://127.0.0.1:1/one >/dev/null
S1=$(abx-ls -d "$A" -k snapshot --jsonl | jq -r .id)

# 1. host-b holds S1, then is cut off
# shellcheck disable=SC2016
ABX_HOST=host-b abx-claim -d "$B" -k snapshot sh -c 'echo "$ABX_ID" >"$T/held.b"; exec sleep 600' \
	>/dev/null 2>"$T/b.err" &
ok "host-b holds the snapshot" wait_for 20 test -s "$T/held.b"
is "$(cat "$T/held.b")" "$S1" "... the one queued"
expect_exit 1 "host-a finds nothing due while host-b holds it" \
	env ABX_HOST=host-a abx-claim -d "$A" -k snapshot -l 60
rig_cut m2
t0=$(date +%s)
take() { ABX_HOST=host-a abx-claim -d "$A" -k snapshot -l 3600 >"$T/take.out" 2>>"$T/take.err"; }
ok "host-a claims it once host-b is cut off" wait_for 60 take
diag "taken over $(( $(date +%s) - t0 )) s after the cut"
is "$(jq -r .id "$T/take.out")" "$S1" "... the same snapshot"
is "$(jq -r .lease.host "$T/take.out")" host-a "... leased by host-a"

# 2. the brick restarts while host-a holds a lease through m1
abx-add -d "$A" http://127.0.0.1:1/two >/dev/null
S2=$(abx-ls -d "$A" -k snapshot -s queued --jsonl | jq -r .id)
# shellcheck disable=SC2016
ABX_HOST=host-a abx-claim -d "$A" -k snapshot -i "$S2" sh -c '
	echo held >"$T/held.a"
	while [ ! -e "$T/resume" ]; do sleep 0.1; done
	abx-seal -d "$ABX_DIR" "$ABX_ID" >"$T/seal.out" 2>"$T/seal.err"
	echo $? >"$T/seal.rc"' >/dev/null 2>"$T/a.err" &
wait_for 20 test -s "$T/held.a" || fail "host-a holds S2"
rig_brick_restart
# host-c: a third client (host-b's is dead)
rig_mount m3 "$RIG_MOUNT_OPTS" || fail "mount a third client"
take2() { ABX_HOST=host-c abx-claim -d "$RIG/m3/data" -i "$S2" -l 3600 >"$T/take2.out" 2>>"$T/take2.err"; }
ok "after the brick restarted, another host can claim S2" wait_for 60 take2
[ -s "$T/take2.out" ] || diag "$(tail -3 "$T/take2.err")" "$(cat "$RIG/log/restart.out")" "$(tail -5 "$RIG/log/glusterd.log" | cut -c1-250)"
wait_for 30 test -e "$A/abx.conf"   # host-a's client is connected again
touch "$T/resume"
wait_for 30 test -s "$T/seal.rc"
is "$(cat "$T/seal.rc" 2>/dev/null)" 75 "host-a's seal under the lost lease commits nothing (75)"
is "$(abx-ls -d "$RIG/m3/data" "$S2" | jq -r '"\(.status) \(.lease.host)"')" "started host-c" \
	"S2 stays started, leased by host-c"
diag "seal: $(cat "$T/seal.err" 2>/dev/null)"
done_testing
