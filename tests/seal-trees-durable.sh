#!/bin/sh
# seal-trees-durable.sh — where syncfs is not trusted (ABX_DURABILITY=
# perfile: FUSE, NFS), a result's commit fsyncs its plugin's tree, and the
# seal of a snapshot by abx-tick, whose every result came from one worker
# that exited 0 or 1 after syncing them, does not fsync those trees again
# under the store lock (store.h: store_trees_durable): it fsyncs the
# snapshot's own index files and directory.  abx-seal run by hand knows
# nothing of who wrote the results, and fsyncs the whole tree as before.
# Counted with strace: the fsyncs of the hook's output file, of the
# snapshot's index.json, and by which process.
# shellcheck source-path=SCRIPTDIR source=lib/tap.sh
. "$(dirname "$0")/lib/tap.sh"
# shellcheck source-path=SCRIPTDIR source=lib/httpd.sh
. "$(dirname "$0")/lib/httpd.sh"
for c in strace curl; do
	command -v $c >/dev/null 2>&1 || { echo "1..0 # SKIP $c is not installed"; exit 0; }
done
if ! strace -f -qq -o /dev/null true 2>/dev/null; then
	echo "1..0 # SKIP strace cannot trace here (ptrace not permitted)"
	exit 0
fi
plan 8
ABX_DURABILITY=perfile
# LeakSanitizer cannot run under ptrace (the ASan build of make check)
ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"
export ABX_DURABILITY ASAN_OPTIONS
httpd_start --log "$T/requests.log" || exit 1

# a plugin whose hook writes one file, out.txt, in its directory
mkdir -p "$T/plugins/tw"
cat >"$T/plugins/tw/on_Snapshot__10_tw.sh" <<'EOF'
#!/bin/sh
printf 'written\n' >out.txt
echo '{"type":"ArchiveResult","status":"succeeded","output_str":"tw/out.txt"}'
EOF
chmod +x "$T/plugins/tw/on_Snapshot__10_tw.sh"
ABX_PLUGINS_DIR=$T/plugins
export ABX_PLUGINS_DIR

# fsyncs PID-FILTER TRACE PATTERN: the fsync/fdatasync calls of TRACE on
# a descriptor whose path (strace -y) matches PATTERN; PID-FILTER "all",
# or a pid whose calls alone count
fsyncs() {
	awk -v want="$1" -v pat="$3" '
	$2 ~ /^(fsync|fdatasync)\(/ && $0 ~ pat && (want == "all" || $1 == want) { n++ }
	END { print n + 0 }' "$2"
}

D=$T/tick
abx-add -d "$D" --plugins tw "$BASE/site/" >/dev/null
strace -f -y -qq -o "$T/tick.trace" -e trace=fsync,fdatasync abx-tick -d "$D" >"$T/tick.out" 2>"$T/tick.err"
rc=$?
is "$rc" 0 "abx-tick crawls the page (perfile)"
[ "$rc" = 0 ] || diag "$(head -c 600 "$T/tick.err")"
is "$(abx-ls -d "$D" -k snapshot --jsonl | jq -r .status)" sealed "and seals it"
TICK=$(awk 'NR == 1 { print $1 }' "$T/tick.trace")
is "$(fsyncs all "$T/tick.trace" '/tw/out\.txt>')" 1 \
	"the hook's output is fsync'd once, by its result's commit"
is "$(fsyncs "$TICK" "$T/tick.trace" '/tw/out\.txt>')" 0 "not again by the tick's seal"
is "$(fsyncs "$TICK" "$T/tick.trace" '/index\.json>')" 1 "which fsyncs the snapshot's index.json"

# by hand: a claim, the hook, the seal
D=$T/hand
abx-add -d "$D" --plugins tw "$BASE/site/" >/dev/null
S=$(abx-ls -d "$D" -k snapshot --jsonl | jq -r .id)
abx-hook -d "$D" "$S" >"$T/hook.out" 2>"$T/hook.err"
strace -f -y -qq -o "$T/seal.trace" -e trace=fsync,fdatasync abx-seal -d "$D" "$S" >"$T/seal.out" 2>"$T/seal.err"
rc=$?
is "$rc" 0 "abx-seal seals a snapshot whose hook was run by hand"
[ "$rc" = 0 ] || diag "$(head -c 600 "$T/seal.err")"
is "$(fsyncs all "$T/seal.trace" '/tw/out\.txt>')" 1 "and fsyncs its plugin's tree again (it cannot know who wrote it)"
is "$(fsyncs all "$T/seal.trace" '/index\.json>')" 1 "and its own index.json"
