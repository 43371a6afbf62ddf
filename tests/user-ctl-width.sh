#!/bin/sh
# user-ctl-width.sh — abx-ctl status's table fits the terminal (a pty,
# drawn as a VT100 would by tests/lib/ptyscreen.py): at 80 and 60 columns
# no row is wider than the terminal less one column (so none wraps), and
# a failed result with a long URL and a reason shows the URL's start, cut
# with "..." so that the reason shows too.  Not on a terminal, or with
# --jsonl, nothing is cut.
# shellcheck source-path=SCRIPTDIR source=lib/tap.sh
. "$(dirname "$0")/lib/tap.sh"
plan 11

SCREEN="python3 $TOP/tests/lib/ptyscreen.py"
screen() { sed -n '/^screen:$/,$p' "$1" | sed 1d; }
D=$T/data
# port 1 on loopback: nothing listens there, the connection is refused
long=http://127.0.0.1:1/a/rather/long/path/to/a/page/that/nobody/answers/$(printf 'x%.0s' $(seq 60)).html
abx-add -d "$D" --plugins wget,title "$long" >/dev/null
abx-tick -d "$D" >/dev/null 2>&1
is "$(abx-ctl -d "$D" status --jsonl | jq -r 'select(.type == "Failed") | .url' | sort -u)" "$long" \
	"the long URL's results failed"

for cols in 80 60; do
	$SCREEN --cols $cols --rows 60 abx-ctl -d "$D" status >"$T/s$cols" 2>&1
	screen "$T/s$cols" >"$T/rows$cols"
	is "$(awk -v c=$cols 'length($0) >= c' "$T/rows$cols" | wc -l | tr -d ' ')" 0 \
		"$cols columns: no row is wider than $((cols - 1))"
	is "$(grep -c '^Failed' "$T/rows$cols")" 2 "$cols columns: both failed results are listed"
	start='http://127\.0\.0\.1:1\.\.\. '
	[ $cols = 60 ] && start='http://127\.0\.\.\.\. '
	is "$(grep '^Failed' "$T/rows$cols" | grep -c "$start")" 2 \
		"$cols columns: each shows the URL's start"
	is "$(grep '^Failed' "$T/rows$cols" | grep -c '\.\.\. exi')" 2 \
		"$cols columns: cut with ..., the reason's start after it"
done
is "$(abx-ctl -d "$D" status | grep -c "$long")" 2 "not on a terminal, the URL is whole"
$SCREEN --cols 60 --rows 60 abx-ctl -d "$D" status --jsonl >"$T/j60" 2>&1
is "$(screen "$T/j60" | tr -d '\n' | grep -o 'x*\.html' | sort -u)" "$(printf 'x%.0s' $(seq 60)).html" \
	"nor with --jsonl on a terminal"
