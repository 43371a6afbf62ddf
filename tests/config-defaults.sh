#!/bin/sh
# config-defaults.sh — abx-ctl config shows the default of every setting
# abx itself reads and leaves unset (issue 30, point 7): the limits, the
# worker's, scope, robots, zones, filesystem and mode settings, PLUGINS,
# PACK_ON_SEAL and HOST, each "built-in"; each shown value, written into
# abx.conf, is taken (a default is a value, not a description), and then
# shows abx.conf as its source; HOST is the host's name, or ABX_HOST's.
# shellcheck source-path=SCRIPTDIR source=lib/tap.sh
. "$(dirname "$0")/lib/tap.sh"
D=$T/data
abx-add -d "$D" http://127.0.0.1:9/a >/dev/null || { echo "Bail out! abx-add failed"; exit 1; }
KEYS="CRAWL_TIMEOUT CRAWL_MAX_SIZE SNAPSHOT_MAX_SIZE WORKER_MAX_SNAPSHOTS CRAWL_SCOPE
ROBOTS_TXT PACK_ON_SEAL ALLOW_PRIVATE_NETWORKS FS_UNSAFE_OK GROUP_READABLE PLUGINS HOST"

expect_exit 0 "abx-ctl config" abx-ctl -d "$D" config --jsonl
cp "$T/stdout" "$T/config"
cfg() { jq -r --arg k "$1" "select(.key == \$k) | $2" "$T/config"; }
for k in $KEYS; do
	like "$(cfg "$k" .source)" '^built-in' "$k is listed with its built-in default"
done
is "$(cfg HOST .value)" "$(hostname)" "HOST's default is the host's name"
is "$(cfg WORKER_MAX_SNAPSHOTS .value) $(cfg ROBOTS_TXT .value) $(cfg CRAWL_SCOPE .value)" "100 ignore any" \
	"the worker's, robots' and scope's defaults are the code's"
is "$(jq -r .key "$T/config" | sort | uniq -d)" "" "no key is listed twice"

# each default written into abx.conf is a value abx takes, and its source
for k in $KEYS; do
	[ "$k" = HOST ] && continue
	printf '%s=%s\n' "$k" "$(cfg "$k" .value)"
done >"$D/abx.conf"
expect_exit 0 "abx-add takes every default written into abx.conf" \
	abx-add -d "$D" --again http://127.0.0.1:9/b
is "$(cat "$T/stderr")" "" "and says nothing of them"
expect_exit 0 "abx-ctl config with them" abx-ctl -d "$D" config --jsonl
is "$(jq -r 'select(.source | test("^built-in")) | .key' "$T/stdout" | grep -cxE "$(echo "$KEYS" | tr -s ' \n' '|' | sed 's/|$//')")" 1 \
	"they now come from abx.conf (HOST alone is still built-in)"

ABX_HOST=archive-1 abx-ctl -d "$D" config --jsonl >"$T/config"
is "$(cfg HOST '"\(.value) \(.source)"')" "archive-1 ABX_HOST, environment" "ABX_HOST is HOST, and said so"
done_testing
