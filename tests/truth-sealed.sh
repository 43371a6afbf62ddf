#!/bin/sh
# "sealed" never means both archived and never run: a sealed snapshot says
# why in sealed_reason (archived, no_hooks, crawl_max_size, ...), only an
# archived one has downloaded_at, and abx-seal refuses a queued snapshot
# none of whose hooks ran.  A sealed crawl has its page, crawls/ID/index.html
# (seeds, settings, outcomes, a row a snapshot linked to its page), written
# again at each abx-seal of the crawl.
. "$(dirname "$0")/lib/tap.sh"
. "$(dirname "$0")/lib/httpd.sh"
. "$(dirname "$0")/lib/tick-lib.sh"
httpd_start || exit 1
D=$T/data
C=$(abx-add -d "$D" --plugins title --tag docs "$BASE/site/page1.html" "$BASE/site/page2.html" | jq -r .id)
S=$(abx-ls -d "$D" -k snapshot --jsonl | jq -r 'select(.url | endswith("page1.html")) | .id')

# --- abx-seal of a snapshot that never ran
expect_exit 65 "abx-seal of a queued snapshot that never ran exits 65" abx-seal -d "$D" "$S"
like "$(cat "$T/stderr")" "none of its hooks ran" "and says why"
is "$(abx-ls -d "$D" "$S" | jq -c '[.status, .downloaded_at, .sealed_reason]')" '["queued",null,null]' \
	"the snapshot is left queued, without downloaded_at"

# --- archived
expect_exit 0 "a tick archives both" abx-tick -d "$D"
is "$(abx-ls -d "$D" -k snapshot --jsonl | jq -r '[.sealed_reason, (.downloaded_at != null)] | map(tostring) | join(" ")' | sort -u)" \
	"archived true" "both are sealed_reason archived, with downloaded_at"
is "$(abx-ls -d "$D" "$C" | jq -r .sealed_reason)" finished "the crawl is finished"

# --- the crawl's page
P=$D/crawls/$C/index.html
ok "crawls/ID/index.html is written" test -s "$P"
like "$(cat "$P")" "<li>$BASE/site/page1.html</li>" "it lists the seeds"
like "$(cat "$P")" "<th>tags</th><td>docs</td>" "and the settings"
like "$(cat "$P")" "2 snapshots · 2 sealed: archived" "and the outcomes"
for s in $(abx-ls -d "$D" -k snapshot --jsonl | jq -r .id); do
	grep -qF "href=\"$s/index.html\"" "$P" || bad="${bad:-} $s"
	[ -s "$D/crawls/$C/$s/index.html" ] || bad="${bad:-} $s(file)"
done
is "${bad:-}" "" "a row for each snapshot, linked to its page, which exists"
like "$(cat "$P")" 'href="../../index.html"' "and a link back to the site index"
is "$(find "$D/crawls" -mindepth 1 -maxdepth 1 -type d ! -name "$C")" "" "no other directory was made beside it"
rm "$P"
expect_exit 0 "abx-seal CRAWL again" abx-seal -d "$D" "$C"
ok "writes the page again" test -s "$P"

# --- a crawl cancelled before it ran: its page, and its snapshot says why
C4=$(abx-add -d "$D" --plugins title "$BASE/site/page3.html?never" | jq -r .id)
expect_exit 0 "abx-ctl cancel CRAWL before it ran" abx-ctl -d "$D" cancel "$C4"
like "$(cat "$D/crawls/$C4/index.html" 2>/dev/null)" "1 snapshot · 1 sealed: cancelled" \
	"the cancelled crawl has its page, which says its snapshot was cancelled"
is "$(abx-ls -d "$D" -k snapshot --jsonl | jq -c "select(.crawl_id == \"$C4\") | [.sealed_reason, .downloaded_at]")" \
	'["cancelled",null]' "the snapshot: sealed_reason cancelled, no downloaded_at"

# --- no hook selected: sealed, but not archived
mkdir -p "$T/plugins/nohooks"
echo '{}' >"$T/plugins/nohooks/config.json"
ABX_PLUGINS_DIR=$T/plugins
export ABX_PLUGINS_DIR
C2=$(abx-add -d "$D" --plugins nohooks "$BASE/site/page3.html" | jq -r .id)
abx-tick -d "$D" >/dev/null 2>&1
is "$(abx-ls -d "$D" -k snapshot --jsonl | jq -c "select(.crawl_id == \"$C2\") | [.status, .sealed_reason, .downloaded_at]")" \
	'["sealed","no_hooks",null]' "a snapshot for which no hook ran is sealed no_hooks, without downloaded_at"

# --- a limit: the queued snapshots are sealed unrun and say which limit
D2=$T/size
C3=$(abx-add -d "$D2" --depth 1 --plugins wget --config CRAWL_MAX_SIZE=1kb \
	--config CRAWL_MAX_CONCURRENT_SNAPSHOTS=1 \
	"$BASE/site/page1.html" "$BASE/site/page2.html" "$BASE/site/page3.html" | jq -r .id)
abx-tick -d "$D2" >/dev/null 2>&1
is "$(abx-ls -d "$D2" -k snapshot --jsonl | jq -r '[.sealed_reason, (.downloaded_at != null)] | map(tostring) | join(" ")' | sort | uniq -c | tr -s ' ' | tr '\n' ' ')" \
	" 1 archived true  2 crawl_max_size false " "one archived, two sealed unrun by crawl_max_size"
is "$(abx-ls -d "$D2" -k snapshot -s sealed --jsonl | jq -r 'select(.sealed_reason == "archived") | .url')" \
	"$BASE/site/page1.html" "the 'what is archived' recipe lists only the one that ran"
like "$(cat "$D2/crawls/$C3/index.html")" "1 sealed: archived · 2 sealed: crawl_max_size|2 sealed: crawl_max_size · 1 sealed: archived" \
	"the crawl's page counts them by reason"
done_testing
