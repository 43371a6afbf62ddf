#!/bin/sh
# on_Snapshot__32_dom — the page's DOM after its scripts ran, as output.html.
#
#   on_Snapshot__32_dom.sh --url=URL      (cwd = <snapshot>/dom/)
#
# Derived first: when the chrome plugin loaded the page in this run
# (../chrome/output.html, chrome_derived in _lib/hook.sh), its file is
# hard-linked (else copied) here: "succeeded", no browser started.
# Else, as a plugin of its own:
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
chrome_derived output.html
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
