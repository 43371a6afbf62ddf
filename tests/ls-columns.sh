#!/bin/sh
# ls-columns.sh — abx-ls's table on a real terminal (a pty, drawn as a VT100
# would by tests/lib/ptyscreen.py): at 80 columns every snapshot's row shows
# its URL (cut to fit, never dropped), and at 80 and 120 columns a failed
# result's row shows its plugin, its snapshot's URL and the first line of
# why it failed; a page answered with 404 says so; no row wraps.
# shellcheck source-path=SCRIPTDIR source=lib/tap.sh
. "$(dirname "$0")/lib/tap.sh"
# shellcheck source-path=SCRIPTDIR source=lib/httpd.sh
. "$(dirname "$0")/lib/httpd.sh"
plan 12

httpd_start --log "$T/requests.log" || exit 1
SCREEN="python3 $TOP/tests/lib/ptyscreen.py"
screen() { sed -n '/^screen:$/,$p' "$1" | sed 1d; }
D=$T/data
# a seed the site answers with 404 (its wget and title fail), and a page
abx-add -d "$D" --plugins wget,title "$BASE/missing" "$BASE/site/page1.html" >/dev/null
abx-tick -d "$D" >/dev/null 2>&1
is "$(abx-ls -d "$D" -k result -s failed --jsonl | jq -r .plugin | sort | tr '\n' ' ')" "title wget " \
	"the missing seed's wget and title failed"

for cols in 80 120; do
	$SCREEN --cols $cols --rows 60 abx-ls -d "$D" >"$T/s$cols" 2>&1
	screen "$T/s$cols" >"$T/rows$cols"
	is "$(awk -v c=$cols 'length($0) >= c' "$T/rows$cols" | wc -l | tr -d ' ')" 0 \
		"$cols columns: no row is wider than $((cols - 1))"
	is "$(grep -c '^Snapshot' "$T/rows$cols")" 2 "$cols columns: both snapshots are listed"
	is "$(grep '^Snapshot' "$T/rows$cols" | grep -vc 'http://127\.0\.0\.1')" 0 \
		"$cols columns: every snapshot's row shows its URL"
	# at 80 columns the URL is cut to leave room for the reason
	url="http://127\.0\.0\.1:$HTTPD_PORT/missing"
	[ $cols = 80 ] && url="http://127\.0\.0[^ ]*"
	is "$(grep '^ArchiveResult.* failed ' "$T/rows$cols" | grep -c "wget $url: ERROR 404")" 1 \
		"$cols columns: the failed wget shows the URL and why"
	is "$(grep '^ArchiveResult.* failed ' "$T/rows$cols" | grep -c "title $url: HTTP 404")" 1 \
		"$cols columns: the failed title shows the URL and why"
done
like "$(grep '^Snapshot' "$T/rows80" | grep missing)" "HTTP 404 http://" "the 404 seed's row says what the site answered"
