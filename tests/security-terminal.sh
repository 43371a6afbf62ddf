#!/bin/sh
# Terminal escapes (abx(7) SECURITY): a URL carrying a C1 control (CSI,
# U+009B) and an escape sequence is shown, never interpreted, by abx-ls's
# table and abx-tick's progress display, both run on a real terminal
# (script(1) gives them a pty).  The plugin fetches nothing.
. "$(dirname "$0")/lib/tap.sh"
. "$(dirname "$0")/lib/tick-lib.sh"
command -v script >/dev/null 2>&1 || { echo "1..0 # SKIP script(1) not installed"; exit 0; }
slow_plugin slow
echo 1.5 >"$T/slow.s"

CSI=$(printf '\302\233')    # U+009B in UTF-8: a whole CSI on many terminals
URL="http://127.0.0.1:9/${CSI}2J${CSI}31m?q=%1B"
D=$T/data
abx-add -d "$D" --plugins slow "$URL" >/dev/null
is "$(abx-ls -d "$D" -k snapshot --jsonl | jq -r .url)" "$URL" "the URL is stored as it was given"

# on_tty OUT CMD...: run CMD on a pty, its output in OUT
on_tty() {
	_out=$1
	shift
	script -qec "$*" /dev/null >"$_out" 2>&1 </dev/null
}
on_tty "$T/ls.out" abx-ls -d "$D" -k snapshot
like "$(cat "$T/ls.out")" 'http://127\.0\.0\.1:9/\\u009b2J\\u009b31m\?q=%1B' "abx-ls's table shows the controls as \\u009b"
ok "and prints no C1 control" sh -c "! grep -q '$CSI' '$T/ls.out'"

on_tty "$T/tick.out" COLUMNS=200 abx-tick -d "$D"
like "$(cat "$T/tick.out")" '127\.0\.0\.1:9/\\u009b2J\\u009b31m' "abx-tick's progress line shows them too"
ok "and prints no C1 control" sh -c "! grep -q '$CSI' '$T/tick.out'"
is "$(starts slow)" 1 "the hook ran (the line was drawn while it did)"
done_testing
