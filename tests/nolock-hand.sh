#!/bin/sh
# An item the index says has no lock file (abx-add made it: lib/store/
# nolock.h), leased by a hook run by hand (abx-hook ID: no record says so):
# abx-claim, which then does not look for a lock file, learns of it from
# the lock line abx-hook appends to the index first, and finds the item
# held; once the hook is killed, the item is claimed.  And a tool killed
# while it writes that lock line (ABX_TEST_FAULT=index-note-half-line)
# leaves no lock held, the torn line is cut, and the item is claimed.
. "$(dirname "$0")/lib/tap.sh"
. "$(dirname "$0")/lib/tick-lib.sh"
plan 11
slow_plugin long
echo 30 >"$T/long.s"
D=$T/data
S=$(abx-add -d "$D" --plugins long http://127.0.0.1:1/held | jq -r 'select(.type == "Snapshot") | .id')
[ -n "$S" ] || S=$(abx-ls -d "$D" -k snapshot --jsonl | jq -r .id)
grep -q "\"id\":\"$S\".*\"nl\":1" "$D/index/active.jsonl"
is "$?" 0 "the index says the new snapshot has no lock file"

setsid abx-hook -d "$D" "$S" >/dev/null 2>"$T/hook.err" &
hp=$!
started() { [ "$(starts long)" -ge 1 ]; }
ok "a hook run by hand on it started" wait_for 20 started
grep -q "{\"lock\":\"$S\"}" "$D/index/active.jsonl"
is "$?" 0 "abx-hook noted the lock file it made in the index"
expect_exit 1 "abx-claim finds nothing due while the hook holds it" abx-claim -d "$D" -k snapshot -l 60
expect_exit 0 "abx-claim --test says it is held" abx-claim -d "$D" --test "$S"
kill -9 "-$hp" 2>/dev/null
reap_hooks long
wait "$hp" 2>/dev/null
ok "once the hook is killed, abx-claim claims it" \
	wait_for 10 sh -c "abx-claim -d '$D' -k snapshot -l 60 >'$T/claim.out'"
is "$(jq -r .id "$T/claim.out")" "$S" "... the same snapshot"

# killed in the middle of its lock line
D2=$T/data2
S2=$(abx-add -d "$D2" --plugins long http://127.0.0.1:1/torn | jq -r 'select(.type == "Snapshot") | .id')
[ -n "$S2" ] || S2=$(abx-ls -d "$D2" -k snapshot --jsonl | jq -r .id)
ABX_TEST_FAULT=index-note-half-line abx-hook -d "$D2" "$S2" >/dev/null 2>&1
is "$?" 137 "abx-hook killed while it writes its lock line"
ok "no lock file is left held" sh -c "! abx-claim -d '$D2' --test '$S2'"
abx-claim -d "$D2" -k snapshot -l 60 >"$T/claim2.out" 2>"$T/claim2.err"
is "$(jq -r .id "$T/claim2.out")" "$S2" "the snapshot is claimed"
ok "the index is whole again (no torn last line)" sh -c "tail -c 1 '$D2/index/active.jsonl' | od -c | grep -q '\\\\n'"
done_testing
