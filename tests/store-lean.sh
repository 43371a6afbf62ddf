#!/bin/sh
# shellcheck disable=SC2016 # the sh -c scripts expand their own variables
# Lean mode (store.h): a worker told where its records are ($ABX_HINT,
# which abx-claim CMD and abx-tick set) never loads the active index, and
# answers what the index would: from a hint that is behind it finds the
# latest version; a hint that is wrong, or malformed, is checked and falls
# back to the index; its commits are seen by every reader after it; the
# hooks never see the hint.
. "$(dirname "$0")/lib/tap.sh"

# a hook that dumps its environment and its worker's, and names the page
mkdir -p "$T/plugins/probe"
cat >"$T/plugins/probe/on_Snapshot__50_probe.sh" <<EOF
#!/bin/sh
env >"$T/probe.env"
tr '\0' '\n' </proc/\$PPID/environ >"$T/worker.env"
echo '{"type":"Snapshot","title":"Probed page"}'
echo '{"type":"ArchiveResult","status":"succeeded","output_str":"probed"}'
EOF
chmod +x "$T/plugins/probe/on_Snapshot__50_probe.sh"
ABX_PLUGINS_DIR=$T/plugins
ABX_SYNC=0
export ABX_PLUGINS_DIR ABX_SYNC

# new_snapshot DIR: a crawl of two queued pages; sets $C, $J, $S (the
# first page's snapshot) and $O (the other's)
new_snapshot() {
	C=$(abx-add -d "$1" --plugins probe "http://127.0.0.1:9/$(basename "$1")" \
		"http://127.0.0.1:9/$(basename "$1")/other" | jq -r .id)
	S=$(abx-ls -d "$1" -k snapshot --jsonl | jq -r 'select(.url | endswith("/other") | not) | .id')
	O=$(abx-ls -d "$1" -k snapshot --jsonl | jq -r 'select(.url | endswith("/other")) | .id')
	J=crawls/$C/snapshots.jsonl
}
# offsets JOURNAL ID: the byte offset of each line of ID, one a line
offsets() {
	python3 - "$1" "$2" <<'EOF'
import json, sys
off = 0
for line in open(sys.argv[1], "rb"):
    try:
        if json.loads(line).get("id") == sys.argv[2]:
            print(off)
    except ValueError:
        pass
    off += len(line)
EOF
}
# last_version DIR ID: the version of snapshot ID the worker wrote (the
# first with the hook's title; abx-claim's release follows it), as
# [status, the lease's type, title]
last_version() {
	jq -c --arg id "$2" 'select(.id == $id and .title != null) | [.status, (.lease | type), .title]' \
		"$1/crawls/"*/snapshots.jsonl | head -n 1
}

# ---- 1. under abx-claim CMD the worker gets hints and loads no index
D=$T/d1
new_snapshot "$D"
# the index is made to name another boot once the claim is committed: a
# process that loads it rebuilds it (store.h), one that does not leaves it
cat >"$T/foreign.sh" <<'EOF'
#!/bin/sh
echo "$ABX_HINT" >"$ABX_DIR/../hint"
sed -i '1s/"boot_id":"[^"]*"/"boot_id":"another-boot"/' "$ABX_DIR/index/active.jsonl"
abx-hook -d "$ABX_DIR" "$ABX_ID"
rc=$?
head -n 1 "$ABX_DIR/index/active.jsonl" >"$ABX_DIR/../header"
exit $rc
EOF
expect_exit 0 "abx-claim CMD runs abx-hook" abx-claim -d "$D" -k snapshot -i "$S" sh "$T/foreign.sh"
like "$(cat "$T/hint")" "^$S=$J:[0-9]+ $C=crawls.jsonl:[0-9]+\$" \
	"CMD is told where the snapshot's and the crawl's latest lines are"
like "$(cat "$T/header")" '"boot_id":"another-boot"' \
	"abx-hook with hints never loaded the index (it would have rebuilt it)"
is "$(last_version "$D" "$S")" '["started","object","Probed page"]' \
	"its snapshot version is the claimed one with the hook's title"
is "$(abx-ls -d "$D" "$S" | jq -r .title)" "Probed page" "a reader after it sees that version"
is "$(jq -r 'select(.type == "ArchiveResult") | .status' "$D/$J")" succeeded "and the result is recorded"
ok "the hook's environment has no ABX_HINT" sh -c "! grep -q '^ABX_HINT=' '$T/probe.env'"

# ---- 2. a hint behind the latest version: the latest is found after it
D=$T/d2
new_snapshot "$D"
first=$(offsets "$D/$J" "$S" | head -n 1)
abx-claim -d "$D" -k snapshot -i "$S" \
	sh -c 'ABX_HINT="$ABX_ID=$1:$2 $3=crawls.jsonl:0" exec abx-hook -d "$ABX_DIR" "$ABX_ID"' \
	sh "$J" "$first" "$C"
is "$(last_version "$D" "$S")" '["started","object","Probed page"]' \
	"a hint at the queued line: the update is made to the claimed version after it"

# ---- 3. wrong hints are checked and fall back to the index
n=0
for what in other mid past; do
	n=$((n + 1))
	D=$T/d3$n
	new_snapshot "$D"
	last=$(offsets "$D/$J" "$S" | tail -n 1)
	case $what in
	other) off=$(offsets "$D/$J" "$O" | tail -n 1) ;;   # the other snapshot's line
	mid) off=$((last + 5)) ;;
	past) off=$(($(wc -c <"$D/$J") + 100)) ;;
	esac
	abx-claim -d "$D" -k snapshot -i "$S" \
		sh -c 'ABX_HINT="$ABX_ID=$1:$2 $3=crawls.jsonl:0" exec abx-hook -d "$ABX_DIR" "$ABX_ID"' \
		sh "$J" "$off" "$C" 2>"$T/err3$n"
	is "$(last_version "$D" "$S")" '["started","object","Probed page"]' \
		"a hint at the wrong place ($what) is checked: the right version is updated"
done
is "$(cat "$T"/err3*)" "" "and nothing is said of it (a hint is a hint)"

# ---- 4. a malformed ABX_HINT is named and ignored
D=$T/d4
new_snapshot "$D"
abx-claim -d "$D" -k snapshot -i "$S" \
	sh -c 'ABX_HINT="$ABX_ID=../../etc/passwd:0" exec abx-hook -d "$ABX_DIR" "$ABX_ID"' 2>"$T/err4"
like "$(cat "$T/err4")" "ABX_HINT=$S=../../etc/passwd:0: not location hints" "a hint naming no journal is refused by name"
is "$(last_version "$D" "$S")" '["started","object","Probed page"]' "and the worker runs as without it"

# ---- 5. abx-tick's workers are lean too, and the index catches up
D=$T/d5
new_snapshot "$D"
# (one-shot workers: a serving one gets its hint with each snapshot, not
# in its environment; tests/tick-serve.sh covers those)
expect_exit 0 "abx-tick runs the crawl" env WORKER_MAX_SNAPSHOTS=0 abx-tick -d "$D"
ok "its worker was told where its records are" grep -Eq "^ABX_HINT=($S|$O)=$J:[0-9]+ $C=crawls.jsonl:[0-9]+\$" "$T/worker.env"
is "$(abx-ls -d "$D" "$S" | jq -c '[.status, .title]')" '["sealed","Probed page"]' "the snapshot is sealed with the title"
is "$(abx-ctl -d "$D" repair | jq -c '[.active, .torn, .requeued]')" '[0,0,0]' "and repair finds nothing to mend"

done_testing
