#!/bin/sh
# abx-hook: timeouts, process groups, and nothing left running afterwards.
. "$(dirname "$0")/lib/tap.sh"
. "$(dirname "$0")/lib/hook-lib.sh"

group_empty() { ! pgrep -g "$1" >/dev/null; }

plan 18
# 1. a hook past its timeout: SIGTERM, result failed with the reason
mkhook sleepy on_Snapshot__10_sleepy.sh <<'EOF'
#!/bin/sh
echo $$ >pid
exec sleep 30
EOF
printf '{"properties": {"SLEEPY_TIMEOUT": {"type": "integer", "default": 1}}}\n' \
	>"$T/plugins/sleepy/config.json"
t0=$(date +%s.%N)
abx-hook -d "$D" "$S" >"$T/out"
e=$(elapsed "$t0")
ok "the hook is stopped at its timeout (SLEEPY_TIMEOUT from config.json: 1 s)" lt "$e" 3
is "$(jq -r 'select(.type=="ArchiveResult") | .status + ": " + .notes' "$T/out")" \
	"failed: timed out after 1 s" "its result is failed, with the reason"
is "$(jq -r 'select(.type=="ArchiveResult") | "\(.process.exit_code) \(.process.timeout)"' "$T/out")" \
	"-1 1" "its process record has exit code -1 and the timeout"
ok "and it is gone" gone "$(cat "$SD/sleepy/pid")"

# 2. a hook that ignores SIGTERM and forks a grandchild that ignores it too
rm -rf "$T/plugins/sleepy"
mkhook stubborn on_Snapshot__10_stubborn.sh <<'EOF'
#!/bin/sh
trap '' TERM
echo $$ >leader.pid
sh -c 'trap "" TERM; echo $$ >grandchild.pid; while :; do sleep 0.05; done' &
while :; do sleep 0.05; done
EOF
echo TIMEOUT=1 >>"$D/abx.conf"
t0=$(date +%s.%N)
abx-hook -d "$D" "$S" >"$T/out"
e=$(elapsed "$t0")
ok "it is killed after the grace (1 s + 1 s)" lt "$e" 4
like "$(jq -r 'select(.type=="ArchiveResult") | .notes' "$T/out")" \
	"^timed out after 1 s \(killed: it ignored SIGTERM for 1 s\)" "the notes say it ignored SIGTERM"
L=$(cat "$SD/stubborn/leader.pid")
ok "nothing is left in its process group" group_empty "$L"
ok "the grandchild is gone" gone "$(cat "$SD/stubborn/grandchild.pid")"

# 3. a hook that exits leaving children behind, one of them in a new session
rm -rf "$T/plugins/stubborn"
mkhook leaver on_Snapshot__10_leaver.sh <<'EOF'
#!/bin/sh
echo $$ >leader.pid
sleep 30 &
echo $! >child.pid
setsid sh -c 'echo $$ >escaped.pid; exec sleep 30' &
while ! test -s escaped.pid; do sleep 0.01; done
echo '{"type":"ArchiveResult","status":"succeeded","output_str":"left two children"}'
EOF
t0=$(date +%s.%N)
abx-hook -d "$D" "$S" >"$T/out"
ok "abx-hook does not wait for what a finished hook left behind" lt "$(elapsed "$t0")" 3
is "$(jq -r 'select(.type=="ArchiveResult") | .status' "$T/out")" succeeded "the hook succeeded"
ok "its child in the group is killed" gone "$(cat "$SD/leaver/child.pid")"
ok "so is the one that moved to its own session (abx-hook is a subreaper)" \
	gone "$(cat "$SD/leaver/escaped.pid")"

# 4. SIGTERM to abx-hook: the running hook is stopped, recorded, exit 75
rm -rf "$T/plugins/leaver"
mkhook long on_Snapshot__10_long.sh <<'EOF'
#!/bin/sh
echo $$ >pid
exec sleep 30
EOF
sed -i 's/^TIMEOUT=1$/TIMEOUT=60/' "$D/abx.conf"
rm -f "$SD/long/pid"
abx-hook -d "$D" "$S" >"$T/out" 2>"$T/err" &
H=$!
wait_for 5 test -s "$SD/long/pid"
kill -TERM "$H"
wait "$H"
is "$?" 75 "abx-hook stopped by SIGTERM exits 75"
is "$(jq -r 'select(.type=="ArchiveResult") | .status + ": " + .notes' "$T/out")" \
	"failed: interrupted: abx-hook was stopped by a signal" "the hook it stopped is recorded as interrupted"
ok "and is gone" gone "$(cat "$SD/long/pid")"
ok "no lease is left held" sh -c "! abx-claim -d '$D' --test '$S'"

# a second signal kills the hooks at once (abx-tick sends one when asked twice)
mkhook long on_Snapshot__10_long.sh <<'EOF'
#!/bin/sh
trap '' TERM
echo $$ >pid
while :; do sleep 0.05; done
EOF
rm -f "$SD/long/pid"
abx-hook -d "$D" "$S" >"$T/out" 2>"$T/err" &
H=$!
wait_for 5 test -s "$SD/long/pid"
t0=$(date +%s.%N)
kill -TERM "$H"
sleep 0.2
kill -INT "$H"
wait "$H"
is "$?" 75 "a second signal: exit 75"
ok "without waiting for the grace (10 s)" lt "$(elapsed "$t0")" 2
done_testing
