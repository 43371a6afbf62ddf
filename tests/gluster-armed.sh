#!/bin/sh
# Armed journal descriptors (lib/store/storefd.h) on a GlusterFS volume
# (coherent options: client.strict-locks on), the lock loss a real one:
# tests/unit/armed.c run with ABX_ARMED_DIR on the volume, the brick
# restarted where it waits (ready.N, then go.N):
#   1. between two transactions: its next claim goes through, once, and
#      the journal's descriptor, opened again, is armed again;
#   2. inside a transaction: the commit's write to the armed journal
#      fails, and it writes nothing and fails 75.
. "$(dirname "$0")/lib/tap.sh"
. "$(dirname "$0")/lib/gluster-rig.sh"
u=$BIN/../tests/unit/armed.t
[ -x "$u" ] || u=$TOP/tests/unit/armed.t
[ -x "$u" ] || { echo "1..0 # SKIP $u is not built"; exit 0; }
rig_start coherent
mkdir -p "$M1/armed"
ABX_ARMED_DIR=$M1/armed/data "$u" >"$T/armed.tap" 2>"$T/armed.err" &
up=$!
for k in 1 2; do
	wait_for 60 test -e "$M1/armed/ready.$k" || break
	rig_brick_restart
	wait_for 30 test -e "$M1/armed/ready.$k"   # the client is connected again
	touch "$M1/armed/go.$k"
done
wait "$up"
rc=$?
# the helper's own TAP, as this test's
sed -n 's/^ok [0-9]* - /ok /p; s/^not ok [0-9]* - /no /p' "$T/armed.tap" >"$T/armed.res"
n=$(wc -l <"$T/armed.res")
plan $((n + 2))
while read -r res rest; do
	if [ "$res" = ok ]; then pass "$rest"; else fail "$rest"; fi
done <"$T/armed.res"
is "$n" 8 "the helper ran its eight checks"
is "$rc" 0 "the helper passed"
[ "$rc" = 0 ] || diag "$(cat "$T/armed.err")"
done_testing
