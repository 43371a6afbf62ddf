#!/bin/sh
# hooks-c-hashes.sh — the hashes hook, built from C (on_*.bin), starts no
# program: with an empty PATH it hashes what sha256sum(1) hashes, leaves
# out what the shell hook left out (files at the top, its own dir, hidden
# files and dirs, hook logs, pid and argv files, symlinks), sorts by path,
# writes hashes.json as jq writes it, gives a name that is not UTF-8
# U+FFFD; it waits for a plugin dir a hook holds an exclusive flock on,
# and reads it as it is once its budget (80% of HASHES_TIMEOUT) is spent.
# (tests/plugins.sh has it on a real snapshot.)
# shellcheck source-path=SCRIPTDIR source=lib/tap.sh
. "$(dirname "$0")/lib/tap.sh"

HH=$SHARE/abx/plugins/hashes/on_Snapshot__90_hashes.bin
plan 11

S=$T/snap
mkdir -p "$S/wget/warc" "$S/title" "$S/.hidden" "$S/hashes" "$S/favicon/.x" "$S/wget/sub/.dot"
echo top >"$S/index.jsonl"
echo page >"$S/wget/index.html"
echo warc >"$S/wget/warc/x.warc.gz"
echo title >"$S/title/title.txt"
echo hidden >"$S/.hidden/f"
echo log >"$S/wget/on_Snapshot__06_wget.log"
echo 1 >"$S/wget/hook.pid"
echo argv >"$S/wget/on_x.sh"
echo dot >"$S/favicon/.x/y"
echo dot >"$S/wget/sub/.dot/q"
echo own >"$S/hashes/old.txt"
echo B >"$S/title/B.txt"
echo a >"$S/title/a.txt"
printf 'x' >"$S/title/n$(printf '\377')me.txt"
ln -s /etc/hostname "$S/title/link"
mkdir "$T/elsewhere"
echo far >"$T/elsewhere/f"
ln -s "$T/elsewhere" "$S/linked"

# run [VAR=value...]: the hook in $S/hashes, PATH empty; stdout $T/out,
# stderr $T/err, exit code $rc
run() {
	(cd "$S/hashes" && exec env PATH=/nonexistent SNAP_DIR="$S" "$@" "$HH" --url=http://127.0.0.1:9/ \
		>"$T/out" 2>"$T/err")
	rc=$?
}
field() { jq -r "select(.type == \"ArchiveResult\") | .$1" "$T/out"; }

run
is "$rc $(field output_str)" "0 hashes.json (6 files)" "with PATH empty: six files hashed"
want=$(cd "$S" && for f in title/B.txt title/a.txt title/title.txt wget/index.html wget/warc/x.warc.gz; do
	printf '"%s": "%s"\n' "$f" "$(sha256sum <"$f" | cut -c1-64)"
done)
is "$(jq -r 'to_entries[] | select(.key | test("^n") or test("me.txt$") | not) | "\"\(.key)\": \"\(.value)\""' \
	"$S/hashes/hashes.json")" "$want" "the hashes are sha256sum's, sorted by path, the rest left out"
is "$(jq -r 'keys_unsorted | map(select(endswith("me.txt")))[0]' "$S/hashes/hashes.json")" "title/n�me.txt" \
	"a name that is not UTF-8 gets U+FFFD"
is "$(head -n 2 "$S/hashes/hashes.json")" "{
  \"title/B.txt\": \"$(sha256sum <"$S/title/B.txt" | cut -c1-64)\"," "written as jq writes it"
is "$(jq -r type "$S/hashes/hashes.json")" object "one JSON object"

run HASHES_ENABLED=off
is "$rc $(field status)" "10 skipped" "HASHES_ENABLED=off skips"
(cd "$S/hashes" && exec env PATH=/nonexistent SNAP_DIR="$T/none" "$HH" --url=x >"$T/out" 2>"$T/err")
is "$? $(field output_str)" "1 SNAP_DIR is not a directory" "a SNAP_DIR that is not a directory fails"

# a hook writing wget/ holds an exclusive flock on it: hashes waits
flock -x "$S/wget" sh -c "sleep 1; echo final >'$S/wget/index.html'" &
w=$!
sleep 0.3
run
wait "$w"
is "$(jq -r '."wget/index.html"' "$S/hashes/hashes.json")" "$(sha256sum <"$S/wget/index.html" | cut -c1-64)" \
	"it waited for the dir's writer, and hashed what it wrote"
is "$(cat "$T/err")" "" "and said nothing of it"
flock -x "$S/wget" sleep 6 &
w=$!
sleep 0.3
s0=$(date +%s)
run HASHES_TIMEOUT=2
s1=$(date +%s)
like "$(cat "$T/err")" "still being written, read as it is: wget/" "a dir held past its budget is read as it is, and named"
ok "after 80% of HASHES_TIMEOUT=2, not the writer's 6 s" test $((s1 - s0)) -le 4
wait "$w"

done_testing
