#!/bin/sh
# abx-ctl's everyday verbs, as a user types them: status, retry by filter,
# remove (records tombstoned as retention does, files kept or deleted, the
# site index updated), run and schedule, config with each value's source,
# version with a dependency check.
. "$(dirname "$0")/lib/tap.sh"
. "$(dirname "$0")/lib/tick-lib.sh"
D=$T/data
P=$T/plugins
mkdir -p "$P/ok" "$P/flaky" "$P/needy"
cat >"$P/ok/on_Snapshot__10_ok.sh" <<'H'
#!/bin/sh
echo '{"type":"ArchiveResult","status":"succeeded","output_str":"fine"}'
H
cat >"$P/ok/config.json" <<'H'
{"properties": {"OK_GREETING": {"type": "string", "default": "hello"}}}
H
# fails on URLs with "bad", with a reason of two lines
cat >"$P/flaky/on_Snapshot__20_flaky.sh" <<'H'
#!/bin/sh
case "$1" in *bad*) printf 'refused by the server \033[2J\n' >&2; echo "second line" >&2; exit 1 ;; esac
echo '{"type":"ArchiveResult","status":"succeeded","output_str":"fine"}'
H
cat >"$P/needy/on_Snapshot__30_needy.sh" <<'H'
#!/bin/sh
exit 0
H
cat >"$P/needy/config.json" <<'H'
{"required_binaries": [{"name": "abx-no-such-binary", "binproviders": "env"}]}
H
chmod +x "$P"/*/on_*.sh
ABX_PLUGINS_DIR=$P
export ABX_PLUGINS_DIR

A=$(abx-add -d "$D" --tag docs --plugins ok,flaky http://127.0.0.1:1/good http://127.0.0.1:1/bad | jq -r .id)
B=$(abx-add -d "$D" --plugins ok http://127.0.0.1:1/other | jq -r .id)
abx-tick -d "$D" >/dev/null 2>&1
GOOD=$(abx-ls -d "$D" -k snapshot --url /good --jsonl | jq -r .id)
BAD=$(abx-ls -d "$D" -k snapshot --url /bad --jsonl | jq -r .id)
OTHER=$(abx-ls -d "$D" -k snapshot --url /other --jsonl | jq -r .id)

# status
expect_exit 0 "abx-ctl status" abx-ctl -d "$D" status
is "$(jq -r 'select(.type=="Count" and .kind=="Snapshot" and .status=="sealed") | .count' "$T/stdout")" 3 \
	"it counts the sealed snapshots"
is "$(jq -r 'select(.type=="Count" and .kind=="ArchiveResult") | "\(.status) \(.count)"' "$T/stdout" | sort | tr '\n' ' ')" \
	"failed 1 succeeded 4 " "and the results by status"
is "$(jq -r 'select(.type=="Count" and .kind=="Snapshot") | .output_size | type' "$T/stdout")" number "and the snapshots' size"
is "$(jq -r 'select(.type=="Failed") | "\(.plugin) \(.url)"' "$T/stdout")" "flaky http://127.0.0.1:1/bad" \
	"it shows what failed last, with its URL"
is "$(jq -r 'select(.type=="Failed") | .reason' "$T/stdout" | grep -c 'refused by the server')" 1 \
	"with the first line of the reason"
if command -v script >/dev/null 2>&1; then
	script -qc "abx-ctl -d '$D' status" /dev/null >"$T/tty" </dev/null
	like "$(cat "$T/tty")" "Count +Snapshot +sealed +3" "on a terminal it is a table"
	is "$(tr -dc '\033' <"$T/tty" | wc -c | tr -d ' ')" 0 "where no escape of a hook's text reaches the terminal"
fi

# retry by filter
expect_exit 0 "retry --failed" abx-ctl -d "$D" retry --failed
is "$(jq -r '"\(.snapshot_id) \(.plugins)"' "$T/stdout")" "$BAD flaky" "retries the failed plugin of the failed snapshot only"
is "$(abx-ls -d "$D" "$BAD" | jq -r '"\(.status) \(.retry_plugins)"')" "queued flaky" "which is queued again for it"
is "$(abx-ls -d "$D" "$GOOD" | jq -r .status)" sealed "the others are left alone"
abx-tick -d "$D" >/dev/null 2>&1
expect_exit 1 "retry --failed --plugins ok: nothing failed there" abx-ctl -d "$D" retry --failed --plugins ok
expect_exit 0 "retry a crawl's snapshots for one plugin" abx-ctl -d "$D" retry "$A" --plugins ok
is "$(jq -r .snapshot_id "$T/stdout" | sort | tr '\n' ' ')" "$(printf '%s\n' "$GOOD" "$BAD" | sort | tr '\n' ' ')" \
	"every snapshot of the crawl"
is "$(abx-ls -d "$D" "$OTHER" | jq -r .status)" sealed "and none of another crawl"
abx-tick -d "$D" >/dev/null 2>&1
is "$(abx-ls -d "$D" --crawl "$A" -k snapshot -s sealed --jsonl | wc -l | tr -d ' ')" 2 "--crawl lists the crawl's snapshots"

# remove
Q=$(abx-add -d "$D" --plugins ok http://127.0.0.1:1/queued | jq -r .id)
expect_exit 1 "retry of a crawl with no sealed snapshot: nothing to do" abx-ctl -d "$D" retry "$Q"
expect_exit 65 "an active crawl is not removed" abx-ctl -d "$D" remove "$Q"
like "$(cat "$T/stderr")" "cancel it first" "the message says what to do"
expect_exit 0 "remove a snapshot, keeping its files" abx-ctl -d "$D" remove "$BAD"
is "$(jq -r '"\(.id) \(.files_kept)"' "$T/stdout")" "$BAD true" "prints the tombstoned record"
is "$(jq -r .deleted_at "$T/stdout" | cut -c1-2)" 20 "which has deleted_at"
is "$(abx-ls -d "$D" -k snapshot --jsonl | jq -r .id | grep -c "$BAD")" 0 "abx-ls no longer lists it"
is "$(abx-ls -d "$D" -k result --jsonl | jq -r .snapshot_id | grep -c "$BAD")" 0 "nor its results"
ok "its files stay" test -d "$D/crawls/$A/$BAD"
is "$(jq -rs --arg id "$BAD" '[.[] | select(.id == $id)] | last | has("deleted_at")' "$D/index.jsonl")" true \
	"the site index's last line of it says it is removed (siteindex.h: the last line of an id is its row)"
is "$(grep -c "127.0.0.1:1/bad" "$D/index.html")" 0 "and its page no longer links it"
ok "the others are still on the page" grep -q "127.0.0.1:1/good" "$D/index.html"
expect_exit 0 "removing it again is a no-op" abx-ctl -d "$D" remove "$BAD"
expect_exit 0 "remove --delete then removes the files kept" abx-ctl -d "$D" remove --delete "$BAD"
ok "which are gone" test ! -e "$D/crawls/$A/$BAD"
is "$(jq -r '"\(.files_kept) \(.notes)"' "$T/stdout")" "null removed by abx-ctl remove --delete" "and the record says so"
expect_exit 0 "remove a crawl and delete its files" abx-ctl -d "$D" remove --delete "$B"
ok "its directory is gone" test ! -e "$D/crawls/$B"
K=$(abx-add -d "$D" --plugins ok http://127.0.0.1:1/kept | jq -r .id)
abx-tick -d "$D" --crawl "$K" >/dev/null 2>&1
KS=$(abx-ls -d "$D" -k snapshot --crawl "$K" --jsonl | jq -r .id)
expect_exit 0 "remove a crawl, keeping its files" abx-ctl -d "$D" remove "$K"
ok "its directory stays" test -d "$D/crawls/$K/$KS"
is "$(abx-ls -d "$D" --url /kept --jsonl | wc -l | tr -d ' ')" 0 "none of its records is listed"
is "$(abx-ls -d "$D" "$KS" | wc -l | tr -d ' ')" 0 "not even its snapshot by id"
ok "nothing is left in the trash" test ! -e "$D/crawls/.deleted"
is "$(abx-ls -d "$D" --jsonl | grep -c "$B")" 0 "abx-ls lists none of its records"
is "$(jq -rs --arg c "$B" 'group_by(.id) | map(last) | map(select(.crawl_id == $c and (has("deleted_at") | not))) | length' "$D/index.jsonl")" 0 \
	"no snapshot of it is left in the site index"
is "$(abx-ls -d "$D" -k crawl --jsonl | jq -r .id | grep -c "$A")" 1 "the other crawl stays"
expect_exit 65 "an unknown id" abx-ctl -d "$D" remove 01234567-89ab-7cde-8f01-23456789abcd
like "$(cat "$T/stderr")" "error: no record with id" "is reported as an error"

# schedules: the table shows the URL and expression; run now; edit
SC=$(abx-add -d "$D" --plugins ok --schedule daily http://127.0.0.1:1/sched | jq -r .id)
if command -v script >/dev/null 2>&1; then
	script -qc "stty cols 250; abx-ls -d '$D' -k schedule; abx-ls -d '$D' -k crawl -s template" /dev/null >"$T/tty" </dev/null
	like "$(cat "$T/tty")" "CrawlSchedule +$SC +queued +[-0-9T:]+ +daily +http://127.0.0.1:1/sched" \
		"the schedule table shows the cron expression and URL"
	like "$(cat "$T/tty")" "Crawl +[-0-9a-f]+ +template " "and a template says so"
fi
is "$(abx-ls -d "$D" -k crawl -s sealed --jsonl | jq -r .urls | grep -c sched)" 0 "-s sealed leaves templates out"
expect_exit 0 "edit a schedule's expression" abx-ctl -d "$D" schedule "$SC" '*/5 * * * *'
is "$(abx-ls -d "$D" "$SC" | jq -r .schedule)" "*/5 * * * *" "the expression is replaced"
like "$(abx-ls -d "$D" "$SC" | jq -r .retry_at)" ":[0-5][05]:00.000000Z$" "and the next run follows it"
expect_exit 65 "a bad expression is refused" abx-ctl -d "$D" schedule "$SC" '61 * * * *'
is "$(abx-ls -d "$D" "$SC" | jq -r .schedule)" "*/5 * * * *" "and changes nothing"
expect_exit 65 "so is one that never fires" abx-ctl -d "$D" schedule "$SC" '0 0 30 2 *'
expect_exit 0 "run a schedule now" abx-ctl -d "$D" run "$SC"
N=$(jq -r .id "$T/stdout")
is "$(abx-ls -d "$D" "$N" | jq -r '"\(.type) \(.status) \(.schedule_id)"')" "Crawl queued $SC" "one crawl is enqueued from it"
is "$(abx-ls -d "$D" "$N" | jq -r .urls)" "http://127.0.0.1:1/sched" "with the template's URL"
abx-ctl -d "$D" pause "$SC"
expect_exit 65 "a paused schedule is not run" abx-ctl -d "$D" run "$SC"
expect_exit 65 "run wants a schedule" abx-ctl -d "$D" run "$A"

# config, with where each value came from
echo "TIMEOUT=30" >>"$D/abx.conf"
C=$(abx-add -d "$D" --plugins ok --config TIMEOUT=90 http://127.0.0.1:1/conf | jq -r .id)
CS=$(abx-ls -d "$D" -k snapshot --crawl "$C" --jsonl | jq -r .id)
L=$(grep -n '^TIMEOUT=30' "$D/abx.conf" | cut -d: -f1)
expect_exit 0 "config" abx-ctl -d "$D" config
is "$(jq -r 'select(.key=="TIMEOUT") | "\(.value) \(.source)"' "$T/stdout")" "30 abx.conf line $L" "a value from abx.conf, with its line"
TIMEOUT=45 abx-ctl -d "$D" config | jq -r 'select(.key=="TIMEOUT") | "\(.value) \(.source)"' >"$T/env"
is "$(cat "$T/env")" "45 environment" "the environment overrides it"
TIMEOUT=45 abx-ctl -d "$D" config "$CS" >"$T/snapconf"
is "$(jq -r 'select(.key=="TIMEOUT") | "\(.value) \(.source)"' "$T/snapconf")" "90 crawl $C" "a snapshot's crawl's config wins"
is "$(jq -r 'select(.key=="OK_GREETING") | "\(.value) \(.source)"' "$T/snapconf")" "hello plugin ok (its config.json)" \
	"an enabled plugin's default is shown"
is "$(jq -r 'select(.key=="HOME") | .key' "$T/snapconf")" "" "other environment variables are not"
is "$(abx-ctl -d "$D" config --all | jq -r 'select(.key=="HOME") | .source')" environment "unless --all"
expect_exit 65 "config of a schedule" abx-ctl -d "$D" config "$SC"

# version and the dependency check
expect_exit 0 "version with every binary found" env PLUGINS=ok,flaky abx-ctl -d "$D" version
is "$(head -n 1 "$T/stdout" | jq -r .type)" Version "prints the version"
expect_exit 69 "version with a binary missing exits 69" env PLUGINS=ok,needy abx-ctl -d "$D" version
is "$(jq -r 'select(.type=="Dependency") | "\(.plugin) \(.name) \(.status)"' "$T/stdout")" \
	"needy abx-no-such-binary missing" "and names it"
like "$(cat "$T/stderr")" "error: 1 binary the enabled plugins need is missing" "and says so"
expect_exit 0 "version works before there is a data directory" env PLUGINS=ok abx-ctl -d "$T/none" version
is "$(jq -r .type "$T/stdout" | sort -u | tr '\n' ' ')" "Version " "and prints the version"
ok "and makes no directory" test ! -e "$T/none"

# status shows what is running, with its lease
slow_plugin slow
echo 3 >"$T/slow.s"
R=$(abx-add -d "$D" --plugins slow http://127.0.0.1:1/running | jq -r .id)
abx-tick -d "$D" --crawl "$R" >/dev/null 2>&1 &
running() { abx-ctl -d "$D" status --last 0 | grep -q '"type":"Running","kind":"Snapshot"'; }
ok "status shows the running snapshot" wait_for 10 running
abx-ctl -d "$D" status --last 0 >"$T/status"
is "$(jq -r 'select(.type=="Running" and .kind=="Snapshot") | "\(.url) \(.lease.pid > 0)"' "$T/status")" \
	"http://127.0.0.1:1/running true" "with its URL and the lease's holder"
is "$(jq -r 'select(.type=="Failed") | .plugin' "$T/status")" "" "--last 0 shows no failure"
wait
is "$(abx-ctl -d "$D" status | jq -r 'select(.type=="Running") | .id')" "" "and nothing once it is done"

# retention, later, removes expired crawls but not the files kept on purpose
ABX_NOW=2099-01-01T00:00:00Z DELETE_AFTER=1d abx-tick -d "$D" >/dev/null 2>&1
ok "retention removed the expired crawls" test ! -e "$D/crawls/$A"
ok "but left the files a removal kept" test -d "$D/crawls/$K/$KS"
done_testing
