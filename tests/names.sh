#!/bin/sh
# Names are checked where they are given: an unknown plugin, kind or status
# is refused with 65 and a message naming the bad value and the valid ones,
# before anything is stored or queued.
. "$(dirname "$0")/lib/tap.sh"
D=$T/data

expect_exit 65 "abx-add --plugins with an unknown plugin" abx-add -d "$D" --plugins wget,wgett http://127.0.0.1:1/a
like "$(cat "$T/stderr")" "unknown plugin wgett" "the message names the bad plugin"
like "$(cat "$T/stderr")" "plugins found are: .*title, wget" "and lists the plugins found"
like "$(cat "$T/stderr")" "^abx-add: fatal: " "as a fatal error"
ok "nothing was stored" test ! -e "$D/crawls.jsonl"
expect_exit 65 "so is --config PLUGINS=" abx-add -d "$D" --config PLUGINS=nosuch http://127.0.0.1:1/a
like "$(cat "$T/stderr")" "unknown plugin nosuch" "naming it"

# a plugin in DIR/plugins or $ABX_PLUGINS_DIR counts
mkdir -p "$T/extra/mine"
printf '#!/bin/sh\nexit 0\n' >"$T/extra/mine/on_Snapshot__50_mine.sh"
chmod +x "$T/extra/mine/on_Snapshot__50_mine.sh"
expect_exit 0 "a plugin on ABX_PLUGINS_DIR is known" env ABX_PLUGINS_DIR="$T/extra" abx-add -d "$D" --plugins mine,wget http://127.0.0.1:1/a
C=$(jq -r .id "$T/stdout")
S=$(abx-ls -d "$D" -k snapshot --jsonl | jq -r .id)
abx-ctl -d "$D" cancel "$C"

expect_exit 65 "abx-ctl retry --plugins with an unknown plugin" abx-ctl -d "$D" retry "$S" --plugins nosuch
like "$(cat "$T/stderr")" "unknown plugin nosuch.*plugins found are: " "names it and the valid ones"
is "$(abx-ls -d "$D" "$S" | jq -r .status)" sealed "and the snapshot was not queued"
is "$(abx-ls -d "$D" -k result --jsonl | wc -l | tr -d ' ')" 0 "nor a result"

expect_exit 65 "abx-ls -s with an unknown status" abx-ls -d "$D" -s bogus
like "$(cat "$T/stderr")" "unknown status bogus; the statuses are: queued started paused sealed" "names the valid statuses"
expect_exit 65 "a status the kind never has" abx-ls -d "$D" -k snapshot -s succeeded
like "$(cat "$T/stderr")" "for a Snapshot; the statuses are: queued started paused sealed$" "names the kind's statuses"
expect_exit 0 "a result's status is good for results" abx-ls -d "$D" -k result -s succeeded
expect_exit 65 "abx-ls -k with an unknown kind" abx-ls -d "$D" -k crawls
like "$(cat "$T/stderr")" "unknown kind crawls; the kinds are: crawl snapshot result" "names the valid kinds"
expect_exit 65 "abx-claim -k with an unknown kind" abx-claim -d "$D" -k result
like "$(cat "$T/stderr")" "unknown kind result; the kinds abx-claim takes are: crawl snapshot binary" "names the valid ones"
expect_exit 65 "abx-ls --since with a bad date" abx-ls -d "$D" --since 2026-13-01
like "$(cat "$T/stderr")" "--since wants a date.*2026-13-01" "names it"
expect_exit 65 "abx-ls --crawl with a crawl that does not exist" abx-ls -d "$D" --crawl 01234567-89ab-7cde-8f01-23456789abcd
done_testing
