#!/bin/sh
# on_Snapshot__06_wget.finite.bg — the page and its requisites with wget, and a WARC.
#
#   on_Snapshot__06_wget.finite.bg.sh --url=URL      (cwd = <snapshot>/wget/)
#
# 1. Hold an exclusive flock on the cwd until exit: parse_html_urls and
#    hashes wait for it before they read what we wrote.
# 2. Run $WGET_BINARY with WGET_ARGS (a JSON array; default in config.json:
#    --page-requisites --adjust-extension --convert-links --no-parent
#    --force-directories --restrict-file-names=windows ...), WGET_ARGS_EXTRA,
#    --timeout=WGET_TIMEOUT, --user-agent=USER_AGENT, and unless
#    WGET_SAVE_WARC is false --warc-file=warc/<unix time> --warc-cdx, so
#    the output is <host>[+port]/<path> plus warc/<time>.warc.gz and .cdx.
#    A requisite whose host is a literal in a private network zone other
#    than the page's own (and ALLOW_PRIVATE_NETWORKS's) is not fetched:
#    --reject-regex (hook_zone_regex; WGET_ARGS_EXTRA may replace it).
# 3. The page is the first file wget's log says it saved.  If there is one
#    the result is "succeeded" with output_str wget/<path> (a requisite
#    that failed does not fail the page); else "failed" with wget's last
#    ERROR line (e.g. "ERROR 404: Not Found.") as the reason.
# SIGTERM stops wget and still prints a result.
# shellcheck source-path=SCRIPTDIR source=../_lib/hook.sh
case $0 in */*) _d=${0%/*} ;; *) _d=. ;; esac
. "$_d/../_lib/hook.sh"

hook_init WGET "$@"
require_http
hook_lock_cwd
hook_tmpdir

hook_words "${WGET_ARGS:-$(hook_default WGET_ARGS)}"
eval "set -- $hook_words"
hook_zone_regex
[ -n "$hook_zone_regex" ] && set -- "$@" --reject-regex="$hook_zone_regex"
hook_words "${WGET_ARGS_EXTRA:-[]}"
eval "set -- \"\$@\" $hook_words"
set -- "$@" --timeout="$timeout" --user-agent="${USER_AGENT:-$HOOK_DEFAULT_UA}"
is_false "${CHECK_SSL_VALIDITY:-true}" && set -- "$@" --no-check-certificate
[ -n "${COOKIES_FILE:-}" ] && [ -r "$COOKIES_FILE" ] && set -- "$@" --load-cookies="$COOKIES_FILE"
if ! is_false "${WGET_SAVE_WARC-true}"; then
	mkdir -p warc || hook_done failed "cannot create $(pwd)/warc"
	set -- "$@" --warc-file="warc/$(date +%s)" --warc-cdx
fi

"${WGET_BINARY:-wget}" "$@" -- "$url" >&2 2>"$tmp/log" </dev/null &
wget_pid=$!
trap 'kill "$wget_pid" 2>/dev/null; cat "$tmp/log" >&2; rm -rf "$tmp";
	hook_result failed "wget interrupted by SIGTERM"; exit 143' TERM
wait "$wget_pid"
rc=$?
trap - TERM
cat "$tmp/log" >&2

# -nv: ... URL:<url> [n/n] -> "<path>" [1]; verbose: Saving to: '<path>'
page=$(sed -n -e 's/.* -> "\(.*\)" \[[0-9]*\]$/\1/p' -e 't q' -e 's/^Saving to: .\(.*\).$/\1/p' -e 't q' \
	-e d -e ':q' -e q "$tmp/log")
if [ -n "$page" ] && [ -f "$page" ]; then
	hook_done succeeded "wget/$page"
fi
why=$(grep -E 'ERROR|failed:|[Uu]nable' "$tmp/log" | tail -n 1 | sed 's/^[0-9-]* [0-9:]* //')
hook_done failed "${why:-wget exited $rc}" "${why:-wget exited $rc}"
