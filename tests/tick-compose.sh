#!/bin/sh
# abx-tick composes the tools: its workers are exec'd abx-hook processes
# that hold nothing of the tick's but stderr and their own lease, so no
# death of the tick can leave the store locked; a tick started with SIGCHLD
# ignored works; a snapshot held by a stuck worker elsewhere is waited on,
# never spun on; a crawl whose journal cannot be read is reported and the
# pass goes on with the others.
. "$(dirname "$0")/lib/tap.sh"
. "$(dirname "$0")/lib/tick-lib.sh"
. "$(dirname "$0")/lib/procs.sh"

# a hook that sleeps 0.2 s for a "fast" URL, 4 s for a "slow" one, and
# otherwise records its pid and its parent's and waits for $T/go (at most
# 20 s); it always succeeds
probe_plugin() {
	mkdir -p "$T/plugins/probe"
	cat >"$T/plugins/probe/on_Snapshot__50_probe.sh" <<EOF
#!/bin/sh
case "\${1#--url=}" in
*fast*) sleep 0.2 ;;
*slow*) sleep 4 ;;
*)
	echo "\$\$ \$PPID" >>"$T/probe.pids"
	i=0
	while [ ! -e "$T/go" ] && [ \$i -lt 400 ]; do sleep 0.05; i=\$((i + 1)); done
	;;
esac
echo '{"type":"ArchiveResult","status":"succeeded","output_str":"probed"}'
EOF
	chmod +x "$T/plugins/probe/on_Snapshot__50_probe.sh"
	ABX_PLUGINS_DIR=$T/plugins
	export ABX_PLUGINS_DIR
}
probe_plugin
# the workers of this section's data directory $D (abx-hook -d $D ...)
workers() { ! none_in "$D" abx-hook; }
no_workers() { none_in "$D" abx-hook; }

# ---- 1. a worker is a clean process image
D=$T/d1
abx-add -d "$D" --plugins probe http://127.0.0.1:9/page >/dev/null
setsid abx-tick -d "$D" 2>"$T/tick1.err" &
tick=$!
track_group "$tick"
ok "the hook started" wait_for 20 test -s "$T/probe.pids"
read -r hook worker <"$T/probe.pids"
is "$(ps -o ppid= -p "$worker" | tr -d ' ')" "$tick" "the hook's parent is a child of abx-tick"
like "$(readlink "/proc/$worker/exe")" '/abx-hook$' "and that worker is the abx-hook program (exec'd, not a fork)"
S=$(abx-ls -d "$D" -k snapshot --jsonl | jq -r .id)
like "$(readlink "/proc/$worker/fd/3")" "/locks/$S\$" "its fd 3 is the snapshot's lease"
lease_named() { grep -qz '^ABX_LEASE_FD=3$' "/proc/$1/environ" || grep -qz '^--serve$' "/proc/$1/cmdline"; }
ok "its environment names the lease, or it serves (the lease came on its socket)" lease_named "$worker"
python3 "$TOP/tests/lib/sharedfds.py" "$worker" "$tick" 2 3 >"$T/shared.w" 2>"$T/shared.err"
if [ $? -eq 2 ]; then
	pass "# SKIP kcmp unavailable: $(cat "$T/shared.err")"
	pass "# SKIP kcmp unavailable"
else
	is "$(cat "$T/shared.w")" "" "the worker shares no open file with abx-tick but stderr and its lease"
	python3 "$TOP/tests/lib/sharedfds.py" "$hook" "$tick" >"$T/shared.h"
	# its stdout and stderr are the log files its worker opened for it
	python3 "$TOP/tests/lib/sharedfds.py" "$hook" "$worker" 1 2 >>"$T/shared.h"
	is "$(cat "$T/shared.h")" "" "the hook shares none with abx-tick, none but its logs with its worker"
fi
touch "$T/go"
wait_exit "$tick" 20
is "$(abx-ls -d "$D" -k snapshot --jsonl | jq -r .status)" sealed "the snapshot is sealed"

# ---- 2. kill -9 of abx-tick alone while it holds the store lock
D=$T/d2
abx-add -d "$D" --plugins probe --config CRAWL_MAX_CONCURRENT_SNAPSHOTS=2 \
	http://127.0.0.1:9/fast http://127.0.0.1:9/slow >/dev/null
ABX_TEST_FAULT=seal-locked abx-tick -d "$D" 2>"$T/tick2.err" &
tick=$!
wait "$tick"
is "$?" 137 "abx-tick died by SIGKILL inside the seal, holding the store lock"
t0=$(date +%s)
ok "abx-add gets the store at once (within 2 s)" sh -c "timeout 2 abx-add -d $D http://127.0.0.1:9/fast3 >/dev/null"
ok "so does abx-ctl repair" sh -c "timeout 2 abx-ctl -d $D repair >/dev/null"
ok "and abx-ls" sh -c "timeout 2 abx-ls -d $D >/dev/null"
ok "all within 3 s of the death" test $(($(date +%s) - t0)) -le 3
ok "the orphaned worker ends" wait_for 20 no_workers
# exit 2: the hooks of the unreachable fast3 failed (and said so)
expect_exit 2 "the next tick finishes the work" abx-tick -d "$D"
is "$(abx-ls -d "$D" -k snapshot --jsonl | jq -r .status | sort | uniq -c | tr -s ' ')" " 3 sealed" \
	"every snapshot is sealed"
is "$(jq -r 'select(.type == "Snapshot" and .status == "sealed") | .id' \
	"$D"/crawls/*/snapshots.jsonl | sort | uniq -d)" "" "each once"

# ---- 3. abx-tick started with SIGCHLD ignored
D=$T/d3
abx-add -d "$D" --plugins probe http://127.0.0.1:9/fast1 http://127.0.0.1:9/fast2 >/dev/null
# shellcheck disable=SC2016
expect_exit 0 "abx-tick with SIGCHLD ignored runs the crawl" \
	timeout 30 perl -e '$SIG{CHLD} = "IGNORE"; exec @ARGV or die' abx-tick -d "$D"
is "$(abx-ls -d "$D" -k snapshot -s sealed --jsonl | wc -l | tr -d ' ')" 2 "both snapshots are sealed"
abx-add -d "$D" --plugins probe http://127.0.0.1:9/slow3 >/dev/null
# shellcheck disable=SC2016
perl -e '$SIG{CHLD} = "IGNORE"; exec @ARGV or die' abx-tick -d "$D" 2>/dev/null &
tick=$!
ok "its worker starts" wait_for 20 workers
kill -TERM "$tick"
wait_exit "$tick" 10
is "$?" 143 "and SIGTERM stops it (128 + SIGTERM)"
kill -9 "$tick" 2>/dev/null

# ---- 4. a snapshot held by a stuck worker elsewhere is waited on
D=$T/d4
rm -f "$T/go" "$T/probe.pids"
abx-add -d "$D" --plugins probe http://127.0.0.1:9/fast4 http://127.0.0.1:9/held >/dev/null
C4=$(abx-ls -d "$D" -k crawl --jsonl | jq -r .id)
abx-tick -d "$D" 2>/dev/null &
tick=$!
ok "a first pass makes the snapshots" wait_for 20 test -s "$T/probe.pids"
kill -9 "$tick"
wait "$tick" 2>/dev/null
ok "its worker ends" wait_for 30 no_workers
H=$(abx-ls -d "$D" -k snapshot --jsonl | jq -r 'select(.url | test("held")) | .id')
abx-claim -d "$D" -i "$H" sleep 30 >/dev/null 2>&1 &
holder=$!
ok "a stuck holder (abx-claim ... sleep) holds the held page" wait_for 10 abx-claim -d "$D" --test "$H"
lines0=$(cat "$D"/crawls.jsonl "$D"/crawls/*/snapshots.jsonl | wc -l)
t0=$(date +%s)
timeout 20 abx-tick -d "$D" 2>"$T/tick4.err"
rc=$?
ok "abx-tick ends its pass instead of spinning (exit $rc)" test "$rc" -eq 0 -o "$rc" -eq 1
ok "in a few seconds" test $(($(date +%s) - t0)) -le 8
lines1=$(cat "$D"/crawls.jsonl "$D"/crawls/*/snapshots.jsonl | wc -l)
ok "the journals grew by a few lines, not thousands ($lines0 -> $lines1)" test $((lines1 - lines0)) -lt 20
ra=$(abx-ls -d "$D" "$C4" | jq -r .retry_at)
ok "the crawl waits ($ra): it is not due now" test "$ra" \> "$(date -u +%Y-%m-%dT%H:%M:%S)"
kill "$holder" 2>/dev/null
wait "$holder" 2>/dev/null
touch "$T/go"
sealed_c4() {
	abx-tick -d "$D" >/dev/null 2>&1
	test "$(abx-ls -d "$D" "$C4" | jq -r .status)" = sealed
}
ok "once the holder is gone a tick finishes it" wait_for 40 sealed_c4

# ---- 5. a crawl whose journal cannot be read: reported, the others run
D=$T/d5
abx-add -d "$D" --plugins probe http://127.0.0.1:9/fast5 >/dev/null
B=$(abx-ls -d "$D" -k crawl --jsonl | jq -r .id)
abx-add -d "$D" --plugins probe http://127.0.0.1:9/fast6 >/dev/null
G=$(abx-ls -d "$D" -k crawl --jsonl | jq -r .id | grep -v "$B")
mv "$D/crawls/$B/snapshots.jsonl" "$T/b.jsonl"
mkdir "$D/crawls/$B/snapshots.jsonl"   # a directory: read(2) fails
timeout 30 abx-tick -d "$D" 2>"$T/tick5.err"
is "$?" 74 "abx-tick exits 74 (an I/O error)"
like "$(cat "$T/tick5.err")" "crawls/$B/snapshots.jsonl: Is a directory" "and names the path and the cause"
is "$(abx-ls -d "$D" "$G" | jq -r .status)" sealed "the other crawl ran and is sealed"
abx-ls -d "$D" -k snapshot --jsonl >"$T/ls5.out" 2>"$T/ls5.err"
is "$?" 74 "abx-ls says it could not read everything (74)"
like "$(cat "$T/ls5.err")" "Is a directory" "naming the cause"
abx-claim -d "$D" -k snapshot >/dev/null 2>"$T/claim5.err"
is "$?" 74 "abx-claim of the next snapshot (the broken crawl's) fails cleanly (74)"
like "$(cat "$T/claim5.err")" "nothing claimed: .*Is a directory" "and says nothing was claimed, and why"
isnt_sealed=$(abx-ls -d "$D" "$B" | jq -r .status)
ok "the broken one is left to run again ($isnt_sealed)" test "$isnt_sealed" != sealed
rmdir "$D/crawls/$B/snapshots.jsonl"
mv "$T/b.jsonl" "$D/crawls/$B/snapshots.jsonl"
expect_exit 0 "once repaired, the next tick runs it" abx-tick -d "$D"
is "$(abx-ls -d "$D" "$B" | jq -r .status)" sealed "and seals it"

done_testing
