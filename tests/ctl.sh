#!/bin/sh
# abx-ctl pause, resume, cancel and retry, with ArchiveBox's semantics.
. "$(dirname "$0")/lib/tap.sh"
D=$T/data
C=$(abx-add -d "$D" http://127.0.0.1:1/a http://127.0.0.1:1/b | jq -r .id)
S1=$(abx-ls -d "$D" -k snapshot --jsonl | jq -r 'select(.url|endswith("/a")) | .id')

abx-ctl -d "$D" pause "$C"
is "$(abx-ls -d "$D" "$C" | jq -r '.status + " " + .retry_at')" \
	"paused 9999-12-31T23:59:59.999999Z" "a paused crawl carries the paused marker"
is "$(abx-ls -d "$D" -k snapshot -s paused --jsonl | wc -l | tr -d ' ')" 2 "its snapshots are paused too"
expect_exit 1 "a paused crawl is not claimed" abx-claim -d "$D" -k crawl
expect_exit 1 "nor are its snapshots" abx-claim -d "$D" -k snapshot
expect_exit 1 "nor by name" abx-claim -d "$D" -i "$C"
like "$(cat "$T/stderr")" "is paused" "and the message says why"
expect_exit 65 "a snapshot of a paused crawl does not resume alone" abx-ctl -d "$D" resume "$S1"
expect_exit 0 "pausing again is a no-op" abx-ctl -d "$D" pause "$C"

abx-ctl -d "$D" resume "$C"
is "$(abx-ls -d "$D" "$C" | jq -r .status)" queued "resume queues the crawl"
is "$(abx-ls -d "$D" -k snapshot -s queued --jsonl | wc -l | tr -d ' ')" 2 "and its snapshots"
expect_exit 0 "the resumed crawl is claimed" abx-claim -d "$D" -k crawl -l 1

# a worker renewing its lease never un-pauses what abx-ctl paused
abx-claim -d "$D" -i "$S1" sleep 3 &
wait_for 5 abx-claim -d "$D" --test "$S1"
abx-ctl -d "$D" pause "$S1"
abx-claim -d "$D" --renew "$S1" -l 30
is "$(abx-ls -d "$D" "$S1" | jq -r .status)" paused "renewing a lease keeps a pause"
wait
is "$(abx-ls -d "$D" "$S1" | jq -r .status)" paused "releasing a lease keeps a pause"

# cancel seals the crawl and every unfinished snapshot
abx-ctl -d "$D" cancel "$C"
is "$(abx-ls -d "$D" "$C" | jq -r '.status + " " + (.retry_at|tostring)')" "sealed null" "cancel seals the crawl"
is "$(abx-ls -d "$D" -k snapshot --jsonl | jq -r .status | sort -u)" sealed "and all its snapshots"
expect_exit 1 "nothing is due after a cancel" abx-claim -d "$D" -k snapshot

# retry queues the named plugins of a sealed snapshot again
abx-ctl -d "$D" retry "$S1" --plugins wget,title
is "$(abx-ls -d "$D" "$S1" | jq -r .status)" queued "retry queues the snapshot"
is "$(abx-ls -d "$D" -k result --jsonl | jq -r 'select(.status=="queued") | .plugin' | sort | tr '\n' ' ')" \
	"title wget " "with a queued result per named plugin"
is "$(abx-ls -d "$D" "$C" | jq -r .status)" queued "and requeues its sealed crawl"
expect_exit 65 "retry with a bad plugin name" abx-ctl -d "$D" retry "$S1" --plugins '../x'

# bad operands: report each, do the rest, exit 65
expect_exit 65 "an unknown id among good ones" abx-ctl -d "$D" pause 01234567-89ab-7cde-8f01-23456789abcd "$C"
is "$(abx-ls -d "$D" "$C" | jq -r .status)" paused "the good id was still paused"
expect_exit 65 "not an id" abx-ctl -d "$D" cancel ../../etc
expect_exit 64 "unknown command" abx-ctl -d "$D" frobnicate "$C"
expect_exit 64 "unknown flag" abx-ctl -d "$D" --bogus pause "$C"
done_testing
