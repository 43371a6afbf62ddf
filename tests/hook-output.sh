#!/bin/sh
# abx-hook: stdout records, garbage and overlong lines, exit codes, results.
. "$(dirname "$0")/lib/tap.sh"
export ABX_PLUGINS_DIR="$T/plugins" ABX_SHARE_DIR="$T/noshare" ABX_SYNC=0
D=$T/data
abx-add -d "$D" http://127.0.0.1:9/page >/dev/null
S=$(abx-ls -d "$D" -k snapshot --jsonl | jq -r .id)
C=$(abx-ls -d "$D" -k crawl --jsonl | jq -r .id)

mkhook() {
	mkdir -p "$T/plugins/$1"
	cat >"$T/plugins/$1/$2"
	chmod +x "$T/plugins/$1/$2"
}
mkhook noisy on_Snapshot__10_noisy.py <<'EOF'
#!/usr/bin/env python3
import sys
print("starting up, not JSON")
print("{not json either")
print('["an", "array"]')
print('{"type": "Unknown", "x": 1}')
print('{"type": "ArchiveResult", "status": "failed", "output_str": "first"}')
print("x" * 200000)                      # an overlong line, no record in it
sys.stdout.write('{"type":"ArchiveResult","output_str":"' + "y" * 70000 + '"}\n')
sys.stdout.flush()
sys.stdout.buffer.write(b'\x00\x01\xff garbage bytes\n')
sys.stdout.flush()
sys.stdout.buffer.write(b'{"type": "ArchiveResult", "status": "succeeded", "output_str": "caf\\u00e9 \xff", "output_json": {"n": 2}}\n')
sys.stdout.buffer.flush()
print('{"type": "Tag", "name": "news"}')
print('{"type": "Tag", "name": "a,b"}')
sys.stdout.write('{"type": "Tag", "name": "last-line-without-newline"}')
EOF
mkhook codes on_Snapshot__20_skip.sh <<'EOF'
#!/bin/sh
exit 10
EOF
mkhook codes on_Snapshot__21_fail.sh <<'EOF'
#!/bin/sh
echo "line one of the error" >&2
echo "wget: unable to resolve host address" >&2
exit 3
EOF
mkhook codes on_Snapshot__22_says_skipped.sh <<'EOF'
#!/bin/sh
echo '{"type":"ArchiveResult","status":"skipped","output_str":"nothing to do"}'
exit 0
EOF
mkhook codes on_Snapshot__23_noresult.sh <<'EOF'
#!/bin/sh
echo '{"type":"ArchiveResult","status":"noresult"}'
EOF
mkhook codes on_Snapshot__24_signal.sh <<'EOF'
#!/bin/sh
kill -KILL $$
EOF
mkhook codes on_Snapshot__25_noshebang.sh <<'EOF'
echo "a script without #! is not executed through a shell"
EOF
mkhook files on_Snapshot__30_files.sh <<'EOF'
#!/bin/sh
mkdir -p sub
printf '<html></html>' >sub/index.html
printf 'abc' >a.bin
printf 'changed' >old.txt
EOF
mkdir -p "$D/crawls/$C/$S/files"
printf 'unchanged' >"$D/crawls/$C/$S/files/keep.txt"
printf 'before' >"$D/crawls/$C/$S/files/old.txt"
touch -d '2001-01-01' "$D/crawls/$C/$S/files/keep.txt" "$D/crawls/$C/$S/files/old.txt"

plan 20
abx-hook -d "$D" "$S" >"$T/out" 2>"$T/err"
is "$?" 0 "the phase ran (exit 0) although hooks failed"
ok "every stdout line is valid JSON" sh -c "jq -e . '$T/out' >/dev/null"
r() { jq -r "select(.type==\"ArchiveResult\" and .hook_name==\"$1\") | $2" "$T/out"; }
is "$(r on_Snapshot__10_noisy .status)" succeeded "garbage is ignored; the last ArchiveResult wins"
is "$(r on_Snapshot__10_noisy .output_str)" "café �" "invalid UTF-8 from a hook is made valid"
is "$(r on_Snapshot__10_noisy .output_json.n)" 2 "output_json is kept"
like "$(r on_Snapshot__10_noisy .notes)" "stdout line 6 longer than 65536 bytes: cut and ignored \(2 such lines\)" \
	"overlong lines are cut and reported"
is "$(abx-ls -d "$D" "$S" | jq -r .tags)" "news,last-line-without-newline" "Tag records add to the snapshot's tags"
is "$(r on_Snapshot__20_skip .status)" failed "exit 10 without an ArchiveResult is failed (abx-dl: skipped only when the hook says so)"
is "$(r on_Snapshot__21_fail '.status + ": " + .notes')" \
	"failed: exit status 3; line one of the error
wget: unable to resolve host address" "another exit is failed, with the end of stderr in notes"
is "$(r on_Snapshot__22_says_skipped .status)" skipped "a reported status is honoured"
is "$(r on_Snapshot__23_noresult .status)" noresults "noresult is noresults"
is "$(r on_Snapshot__24_signal '.status + ": " + .notes')" "failed: killed by signal 9" "a signal is failed"
like "$(r on_Snapshot__25_noshebang '.status + ": " + .notes')" \
	"^failed: unable to execute .*on_Snapshot__25_noshebang.sh: Exec format error" \
	"a file without #! is not run through a shell"
is "$(r on_Snapshot__30_files '.output_files | keys | join(" ")')" "a.bin old.txt sub/index.html" \
	"output_files: new and changed files, not unchanged ones nor the logs"
is "$(r on_Snapshot__30_files '"\(.output_size) \(.output_mimetypes) \(.output_files["sub/index.html"].mimetype)"')" \
	"23 text/html,text/plain,application/octet-stream text/html" "sizes and mimetypes"

first=$(abx-ls -d "$D" -k result --jsonl | jq -r 'select(.hook_name=="on_Snapshot__20_skip") | .id')
abx-hook -d "$D" --plugins codes "$S" >"$T/out2" 2>/dev/null
is "$(jq -r 'select(.hook_name=="on_Snapshot__20_skip" and .type=="ArchiveResult") | .id' "$T/out2")" "$first" \
	"a rerun upserts the result of (snapshot, plugin, hook_name)"
is "$(abx-ls -d "$D" -k result --jsonl | wc -l | tr -d ' ')" 8 "one result per hook"
is "$(abx-ls -d "$D" -k process --jsonl | wc -l | tr -d ' ')" 12 "and a Process record per run (the one that could not start has none)"

# SNAPSHOT_MAX_SIZE: once reached, the remaining hooks are not started
mkhook big on_Snapshot__40_big.sh <<'EOF'
#!/bin/sh
head -c 4096 /dev/zero >big.bin
EOF
mkhook after on_Snapshot__41_after.sh <<'EOF'
#!/bin/sh
touch ran
EOF
SNAPSHOT_MAX_SIZE=2kb abx-hook -d "$D" --plugins big,after "$S" >"$T/out"
is "$(r on_Snapshot__41_after '.status + ": " + .notes')" "skipped: not run: the snapshot reached SNAPSHOT_MAX_SIZE" \
	"SNAPSHOT_MAX_SIZE stops the snapshot's remaining hooks"
ok "which did not run" test ! -e "$D/crawls/$C/$S/after/ran"
done_testing
