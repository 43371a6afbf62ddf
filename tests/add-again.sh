#!/bin/sh
# abx-add of a URL archived already (abx-add(1) --again): it says so on
# stderr, naming the URL and the snapshot, and queues nothing (exit 1, no
# record printed); with new URLs beside it, it queues the new ones (exit
# 0); --again queues it; a capture that failed whole, or a removed
# snapshot, does not count; a schedule always captures again.
. "$(dirname "$0")/lib/tap.sh"
mkdir -p "$T/plugins/mark"
cat >"$T/plugins/mark/on_Snapshot__10_mark.sh" <<'EOS'
#!/bin/sh
case $1 in
*/fail*) echo '{"type":"ArchiveResult","status":"failed","output_str":"no answer"}'; exit 1 ;;
esac
echo '{"type":"ArchiveResult","status":"succeeded","output_str":"marked"}'
EOS
chmod +x "$T/plugins/mark/on_Snapshot__10_mark.sh"
ABX_PLUGINS_DIR=$T/plugins
export ABX_PLUGINS_DIR
D=$T/data
U=http://127.0.0.1:9/page
nsnaps() { abx-ls -d "$D" -k snapshot --jsonl | jq -r .url | grep -cxF "$1"; }

abx-add -d "$D" --plugins mark "$U" http://127.0.0.1:9/fail >/dev/null
abx-tick -d "$D" >/dev/null 2>&1
S=$(abx-ls -d "$D" -k snapshot --jsonl | jq -r --arg u "$U" 'select(.url == $u) | .id')
is "$(abx-ls -d "$D" "$S" | jq -r '.status + " " + .sealed_reason')" "sealed archived" "the URL is archived"

ncrawls=$(abx-ls -d "$D" -k crawl --jsonl | wc -l)
expect_exit 1 "adding it again queues nothing: exit 1" abx-add -d "$D" --plugins mark "$U"
is "$(cat "$T/stdout")" "" "and prints no record"
like "$(cat "$T/stderr")" "$U is archived already, as snapshot $S .*not queued \(--again queues it\)" \
	"stderr names the URL and the snapshot, and --again"
like "$(cat "$T/stderr")" "nothing queued" "and says that nothing was queued"
is "$(abx-ls -d "$D" -k crawl --jsonl | wc -l)" "$ncrawls" "no crawl was made"
is "$(nsnaps "$U")" 1 "nor a snapshot"
expect_exit 1 "another spelling of the same URL is the same URL" abx-add -d "$D" --plugins mark "HTTP://127.0.0.1:9/./page"

# a mix: the new URLs are queued, the archived one said and left out
expect_exit 0 "a mix of archived and new URLs exits 0" abx-add -d "$D" --plugins mark "$U" http://127.0.0.1:9/new
C=$(jq -r .id "$T/stdout")
like "$(cat "$T/stderr")" "$U is archived already, as snapshot $S" "the archived one is named"
is "$(abx-ls -d "$D" "$C" | jq -r .urls)" "http://127.0.0.1:9/new" "the crawl holds the new URL only"
is "$(abx-ls -d "$D" -k snapshot -s queued --jsonl | jq -r .url)" "http://127.0.0.1:9/new" "and queues it alone"

# a capture whose every hook failed is not archived: its URL is queued
expect_exit 0 "a URL whose capture failed whole is queued again" abx-add -d "$D" --plugins mark http://127.0.0.1:9/fail
is "$(cat "$T/stderr")" "" "without a word"
is "$(nsnaps http://127.0.0.1:9/fail)" 2 "a second snapshot of it"

# --again
expect_exit 0 "--again queues it" abx-add -d "$D" --again --plugins mark "$U"
is "$(cat "$T/stderr")" "" "without a word"
abx-tick -d "$D" >/dev/null 2>&1
is "$(abx-ls -d "$D" -k snapshot -s sealed --jsonl | jq -r .url | grep -cxF "$U")" 2 "and a tick archives it again"

# removed: no longer archived
for s in $(abx-ls -d "$D" -k snapshot --jsonl | jq -r --arg u "$U" 'select(.url == $u) | .id'); do
	abx-ctl -d "$D" remove "$s" >/dev/null 2>&1
done
expect_exit 0 "a URL whose snapshots were removed is queued" abx-add -d "$D" --plugins mark "$U"
is "$(cat "$T/stderr")" "" "without a word"

# a schedule always captures again
E=$T/sched
ABX_NOW=2030-01-01T10:00:00Z abx-add -d "$E" --plugins mark "$U" >/dev/null
ABX_NOW=2030-01-01T10:00:00Z abx-tick -d "$E" >/dev/null 2>&1
expect_exit 0 "--schedule of an archived URL is stored" env ABX_NOW=2030-01-01T10:15:00Z \
	abx-add -d "$E" --plugins mark --schedule hourly "$U"
is "$(cat "$T/stderr")" "" "without a word"
ABX_NOW=2030-01-01T11:00:00Z abx-tick -d "$E" >/dev/null 2>&1
ABX_NOW=2030-01-01T12:00:00Z abx-tick -d "$E" >/dev/null 2>&1
is "$(abx-ls -d "$E" -k snapshot -s sealed --jsonl | jq -r .url | grep -cxF "$U")" 3 \
	"each period captures it again"
done_testing
