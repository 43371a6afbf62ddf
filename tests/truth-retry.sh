#!/bin/sh
# abx-ctl retry SNAP --plugins X: once the rerun has recorded X's results,
# no "queued" ArchiveResult is left behind (not in abx-ls -s queued, the
# snapshot's index.jsonl or its index.html); the rerun's result replaces the
# earlier one of the same (snapshot, plugin, hook), keeping its id.
. "$(dirname "$0")/lib/tap.sh"
. "$(dirname "$0")/lib/httpd.sh"
. "$(dirname "$0")/lib/tick-lib.sh"
httpd_start || exit 1
D=$T/data
C=$(abx-add -d "$D" --plugins wget,title "$BASE/site/page1.html" | jq -r .id)
S=$(abx-ls -d "$D" -k snapshot --jsonl | jq -r .id)
SD=$D/crawls/$C/$S
expect_exit 0 "a tick archives the page" abx-tick -d "$D"
tid=$(abx-ls -d "$D" -k result --jsonl | jq -r 'select(.plugin == "title") | .id')

expect_exit 0 "abx-ctl retry SNAP --plugins title" abx-ctl -d "$D" retry "$S" --plugins title
is "$(abx-ls -d "$D" -k result -s queued --jsonl | jq -r '.plugin + " " + .id')" "title $tid" \
	"the title result is queued again, under its id"
expect_exit 0 "a tick reruns it" abx-tick -d "$D"
is "$(abx-ls -d "$D" "$S" | jq -r .status)" sealed "the snapshot is sealed again"
is "$(abx-ls -d "$D" -k result -s queued --jsonl)" "" "no queued result is left (abx-ls -s queued)"
is "$(abx-ls -d "$D" -s queued --jsonl | jq -r .type)" "" "nor any queued record"
is "$(jq -r 'select(.type == "ArchiveResult") | .plugin + " " + .status' "$SD/index.jsonl" | sort | tr '\n' ' ')" \
	"title succeeded wget succeeded " "index.jsonl: one result per hook, none queued"
ok "index.html shows no queued result" sh -c "! grep -q '>queued<' '$SD/index.html'"
is "$(abx-ls -d "$D" -k result --jsonl | jq -r 'select(.plugin == "title") | .id')" "$tid" \
	"the rerun's title result kept its id"

# a snapshot that never ran (its crawl cancelled), retried with a plugin
C2=$(abx-add -d "$D" --plugins wget,title "$BASE/site/page2.html" | jq -r .id)
S2=$(abx-ls -d "$D" -k snapshot --jsonl | jq -r "select(.crawl_id == \"$C2\") | .id")
abx-ctl -d "$D" cancel "$C2"
expect_exit 0 "retry of a never-run snapshot" abx-ctl -d "$D" retry "$S2" --plugins title
is "$(abx-ls -d "$D" -k result -s queued --jsonl | jq -r .plugin)" title "a queued result for title"
expect_exit 0 "a tick runs it" abx-tick -d "$D"
is "$(abx-ls -d "$D" -k result -s queued --jsonl)" "" "no queued result is left"
is "$(abx-ls -d "$D" -k result --jsonl | jq -r "select(.snapshot_id == \"$S2\") | .plugin + \" \" + .status")" \
	"title succeeded" "one title result, succeeded"
ok "its index.html shows no queued result" sh -c "! grep -q '>queued<' '$D/crawls/$C2/$S2/index.html'"
# a retry cancelled before its rerun: the queued result does not stay queued
expect_exit 0 "retry, then" abx-ctl -d "$D" retry "$S" --plugins title
expect_exit 0 "cancel before the rerun" abx-ctl -d "$D" cancel "$S"
is "$(abx-ls -d "$D" -k result -s queued --jsonl)" "" "no queued result is left"
is "$(abx-ls -d "$D" "$tid" | jq -r '.status + ": " + .notes')" \
	"skipped: queued by abx-ctl retry; cancelled before it ran again" "the title result says what happened"
expect_exit 0 "retried again" abx-ctl -d "$D" retry "$S" --plugins title
expect_exit 0 "and run" abx-tick -d "$D"
is "$(abx-ls -d "$D" "$tid" | jq -r .status)" succeeded "the title result is succeeded again, under its id"
done_testing
