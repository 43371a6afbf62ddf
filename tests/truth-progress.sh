#!/bin/sh
# abx-tick's display on a terminal (a real pty, read by tests/lib/ptyscreen.py
# as a VT100 would draw it): at 80 columns no line of the display wraps and
# none is left behind; narrowed to 60 columns while it runs (SIGWINCH), it
# redraws to fit; with no size from the terminal it goes by $COLUMNS; and its
# summary counts the hooks that failed.
. "$(dirname "$0")/lib/tap.sh"
. "$(dirname "$0")/lib/httpd.sh"
. "$(dirname "$0")/lib/tick-lib.sh"
httpd_start || exit 1
SCREEN="python3 $TOP/tests/lib/ptyscreen.py"
val() { awk -v k="$1" '$1 == k { print $2 }' "$2"; }
screen() { sed -n '/^screen:$/,$p' "$1" | sed 1d; }
slow_plugin slow
echo 2.5 >"$T/slow.s"

# --- 80 columns, narrowed to 60 after a second
D=$T/data
abx-add -d "$D" --plugins slow --config CRAWL_MAX_CONCURRENT_SNAPSHOTS=2 \
	"$BASE/site/page1.html?a-query-string-that-makes-this-url-rather-long=1" \
	"$BASE/site/page2.html" >/dev/null
$SCREEN --cols 80 --resize-to 60 --resize-after 1 abx-tick -d "$D" >"$T/s1" 2>&1
is "$(val exit "$T/s1")" 0 "the tick ran (exit 0)"
ok "it drew its display ($(val frames "$T/s1") lines drawn)" test "$(val frames "$T/s1")" -ge 4
is "$(val max_progress_rows "$T/s1")" 2 "two lines at most, one a running snapshot"
is "$(val resized "$T/s1")" 1 "the terminal was narrowed while it ran"
is "$(val wraps_progress "$T/s1")" 0 "no display line wrapped, at 80 columns or at 60"
is "$(screen "$T/s1" | grep -Ec 'sleep|s +d[0-9]|\.\.\.|page[12]')" 0 "nothing of the display is left on the screen"
like "$(screen "$T/s1")" "^abx-tick: 2 snapshots sealed, 1 crawl in [0-9.]+ s\$" "the summary is, in 60 columns"

# --- no size from the terminal: $COLUMNS
D2=$T/data2
abx-add -d "$D2" --plugins slow "$BASE/site/page3.html?another-rather-long-query-string-to-cut=1" >/dev/null
COLUMNS=50 $SCREEN --cols 50 --no-winsize abx-tick -d "$D2" >"$T/s2" 2>&1
is "$(val exit "$T/s2")" 0 "with no size from the terminal, the tick ran"
ok "it drew its display" test "$(val frames "$T/s2")" -ge 2
is "$(val wraps_progress "$T/s2")" 0 "no line wrapped at \$COLUMNS=50"
is "$(screen "$T/s2" | grep -Ec 'sleep|s +d[0-9]|page3')" 0 "nothing of the display is left"

# --- failed hooks: counted in the summary, and each failed snapshot said once
D3=$T/data3
mkdir -p "$T/plugins/broken"
printf '#!/bin/sh\nsleep 1\necho "broken: no luck" >&2\nexit 1\n' >"$T/plugins/broken/on_Snapshot__20_broken.sh"
chmod +x "$T/plugins/broken/on_Snapshot__20_broken.sh"
abx-add -d "$D3" --plugins title,broken "$BASE/site/page1.html" "$BASE/site/page2.html" >/dev/null
$SCREEN --cols 80 abx-tick -d "$D3" >"$T/s3" 2>&1
is "$(val exit "$T/s3")" 2 "a pass with failed hooks exits 2 on a terminal too"
is "$(val wraps_progress "$T/s3")" 0 "no display line wrapped"
like "$(screen "$T/s3")" "2 hooks failed in 2 snapshots" "the summary counts the failed hooks"
is "$(screen "$T/s3" | tr -d '\n' | grep -o 'broken failed: exit status 1: broken: no luck' | wc -l | tr -d ' ')" 2 \
	"each failed snapshot is said once, whole, below the display"
done_testing
