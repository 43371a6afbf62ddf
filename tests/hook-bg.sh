#!/bin/sh
# abx-hook: background hooks. .finite.bg ones are waited for (up to their
# timeout) before the phase ends; .daemon.bg ones are stopped at its end,
# except a CrawlSetup daemon, which runs until the crawl's CrawlCleanup.
. "$(dirname "$0")/lib/tap.sh"
export ABX_PLUGINS_DIR="$T/plugins" ABX_SHARE_DIR="$T/noshare" ABX_SYNC=0
D=$T/data
abx-add -d "$D" http://127.0.0.1:9/page >/dev/null
S=$(abx-ls -d "$D" -k snapshot --jsonl | jq -r .id)
C=$(abx-ls -d "$D" -k crawl --jsonl | jq -r .id)
# alive PID: running, and not a zombie waiting for its reaper
alive() { _st=$(sed 's/.*) //' "/proc/$1/stat" 2>/dev/null | cut -c1); [ -n "$_st" ] && [ "$_st" != Z ]; }
gone() { ! alive "$1"; }
trap '[ -s "$T/cd.pid" ] && kill -9 "$(cat "$T/cd.pid")" 2>/dev/null; cleanup' EXIT

mkhook() {
	mkdir -p "$T/plugins/$1"
	cat >"$T/plugins/$1/$2"
	chmod +x "$T/plugins/$1/$2"
}
mkhook slow on_Snapshot__10_slow.finite.bg.sh <<'EOF'
#!/bin/sh
sleep 1
echo done >done.txt
echo '{"type":"ArchiveResult","status":"succeeded","output_str":"done.txt"}'
EOF
mkhook fast on_Snapshot__20_fast.sh <<'EOF'
#!/bin/sh
# runs while the daemon and the slow hook run alongside (the daemon may
# take a moment to write its pid on a loaded machine)
i=0
while [ ! -s ../daemon/pid ] && [ $i -lt 40 ]; do sleep 0.05; i=$((i + 1)); done
test -s ../daemon/pid && echo daemon-was-up >seen.txt
exit 0
EOF
mkhook daemon on_Snapshot__05_serve.daemon.bg.sh <<'EOF'
#!/bin/sh
trap 'echo stopped >stopped.txt; exit 0' TERM
echo $$ >pid
while :; do sleep 0.05; done
EOF

plan 16
start=$(date +%s.%N)
abx-hook -d "$D" "$S" >"$T/out"
end=$(date +%s.%N)
SD=$D/crawls/$C/$S
ok "a background hook starts in order and runs alongside" test -s "$SD/fast/seen.txt"
ok "the phase waits for a .finite.bg hook" sh -c "echo '$end - $start >= 1' | bc | grep -q 1"
is "$(jq -r 'select(.type=="ArchiveResult" and .plugin=="slow") | .status + " " + (.output_files|keys|join(","))' "$T/out")" \
	"succeeded done.txt" "which finishes and succeeds instead of being killed"
ok "the daemon got SIGTERM at the end of the phase" test -s "$SD/daemon/stopped.txt"
is "$(jq -r 'select(.type=="ArchiveResult" and .plugin=="daemon") | .status' "$T/out")" succeeded \
	"a daemon stopped at the end of the phase has ended normally"
DP=$(cat "$SD/daemon/pid")
ok "nothing of the daemon's process group is left" sh -c "! pgrep -g $DP"

# a daemon that ignores SIGTERM is killed after the grace (TIMEOUT=1: 1 s)
rm -rf "$T/plugins/slow" "$T/plugins/fast"
mkhook daemon on_Snapshot__05_serve.daemon.bg.sh <<'EOF'
#!/bin/sh
trap '' TERM
echo $$ >pid
while :; do sleep 0.05; done
EOF
mkhook wait on_Snapshot__10_wait.sh <<'EOF'
#!/bin/sh
# the daemon has set its trap once its pid file is there
while ! test -s ../daemon/pid; do sleep 0.01; done
EOF
rm -f "$SD/daemon/pid"
echo DAEMON_TIMEOUT=1 >>"$D/abx.conf"
abx-hook -d "$D" "$S" >"$T/out"
is "$(jq -r 'select(.type=="ArchiveResult" and .plugin=="daemon") | .status' "$T/out")" failed "a daemon that ignores SIGTERM is killed"
like "$(jq -r 'select(.type=="ArchiveResult" and .plugin=="daemon") | .notes' "$T/out")" "ignored SIGTERM for 1 s" "and the notes say so"
DP=$(cat "$SD/daemon/pid")
ok "nothing of it is left" sh -c "! pgrep -g $DP"

# CrawlSetup: the daemon outlives abx-hook, CrawlCleanup stops it
mkhook cd on_CrawlSetup__10_srv.daemon.bg.sh <<EOF
#!/bin/sh
trap 'echo bye >"$T/cd.bye"; exit 0' TERM
echo \$\$ >"$T/cd.pid"
while :; do sleep 0.05; done
EOF
abx-hook -d "$D" --family CrawlSetup "$C" >"$T/out"
ok "a CrawlSetup daemon is left running" alive "$(cat "$T/cd.pid")"
ok "and recorded with its process group" \
	sh -c "jq -e '.pgid == $(cat "$T/cd.pid")' '$D/crawls/$C/cd/on_CrawlSetup__10_srv.daemon.bg.daemon.json' >/dev/null"
is "$(jq -r 'select(.type=="Process") | .status' "$T/out")" running "its Process record says running"
expect_exit 0 "CrawlCleanup with no hooks still stops daemons" abx-hook -d "$D" --family CrawlCleanup "$C"
ok "the daemon got SIGTERM" test -s "$T/cd.bye"
ok "and is gone" gone "$(cat "$T/cd.pid")"
is "$(abx-ls -d "$D" -k process --jsonl | jq -r 'select(.plugin=="cd") | .status')" exited \
	"its Process record says exited"
done_testing
