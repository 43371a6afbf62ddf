#!/bin/sh
# abx-tick --daemon: wakes at once on new work, sleeps without CPU when idle,
# excludes a second daemon (75), re-reads abx.conf on SIGHUP, stops on
# SIGTERM (143) with in-flight work requeued, recovers the work of killed
# workers, and with --poll sees changes inotify cannot.
. "$(dirname "$0")/lib/tap.sh"
D=$T/data
LOG=$T/hooks.log   # one line per hook run: <epoch.ns> <snapshot id> <hook pid>

# mark logs and succeeds; slow does the same but sleeps 30 s the first
# time it runs for a snapshot (so a second run of that snapshot is quick).
for p in mark slow; do
	mkdir -p "$T/plugins/$p"
	cat >"$T/plugins/$p/on_Snapshot__10_$p.sh" <<EOF
#!/bin/sh
id=\$(printf '%s' "\$EXTRA_CONTEXT" | sed 's/.*"snapshot_id":"\\([^"]*\\)".*/\\1/')
echo "\$(date +%s.%N) \$id \$\$" >>"$LOG"
if [ "$p" = slow ] && [ ! -e "$T/ran.\$id" ]; then : >"$T/ran.\$id"; sleep 30; fi
echo '{"type":"ArchiveResult","status":"succeeded"}'
EOF
	chmod +x "$T/plugins/$p/on_Snapshot__10_$p.sh"
done
ABX_PLUGINS_DIR=$T/plugins
export ABX_PLUGINS_DIR
: >"$LOG"

# add PLUGIN URL: queue a crawl, print its snapshot's id
add() {
	_cid=$(abx-add -d "$D" --plugins "$1" "$2" | jq -r .id) || return 1
	abx-ls -d "$D" -k snapshot --jsonl | jq -r --arg c "$_cid" 'select(.crawl_id == $c) | .id'
}
ran() { grep -q " $1 " "$LOG"; }                 # the hook started for snapshot $1
runs() { grep -c " $1 " "$LOG"; }
hookpid() { grep " $1 " "$LOG" | head -n 1 | cut -d' ' -f3; }
status() { abx-ls -d "$D" --jsonl "$1" | jq -r .status; }
sealed() { [ "$(status "$1")" = sealed ]; }
cpu() { awk '{ print $14 + $15 }' "/proc/$1/stat"; }   # utime+stime, clock ticks
start_daemon() {   # start_daemon LOGFILE [ARGS...]: in its own process group; ABX_NOW=$DNOW if set
	_l=$1; shift
	if [ -n "${DNOW:-}" ]; then
		setsid env ABX_NOW="$DNOW" abx-tick --daemon -d "$D" -v "$@" 2>"$_l" &
	else
		setsid abx-tick --daemon -d "$D" -v "$@" 2>"$_l" &
	fi
	DPID=$!
	wait_for 10 grep -q 'daemon started' "$_l"
}
stop_daemon() {
	kill -TERM "$DPID" 2>/dev/null
	wait "$DPID"
}

abx-add -d "$D" --plugins mark http://127.0.0.1:1/first >/dev/null
abx-tick -d "$D"

# --- wake-up, idle, exclusion -------------------------------------------
ok "the daemon starts" start_daemon "$T/d1.log"
expect_exit 75 "a second daemon on the same directory exits 75" abx-tick --daemon -d "$D"
expect_exit 75 "so does a one-shot tick while the daemon runs" abx-tick -d "$D"
ok "the daemon is still running" kill -0 "$DPID"

t0=$(date +%s.%N)
S1=$(add mark http://127.0.0.1:1/new)
ok "a crawl added afterwards has its hook started" wait_for 5 ran "$S1"
lat=$(grep " $S1 " "$LOG" | head -n 1 | awk -v t0="$t0" '{ printf "%.3f", $1 - t0 }')
diag "from abx-add to the hook: $lat s"
ok "within a second of abx-add ($lat s)" awk -v l="${lat:-99}" 'BEGIN { exit !(l < 1) }'
ok "and its snapshot is sealed" wait_for 5 sealed "$S1"

sleep 0.5
c0=$(cpu "$DPID")
sleep 3
c1=$(cpu "$DPID")
hz=$(getconf CLK_TCK)
idle=$(awk -v a="$c0" -v b="$c1" -v hz="$hz" 'BEGIN { printf "%.3f", (b - a) / hz }')
diag "CPU time over 3 idle seconds: $idle s"
ok "idle, the daemon uses no CPU ($idle s in 3 s)" awk -v c="$idle" 'BEGIN { exit !(c < 0.05) }'

# --- SIGHUP ------------------------------------------------------------
printf 'DAEMON_POLL_INTERVAL=7\nDAEMON_REPAIR_INTERVAL=1\n' >>"$D/abx.conf"
kill -HUP "$DPID"
ok "SIGHUP: abx.conf re-read, with the new values logged" \
	wait_for 5 grep -q 'abx.conf re-read (poll 7 s, repair every 1 s)' "$T/d1.log"
ok "SIGHUP does not stop the daemon" kill -0 "$DPID"
S2=$(add mark http://127.0.0.1:1/after-hup)
ok "after SIGHUP new work still starts at once" wait_for 3 ran "$S2"

# --- killed worker: the daemon's own abx-hook killed with SIGKILL --------
S3=$(add slow http://127.0.0.1:1/worker-killed)
ok "a slow hook starts" wait_for 5 ran "$S3"
# the worker is the hook's parent, a child of the daemon
H3=$(hookpid "$S3")
W=$(awk '{ print $4 }' "/proc/$H3/stat" 2>/dev/null)
ok "the daemon's worker is found (the hook's parent, a child of the daemon)" \
	test -n "$W" -a "$(awk '{ print $4 }' "/proc/${W:-0}/stat" 2>/dev/null)" = "$DPID"
[ -n "$W" ] && kill -9 "$W"
kill -9 "-$H3" 2>/dev/null   # its orphaned hook, as a crash would leave it
ok "the snapshot of the killed worker is requeued, not sealed" wait_for 5 sh -c \
	"abx-ls -d '$D' --jsonl '$S3' | jq -e '.status == \"queued\" and .retry_at != null and .num_uses_failed == 1' >/dev/null"
ok "the daemon survives its worker's death" kill -0 "$DPID"

# --- SIGTERM with work in flight ----------------------------------------
S4=$(add slow http://127.0.0.1:1/in-flight)
ok "another slow hook starts" wait_for 5 ran "$S4"
H4=$(hookpid "$S4")
t0=$(date +%s)
kill -TERM "$DPID"
wait "$DPID"
is "$?" 143 "SIGTERM stops the daemon with exit 143"
ok "promptly, not after the hook's 30 s" test "$(($(date +%s) - t0))" -lt 15
ok "the in-flight hook was stopped" sh -c "! kill -0 $H4 2>/dev/null"
is "$(status "$S4")" queued "the in-flight snapshot is requeued, not sealed half done"
ok "due at once" sh -c "abx-ls -d '$D' --jsonl '$S4' | jq -e --arg now \"\$(date -u +%Y-%m-%dT%H:%M:%S.999999Z)\" '.retry_at <= \$now' >/dev/null"
expect_exit 1 "and its lease is free" abx-claim -d "$D" --test "$S4"

# a new daemon goes on where that one stopped; the killed worker's snapshot
# is re-run once its back-off (one minute) has passed: ABX_NOW moves there
ok "a new daemon starts" start_daemon "$T/d2.log"
ok "it runs the requeued snapshot again" wait_for 5 sealed "$S4"
is "$(runs "$S4")" 2 "the requeued snapshot ran twice in all"
stop_daemon
DNOW=$(date -u -d '+90 seconds' +%Y-%m-%dT%H:%M:%SZ)
ok "a daemon with the clock 90 s ahead starts" start_daemon "$T/d3.log"
DNOW=
ok "after its back-off the killed worker's snapshot is run again and sealed" wait_for 8 sealed "$S3"
ok "the retry's hook ran" test "$(runs "$S3")" -ge 2
stop_daemon

# --- kill -9 of a whole abx-tick holding a snapshot ---------------------
S5=$(add slow http://127.0.0.1:1/tick-killed)
setsid abx-tick -d "$D" 2>"$T/tick.log" &
TP=$!
ok "a one-shot tick runs the slow hook" wait_for 5 ran "$S5"
ok "it holds the snapshot's lease" abx-claim -d "$D" --test "$S5"
kill -9 "-$TP"
wait "$TP" 2>/dev/null
kill -9 "-$(hookpid "$S5")" 2>/dev/null
ok "the lease dies with its holder" wait_for 5 sh -c "! abx-claim -d '$D' --test '$S5'"
is "$(status "$S5")" started "the record still says started"
ok "a daemon started afterwards" start_daemon "$T/d4.log"
ok "re-runs the snapshot of the killed tick and seals it" wait_for 8 sealed "$S5"
is "$(runs "$S5")" 2 "its hook ran a second time"

# --- kill -9 of another lease holder while the daemon runs --------------
stop_daemon
S6=$(add mark http://127.0.0.1:1/claimed)
setsid abx-claim -d "$D" -i "$S6" sleep 100 &
CP=$!
ok "abx-claim holds the snapshot" wait_for 5 abx-claim -d "$D" --test "$S6"
ok "the daemon starts again" start_daemon "$T/d5.log"
sleep 1
ok "it leaves the held snapshot alone" sh -c "! grep -q ' $S6 ' '$LOG'"
kill -9 "-$CP"
wait "$CP" 2>/dev/null
ok "when the holder is killed the daemon runs the snapshot and seals it" wait_for 8 sealed "$S6"
is "$(runs "$S6")" 1 "exactly once"
stop_daemon

# --- --poll: a change inotify cannot see (a line appended by hand to
# crawls.jsonl under the store lock, as another host would) --------------
sed -i '/^DAEMON_/d' "$D/abx.conf"   # back to the defaults: poll 60 s, repair 60 s
abx-add -d "$T/other" --plugins mark http://127.0.0.1:1/by-hand >"$T/crawl.line"
PC=$(jq -r .id "$T/crawl.line")
ok "a daemon with --poll 0.5 starts" start_daemon "$T/d6.log" --poll 0.5
sleep 1   # let its first pass end: it now sleeps
n0=$(wc -l <"$LOG")
# shellcheck disable=SC2016
flock "$D/locks/store.lock" sh -c 'cat "$1" >>"$2"' sh "$T/crawl.line" "$D/crawls.jsonl"
# watch the hook log only: any abx tool that takes the store lock would
# replay the new line into index/ and so wake the daemon through inotify
ok "--poll: a crawl appended by hand is picked up" wait_for 4 sh -c "test \$(wc -l <'$LOG') -gt $n0"
ok "and run to its seal" wait_for 4 sh -c \
	"abx-ls -d '$D' -k crawl --jsonl '$PC' | jq -e '.status == \"sealed\"' >/dev/null"
stop_daemon
is "$?" 143 "the --poll daemon stops on SIGTERM too"
ok "no daemon complained of a sanitizer or a crash" sh -c \
	"! grep -Eh 'runtime error|AddressSanitizer|LeakSanitizer|fatal' '$T'/d*.log"
done_testing
