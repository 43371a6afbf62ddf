# tick-lib.sh — helpers for the abx-tick and abx-seal tests; source it after
# tap.sh (and httpd.sh).
# shellcheck shell=sh
#
#   slow_plugin slow          # $T/plugins/slow/on_Snapshot__50_sleep.sh
#   echo 0.5 >"$T/slow.s"     # how long it sleeps (read at each run; default 1)
#   abx-add -d "$D" --plugins wget,slow,parse_html_urls "$BASE/site/"
#   reachable "$BASE/site/" 2 >"$T/want"      # "DEPTH URL" lines, sorted
#   snapshots "$D" sealed                     # "DEPTH URL" lines, sorted
#
# The slow plugin appends "start SNAPSHOT_ID DEPTH PID TIME" to $T/NAME.log
# when it starts and "end SNAPSHOT_ID DEPTH PID TIME" when it ends (PID is
# the hook's, which leads its own process group; TIME is date +%s.%N), and
# prints a succeeded ArchiveResult.  It is found through ABX_PLUGINS_DIR,
# which slow_plugin exports.

slow_plugin() {
	mkdir -p "$T/plugins/$1"
	cat >"$T/plugins/$1/on_Snapshot__50_sleep.sh" <<EOF
#!/bin/sh
ctx=\$(printf '%s' "\${EXTRA_CONTEXT:-null}" | jq -r '"\\(.snapshot_id) \\(.snapshot_depth)"')
# a lock in the hook's own directory: held while this run lives, so a second
# run of the hook on the same snapshot while the first still runs is seen
exec 9>>.running
flock -n 9 || echo "overlap \$ctx \$\$ \$(date +%s.%N)" >>"$T/$1.log"
echo "start \$ctx \$\$ \$(date +%s.%N)" >>"$T/$1.log"
s=\$(cat "$T/$1.s" 2>/dev/null || echo 1)
sleep "\$s"
echo "end \$ctx \$\$ \$(date +%s.%N)" >>"$T/$1.log"
echo '{"type":"ArchiveResult","status":"succeeded","output_str":"slept"}'
EOF
	chmod +x "$T/plugins/$1/on_Snapshot__50_sleep.sh"
	: >>"$T/$1.log"
	ABX_PLUGINS_DIR=$T/plugins
	export ABX_PLUGINS_DIR
}

# count_lines FILE [PATTERN]: lines of FILE (matching the ERE PATTERN)
count_lines() {
	if [ $# -gt 1 ]; then grep -Ec -- "$2" "$1"; else wc -l <"$1" | tr -d ' '; fi
}

# starts NAME: how many hooks of the slow plugin NAME started
starts() { count_lines "$T/$1.log" '^start '; }

# hook_pids NAME: the pids of the slow plugin's hooks that started
hook_pids() { awk '$1 == "start" { print $4 }' "$T/$1.log"; }

# alive "PID...": true if any of the process groups led by PID has a process
alive() {
	for _p in $1; do
		pgrep -g "$_p" >/dev/null 2>&1 && return 0
	done
	return 1
}

# reap_hooks NAME: kill what is left of the slow plugin's hooks (groups)
reap_hooks() {
	for _p in $(hook_pids "$1"); do
		kill -9 "-$_p" 2>/dev/null
	done
	return 0
}

# reachable URL DEPTH [DENY_RE [ALLOW_RE]]: the pages a crawl must archive,
# found by tests/lib/tick-bfs.py over the live server
reachable() {
	python3 "$TOP/tests/lib/tick-bfs.py" "$@" | LC_ALL=C sort
}

# snapshots DIR [STATUS]: "DEPTH URL" of every snapshot (of that status)
snapshots() {
	if [ $# -gt 1 ]; then
		abx-ls -d "$1" -k snapshot -s "$2" --jsonl
	else
		abx-ls -d "$1" -k snapshot --jsonl
	fi | jq -r '"\(.depth) \(.url)"' | LC_ALL=C sort
}

# nsnap DIR [STATUS]: how many snapshots (of that status)
nsnap() { snapshots "$@" | wc -l | tr -d ' '; }

# snapdir DIR ID: the directory of a snapshot
snapdir() {
	abx-ls -d "$1" "$2" | jq -r '"'"$1"'/crawls/\(.crawl_id)/\(.id)"'
}

# results_once DIR ID: each hook's ArchiveResult appears once in the
# snapshot's index.jsonl (prints the duplicates otherwise)
results_once() {
	_dup=$(jq -r 'select(.type == "ArchiveResult") | .hook_name' "$(snapdir "$1" "$2")/index.jsonl" |
		sort | uniq -d)
	[ -z "$_dup" ] || { diag "duplicate results in $2: $_dup"; return 1; }
}

# all_results_once DIR: results_once for every sealed snapshot that ran
all_results_once() {
	_bad=0
	for _s in $(abx-ls -d "$1" -k snapshot -s sealed --jsonl | jq -r .id); do
		results_once "$1" "$_s" || _bad=1
	done
	return $_bad
}

# wait_exit PID SECONDS: wait for a background child to end; returns its
# exit status, or 124 if it did not end in time (it is then left running)
wait_exit() {
	_we_end=$(( $(date +%s) + $2 ))
	while kill -0 "$1" 2>/dev/null; do
		[ "$(date +%s)" -ge "$_we_end" ] && return 124
		sleep 0.05
	done
	wait "$1"
}

# track_group PGID: a process group (a setsid'd abx-tick) to kill at exit
_tick_groups=""
track_group() { _tick_groups="$_tick_groups $1"; }

# At exit: kill the tracked groups, the slow plugins' hooks and the
# background jobs, then tap.sh's cleanup.  (tap.sh's own `jobs -p | xargs`
# runs jobs in a subshell, which under dash lists nothing: so the jobs are
# listed into a file here, which dash does list.)
tick_cleanup() {
	for _g in $_tick_groups; do kill -9 "-$_g" 2>/dev/null; done
	for _pl in "$T"/plugins/*/; do
		[ -d "$_pl" ] && [ -f "$T/$(basename "$_pl").log" ] && reap_hooks "$(basename "$_pl")"
	done
	jobs -p >"$T/.jobs" 2>/dev/null
	xargs -r kill -9 <"$T/.jobs" 2>/dev/null
	cleanup
}
trap tick_cleanup EXIT

