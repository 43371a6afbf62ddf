#!/bin/sh
# fulldisk-quiet.sh — a full disk does not flood stderr: a tick of 2 pages,
# each run by 8 hooks that cannot write, on a real tmpfs that is full (in a
# private mount namespace), says "No space left on device" once a process
# and then "(and N more like it: No space left on device)", not once a file.
# shellcheck source-path=SCRIPTDIR source=lib/mountns.sh
. "$(dirname "$0")/lib/mountns.sh"
# shellcheck source-path=SCRIPTDIR source=lib/tap.sh
. "$(dirname "$0")/lib/tap.sh"

M=$T/disk
mkdir -p "$M"
if ! mount -t tmpfs -o size=256k tmpfs "$M" 2>"$T/mount.err"; then
	echo "1..0 # SKIP cannot mount a tmpfs: $(cat "$T/mount.err")"
	exit 0
fi
trap 'umount -l "$M" 2>/dev/null; cleanup' EXIT
plan 5
D=$M/data
# 8 hooks, each writing 64 KB (dd says why it could not on stderr)
i=1
while [ $i -le 8 ]; do
	mkdir -p "$T/plugins/fill$i"
	cat >"$T/plugins/fill$i/on_Snapshot__5${i}_fill$i.sh" <<'HOOK'
#!/bin/sh
dd if=/dev/zero of=fill.bin bs=64k count=1 || exit 1
echo '{"type":"ArchiveResult","status":"succeeded","output_str":"filled"}'
HOOK
	chmod +x "$T/plugins/fill$i/on_Snapshot__5${i}_fill$i.sh"
	i=$((i + 1))
done
ABX_PLUGINS_DIR=$T/plugins
export ABX_PLUGINS_DIR
abx-add -d "$D" --plugins fill1,fill2,fill3,fill4,fill5,fill6,fill7,fill8 --config CRAWL_MAX_CONCURRENT_SNAPSHOTS=1 http://127.0.0.1:9/a http://127.0.0.1:9/b >/dev/null
# the rest of the disk, to the last page
dd if=/dev/zero of="$M/ballast" bs=4k 2>/dev/null
timeout 120 abx-tick -d "$D" 2>"$T/tick.err"
rc=$?
ok "abx-tick ends with an error (exit $rc)" test "$rc" -eq 73 -o "$rc" -eq 74
sed 's/^/# /' "$T/tick.err" | head -n 40
full=$(grep -c 'No space left on device' "$T/tick.err")
ok "the cause is said ($full lines)" test "$full" -ge 1
# once by abx-tick and once by each snapshot's abx-hook, with its count
ok "at most one line of it a process, and one count each ($full lines)" test "$full" -le 6
like "$(cat "$T/tick.err")" "\\(and [0-9]+ more like it: No space left on device\\)" "the rest are counted"
n=$(wc -l <"$T/tick.err")
ok "the pass printed $n lines, not one a file it could not write" test "$n" -le 14
