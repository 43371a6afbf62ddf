#!/bin/sh
# Stages by hand run the tick's code (abx-seal(1), abx-tick(1) DISCOVERY):
# claim -> hook -> seal on the seed of a depth-1 crawl, as abx-seal(1)
# shows, queues the outlinks its hooks found, exactly as a tick would
# (the same depth, filters, scope, tags, each URL once); a tick then
# archives them, and the crawl ends with the same snapshots as one run by
# abx-tick alone.  A reseal queues nothing more; a depth-0 crawl and a
# --scope page crawl queue nothing.
. "$(dirname "$0")/lib/tap.sh"
. "$(dirname "$0")/lib/httpd.sh"
. "$(dirname "$0")/lib/tick-lib.sh"
httpd_start || exit 1
P=wget,title,parse_html_urls
reachable "$BASE/site/" 1 >"$T/want"

# the same crawl run by abx-tick alone
A=$T/tick
abx-add -d "$A" --depth 1 --tag hand --plugins $P "$BASE/site/" >/dev/null
expect_exit 0 "abx-tick runs the crawl" abx-tick -d "$A"
snapshots "$A" sealed >"$T/tick.got"
is "$(cat "$T/tick.got")" "$(cat "$T/want")" "abx-tick archives the seed and its outlinks"

# by hand: claim -> hook -> seal on the seed
D=$T/hand
C=$(abx-add -d "$D" --depth 1 --tag hand --plugins $P "$BASE/site/" | jq -r .id)
S=$(abx-ls -d "$D" -k snapshot --jsonl | jq -r .id)
# shellcheck disable=SC2016
expect_exit 0 "claim, hook and seal the seed by hand" \
	abx-claim -d "$D" -i "$S" sh -c 'abx-hook "$ABX_ID" >/dev/null && abx-seal "$ABX_ID"'
is "$(abx-ls -d "$D" "$S" | jq -r .status)" sealed "the seed is sealed"
snapshots "$D" >"$T/hand.queued"
is "$(cat "$T/hand.queued")" "$(cat "$T/want")" "its seal queued its outlinks, at depth 1, as the tick does"
is "$(nsnap "$D" queued)" "$(($(wc -l <"$T/want") - 1))" "each queued once, due"
is "$(abx-ls -d "$D" -k snapshot -s queued --jsonl | jq -r .parent_snapshot_id | sort -u)" "$S" \
	"with the seed as their parent"
is "$(abx-ls -d "$D" -k snapshot -s queued --jsonl | jq -r .tags | sort -u)" hand \
	"and the crawl's tags"

expect_exit 0 "a reseal of the seed" abx-seal -d "$D" "$S"
is "$(nsnap "$D")" "$(wc -l <"$T/want" | tr -d ' ')" "queues nothing more"

expect_exit 0 "a tick then archives the outlinks" abx-tick -d "$D"
snapshots "$D" sealed >"$T/hand.got"
is "$(cat "$T/hand.got")" "$(cat "$T/tick.got")" "the same snapshots as the crawl run by abx-tick"
is "$(abx-ls -d "$D" "$C" | jq -r .status)" sealed "and the crawl is sealed"
is "$(abx-ls -d "$D" -k snapshot --jsonl | jq -r .url | sort | uniq -d)" "" "no URL twice"

# hook then seal without a claim: queued with results, sealed by hand
D=$T/noclaim
abx-add -d "$D" --depth 1 --plugins $P "$BASE/site/" >/dev/null
S=$(abx-ls -d "$D" -k snapshot --jsonl | jq -r .id)
abx-hook -d "$D" "$S" >/dev/null 2>&1
expect_exit 0 "abx-hook, then abx-seal, without a claim" abx-seal -d "$D" "$S"
is "$(snapshots "$D")" "$(cat "$T/want")" "queues the outlinks too"

# the rules are the tick's: depth 0 and --scope page queue nothing
for how in "--depth 0" "--depth 1 --scope page"; do
	D=$T/rule$(printf '%s' "$how" | tr -dc 'a-z0-9')
	# shellcheck disable=SC2086
	abx-add -d "$D" $how --plugins $P "$BASE/site/" >/dev/null
	S=$(abx-ls -d "$D" -k snapshot --jsonl | jq -r .id)
	# shellcheck disable=SC2016
	abx-claim -d "$D" -i "$S" sh -c 'abx-hook "$ABX_ID" >/dev/null && abx-seal "$ABX_ID"' >/dev/null
	is "$(nsnap "$D")" 1 "$how: sealing the seed by hand queues nothing"
done

# URL_DENYLIST from the crawl's config is obeyed by hand as by the tick
D=$T/deny
abx-add -d "$D" --depth 1 --config 'URL_DENYLIST=page1\.html|\.css' --plugins $P "$BASE/site/" >/dev/null
S=$(abx-ls -d "$D" -k snapshot --jsonl | jq -r .id)
# shellcheck disable=SC2016
abx-claim -d "$D" -i "$S" sh -c 'abx-hook "$ABX_ID" >/dev/null && abx-seal "$ABX_ID"' >/dev/null
is "$(snapshots "$D" | grep -c 'page1\.html')" 0 "URL_DENYLIST keeps a denied outlink out"
is "$(nsnap "$D")" "$(grep -vc 'page1\.html' "$T/want")" "and queues the others"
done_testing
