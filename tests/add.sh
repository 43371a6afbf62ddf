#!/bin/sh
# abx-add queues a crawl and its depth-0 snapshots; bad input is reported
# with line numbers and the documented exit codes.
. "$(dirname "$0")/lib/tap.sh"
plan 22
D=$T/data

out=$(abx-add -d "$D" --depth 1 --tag a,b --plugins wget,title --config TIMEOUT=5 \
	http://127.0.0.1:1/a 'https://example.org/b?q=1&r=2' http://127.0.0.1:1/a)
is "$(printf '%s\n' "$out" | jq -r .type)" Crawl "prints the Crawl record"
is "$(printf '%s\n' "$out" | jq -r .max_depth)" 1 "--depth becomes max_depth"
is "$(printf '%s\n' "$out" | jq -r .config.PLUGINS)" wget,title "--plugins goes into config"
is "$(printf '%s\n' "$out" | jq -r .config.TIMEOUT)" 5 "--config KEY=VALUE goes into config"
is "$(printf '%s\n' "$out" | jq -r .status)" queued "crawl is queued"
is "$(abx-ls -d "$D" -k snapshot | wc -l | tr -d ' ')" 2 "duplicate URL queued once"
is "$(abx-ls -d "$D" -k snapshot | jq -r .tags | sort -u)" a,b "snapshots carry the tags"
id=$(abx-claim -d "$D" -k snapshot | jq -r .url)
is "$id" http://127.0.0.1:1/a "abx-claim -k snapshot finds the first at once"

printf '%s\n' '# a comment' '' 'http://127.0.0.1:1/c' 'not a url' \
	'{"url":"http://127.0.0.1:1/d","title":"Dee","tags":"x"}' '{"url": broken' 'ftp//nohost' |
	abx-add -d "$D" >"$T/out" 2>"$T/err"
is "$?" 0 "stdin with some bad lines still queues the good ones"
like "$(cat "$T/err")" 'line 4: .*not a url' "bad URL reported with its line number"
like "$(cat "$T/err")" 'line 6: malformed JSON record' "malformed record reported with its line number"
like "$(cat "$T/err")" 'line 7: ' "every bad line reported"
cid=$(jq -r .id "$T/out")
is "$(abx-ls -d "$D" -k snapshot | jq -r "select(.crawl_id==\"$cid\") | .url" | sort | tr '\n' ' ')" \
	"http://127.0.0.1:1/c http://127.0.0.1:1/d " "good stdin lines queued"
is "$(abx-ls -d "$D" -k snapshot | jq -r 'select(.url=="http://127.0.0.1:1/d") | .title')" Dee \
	"JSONL title kept"

expect_exit 65 "no valid URL exits 65" abx-add -d "$D" 'javascript:alert(1)' 'x y'
like "$(cat "$T/stderr")" 'no valid URL' "and says so"
expect_exit 64 "unknown flag exits 64" abx-add -d "$D" --bogus http://127.0.0.1/
like "$(cat "$T/stderr")" '^usage: abx-add' "usage line printed"
expect_exit 64 "depth out of range exits 64" abx-add -d "$D" --depth 9 http://127.0.0.1/
expect_exit 65 "a plugin name with ../ is refused" abx-add -d "$D" --plugins ../etc http://127.0.0.1/
expect_exit 78 "abx-ls on a missing data directory exits 78" abx-ls -d "$T/nope"
like "$(cat "$T/stderr")" 'not an abx data directory' "and says why"
done_testing
