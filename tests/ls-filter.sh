#!/bin/sh
# abx-ls by URL substring, tag, crawl and date (when a record last
# changed: each crawl runs on the day it is added): crawls and snapshots
# that match, and the results and processes of those snapshots.
. "$(dirname "$0")/lib/tap.sh"
D=$T/data
P=$T/plugins
mkdir -p "$P/ok"
cat >"$P/ok/on_Snapshot__10_ok.sh" <<'H'
#!/bin/sh
echo '{"type":"ArchiveResult","status":"succeeded","output_str":"fine"}'
H
chmod +x "$P/ok/on_Snapshot__10_ok.sh"
ABX_PLUGINS_DIR=$P
export ABX_PLUGINS_DIR

A=$(ABX_NOW=2030-01-01T00:00:00Z abx-add -d "$D" --tag docs,web --plugins ok \
	http://127.0.0.1:1/docs/a http://127.0.0.1:1/docs/b | jq -r .id)
B=$(ABX_NOW=2030-02-01T12:00:00Z abx-add -d "$D" --tag blog --plugins ok http://127.0.0.1:1/blog/c | jq -r .id)
ABX_NOW=2030-01-01T01:00:00Z abx-tick -d "$D" --crawl "$A" >/dev/null 2>&1
ABX_NOW=2030-02-01T13:00:00Z abx-tick -d "$D" --crawl "$B" >/dev/null 2>&1
count() { abx-ls -d "$D" --jsonl "$@" | jq -r '.type' | sort | uniq -c | awk '{printf "%s %s ", $2, $1}'; }

is "$(count --url /docs/)" "ArchiveResult 2 Crawl 1 Process 2 Snapshot 2 " \
	"--url: the crawl and snapshots whose URL has it, and their results"
is "$(count --url /docs/a -k snapshot)" "Snapshot 1 " "--url with -k snapshot"
is "$(count --url /docs/a -k result)" "ArchiveResult 1 " "--url with -k result: the matching snapshot's results"
is "$(abx-ls -d "$D" --url /docs/a -k result --jsonl | jq -r .snapshot_id)" \
	"$(abx-ls -d "$D" --url /docs/a -k snapshot --jsonl | jq -r .id)" "which are that snapshot's"
is "$(count --tag blog)" "ArchiveResult 1 Crawl 1 Process 1 Snapshot 1 " "--tag: whole tag names"
is "$(count --tag web -k snapshot)" "Snapshot 2 " "a tag among several"
is "$(count --tag we)" "" "a part of a tag is not the tag"
is "$(count --crawl "$B")" "ArchiveResult 1 Crawl 1 Process 1 Snapshot 1 " "--crawl: the crawl and its records"
is "$(count --crawl "$A" -k snapshot -s sealed)" "Snapshot 2 " "--crawl with -k and -s"
is "$(count --since 2030-02-01 -k crawl)" "Crawl 1 " "--since a day (modified_at)"
is "$(abx-ls -d "$D" --since 2030-02-01 -k crawl --jsonl | jq -r .id)" "$B" "the crawl run that day"
is "$(count --until 2030-02-01T12:30:00Z -k crawl)" "Crawl 1 " "--until a time: before it"
is "$(abx-ls -d "$D" --until 2030-02-01T12:30:00Z -k crawl --jsonl | jq -r .id)" "$A" "the one run before"
is "$(count --since 2030-01-01 --until 2030-01-02 -k snapshot)" "Snapshot 2 " "a date range"
is "$(count --since 2031-01-01)" "" "a range with nothing in it"
is "$(count --url /docs/ --tag blog)" "" "filters combine"
expect_exit 0 "no match is not an error" abx-ls -d "$D" --url nowhere

# the table fits the terminal, as ps's does ("..." where a row is cut)
if command -v script >/dev/null 2>&1; then
	script -qec "stty cols 80; abx-ls -d '$D'" /dev/null | tr -d '\r' >"$T/tty80"
	is "$(awk 'length($0) > 79' "$T/tty80" | wc -l | tr -d ' ')" 0 "on an 80-column terminal no row is wider than 79"
	ok "a cut row ends in ..." grep -q '\.\.\.$' "$T/tty80"
	script -qec "stty cols 250; abx-ls -d '$D'" /dev/null | tr -d '\r' >"$T/tty250"
	ok "on a wide one the URLs are whole" grep -q 'http://' "$T/tty250"
fi
done_testing
