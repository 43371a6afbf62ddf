#!/bin/sh
# Bad values are refused, never half-used: DELETE_AFTER, TIMEOUT, the crawl
# limits and PLUGINS exit 65 as abx-add operands and 78 in abx.conf or the
# environment, with the key, the value and where it came from; a value too
# large to represent is an error, not a wrapped-around one (DELETE_AFTER=
# 1000000y once deleted every sealed crawl); a malformed PLUGINS runs no
# plugin, never all; a cron expression that can never fire (February 30)
# is refused, and one stored by hand never fires; retention holds the store
# lock only to tombstone and move a crawl, and a crash on the way is
# finished by the next run.
. "$(dirname "$0")/lib/tap.sh"
LOG=$T/hooks.log   # one line per hook run: <plugin>
for p in mark wget title; do
	mkdir -p "$T/plugins/$p"
	cat >"$T/plugins/$p/on_Snapshot__10_$p.sh" <<EOF
#!/bin/sh
echo $p >>"$LOG"
echo '{"type":"ArchiveResult","status":"succeeded"}'
EOF
	chmod +x "$T/plugins/$p/on_Snapshot__10_$p.sh"
done
ABX_PLUGINS_DIR=$T/plugins ABX_SHARE_DIR=$T/noshare
export ABX_PLUGINS_DIR ABX_SHARE_DIR
: >"$LOG"
D=$T/data
U=http://127.0.0.1:1/page
T0=2030-01-01T00:00:00Z
NOW=2030-03-15T00:00:00Z   # 73 days on

lines() { if [ -f "$1" ]; then wc -l <"$1" | tr -d ' '; else echo 0; fi; }
crawl() { abx-ls -d "$1" --jsonl "$2" 2>/dev/null; }
tombstoned() { grep "\"id\":\"$2\"" "$1/crawls.jsonl" | tail -n 1 | jq -e '.deleted_at != null' >/dev/null; }
# sealed DIR [ABX-ADD ARGS...]: a crawl of the mark plugin made and
# cancelled (sealed) at T0; prints its id
sealed() {
	_dir=$1; shift
	_c=$(ABX_NOW=$T0 abx-add -d "$_dir" --plugins mark "$@" "$U" | jq -r .id)
	ABX_NOW=$T0 abx-ctl -d "$_dir" cancel "$_c" && echo "$_c"
}
# has DIR ID...: the crawls' directories are there
has() { _dir=$1; shift; for _c; do [ -n "$_c" ] && [ -d "$_dir/crawls/$_c" ] || return 1; done; }
stopped() { [ "$(awk '{ print $3 }' "/proc/$1/stat" 2>/dev/null)" = T ]; }

# --- bad operands exit 65, before anything is stored -------------------------
abx-add -d "$D" --plugins mark "$U" >/dev/null
n0=$(lines "$D/crawls.jsonl")
expect_exit 65 "abx-add --config TIMEOUT=abc exits 65" abx-add -d "$D" --config TIMEOUT=abc "$U"
like "$(cat "$T/stderr")" "--config: TIMEOUT=abc: want whole seconds" \
	"the message names where, the key, the value and what is wanted"
while read -r kv; do
	expect_exit 65 "--config $kv exits 65" abx-add -d "$D" --config "$kv" "$U"
	like "$(cat "$T/stderr")" "${kv%%=*}=" "and names ${kv%%=*}"
done <<'EOF'
TIMEOUT=0
TIMEOUT=-5
TIMEOUT=1e3
TIMEOUT=2592001
WGET_TIMEOUT=soon
CRAWL_TIMEOUT=forever
CRAWL_MAX_SIZE=lots
SNAPSHOT_MAX_SIZE=99999999999T
CRAWL_MAX_URLS=-1
CRAWL_MAX_URLS=99999999999999999999
CRAWL_MAX_CONCURRENT_SNAPSHOTS=0
DELETE_AFTER=1000000y
DELETE_AFTER=9223372036854775807h
DELETE_AFTER=30m
PLUGINS=wget title
PLUGINS=["wget"]
PLUGINS=../x
PLUGINS= , 
EOF
for p in 'wget title' '["wget"]' '../x' '' ' , '; do
	expect_exit 65 "abx-add --plugins '$p' exits 65" abx-add -d "$D" --plugins "$p" "$U"
done
S0=$(abx-ls -d "$D" -k snapshot --jsonl | jq -r .id | head -n 1)
expect_exit 65 "abx-ctl retry --plugins ' , ' (no name) exits 65" abx-ctl -d "$D" retry "$S0" --plugins ' , '
for e in '0 0 30 2 *' '0 0 31 2 *' '0 0 31 4 *' '0 0 30,31 2 *' '0 0 31 4,6,9,11 *'; do
	expect_exit 65 "abx-add --schedule '$e' (never fires) exits 65" abx-add -d "$D" --schedule "$e" "$U"
	like "$(cat "$T/stderr")" "never fire" "and says it can never fire"
done
is "$(lines "$D/crawls.jsonl") $(lines "$D/schedules.jsonl")" "$n0 0" "nothing was stored"
while read -r kv; do
	expect_exit 0 "--config $kv is accepted" abx-add -d "$D" --config "$kv" "$U"
done <<'EOF'
TIMEOUT=30
TIMEOUT=2592000
DAEMON_TIMEOUT=1
CRAWL_TIMEOUT=0
CRAWL_MAX_SIZE=1.5G
SNAPSHOT_MAX_SIZE=2kb
CRAWL_MAX_URLS=0
CRAWL_MAX_CONCURRENT_SNAPSHOTS=4
DELETE_AFTER=0
DELETE_AFTER=100000y
DELETE_AFTER=12 weeks
PLUGINS=wget, title
PLUGINS=
EOF
expect_exit 0 "'0 0 31 4 1' fires on April's Mondays: accepted" abx-add -d "$D" --schedule '0 0 31 4 1' "$U"

# --- bad values in abx.conf and the environment exit 78 ----------------------
echo 'DELETE_AFTER=1000000y' >>"$D/abx.conf"
line=$(grep -c '' "$D/abx.conf")
n1=$(lines "$D/crawls.jsonl")
expect_exit 78 "DELETE_AFTER=1000000y in abx.conf: abx-add exits 78" abx-add -d "$D" "$U"
like "$(cat "$T/stderr")" "abx.conf line $line: DELETE_AFTER=1000000y: want a duration" \
	"naming the file, the line, the key and the value"
sed -i '/^DELETE_AFTER=/d' "$D/abx.conf"
expect_exit 78 "TIMEOUT=abc in the environment: exit 78" env TIMEOUT=abc abx-add -d "$D" "$U"
like "$(cat "$T/stderr")" "the environment: TIMEOUT=abc" "naming the environment"
expect_exit 78 "PLUGINS='wget title' in the environment: exit 78" env PLUGINS='wget title' abx-add -d "$D" "$U"
expect_exit 0 "another program's FOO_TIMEOUT in the environment is not ours" env FOO_TIMEOUT=abc abx-add -d "$D" "$U"
is "$(lines "$D/crawls.jsonl")" "$((n1 + 1))" "only the good one was stored"

# --- DELETE_AFTER too large deletes nothing ----------------------------------
D2=$T/retain
A=$(sealed "$D2")
B=$(sealed "$D2")
is "$(crawl "$D2" "$A" | jq -r .status) $(crawl "$D2" "$B" | jq -r .status)" "sealed sealed" "two sealed crawls"
for v in 1000000y 9223372036854775807h 106751991167d; do
	sed -i '/^DELETE_AFTER=/d' "$D2/abx.conf"
	echo "DELETE_AFTER=$v" >>"$D2/abx.conf"
	ABX_NOW=$NOW abx-tick -d "$D2" 2>"$T/big.err"
	rc=$?
	is "$rc" 78 "DELETE_AFTER=$v in abx.conf: the tick refuses it (78)"
	like "$(cat "$T/big.err")" "DELETE_AFTER=$v" "and names it"
	ok "no sealed crawl is deleted" has "$D2" "$A" "$B"
done
sed -i '/^DELETE_AFTER=/d' "$D2/abx.conf"
DELETE_AFTER=1000000y ABX_NOW=$NOW abx-tick -d "$D2" 2>"$T/bigenv.err"
ok "DELETE_AFTER=1000000y in the environment deletes nothing either" has "$D2" "$A" "$B"
ok "and writes no tombstone" sh -c "! grep -q deleted_at '$D2/crawls.jsonl'"
echo 'DELETE_AFTER=100000y' >>"$D2/abx.conf"
ABX_NOW=$NOW abx-tick -d "$D2" 2>"$T/max.err"
is "$?" 1 "DELETE_AFTER=100000y, the largest, is good: nothing to do"
ok "and keeps both crawls" has "$D2" "$A" "$B"

# --- a malformed PLUGINS runs no plugin, never all ---------------------------
D3=$T/plugins-bad
C3=$(abx-add -d "$D3" "$U" | jq -r .id)
S3=$(abx-ls -d "$D3" -k snapshot --jsonl | jq -r .id)
for p in 'wget title' '["wget"]' '../x' ' , '; do
	: >"$LOG"
	PLUGINS=$p abx-hook -d "$D3" "$S3" >/dev/null 2>"$T/hook.err"
	is "$(lines "$LOG")" 0 "PLUGINS='$p' (environment): abx-hook runs no plugin"
	like "$(cat "$T/hook.err")" "PLUGINS" "and says why"
done
: >"$LOG"
PLUGINS=title abx-hook -d "$D3" "$S3" >/dev/null 2>&1
is "$(cat "$LOG")" title "PLUGINS=title runs title alone"
: >"$LOG"
echo 'PLUGINS=wget title' >>"$D3/abx.conf"
abx-tick -d "$D3" 2>"$T/tick3.err"
is "$(lines "$LOG")" 0 "PLUGINS='wget title' in abx.conf: the tick runs no plugin"
like "$(cat "$T/tick3.err")" "PLUGINS=wget title" "and names the value"
sed -i '/^PLUGINS=/d' "$D3/abx.conf"
is "$(crawl "$D3" "$C3" | jq -r .id)" "$C3" "the crawl is still there"

# --- a schedule that can never fire, written by hand -------------------------
D4=$T/sched
TID=$(ABX_NOW=$T0 abx-add -d "$D4" --plugins mark --schedule daily "$U" | jq -r .template_id)
for r in null '"2030-01-01T00:00:00.000000Z"'; do
	sid=$(cat /proc/sys/kernel/random/uuid)
	# appended as abx-ctl(1) says: under the store lock, with the index
	# removed in the same critical section
	printf '{"type":"CrawlSchedule","id":"%s","created_at":"%s","modified_at":"%s","template_id":"%s","schedule":"0 0 30 2 *","is_enabled":true,"label":"","status":"queued","last_run_at":"%s","retry_at":%s}\n' \
		"$sid" "$T0" "$T0" "$TID" "$T0" "$r" >"$T/line"
	# shellcheck disable=SC2016 # the inner sh expands its own arguments
	flock "$D4/locks/store.lock" sh -c 'cat "$1" >>"$2/schedules.jsonl" && rm -f "$2/index/active.jsonl"' \
		sh "$T/line" "$D4"
	: >"$T/sched.err"
	for t in 00:01 00:02 00:03 01:00 02:00; do
		ABX_NOW=2030-01-01T$t:00Z timeout 20 abx-tick -d "$D4" 2>>"$T/sched.err"
	done
	is "$(abx-ls -d "$D4" -k crawl --jsonl | jq -s --arg s "$sid" '[.[] | select(.schedule_id == $s)] | length')" \
		0 "February 30 stored by hand (retry_at $r): five ticks fire it never"
	is "$(abx-ls -d "$D4" -k schedule --jsonl "$sid" | jq -r '(.is_enabled|tostring) + " " + .retry_at')" \
		"false 9999-12-31T23:59:59.999999Z" "it is disabled, with the paused marker"
	like "$(cat "$T/sched.err")" "schedule $sid: .*never fire.*disabled" "and the tick says why"
	expect_exit 65 "abx-ctl resume refuses it" abx-ctl -d "$D4" resume "$sid"
	like "$(cat "$T/stderr")" "never fire" "saying why"
done

# --- retention: the store lock is free while a directory is removed ----------
D5=$T/lock
E=$(sealed "$D5" --config DELETE_AFTER=1d)
ABX_NOW=$NOW ABX_TEST_FAULT=retention-stop-before-remove abx-tick -d "$D5" 2>"$T/stop.err" &
P=$!
ok "the tick stops between the tombstone and the removal" wait_for 20 stopped "$P"
ok "the store lock is free then" flock -n "$D5/locks/store.lock" true
expect_exit 0 "abx-add is not blocked" timeout 10 abx-add -d "$D5" --plugins mark "$U"
ok "the crawl has its tombstone" tombstoned "$D5" "$E"
ok "its directory is moved out of crawls/" sh -c "[ ! -e '$D5/crawls/$E' ] && [ -d '$D5/crawls/.deleted/$E' ]"
kill -CONT "$P"
wait "$P"
is "$?" 0 "the tick goes on and exits 0"
ok "and removes the directory" test ! -e "$D5/crawls/.deleted"

# a crash after the move: the next run removes what was moved
D6=$T/crash-moved
E=$(sealed "$D6" --config DELETE_AFTER=1d)
ABX_NOW=$NOW ABX_TEST_FAULT=retention-before-remove abx-tick -d "$D6" 2>/dev/null
is "$?" 137 "a tick killed after the move (SIGKILL)"
ok "leaves the tombstone and the moved directory" \
	sh -c "grep -q deleted_at '$D6/crawls.jsonl' && [ -d '$D6/crawls/.deleted/$E' ]"
ABX_NOW=$NOW abx-tick -d "$D6" 2>"$T/c6.err"
ok "the next run removes it" test ! -e "$D6/crawls/.deleted"

# a crash between the tombstone and the move
D7=$T/crash-tomb
E=$(sealed "$D7" --config DELETE_AFTER=1d)
ABX_NOW=$NOW ABX_TEST_FAULT=retention-after-tombstone abx-tick -d "$D7" 2>/dev/null
is "$?" 137 "a tick killed after the tombstone (SIGKILL)"
ok "leaves a tombstoned crawl with its directory" \
	sh -c "grep -q deleted_at '$D7/crawls.jsonl' && [ -d '$D7/crawls/$E' ]"
is "$(abx-ls -d "$D7" -k crawl --jsonl | wc -l | tr -d ' ')" 0 "abx-ls hides it"
ABX_NOW=$NOW abx-tick -d "$D7" 2>"$T/c7.err"
ok "the next run removes the directory" sh -c "[ ! -e '$D7/crawls/$E' ] && [ ! -e '$D7/crawls/.deleted' ]"
is "$(grep -c "\"id\":\"$E\"" "$D7/crawls.jsonl")" 3 "with no second tombstone"

ok "no sanitizer report" sh -c "! grep -Eq 'runtime error|Sanitizer' '$T'/*.err"
done_testing
