#!/bin/sh
# A full disk during a crawl: a real tmpfs (in a private mount namespace)
# fills up while abx-tick runs.  Every tool says "No space left on device"
# with the path, exits 73 or 74, commits nothing half, and leaves no lock
# held; the daemon keeps running; once there is room, abx-tick alone
# finishes the crawl, each page sealed once.
# shellcheck source-path=SCRIPTDIR source=lib/mountns.sh
. "$(dirname "$0")/lib/mountns.sh"
. "$(dirname "$0")/lib/tap.sh"
. "$(dirname "$0")/lib/tick-lib.sh"

M=$T/disk
mkdir -p "$M"
if ! mount -t tmpfs -o size=3m tmpfs "$M" 2>"$T/mount.err"; then
	echo "1..0 # SKIP cannot mount a tmpfs: $(cat "$T/mount.err")"
	exit 0
fi
trap 'umount -l "$M" 2>/dev/null; cleanup' EXIT
D=$M/data

# a hook that writes 400 KB into its snapshot's directory
mkdir -p "$T/plugins/fill"
cat >"$T/plugins/fill/on_Snapshot__50_fill.sh" <<'EOF'
#!/bin/sh
dd if=/dev/zero of=fill.bin bs=100k count=4 2>/dev/null || exit 1
echo '{"type":"ArchiveResult","status":"succeeded","output_str":"filled","output_files":["fill.bin"]}'
EOF
chmod +x "$T/plugins/fill/on_Snapshot__50_fill.sh"
ABX_PLUGINS_DIR=$T/plugins
export ABX_PLUGINS_DIR
i=0
while [ $i -lt 12 ]; do
	echo "http://127.0.0.1:9/page$i"
	i=$((i + 1))
done >"$T/urls"
C=$(abx-add -d "$D" --plugins fill --config CRAWL_MAX_CONCURRENT_SNAPSHOTS=2 <"$T/urls" | jq -r .id)
ok "a crawl of 12 pages is queued" test -n "$C"

# -- a pass fills the disk
timeout 60 abx-tick -d "$D" 2>"$T/tick1.err"
rc=$?
ok "abx-tick ends with an error, never hangs (exit $rc)" test "$rc" -eq 73 -o "$rc" -eq 74
like "$(cat "$T/tick1.err")" "No space left on device" "it says: No space left on device"
like "$(cat "$T/tick1.err")" "$D/" "naming the path"
left() { pgrep -af "abx-(hook|tick) .*-d $D" | grep -v pgrep; }
no_left() { [ -z "$(left)" ]; }
ok "no abx process is left" wait_for 10 no_left
left | sed 's/^/# left: /'
ok "the store lock is free" flock -n "$D/locks/store.lock" true
# fill what is left, to the last page
dd if=/dev/zero of="$M/ballast" bs=4k 2>/dev/null

# -- a user's action on a full disk commits nothing, and says why
n0=$(abx-ls -d "$D" -k crawl --jsonl | wc -l)
timeout 10 abx-add -d "$D" http://127.0.0.1:9/more >"$T/add.out" 2>"$T/add.err"
rc=$?
if [ $rc -eq 0 ]; then
	# its line fit in the journal's last page: make the write fail
	n0=$(abx-ls -d "$D" -k crawl --jsonl | wc -l)
	ABX_TEST_FAULT=journal-enospc timeout 10 abx-add -d "$D" http://127.0.0.1:9/more2 \
		>"$T/add.out" 2>"$T/add.err"
	rc=$?
fi
ok "abx-add exits 73 or 74 (exit $rc)" test "$rc" -eq 73 -o "$rc" -eq 74
like "$(cat "$T/add.err")" "No space left on device" "and says No space left on device"
is "$(abx-ls -d "$D" -k crawl --jsonl | wc -l)" "$n0" "and queued nothing"
is "$(cat "$T/add.out")" "" "and printed no record"
for j in "$D"/crawls.jsonl "$D"/crawls/*/snapshots.jsonl; do
	jq -c . "$j" >/dev/null 2>&1 || fail "$j is not valid JSONL"
done
pass "every journal line is valid JSON"

# -- the daemon keeps running on a full disk
abx-tick -d "$D" --daemon --poll 1 2>"$T/daemon.err" &
dmn=$!
sleep 3
ok "the daemon is still running after failing" kill -0 "$dmn"
ok "and reports why" grep -q "No space left on device" "$T/daemon.err"
rm -f "$M/ballast"
mount -o remount,size=64m "$M"
settled() {
	[ "$(abx-ls -d "$D" "$C" | jq -r .status)" = sealed ]
}
ok "with room again the daemon finishes the crawl" wait_for 60 settled
kill -TERM "$dmn"
wait_exit "$dmn" 20
ok "and exits on SIGTERM" test "$?" -ge 128

nsealed=$(abx-ls -d "$D" -k snapshot -s sealed --jsonl | jq -r .url | sort -u | wc -l | tr -d ' ')
is "$nsealed" 12 "all 12 pages are sealed"
[ "$nsealed" = 12 ] || abx-ls -d "$D" -k snapshot --jsonl | jq -c '{url, status, notes}' | sed 's/^/# /' 
is "$(jq -r 'select(.type == "Snapshot" and .status == "sealed") | .id' "$D/crawls/$C/snapshots.jsonl" |
	sort | uniq -d)" "" "each once"
is "$(abx-ls -d "$D" -k snapshot --jsonl | jq -r 'select(.notes // "" | test("failed three")) | .id')" "" \
	"no page was given up as failed because the disk was full"
bad=0
for s in $(abx-ls -d "$D" -k snapshot --jsonl | jq -r .id); do
	f=$(find "$D/crawls/$C/$s" -name fill.bin -size 400k | wc -l)
	[ "$f" -eq 1 ] || { bad=$((bad + 1)); diag "$s: $(abx-ls -d "$D" "$s" | jq -c '{status, notes}')"; }
done
is "$bad" 0 "every sealed page has its whole output"
done_testing
