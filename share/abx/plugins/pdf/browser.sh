#!/bin/sh
# browser.sh — the pdf plugin's own browser: the page printed to PDF, as output.pdf.
#
#   sh browser.sh --url=URL      (cwd = <snapshot>/pdf/)
#
# The hook is on_Snapshot__31_pdf.bin beside this file (_lib/derived.c):
# it takes ../chrome/output.pdf when the chrome hook loaded the page in this
# run, starting nothing, and else execs sh on this script, which then
# starts a browser of its own:
# Headless $CHROME_BINARY (default chromium, looked up in PATH; absent:
# "skipped", exit 10) in a fresh profile, killed after 90% of PDF_TIMEOUT.
# Chromium writes into a new directory (hook_newdir), and a non-empty PDF
# is renamed to output.pdf (hook_put: never through a symlink planted
# there): "succeeded", else "failed" with chromium's last ERROR line.
# Chromium keeps its sandbox unless CHROME_SANDBOX is false or the hook
# runs as root (then the result's notes say so), and cannot reach address
# literals in private network zones other than the page's own (chrome_run
# in _lib/hook.sh; abx(7) SECURITY).
# shellcheck source-path=SCRIPTDIR source=../_lib/hook.sh
case $0 in */*) _d=${0%/*} ;; *) _d=. ;; esac
. "$_d/../_lib/hook.sh"

hook_init PDF "$@"
require_http
chrome_find
hook_tmpdir
rm -f output.pdf
hook_newdir    # chromium writes by name: into a new directory, then hook_put
chrome_run --print-to-pdf="$newdir/output.pdf" --no-pdf-header-footer >&2 2>"$tmp/err"
rc=$?
chrome_log
if [ -s "$newdir/output.pdf" ]; then
	hook_put "$newdir/output.pdf" output.pdf || hook_done failed "cannot write output.pdf in $(pwd)"
	hook_done succeeded "output.pdf"
fi
why=$(chrome_error "$rc")
hook_done failed "$why" "$why"
