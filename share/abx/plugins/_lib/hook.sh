# shellcheck shell=sh
# hook.sh — what the shipped shell hooks share; sourced, never run.
#
# A hook is called as ArchiveBox calls one: argv --url=URL (other arguments
# are ignored), cwd <snapshot>/<plugin>/, configuration in the environment.
# It prints JSONL records on stdout and logs on stderr; it exits 0 when it
# succeeded, 10 when it skipped, anything else when it failed.
#
#   . "$(dirname "$0")/../_lib/hook.sh"
#   hook_init WGET "$@"     # sets $url ($url_sp: spaces as %20), $timeout;
#                           # skips if WGET_ENABLED is false
#   ...
#   hook_result succeeded "output" ["error"]   # print the ArchiveResult
#   hook_done skipped "why"                    # print it and exit 10
#
# The URL is data: it is only ever passed as one quoted argument, never
# through eval or sh -c.  Only configuration (a JSON array of arguments)
# goes through eval, and then quoted by jq's @sh.
#
# This directory starts with "_", so plugin discovery skips it.

# hook_init PREFIX ARGS...: parse argv, resolve the timeout and enabled flag.
hook_init() {
	_hook_prefix=$1
	shift
	url=
	while [ $# -gt 0 ]; do
		case $1 in
		--url=*) url=${1#--url=} ;;
		--url) [ $# -gt 1 ] && { url=$2; shift; } ;;
		esac
		shift
	done
	_hook_enabled=
	eval "_hook_enabled=\${${_hook_prefix}_ENABLED-true}"
	eval "timeout=\${${_hook_prefix}_TIMEOUT:-\${TIMEOUT:-60}}"
	case $timeout in
	'' | *[!0-9]*) timeout=60 ;;
	esac
	[ "$timeout" -gt 0 ] || timeout=60
	# curl refuses a URL with a space in it; browsers and wget send %20
	url_sp=$(printf '%s\n' "$url" | sed 's/ /%20/g')
	if is_false "$_hook_enabled"; then
		hook_done skipped "${_hook_prefix}_ENABLED is false"
	fi
	case $url in
	'') hook_done failed "no --url given" "usage: $(basename "$0") --url=URL" ;;
	-*) hook_done failed "bad URL: $url" "a URL may not begin with -" ;;
	esac
}

# is_false VALUE: ArchiveBox's false strings.
is_false() {
	case $1 in
	[Ff]alse | FALSE | 0 | [Nn]o | NO | [Oo]ff | OFF | '') return 0 ;;
	esac
	return 1
}

# require_http: skip a URL that is not http(s); curl and wget fetch nothing else here.
require_http() {
	case $url in
	[Hh][Tt][Tt][Pp]://* | [Hh][Tt][Tt][Pp][Ss]://*) ;;
	*) hook_done skipped "not an http(s) URL" ;;
	esac
}

# hook_context: $EXTRA_CONTEXT if it is a JSON object, else {}.
hook_context() {
	if [ -n "${EXTRA_CONTEXT:-}" ] &&
		printf '%s' "$EXTRA_CONTEXT" | jq -e 'type == "object"' >/dev/null 2>&1; then
		printf '%s' "$EXTRA_CONTEXT"
	else
		printf '{}'
	fi
}

# hook_result STATUS OUTPUT_STR [ERROR]: print the ArchiveResult, over the
# context's keys as ArchiveBox's emit helpers do.
hook_result() {
	jq -cn --argjson ctx "$(hook_context)" --arg status "$1" --arg out "$2" --arg err "${3:-}" \
		'$ctx + {type: "ArchiveResult", status: $status, output_str: $out}
		 + (if $err == "" then {} else {error: $err} end)'
}

# hook_done STATUS OUTPUT_STR [ERROR]: print the result and exit with its code.
hook_done() {
	hook_result "$@"
	case $1 in
	succeeded | noresults) exit 0 ;;
	skipped) exit 10 ;;
	*) exit 1 ;;
	esac
}

# sh_words VALUE: VALUE (a JSON array of strings, else words) quoted for eval.
sh_words() {
	if printf '%s' "$1" | jq -e 'type == "array"' >/dev/null 2>&1; then
		printf '%s' "$1" | jq -r 'map(tostring) | @sh'
	else
		printf '%s\n' "$1" | jq -Rr 'split(" ") | map(select(. != "")) | @sh'
	fi
}

# hook_curl ARGS...: $CURL_BINARY with the options every fetch uses:
# http(s) only (also after redirects), the hook's timeout, USER_AGENT,
# CHECK_SSL_VALIDITY, COOKIES_FILE.
hook_curl() {
	is_false "${CHECK_SSL_VALIDITY:-true}" && set -- --insecure "$@"
	[ -n "${COOKIES_FILE:-}" ] && [ -r "$COOKIES_FILE" ] && set -- --cookie "$COOKIES_FILE" "$@"
	"${CURL_BINARY:-curl}" --silent --show-error --location --max-redirs 10 \
		--proto =http,https --proto-redir =http,https --max-time "$timeout" \
		--user-agent "${USER_AGENT:-$HOOK_DEFAULT_UA}" "$@"
}

# hook_tmpdir: a private temp dir (outside cwd, so it never counts as output), removed at exit.
hook_tmpdir() {
	tmp=$(mktemp -d "${TMPDIR:-/tmp}/abx-hook.XXXXXX") || hook_done failed "cannot create a temp dir"
	trap 'rm -rf "$tmp"' EXIT
	trap 'rm -rf "$tmp"; hook_result failed "interrupted by SIGTERM"; exit 143' TERM
	trap 'rm -rf "$tmp"; hook_result failed "interrupted by SIGINT"; exit 130' INT
}

# hook_default KEY: the schema default of KEY in the plugin's config.json, as JSON.
hook_default() {
	jq -c --arg k "$1" '.properties[$k].default // empty' "$(dirname "$0")/config.json" 2>/dev/null
}

# hook_lock_cwd: hold an exclusive flock on the plugin dir until the hook
# exits (fd 9, inherited by its children).  Hooks that read this plugin's
# output (parse_html_urls, hashes) wait for a shared lock on the same dir.
hook_lock_cwd() {
	exec 9<.
	flock -n -x 9 || hook_done skipped "another hook is writing $(pwd)"
}

# wait_for_dirs DIR...: wait (up to 80% of the timeout in all) until no hook
# holds the lock of hook_lock_cwd on any DIR.
wait_for_dirs() {
	_end=$(( $(date +%s) + timeout * 8 / 10 ))
	for _d in "$@"; do
		_left=$(( _end - $(date +%s) ))
		[ "$_left" -gt 0 ] || _left=0
		flock -s -w "$_left" "$_d" true 2>/dev/null ||
			echo "still being written, read as it is: $_d" >&2
	done
}

# chrome_find: set $chrome to CHROME_BINARY (default chromium) found in PATH, or skip.
chrome_find() {
	chrome=$(command -v "${CHROME_BINARY:-chromium}" 2>/dev/null) ||
		hook_done skipped "chromium not found (CHROME_BINARY=${CHROME_BINARY:-chromium})"
}

# chrome_run ARGS...: headless chromium with ARGS, then the URL, in a fresh
# profile, killed after 90% of the hook's timeout.
chrome_run() {
	mkdir -p "$tmp/profile"
	is_false "${CHECK_SSL_VALIDITY:-true}" && set -- --ignore-certificate-errors "$@"
	timeout -k 5 $(( timeout * 9 / 10 > 5 ? timeout * 9 / 10 : 5 )) "$chrome" \
		--headless --no-sandbox --disable-gpu --disable-dev-shm-usage --no-first-run \
		--disable-background-networking --disable-component-update --disable-sync \
		--user-data-dir="$tmp/profile" --user-agent="${USER_AGENT:-$HOOK_DEFAULT_UA}" \
		"$@" -- "$url"
}

# chrome_error RC: why chrome_run failed, from its exit code and $tmp/err.
chrome_error() {
	case $1 in
	124 | 137) echo "chromium timed out after $(( timeout * 9 / 10 ))s" ;;
	*)
		_why=$(grep -v -e dbus -e 'Fontconfig' "$tmp/err" | grep 'ERROR' | tail -n 1 | sed 's/^\[[^]]*\] *//')
		echo "${_why:-chromium exited $1 without output}"
		;;
	esac
}

HOOK_DEFAULT_UA="Mozilla/5.0 (compatible; abx/0.1; +https://github.com/ArchiveBox/ArchiveBox)"
