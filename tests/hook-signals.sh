#!/bin/sh
# abx-hook and signals: what it inherits (SIGCHLD or SIGTERM ignored, a
# blocked mask) does not change how it runs hooks or stops; hooks start
# with every signal at its default and none blocked; CrawlSetup daemons get
# SIGTERM and their grace at the crawl's cleanup, whether or not there are
# CrawlCleanup hooks.
. "$(dirname "$0")/lib/tap.sh"
. "$(dirname "$0")/lib/hook-lib.sh"
# the processes a failed test would leave: their pids are in $T/*.pid
kill_left() { for _f in "$T"/*.pid; do [ -s "$_f" ] && kill -9 "$(cat "$_f")" 2>/dev/null; done; cleanup; }
trap kill_left EXIT
# perl -e "$UNKIND" CMD...: CMD with SIGCHLD, SIGTERM and SIGUSR1 ignored,
# SIGTERM and SIGUSR2 blocked, as some supervisors and shells start their
# children (perl execs CMD: same pid)
# shellcheck disable=SC2016
UNKIND='use POSIX; $SIG{CHLD} = $SIG{TERM} = $SIG{USR1} = "IGNORE";
	sigprocmask(SIG_BLOCK, POSIX::SigSet->new(SIGTERM, SIGUSR2));
	exec @ARGV or die "exec: $!"'

plan 14
# 1. inherited signal state
mkhook sigs on_Snapshot__10_sigs.sh <<'EOF'
#!/bin/sh
# read with the shell's own builtins: a child (grep) would read the mask
# the shell holds while it forks that child
while read -r k v; do
	case $k in SigBlk: | SigIgn:) printf '%s\t%s\n' "$k" "$v" ;; esac
done </proc/$$/status >own.txt
grep '^SigIgn:' /proc/$PPID/status >parent.txt
sleep 0.2
echo '{"type":"ArchiveResult","status":"succeeded","output_str":"own.txt"}'
EOF
perl -e "$UNKIND" abx-hook -d "$D" "$S" >"$T/out"
is "$?" 0 "abx-hook started with SIGCHLD ignored runs the phase"
is "$(jq -r 'select(.type=="ArchiveResult") | .status + " \(.process.exit_code)"' "$T/out")" "succeeded 0" \
	"and records the hook's result and exit code normally"
is "$(cut -f2 "$SD/sigs/own.txt" | tr '\n' ' ')" "0000000000000000 0000000000000000 " \
	"the hook has no signal blocked and none ignored (glibc's own two included)"
# abx-hook's own: SIGPIPE ignored; SIGCHLD, SIGTERM and SIGUSR1, ignored
# when it started, back to their defaults (the bits of the SigIgn mask:
# 1 << (signal - 1))
ign=$((0x$(cut -f2 "$SD/sigs/parent.txt")))
is "$((ign & 0x1000)):$((ign & (0x10000 | 0x4000 | 0x200)))" "4096:0" \
	"abx-hook itself ignores SIGPIPE, and not what it inherited ignored"

mkhook sigs on_Snapshot__10_sigs.sh <<EOF
#!/bin/sh
echo \$\$ >"$T/long.pid"
exec sleep 30
EOF
rm -f "$T/long.pid"
perl -e "$UNKIND" abx-hook -d "$D" "$S" >"$T/out" 2>"$T/err" &
H=$!
wait_for 10 test -s "$T/long.pid"
kill -TERM "$H"
wait "$H"
is "$?" 75 "with SIGTERM ignored and blocked at start, a SIGTERM still stops it (exit 75)"
is "$(jq -r 'select(.type=="ArchiveResult") | .status + ": " + .notes' "$T/out")" \
	"failed: interrupted: abx-hook was stopped by a signal" "its hook is recorded as interrupted"
ok "and is gone" gone "$(cat "$T/long.pid")"

# 2. CrawlSetup daemons at the crawl's cleanup: SIGTERM first, with or
# without CrawlCleanup hooks
rm -rf "$T/plugins/sigs"
mkhook cd on_CrawlSetup__10_srv.daemon.bg.sh <<EOF
#!/bin/sh
trap 'echo bye >"$T/cd.bye"; exit 0' TERM
echo \$\$ >"$T/cd.pid"
setsid sh -c 'echo \$\$ >"$T/cd-child.pid"; exec sleep 300' &
while :; do sleep 0.05; done
EOF
mkhook cc on_CrawlCleanup__10_note.sh <<EOF
#!/bin/sh
alive() { st=\$(sed 's/.*) //' "/proc/\$1/stat" 2>/dev/null | cut -c1); [ -n "\$st" ] && [ "\$st" != Z ]; }
alive "\$(cat "$T/cd.pid")" && echo up >"$T/cc.saw"
exit 0
EOF
expect_exit 0 "CrawlSetup leaves its daemon running" abx-hook -d "$D" --family CrawlSetup "$C"
wait_for 5 test -s "$T/cd-child.pid"
expect_exit 0 "CrawlCleanup with a hook of its own" abx-hook -d "$D" --family CrawlCleanup "$C"
ok "the daemon was still up while the CrawlCleanup hooks ran" test -s "$T/cc.saw"
ok "then it got SIGTERM (its trap ran), not SIGKILL" test -s "$T/cd.bye"
ok "and is gone" gone "$(cat "$T/cd.pid")"
ok "so is what it left in a session of its own" gone "$(cat "$T/cd-child.pid")"
is "$(abx-ls -d "$D" -k process --jsonl | jq -r 'select(.plugin=="cd") | .status')" exited \
	"its Process record says exited"
done_testing
