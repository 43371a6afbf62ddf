#!/bin/sh
# Crash mid-write: fault-injection points (ABX_TEST_FAULT, used only by
# tests) kill the writer with SIGKILL in the middle of each kind of write.
# Every committed record stays readable, a torn line is repaired and kept,
# and the repair pass leaves the directory consistent.
. "$(dirname "$0")/lib/tap.sh"
. "$(dirname "$0")/lib/consistent.sh"

setup() {
	rm -rf "$D"
	abx-add -d "$D" http://127.0.0.1:1/a http://127.0.0.1:1/b >"$T/crawl1"
	abx-claim -d "$D" -k snapshot -l 3600 >/dev/null
	abx-ls -d "$D" --jsonl | jq -r .id | sort >"$T/committed"
}
all_readable() {
	while read -r _id; do
		abx-ls -d "$D" "$_id" >/dev/null 2>&1 || return 1
	done <"$T/committed"
}
D=$T/data

for f in journal-half-line journal-before-write journal-after-write index-half-line index-note-half-line; do
	setup
	ABX_TEST_FAULT=$f abx-add -d "$D" http://127.0.0.1:1/new >/dev/null 2>&1
	is "$?" 137 "$f: the writer was killed"
	ok "$f: every committed record still readable" all_readable
	abx-add -d "$D" http://127.0.0.1:1/after >/dev/null 2>"$T/err2"
	is "$?" 0 "$f: the next writer works"
	abx-ctl -d "$D" repair >"$T/repair" 2>&1
	is "$?" 0 "$f: repair pass runs"
	ok "$f: directory consistent after repair" consistent "$D"
	n=$(abx-ls -d "$D" -k snapshot --jsonl | jq -r .url | grep -c /new)
	c=$(abx-ls -d "$D" -k crawl --jsonl | jq -r .urls | grep -c /new)
	case $f in
	journal-after-write | index-half-line)
		is "$c" 1 "$f: the committed crawl survived (the index learns it from the journal)" ;;
	*) is "$c$n" 00 "$f: the uncommitted crawl is not half there" ;;
	esac
done

# the torn half line is reported and kept, never silently dropped
setup
ABX_TEST_FAULT=journal-half-line abx-add -d "$D" http://127.0.0.1:1/torn >/dev/null 2>&1
ok "a torn line is left by the kill" sh -c "tail -c 1 '$D/crawls.jsonl' | od -c | grep -qv '\\\\n'"
abx-ls -d "$D" -k crawl --jsonl >/dev/null 2>"$T/lserr"
is "$?" 0 "readers tolerate the torn line"
abx-add -d "$D" http://127.0.0.1:1/x >/dev/null 2>"$T/err"
like "$(cat "$T/err")" 'torn last line .* moved to crawls.jsonl.torn' "the next writer reports the repair"
ok "the fragment is kept in crawls.jsonl.torn" test -s "$D/crawls.jsonl.torn"
ok "consistent after the repair" consistent "$D"

# a malformed line in the middle (a bad hand edit) is reported, not fatal
setup
echo '{"type":"Snapshot", this is not json' >>"$D/crawls.jsonl"
abx-add -d "$D" http://127.0.0.1:1/y >/dev/null
abx-ls -d "$D" -k crawl --jsonl >"$T/out" 2>"$T/err"
is "$?" 0 "abx-ls keeps going past a malformed line"
like "$(cat "$T/err")" 'crawls.jsonl:[0-9]+: malformed record skipped' "and names its line"
is "$(wc -l <"$T/out" | tr -d ' ')" 2 "both good crawls listed"

# compaction killed before and after its rename
for f in compact-before-rename compact-after-rename; do
	setup
	i=0
	while [ $i -lt 40 ]; do
		id=$(abx-claim -d "$D" -k snapshot -l 1 | jq -r .id)
		[ -n "$id" ] && abx-claim -d "$D" --release "$id"
		i=$((i + 1))
	done
	before=$(cat "$D"/crawls/*/snapshots.jsonl | wc -l)
	ABX_COMPACT_MIN=0 ABX_TEST_FAULT=$f abx-ctl -d "$D" repair >/dev/null 2>&1
	is "$?" 137 "$f: the compactor was killed"
	ok "$f: every committed record still readable" all_readable
	ok "$f: consistent" consistent "$D"
	ABX_COMPACT_MIN=0 ABX_TMP_AGE=0 abx-ctl -d "$D" repair >"$T/r" 2>&1
	after=$(cat "$D"/crawls/*/snapshots.jsonl | wc -l)
	ok "$f: a later repair compacts ($before -> $after lines)" test "$after" -lt "$before"
	ok "$f: and is consistent" consistent "$D"
	is "$(find "$D" -name '.*.tmp.*' | wc -l | tr -d ' ')" 0 "$f: no temp file left"
done

# a change committed to the journal but not yet to the index is never undone
setup
S=$(abx-ls -d "$D" -k snapshot -s queued --jsonl | jq -r .id | head -1)
ABX_TEST_FAULT=journal-after-write abx-ctl -d "$D" cancel "$S" 2>/dev/null
is "$(abx-ls -d "$D" "$S" | jq -r .status)" sealed "a cancel killed before its index line still reads sealed"
expect_exit 1 "and the cancelled snapshot is not claimed" abx-claim -d "$D" -i "$S"
ok "consistent" consistent "$D"

# a correction appended by hand under the store lock is honoured
setup
S=$(abx-ls -d "$D" -k snapshot -s queued --jsonl | jq -r .id | head -1)
J=$(ls "$D"/crawls/*/snapshots.jsonl)
flock "$D/locks/store.lock" sh -c "abx-ls -d '$D' '$S' | jq -c '.status=\"paused\" | .retry_at=\"9999-12-31T23:59:59.999999Z\"' >>'$J'"
is "$(abx-ls -d "$D" "$S" | jq -r .status)" paused "a hand-appended line is the current version"
expect_exit 1 "nothing due: the hand-paused snapshot is skipped" abx-claim -v -d "$D" -k snapshot
like "$(cat "$T/stderr")" "snapshots.jsonl: [0-9]+ bytes the index did not know were replayed" \
	"the first locker says it replayed the hand-appended line (-v)"
expect_exit 1 "the next one" abx-claim -v -d "$D" -k snapshot
ok "says nothing of a replay: nothing was missing" sh -c "! grep -q replayed '$T/stderr'"
ok "consistent" consistent "$D"

# an ordinary crawl, its workers committing beside the tick, replays nothing
mkdir -p "$T/plugins/noop"
printf '#!/bin/sh\nexit 0\n' >"$T/plugins/noop/on_Snapshot__10_noop.sh"
chmod +x "$T/plugins/noop/on_Snapshot__10_noop.sh"
ABX_PLUGINS_DIR=$T/plugins abx-add -d "$T/plain" --plugins noop http://127.0.0.1:1/a http://127.0.0.1:1/b \
	http://127.0.0.1:1/c >/dev/null
ABX_PLUGINS_DIR=$T/plugins abx-tick -v -d "$T/plain" 2>"$T/plain.err"
like "$(cat "$T/plain.err")" "crawl .* sealed" "an ordinary crawl runs to its seal (-v)"
ok "and no replay of crash recovery is reported" sh -c "! grep -q replayed '$T/plain.err'"

# the index rewrite killed before its rename
setup
ABX_TEST_FAULT=index-rebuild-before-rename abx-ctl -d "$D" repair >/dev/null 2>&1
is "$?" 137 "index rebuild killed"
ok "still consistent (the old index stands)" consistent "$D"
ABX_TMP_AGE=0 abx-ctl -d "$D" repair >/dev/null 2>&1
ok "repair sweeps the temp file" test -z "$(find "$D/index" -name '.*.tmp.*')"
# a lost index is rebuilt
rm -f "$D/index/active.jsonl"
ok "a deleted index is rebuilt" consistent "$D"
done_testing
