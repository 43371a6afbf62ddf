#!/bin/sh
# The daemon never spins on due work it cannot run now (here: a due
# snapshot whose crawl another process holds), and a retry made while a
# snapshot runs is not thrown away when its run ends.
. "$(dirname "$0")/lib/tap.sh"
. "$(dirname "$0")/lib/tick-lib.sh"
D=$T/data
slow_plugin slow
echo 2 >"$T/slow.s"
C=$(abx-add -d "$D" --plugins slow http://127.0.0.1:1/a | jq -r .id)
abx-claim -d "$D" -k crawl -i "$C" sleep 30 &
holder=$!
ok "the crawl is held by another process" wait_for 5 abx-claim -d "$D" --test "$C"
abx-tick -d "$D" --daemon 2>"$T/daemon.err" &
dpid=$!
sleep 1
t0=$(awk '{print $14 + $15}' "/proc/$dpid/stat")
sleep 3
t1=$(awk '{print $14 + $15}' "/proc/$dpid/stat")
ok "the daemon sleeps while the due snapshot's crawl is held ($((t1 - t0)) ticks of CPU in 3 s)" \
	test $((t1 - t0)) -lt 50
kill "$holder"
wait "$holder" 2>/dev/null
ok "once the crawl is free the daemon runs it" wait_for 15 sh -c \
	"abx-ls -d '$D' -k snapshot -s sealed --jsonl | grep -q ."
kill "$dpid"
wait "$dpid" 2>/dev/null

# abx-ctl retry while the snapshot runs: the retry stands
D2=$T/data2
C2=$(abx-add -d "$D2" --plugins slow http://127.0.0.1:1/b | jq -r .id)
S2=$(abx-ls -d "$D2" -k snapshot --jsonl | jq -r .id)
abx-tick -d "$D2" --crawl "$C2" 2>/dev/null &
tick=$!
ok "the snapshot is running" wait_for 10 sh -c "grep -q '^start $S2' '$T/slow.log'"
abx-ctl -d "$D2" retry "$S2" --plugins slow
wait "$tick"
n=$(grep -c "^start $S2" "$T/slow.log")
is "$n" 2 "the tick ran the retried snapshot again instead of sealing the retry away"
is "$(abx-ls -d "$D2" "$S2" | jq -r .status)" sealed "and sealed it after that run"
done_testing
