#!/bin/sh
# Terminal escapes (abx(7) SECURITY): a URL carrying a C1 control (CSI,
# U+009B) and an escape sequence is stored percent-encoded (url.h: the
# WHATWG serializer), so abx-ls's table and abx-tick's progress display,
# both run on a real terminal (script(1) gives them a pty), print no
# control; and a diagnostic that quotes a value shows its controls
# (termsafe in err.c).  The plugin fetches nothing.
. "$(dirname "$0")/lib/tap.sh"
. "$(dirname "$0")/lib/tick-lib.sh"
command -v script >/dev/null 2>&1 || { echo "1..0 # SKIP script(1) not installed"; exit 0; }
slow_plugin slow
echo 1.5 >"$T/slow.s"

CSI=$(printf '\302\233')    # U+009B in UTF-8: a whole CSI on many terminals
URL="http://127.0.0.1:9/${CSI}2J${CSI}31m?q=%1B"
D=$T/data
abx-add -d "$D" --plugins slow "$URL" >/dev/null
is "$(abx-ls -d "$D" -k snapshot --jsonl | jq -r .url)" "http://127.0.0.1:9/%C2%9B2J%C2%9B31m?q=%1B" \
	"the URL is stored percent-encoded, as a browser serializes it"

# on_tty OUT CMD...: run CMD on a pty, its output in OUT
on_tty() {
	_out=$1
	shift
	script -qec "stty cols 250; $*" /dev/null >"$_out" 2>&1 </dev/null
}
on_tty "$T/ls.out" abx-ls -d "$D" -k snapshot
like "$(cat "$T/ls.out")" 'http://127\.0\.0\.1:9/%C2%9B2J%C2%9B31m\?q=%1B' "abx-ls's table shows the URL as stored"
ok "and prints no C1 control" sh -c "! grep -q '$CSI' '$T/ls.out'"

on_tty "$T/tick.out" COLUMNS=200 abx-tick -d "$D"
like "$(cat "$T/tick.out")" '127\.0\.0\.1:9/%C2%9B2J%C2%9B31m' "abx-tick's progress line too"
ok "and prints no C1 control" sh -c "! grep -q '$CSI' '$T/tick.out'"
is "$(starts slow)" 1 "the hook ran (the line was drawn while it did)"
on_tty "$T/add.out" abx-add -d "$D" --depth "'9${CSI}2J'" http://127.0.0.1:9/
like "$(cat "$T/add.out")" '9\\u009b2J' "a diagnostic quoting a refused value shows its controls as \\u009b"
ok "and prints no C1 control" sh -c "! grep -q '$CSI' '$T/add.out'"
done_testing
