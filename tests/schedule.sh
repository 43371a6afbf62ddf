#!/bin/sh
# Schedules, with the clock driven by ABX_NOW: abx-add --schedule stores a
# template and a CrawlSchedule and queues nothing; each period enqueues
# exactly one crawl, from one-shot ticks and from the daemon, with no
# back-filling; cron expressions and aliases; bad ones exit 65; abx-ctl
# pause, resume and cancel.
. "$(dirname "$0")/lib/tap.sh"
LOG=$T/hooks.log   # one line per hook run: <snapshot id>
mkdir -p "$T/plugins/mark"
cat >"$T/plugins/mark/on_Snapshot__10_mark.sh" <<EOF
#!/bin/sh
printf '%s\\n' "\$EXTRA_CONTEXT" | sed 's/.*"snapshot_id":"\\([^"]*\\)".*/\\1/' >>"$LOG"
echo '{"type":"ArchiveResult","status":"succeeded"}'
EOF
chmod +x "$T/plugins/mark/on_Snapshot__10_mark.sh"
ABX_PLUGINS_DIR=$T/plugins
export ABX_PLUGINS_DIR
: >"$LOG"
D=$T/data
U=http://127.0.0.1:1/page

at() { _t=$1; shift; ABX_NOW=$_t "$@"; }           # at TIME CMD...: run CMD at TIME
made() {   # crawls made by schedule $1
	abx-ls -d "${2:-$D}" -k crawl --jsonl | jq -s --arg s "$1" '[.[] | select(.schedule_id == $s)] | length'
}
sched() { abx-ls -d "${2:-$D}" -k schedule --jsonl "$1" | jq -r "$3"; }
# tick TIME: one one-shot pass at TIME; its exit status is in $rc
tick() { at "$1" abx-tick -d "$D" 2>>"$T/tick.err"; rc=$?; }

# --- abx-add --schedule -------------------------------------------------
at 2030-01-01T10:15:00Z abx-add -d "$D" --plugins mark --schedule hourly "$U" >"$T/sched"
is "$?" 0 "abx-add --schedule hourly succeeds"
SID=$(jq -r .id "$T/sched")
TID=$(jq -r .template_id "$T/sched")
is "$(jq -r .type "$T/sched")" CrawlSchedule "it prints the CrawlSchedule record"
is "$(abx-ls -d "$D" -k schedule --jsonl | jq -r .id)" "$SID" "abx-ls -k schedule lists it"
is "$(sched "$SID" "$D" '.schedule + " " + (.is_enabled|tostring) + " " + .status')" "hourly true queued" \
	"enabled, queued, with its expression"
is "$(sched "$SID" "$D" .retry_at)" 2030-01-01T11:00:00.000000Z "its next run is the next hour"
is "$(abx-ls -d "$D" --jsonl "$TID" | jq -r '.type + " " + .status')" "Crawl sealed" \
	"its template is a sealed crawl"
ok "the template keeps the URLs and the config" sh -c \
	"abx-ls -d '$D' --jsonl '$TID' | jq -e '.urls == \"$U\\n\" and .config.PLUGINS == \"mark\"' >/dev/null"
is "$(abx-ls -d "$D" -k snapshot --jsonl | wc -l)" 0 "no snapshot is queued"
is "$(abx-ls -d "$D" -k crawl -s queued --jsonl | wc -l)" 0 "no crawl is queued"
tick 2030-01-01T10:15:00Z
is "$rc" 1 "a tick right away has nothing to do"
tick 2030-01-01T10:30:00Z
is "$rc" 1 "nor before the hour"
is "$(made "$SID")" 0 "no crawl yet"

# --- one crawl per period -----------------------------------------------
tick 2030-01-01T11:00:00Z
is "$rc" 0 "at the hour the tick does work"
is "$(made "$SID")" 1 "one crawl is enqueued"
C1=$(abx-ls -d "$D" -k crawl --jsonl | jq -r --arg s "$SID" 'select(.schedule_id == $s) | .id')
ok "a copy of the template, made at the tick's time" sh -c \
	"abx-ls -d '$D' --jsonl '$C1' | jq -e '.urls == \"$U\\n\" and .config.PLUGINS == \"mark\" and .created_at == \"2030-01-01T11:00:00.000000Z\"' >/dev/null"
is "$(abx-ls -d "$D" --jsonl "$C1" | jq -r .status)" sealed "and the same tick ran it"
is "$(wc -l <"$LOG")" 1 "its hook ran once"
is "$(sched "$SID" "$D" '.last_run_at + " " + .retry_at')" \
	"2030-01-01T11:00:00.000000Z 2030-01-01T12:00:00.000000Z" "last_run_at is now, retry_at the next hour"
for t in 2030-01-01T11:00:00Z 2030-01-01T11:00:30Z 2030-01-01T11:30:00Z 2030-01-01T11:59:59.999999Z; do
	tick "$t"
	is "$rc $(made "$SID")" "1 1" "a tick at $t, in the same hour, enqueues nothing"
done
tick 2030-01-01T12:05:00Z
is "$(made "$SID")" 2 "the next hour: one more crawl"
tick 2030-01-01T12:10:00Z
is "$(made "$SID")" 2 "and only one"
tick 2030-01-01T17:10:00Z
is "$(made "$SID")" 3 "after a jump of 5 hours: just one crawl, no back-filling"
is "$(sched "$SID" "$D" .retry_at)" 2030-01-01T18:00:00.000000Z "the next run is computed from now"
tick 2030-01-01T17:20:00Z
is "$(made "$SID")" 3 "then nothing more in that hour"
is "$(wc -l <"$LOG")" 3 "three crawls, three hook runs"

# --- pause, resume, cancel ----------------------------------------------
expect_exit 0 "abx-ctl pause on the schedule" at 2030-01-01T17:30:00Z abx-ctl -d "$D" pause "$SID"
is "$(sched "$SID" "$D" '.status + " " + (.is_enabled|tostring)')" "paused false" "it is paused and disabled"
for t in 2030-01-01T18:05:00Z 2030-01-01T19:05:00Z; do
	tick "$t"
	is "$rc $(made "$SID")" "1 3" "paused: a tick at $t enqueues nothing"
done
expect_exit 1 "abx-tick -n shows nothing due while paused" at 2030-01-01T19:05:00Z abx-tick -n -d "$D"
expect_exit 0 "abx-ctl resume" at 2030-01-01T19:10:00Z abx-ctl -d "$D" resume "$SID"
is "$(sched "$SID" "$D" '.status + " " + (.is_enabled|tostring) + " " + .retry_at')" \
	"queued true 2030-01-01T20:00:00.000000Z" "resumed: enabled, next run at the next hour"
tick 2030-01-01T19:20:00Z
is "$(made "$SID")" 3 "the periods missed while paused are not made up"
tick 2030-01-01T20:01:00Z
is "$(made "$SID")" 4 "enqueues resume at the next period"
tick 2030-01-01T20:30:00Z
is "$(made "$SID")" 4 "once"
expect_exit 0 "abx-ctl cancel" at 2030-01-01T20:40:00Z abx-ctl -d "$D" cancel "$SID"
is "$(sched "$SID" "$D" '.status + " " + (.is_enabled|tostring) + " " + (.retry_at|tostring)')" \
	"sealed false null" "cancelled: sealed, disabled, no next run"
for t in 2030-01-01T21:05:00Z 2030-01-02T09:00:00Z; do
	tick "$t"
	is "$(made "$SID")" 4 "cancelled: a tick at $t enqueues nothing"
done
at 2030-01-02T09:00:00Z abx-ctl -d "$D" resume "$SID" 2>/dev/null
ok "a cancelled schedule cannot be resumed" test "$?" -ne 0
is "$(sched "$SID" "$D" .status)" sealed "it stays sealed"
is "$(abx-ls -d "$D" --jsonl "$TID" | jq -r .status)" sealed "its template stays"
is "$(abx-ls -d "$D" -k crawl --jsonl | jq -s 'map(select(.schedule_id == null)) | length')" 1 \
	"the template is never run as a crawl of its own"

# --- five fields ----------------------------------------------------------
D2=$T/every15
S2=$(at 2030-01-01T10:15:00Z abx-add -d "$D2" --plugins mark --schedule '*/15 * * * *' "$U" | jq -r .id)
is "$(sched "$S2" "$D2" .retry_at)" 2030-01-01T10:30:00.000000Z "*/15: the next quarter"
while read -r t want; do
	ABX_NOW=2030-01-01T$t:00Z abx-tick -d "$D2" 2>>"$T/tick.err"
	rc=$?
	is "$rc $(made "$S2" "$D2")" "$want" "*/15, a tick at $t: exit status and crawls so far"
done <<EOF
10:20 1 0
10:30 0 1
10:44 1 1
10:45 0 2
10:59 1 2
12:59 0 3
13:00 0 4
13:14 1 4
EOF

# --- expressions and aliases: the first run after 2030-01-04T10:00 (a Friday)
D3=$T/exprs
for c in 'hourly|2030-01-04T11:00' '@hourly|2030-01-04T11:00' 'daily|2030-01-05T00:00' \
	'@weekly|2030-01-06T00:00' 'monthly|2030-02-01T00:00' 'yearly|2031-01-01T00:00' \
	'@annually|2031-01-01T00:00' 'minutely|2030-01-04T10:01' \
	'30 9 * * 1-5|2030-01-07T09:30' '0 0 * * 7|2030-01-06T00:00' '0 0 13 * 5|2030-01-11T00:00' \
	'0 0 13 * 6|2030-01-05T00:00' '5,35 */6 * * *|2030-01-04T12:05' '0 12 29 2 *|2032-02-29T12:00' \
	'0 0 31 * *|2030-01-31T00:00' '0 3 * * MON|2030-01-07T03:00' '0 0 1 JAN-MAR *|2030-02-01T00:00' \
	'0 9 * * sat,Sun|2030-01-05T09:00' '@midnight|2030-01-05T00:00' '0 0 */1 * 1|2030-01-07T00:00' \
	'0 0 13 * 0-7|2030-01-13T00:00'; do
	e=${c%|*} want=${c#*|}
	got=$(at 2030-01-04T10:00:00Z abx-add -d "$D3" --schedule "$e" "$U" | jq -r .retry_at)
	is "$got" "$want:00.000000Z" "'$e': next run $want"
done
n3=$(abx-ls -d "$D3" -k schedule --jsonl | wc -l)
for e in '' 'hourlyish' '@reboot' '61 * * * *' '* 24 * * *' '* * 0 * *' '* * * 13 *' '* * * * 8' \
	'* * * *' '* * * * * *' '*/0 * * * *' '5-1 * * * *' 'mon * * * *' '+5 * * * *' '0 0 30 2 *' \
	'0 0 31 apr,jun,sep,nov *'; do
	expect_exit 65 "a bad expression '$e' exits 65" abx-add -d "$D3" --schedule "$e" "$U"
done
is "$(abx-ls -d "$D3" -k schedule --jsonl | wc -l)" "$n3" "and stores no schedule"
like "$(abx-add -d "$D3" --schedule '61 * * * *' "$U" 2>&1)" "abx-add: .*61 \\* \\* \\* \\*" \
	"the error names the expression"
like "$(abx-add -d "$D3" --schedule '@reboot' "$U" 2>&1)" "@reboot has no time" "@reboot is refused with the reason"
like "$(abx-add -d "$D3" --schedule '0 0 30 2 *' "$U" 2>&1)" "can never fire" "so is a date that never comes"

# --- the daemon fires a due schedule exactly once ------------------------
D4=$T/daemon
S4=$(at 2030-01-01T10:15:00Z abx-add -d "$D4" --plugins mark --schedule hourly "$U" | jq -r .id)
ABX_NOW=2030-01-01T11:00:00Z abx-tick --daemon -d "$D4" 2>"$T/daemon.err" &
DP=$!
ok "the daemon enqueues the due schedule's crawl" wait_for 10 sh -c "test \"\$(abx-ls -d '$D4' -k crawl --jsonl | jq -s --arg s '$S4' '[.[] | select(.schedule_id == \$s and .status == \"sealed\")] | length')\" = 1"
sleep 1.5
is "$(made "$S4" "$D4")" 1 "and only one, while its clock stays in that hour"
kill -TERM "$DP"
wait "$DP"
is "$?" 143 "the daemon stops on SIGTERM"
ok "no sanitizer report from the ticks" sh -c "! grep -Eh 'runtime error|Sanitizer' '$T/tick.err' '$T/daemon.err'"
done_testing
