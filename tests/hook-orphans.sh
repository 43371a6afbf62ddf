#!/bin/sh
# abx-hook: the hooks of a run that died (abx-hook killed with SIGKILL, at
# any point, even between starting a hook and writing its pid file) are
# found by their ABX_RUN token and ended before the snapshot or crawl runs
# again, including the ones that called setsid or double-forked.
. "$(dirname "$0")/lib/tap.sh"
. "$(dirname "$0")/lib/hook-lib.sh"
all_gone() { for _p in "$@"; do alive "$_p" && return 1; done; return 0; }
# the processes a failed test would leave: every run's pids, in $T/*.pids
kill_left() { for _f in "$T"/*.pids; do [ -s "$_f" ] && xargs kill -9 <"$_f" 2>/dev/null; done; cleanup; }
trap kill_left EXIT

# The hook leaves one child in a session of its own and one double-forked
# (reparented away), then, while $T/hold exists, waits.  When it starts, it
# notes whether a process of the earlier run is still alive: a rerun must
# never run beside an orphan of the last run.
mkhook orph on_Snapshot__10_orph.sh <<EOF
#!/bin/sh
alive() { st=\$(sed 's/.*) //' "/proc/\$1/stat" 2>/dev/null | cut -c1); [ -n "\$st" ] && [ "\$st" != Z ]; }
for p in \$(cat pids 2>/dev/null); do alive "\$p" && echo "overlap \$p" >>"$T/orph.log"; done
rm -f pids setsid.pid double.pid
echo "start \$ABX_RUN" >>"$T/orph.log"
echo \$\$ >pids
setsid sh -c 'echo \$\$ >setsid.pid; exec sleep 300' &
sh -c 'sh -c "echo \\\$\\\$ >double.pid; exec sleep 300" & exit 0'
while ! test -s setsid.pid || ! test -s double.pid; do sleep 0.01; done
cat setsid.pid double.pid >>pids
cp pids "$T/\$\$.pids"
while test -e "$T/hold"; do sleep 0.05; done
echo '{"type":"ArchiveResult","status":"succeeded","output_str":"pids"}'
EOF
started() { [ "$(grep -c '^start' "$T/orph.log" 2>/dev/null)" = "$1" ] && test -s "$SD/orph/pids" &&
	[ "$(wc -l <"$SD/orph/pids")" = 3 ]; }

plan 25
# 1. abx-hook killed with SIGKILL (the main pid alone) while its hook runs
touch "$T/hold"
abx-hook -d "$D" "$S" >"$T/out1" 2>"$T/err1" &
H=$!
ok "the hook started with its two escaped children" wait_for 10 started 1
like "$(cat "$T/orph.log")" "^start $S/[0-9a-f-]{36}\$" "its environment has ABX_RUN=<snapshot>/<run>"
ok "the run's mark is on the snapshot directory (its sticky bit)" test -k "$SD"
kill -9 "$H"
wait "$H" 2>/dev/null
# shellcheck disable=SC2046
set -- $(cat "$SD/orph/pids")
ok "killing abx-hook leaves its hook and the hook's children running" sh -c "$(for p; do printf 'test -d /proc/%s && ' "$p"; done) true"
rm -f "$T/hold"
expect_exit 0 "the snapshot runs again" abx-hook -d "$D" "$S"
ok "the hook of the dead run and its children are gone" all_gone "$@"
is "$(grep -c overlap "$T/orph.log")" 0 "none of them was alive when the hook ran again"
like "$(cat "$T/stderr")" "ending [0-9]+ processes? left running by an earlier run of $S" "abx-hook says what it ended"
is "$(jq -r 'select(.type=="ArchiveResult") | .status + " " + .notes' "$T/stdout")" "succeeded " \
	"the rerun's result is recorded normally"
ok "a clean run clears its mark" test ! -k "$SD"
ok "and its hook's pid file" test ! -e "$SD/orph/on_Snapshot__10_orph.pid"
# shellcheck disable=SC2046
set -- $(cat "$SD/orph/pids")
ok "and ends what its hook left behind" all_gone "$@"

# 2. after a clean run nothing is looked for: no marker, no walk of /proc
expect_exit 0 "a run after a clean one" abx-hook -d "$D" "$S"
is "$(cat "$T/stderr")" "" "ends nothing and says nothing"

# 3. killed between posix_spawn and writing the pid file (fault point)
touch "$T/hold"
: >"$T/orph.log"
ABX_TEST_FAULT=hook-after-spawn abx-hook -d "$D" "$S" >"$T/out3" 2>&1
is "$?" 137 "abx-hook dies by SIGKILL just after starting the hook"
ok "the hook runs on" wait_for 10 started 1
ok "with no pid file naming it" test ! -e "$SD/orph/on_Snapshot__10_orph.pid"
# shellcheck disable=SC2046
set -- $(cat "$SD/orph/pids")
rm -f "$T/hold"
expect_exit 0 "the snapshot runs again" abx-hook -d "$D" "$S"
ok "the orphan and its children were found by their token and ended" all_gone "$@"
is "$(grep -c overlap "$T/orph.log")" 0 "before the hook ran again"

# 4. CrawlSetup: a daemon not yet recorded when its abx-hook died is ended
# by the next CrawlSetup, which starts the crawl's daemons afresh
rm -rf "$T/plugins/orph"
mkhook srv on_CrawlSetup__10_srv.daemon.bg.sh <<EOF
#!/bin/sh
echo \$\$ >>"$T/srv.pids"
exec sleep 300
EOF
mkhook slow on_CrawlSetup__20_slow.sh <<EOF
#!/bin/sh
touch "$T/slow.started"
while test -e "$T/hold"; do sleep 0.05; done
EOF
touch "$T/hold"
abx-hook -d "$D" --family CrawlSetup "$C" >/dev/null 2>&1 &
H=$!
wait_for 10 test -e "$T/slow.started"
kill -9 "$H"
wait "$H" 2>/dev/null
rm -f "$T/hold"
first=$(head -n 1 "$T/srv.pids")
expect_exit 0 "CrawlSetup runs again" abx-hook -d "$D" --family CrawlSetup "$C"
ok "the daemon of the dead run is gone" gone "$first"
new=$(tail -n 1 "$T/srv.pids")
ok "the new one runs" alive "$new"
expect_exit 0 "CrawlCleanup" abx-hook -d "$D" --family CrawlCleanup "$C"
ok "stops it" gone "$new"
done_testing
