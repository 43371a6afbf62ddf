#!/bin/sh
# browser.sh — the screenshot plugin's own browser: a screenshot of the page, as screenshot.png.
#
#   sh browser.sh --url=URL      (cwd = <snapshot>/screenshot/)
#
# The hook is on_Snapshot__30_screenshot.bin beside this file (_lib/derived.c):
# it takes ../chrome/screenshot.png when the chrome hook loaded the page in this
# run, starting nothing, and else execs sh on this script, which then
# starts a browser of its own:
# Headless $CHROME_BINARY (default chromium, looked up in PATH; absent:
# "skipped", exit 10) in a fresh profile, window 1280x2000, killed after 90%
# of SCREENSHOT_TIMEOUT.  Chromium writes into a new directory
# (hook_newdir), and a non-empty PNG is renamed to screenshot.png
# (hook_put: never through a symlink planted there): "succeeded", else
# "failed" with chromium's last ERROR line.
# Chromium keeps its sandbox unless CHROME_SANDBOX is false or the hook
# runs as root (then the result's notes say so), and cannot reach address
# literals in private network zones other than the page's own (chrome_run
# in _lib/hook.sh; abx(7) SECURITY).
# shellcheck source-path=SCRIPTDIR source=../_lib/hook.sh
case $0 in */*) _d=${0%/*} ;; *) _d=. ;; esac
. "$_d/../_lib/hook.sh"

hook_init SCREENSHOT "$@"
require_http
chrome_find
hook_tmpdir
rm -f screenshot.png
hook_newdir    # chromium writes by name: into a new directory, then hook_put
chrome_run --screenshot="$newdir/screenshot.png" --window-size=1280,2000 >&2 2>"$tmp/err"
rc=$?
chrome_log
if [ -s "$newdir/screenshot.png" ]; then
	hook_put "$newdir/screenshot.png" screenshot.png || hook_done failed "cannot write screenshot.png in $(pwd)"
	hook_done succeeded "screenshot.png"
fi
why=$(chrome_error "$rc")
hook_done failed "$why" "$why"
