#!/bin/sh
# A serving worker keeps its discovery of the plugins between snapshots
# (plugins_keep, plugin.h) but sees what changes in them: a hook added
# while it serves runs from the next snapshot on, and one whose execute
# bit is taken away is no longer run, as with a worker a snapshot.  The
# hooks make the changes themselves, so nothing here depends on timing:
# the "a" hook adds the "b" hook at its third run, and "b" takes away its
# own execute bit at its third run.
. "$(dirname "$0")/lib/tap.sh"
. "$(dirname "$0")/lib/tick-lib.sh"

mkdir -p "$T/plugins/grow" "$T/state"
cat >"$T/state/b.sh" <<EOF
#!/bin/sh
n=\$(cat "$T/state/b" 2>/dev/null || echo 0)
n=\$((n + 1))
echo "\$n" >"$T/state/b"
echo b >b.txt
[ "\$n" -lt 3 ] || chmod a-x "\$0"
EOF
chmod +x "$T/state/b.sh"
cat >"$T/plugins/grow/on_Snapshot__10_a.sh" <<EOF
#!/bin/sh
n=\$(cat "$T/state/a" 2>/dev/null || echo 0)
n=\$((n + 1))
echo "\$n" >"$T/state/a"
[ "\$n" -ne 3 ] || mv "$T/state/b.sh" "$T/plugins/grow/on_Snapshot__20_b.sh"
EOF
chmod +x "$T/plugins/grow/on_Snapshot__10_a.sh"
ABX_PLUGINS_DIR=$T/plugins
export ABX_PLUGINS_DIR

i=0
while [ "$i" -lt 9 ]; do
	echo "https://www.example.localhost/grow/$i.html"
	i=$((i + 1))
done >"$T/urls"
abx-add -d "$T/d" --plugins grow --config CRAWL_MAX_CONCURRENT_SNAPSHOTS=1 <"$T/urls" >/dev/null
abx-tick -d "$T/d" >"$T/out" 2>"$T/err"
is "$?" 0 "abx-tick exits 0"
is "$(cat "$T/err")" "" "and says nothing on stderr"
is "$(nsnap "$T/d" sealed)" 9 "every snapshot sealed"
is "$(cat "$T/state/a")" 9 "the a hook ran once a snapshot"
is "$(cat "$T/state/b" 2>/dev/null)" 3 "the b hook, added at the third snapshot, ran at the next three"
is "$(find "$T/d/crawls" -name b.txt | wc -l | tr -d ' ')" 3 "three snapshots hold its file"
is "$(cat "$T"/d/crawls/*/*/index.jsonl | grep '"type":"ArchiveResult"' | grep -c '"hook_name":"on_Snapshot__20_b"')" 3 \
	"three results of it, none after its execute bit went"
done_testing
