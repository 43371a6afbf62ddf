#!/bin/sh
# browser.sh — the dom plugin's own browser: the page's DOM after its
# scripts ran, as output.html.
#
#   sh browser.sh --url=URL      (cwd = <snapshot>/dom/)
#
# The hook is on_Snapshot__32_dom.bin beside this file (_lib/derived.c):
# it takes ../chrome/output.html when the chrome hook loaded the page in this
# run, starting nothing, and else execs sh on this script, which then
# starts a browser of its own:
# Headless $CHROME_BINARY --dump-dom (default chromium, looked up in PATH;
# absent: "skipped", exit 10) in a fresh profile, killed after 90% of
# DOM_TIMEOUT.  The DOM is written to a temp file and renamed to
# output.html (hook_put: never through a symlink) only when whole and
# non-empty (parse_html_urls reads it):
# "succeeded", else "failed" with chromium's last ERROR line.
# Chromium keeps its sandbox unless CHROME_SANDBOX is false or the hook
# runs as root (then the result's notes say so), and cannot reach address
# literals in private network zones other than the page's own (chrome_run
# in _lib/hook.sh; abx(7) SECURITY).
# shellcheck source-path=SCRIPTDIR source=../_lib/hook.sh
case $0 in */*) _d=${0%/*} ;; *) _d=. ;; esac
. "$_d/../_lib/hook.sh"

hook_init DOM "$@"
require_http
chrome_find
hook_tmpdir
chrome_run --dump-dom >"$tmp/dom.html" 2>"$tmp/err"
rc=$?
chrome_log
if [ "$rc" -eq 0 ] && [ -s "$tmp/dom.html" ]; then
	hook_put "$tmp/dom.html" output.html || hook_done failed "cannot write output.html in $(pwd)"
	hook_done succeeded "output.html"
fi
why=$(chrome_error "$rc")
hook_done failed "$why" "$why"
