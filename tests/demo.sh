#!/bin/sh
# make demo's script: it archives the bundled example site two levels deep
# (13 pages, found independently by tests/lib/tick-bfs.py) and leaves an
# index.html that headless Chromium renders to a picture that is not blank.
#
# The demo runs with the chromium hooks (screenshot, pdf, dom) turned off:
# they cost ~40 s of the demo's time on two cores.  ABX_DEMO_FULL=1 runs
# the demo exactly as `make demo` does.
. "$(dirname "$0")/lib/tap.sh"
. "$(dirname "$0")/lib/httpd.sh"
. "$(dirname "$0")/lib/tick-lib.sh"
D=$T/demo
if [ "${ABX_DEMO_FULL:-0}" != 1 ]; then
	SCREENSHOT_ENABLED=false PDF_ENABLED=false DOM_ENABLED=false CHROME_ENABLED=false
	export SCREENSHOT_ENABLED PDF_ENABLED DOM_ENABLED CHROME_ENABLED
fi

DEMO_DIR=$D sh "$TOP/examples/demo.sh" >"$T/demo.out" 2>"$T/demo.err"
is "$?" 0 "examples/demo.sh exits 0"
like "$(cat "$T/demo.out")" "13 pages archived and sealed" "it says 13 pages were archived"
like "$(cat "$T/demo.out")" "open file://$D/index.html" "and where to open the result"
is "$(nsnap "$D" sealed)" 13 "13 snapshots are sealed"
is "$(nsnap "$D")" 13 "and no other"
is "$(abx-ls -d "$D" -k crawl --jsonl | jq -r '.status + " " + (.max_depth | tostring)')" "sealed 2" \
	"one depth-2 crawl, sealed"

# the same site served here: the pages within two links of index.html
httpd_start --root "$TOP/examples/site" || exit 1
reachable "$BASE/index.html" 2 | sed 's|http://127\.0\.0\.1:[0-9]*/||' >"$T/want"
is "$(wc -l <"$T/want" | tr -d ' ')" 13 "the example site has 13 pages within two links"
snapshots "$D" | sed 's|http://127\.0\.0\.1:[0-9]*/||' >"$T/got"
is "$(cat "$T/got")" "$(cat "$T/want")" "the demo archived exactly those, at their depths"

bad=""
for s in $(abx-ls -d "$D" -k snapshot --jsonl | jq -r .id); do
	sd=$(snapdir "$D" "$s")
	for f in index.jsonl index.json index.html title/title.txt; do
		[ -s "$sd/$f" ] || bad="$bad $s/$f"
	done
	grep -qF "href=\"crawls/${sd#"$D"/crawls/}/index.html\"" "$D/index.html" || bad="$bad $s(not-in-index)"
done
is "$bad" "" "each has its index files and title, and the top-level index.html links it"
is "$(abx-ls -d "$D" -k result --jsonl | jq -r 'select(.status == "failed") | .plugin' | sort | uniq -c)" "" \
	"no hook failed"
is "$(wc -l <"$D/index.jsonl" | tr -d ' ')" 13 "the top-level index.jsonl lists the 13"

# headless Chromium renders the index to a picture that is not blank
if ! command -v chromium >/dev/null 2>&1; then
	for what in "a blank page is one colour" "the index renders at 1280x900" "the index is not blank"; do
		pass "chromium: $what # skip chromium is not installed"
	done
else
	shot() {
		timeout 60 chromium --headless --no-sandbox --disable-gpu --disable-dev-shm-usage --no-first-run \
			--disable-background-networking --disable-component-update --disable-sync \
			--user-data-dir="$T/chrome" --screenshot="$1" --window-size=1280,900 "$2" >/dev/null 2>&1
	}
	echo '<!doctype html><html><body></body></html>' >"$T/empty.html"
	shot "$T/empty.png" "file://$T/empty.html"
	shot "$T/shot.png" "file://$D/index.html"
	ok "chromium renders a blank page to one colour (the check works)" \
		test "$(python3 "$TOP/tests/lib/tick-png.py" "$T/empty.png" | awk '{print $3}')" = 1
	# shellcheck disable=SC2046 # four numbers
	set -- $(python3 "$TOP/tests/lib/tick-png.py" "$T/shot.png" 2>/dev/null) 0 0 0 0
	ok "chromium renders the demo's index.html at 1280x900 ($1x$2)" test "$1x$2" = 1280x900
	ok "and it is not blank: $3 colours, $4 per mille inked" test "$3" -ge 16 -a "$4" -ge 50
fi
done_testing
