#!/bin/sh
# The site index: one row a snapshot, the latest, even after a retry reseals
# it and after abx-seal --index; each row links its crawl's page
# (crawls/<crawl_id>/index.html); a filter box works from file:// with no
# server (checked in headless chromium when it is installed); and the paged
# index costs what changed: a reseal rewrites the one page its old row was
# on, leaving the other pages alone (their inode, since pages are replaced
# by rename), and a removal by retention takes the rows off the same way.
. "$(dirname "$0")/lib/tap.sh"
mkdir -p "$T/plugins/noop"
printf '#!/bin/sh\nexit 0\n' >"$T/plugins/noop/on_Snapshot__10_noop.sh"
chmod +x "$T/plugins/noop/on_Snapshot__10_noop.sh"
ABX_PLUGINS_DIR=$T/plugins
export ABX_PLUGINS_DIR
D=$T/data
rows() { grep -o '<tr><td class="meta">' "$1" | wc -l | tr -d ' '; }

# -- one row a snapshot, the latest
C=$(abx-add -d "$D" --plugins noop http://127.0.0.1:9/a http://127.0.0.1:9/b http://127.0.0.1:9/c | jq -r .id)
abx-tick -d "$D" 2>"$T/tick.err"
S=$(abx-ls -d "$D" -k snapshot --jsonl | jq -r .id | head -n 1)
abx-ctl -d "$D" retry "$S" >/dev/null 2>"$T/retry.err"
abx-tick -d "$D" 2>>"$T/tick.err"
is "$(abx-ls -d "$D" --jsonl "$S" | jq -r .status)" sealed "the retried snapshot is sealed again"
is "$(grep -c "\"id\":\"$S\"" "$D/index.jsonl")" 2 "index.jsonl has a line for each of its seals"
is "$(rows "$D/index.html")" 3 "index.html shows 3 rows for 3 snapshots"
is "$(grep -c "$S/index.html" "$D/index.html")" 1 "the resealed snapshot once"
abx-seal -d "$D" --index
is "$(rows "$D/index.html")" 3 "and still 3 after abx-seal --index"
rm -f "$D/index/site.pages"
abx-seal -d "$D" --index
is "$(rows "$D/index.html")" 3 "and after a rebuild of the pages"
is "$(grep -o "href=\"crawls/$C/index.html\"" "$D/index.html" | wc -l | tr -d ' ')" 3 \
	"each row links its crawl's page, crawls/<crawl_id>/index.html"
ok "the page has a filter box" grep -q '<input id="filter" type="search"' "$D/index.html"

# -- the filter box, in a browser, from file://
if command -v chromium >/dev/null 2>&1; then
	sed 's|</body>|<script>var q=document.getElementById("filter");q.value="127.0.0.1:9/b";q.dispatchEvent(new Event("input"));</script></body>|' \
		"$D/index.html" >"$D/filtered.html"
	timeout 60 chromium --headless --no-sandbox --disable-gpu --disable-dev-shm-usage --no-first-run \
		--disable-background-networking --disable-component-update --disable-sync \
		--user-data-dir="$T/chrome" --dump-dom "file://$D/filtered.html" >"$T/dom.html" 2>/dev/null
	is "$(grep -o '<tr style="display: none;">' "$T/dom.html" | wc -l | tr -d ' ')" 2 \
		"typing a URL in the filter box hides the 2 other rows (headless chromium, file://)"
	ok "and shows the one that matches" sh -c \
		"grep -o '<tr><td class=\"meta\">.*</tr>' '$T/dom.html' | grep -q '127.0.0.1:9/b'"
else
	pass "the filter box hides rows # skip chromium is not installed"
	pass "and shows the one that matches # skip chromium is not installed"
fi

# -- pages are written for what changed
printf 'http://127.0.0.1:9/x\nhttp://127.0.0.1:9/y\n' | abx-add -d "$T/tpl" --plugins noop >/dev/null
abx-tick -d "$T/tpl" 2>>"$T/tick.err"
abx-ctl -d "$T/tpl" repair >/dev/null
python3 "$TOP/bench/gencrawls.py" "$T/tpl" "$T/big" 1100
B=$T/big
abx-seal -d "$B" --index
ok "2,200 snapshots make two full pages" test -s "$B/index-1.html"
is "$(($(rows "$B/index-0.html") + $(rows "$B/index-1.html") + $(rows "$B/index.html")))" 2200 \
	"with 2,200 rows in all"
old=$(sed -n 5p "$B/index.jsonl" | jq -r .id)
i0=$(stat -c %i "$B/index-0.html")
i1=$(stat -c %i "$B/index-1.html")
abx-ctl -d "$B" retry "$old" >/dev/null 2>>"$T/retry.err"
abx-tick -d "$B" 2>>"$T/tick.err"
is "$(abx-ls -d "$B" --jsonl "$old" | jq -r .status)" sealed "an old snapshot on page 0 is resealed"
ok "page 0 is written again" test "$(stat -c %i "$B/index-0.html")" != "$i0"
ok "page 1 is left alone" test "$(stat -c %i "$B/index-1.html")" = "$i1"
ok "its row left page 0" sh -c "! grep -q '$old' '$B/index-0.html'"
is "$(grep -c "$old/index.html" "$B/index.html")" 1 "and is on index.html, once"
is "$(($(rows "$B/index-0.html") + $(rows "$B/index-1.html") + $(rows "$B/index.html")))" 2200 \
	"still 2,200 rows in all"

# -- a removal by retention takes rows off their page
gone=$(sed -n 2100p "$B/index.jsonl" | jq -r .crawl_id)
gs=$(jq -r --arg c "$gone" 'select(.crawl_id == $c) | .id' "$B/index.jsonl" | sort -u)
i0=$(stat -c %i "$B/index-0.html")
# the generated crawls were sealed at the template's time; this one gets a
# day of life, so only it expires a month on
jq -c --arg c "$gone" 'select(.id == $c) | .config.DELETE_AFTER = "1d"' "$B/crawls.jsonl" >"$T/line"
# shellcheck disable=SC2016
flock "$B/locks/store.lock" sh -c 'cat "$1" >>"$2"' sh "$T/line" "$B/crawls.jsonl"
abx-ctl -d "$B" repair >/dev/null   # rebuilds retention's order from crawls.jsonl
ABX_NOW=$(date -u -d '+40 days' +%Y-%m-%dT%H:%M:%SZ) abx-tick -d "$B" 2>>"$T/tick.err"
ok "retention removed the crawl" test ! -e "$B/crawls/$gone"
for x in $gs; do
	ok "its snapshot $x is off the pages" sh -c "! grep -q '$x' '$B/index-0.html' '$B/index-1.html' '$B/index.html'"
done
ok "page 0, which did not hold it, is left alone" test "$(stat -c %i "$B/index-0.html")" = "$i0"
is "$(($(rows "$B/index-0.html") + $(rows "$B/index-1.html") + $(rows "$B/index.html")))" 2198 \
	"2,198 rows in all"
ok "no sanitizer report" sh -c "! grep -Eq 'runtime error|Sanitizer' '$T/tick.err' '$T/retry.err'"
done_testing
