# shellcheck shell=sh
# hook.sh — what the shipped shell hooks share; sourced, never run.
#
# A hook is called as ArchiveBox calls one: argv --url=URL (other arguments
# are ignored), cwd <snapshot>/<plugin>/, configuration in the environment.
# It prints JSONL records on stdout and logs on stderr; it exits 0 when it
# succeeded, 10 when it skipped, anything else when it failed.
#
#   case $0 in */*) _d=${0%/*} ;; *) _d=. ;; esac
#   . "$_d/../_lib/hook.sh"         # sets $hook_dir, the hook's dir
#   hook_init WGET "$@"     # sets $url ($url_sp: spaces as %20), $timeout;
#                           # skips if WGET_ENABLED is false
#   ...
#   hook_result succeeded "output" ["error"]   # print the ArchiveResult
#   hook_done skipped "why"                    # print it and exit 10
#
# The URL is data: it is only ever passed as one quoted argument, never
# through eval or sh -c.  Only configuration (a JSON array of arguments)
# goes through eval, each element single-quoted by hook_words.
#
# A hook runs once per page, so this library runs no jq (~17 ms of CPU a
# start) on the normal path: the *_ARGS arrays, EXTRA_CONTEXT and the
# result line are read and written by the shell (see "JSON" below).  Input
# outside the small JSON subset handled there goes to jq, as before.
#
# This directory starts with "_", so plugin discovery skips it.

# the hook's directory (the hook sourced us, so $0 is the hook)
case $0 in
*/*) hook_dir=${0%/*} ;;
*) hook_dir=. ;;
esac
_hook_nl='
'
_hj_stop='[\"\\[:cntrl:]]'    # ends a run of plain string characters (JSON below)
_hj_delim='[],:{}"[:space:][]' # ends a number, true, false or null
_hj_badws='[![:blank:]
]'           # white space that is not JSON's

# hook_init PREFIX ARGS...: parse argv, resolve the timeout and enabled flag.
hook_init() {
	_hook_prefix=$1
	shift
	url= hook_note=
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
	url_sp='' _hj_r=$url _hj_i=0
	while :; do
		case $_hj_r in
		*' '*) url_sp=$url_sp${_hj_r%% *}%20 _hj_r=${_hj_r#* } ;;
		*) break ;;
		esac
		[ $((_hj_i += 1)) -le 64 ] || _hj_r=$(printf '%s\n' "$_hj_r" | sed 's/ /%20/g')
	done
	url_sp=$url_sp$_hj_r
	while :; do  # no trailing newlines, as from $(...)
		case $url_sp in
		*"$_hook_nl") url_sp=${url_sp%"$_hook_nl"} ;;
		*) break ;;
		esac
	done
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
	if _hook_ctx; then
		printf '%s' "${EXTRA_CONTEXT:-"{}"}"
	elif [ -n "${EXTRA_CONTEXT:-}" ] &&
		printf '%s' "$EXTRA_CONTEXT" | jq -e 'type == "object"' >/dev/null 2>&1; then
		printf '%s' "$EXTRA_CONTEXT"
	else
		printf '{}'
	fi
}

# hook_result STATUS OUTPUT_STR [ERROR]: print the ArchiveResult, over the
# context's keys as ArchiveBox's emit helpers do.  $hook_note, if set, is
# added to ERROR (the runner puts ERROR in the result's notes).
hook_result() {
	if [ -n "${hook_note:-}" ]; then
		set -- "$1" "$2" "${3:+$3; }$hook_note"
	fi
	if ! _hook_ctx; then
		jq -cn --argjson ctx "$(hook_context)" --arg status "$1" --arg out "$2" --arg err "${3:-}" \
			'$ctx + {type: "ArchiveResult", status: $status, output_str: $out}
			 + (if $err == "" then {} else {error: $err} end)'
		return
	fi
	_hook_line="{$_hook_ctx\"type\":\"ArchiveResult\",\"status\":"
	hook_json "$1"
	_hook_line="$_hook_line$hook_json,\"output_str\":"
	hook_json "$2"
	_hook_line=$_hook_line$hook_json
	if [ -n "${3:-}" ]; then
		hook_json "$3"
		_hook_line="$_hook_line,\"error\":$hook_json"
	fi
	printf '%s}\n' "$_hook_line"
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

# hook_words VALUE: $hook_words = VALUE (a JSON array of strings, else
# words split at spaces), each single-quoted, for eval "set -- $hook_words".
hook_words() {
	case $1 in
	*\[*) _hook_array "$1" && { hook_words=$_hook_words; return; } ;;
	*"$_hook_nl"*) ;;
	*)
		_hook_words='' _hj_r=$1
		while :; do
			_hj_r=${_hj_r#"${_hj_r%%[! ]*}"}
			[ -n "$_hj_r" ] || break
			_hook_quote "${_hj_r%% *}"
			case $_hj_r in
			*' '*) _hj_r=${_hj_r#* } ;;
			*) break ;;
			esac
		done
		hook_words=$_hook_words
		return
		;;
	esac
	hook_words=$(_hook_words_jq "$1")
}

# sh_words VALUE: hook_words, printed.
sh_words() {
	hook_words "$1"
	printf '%s\n' "$hook_words"
}

# _hook_words_jq VALUE: hook_words by jq, for what _hook_array does not read.
_hook_words_jq() {
	if printf '%s' "$1" | jq -e 'type == "array"' >/dev/null 2>&1; then
		printf '%s' "$1" | jq -r 'map(tostring) | @sh'
	else
		printf '%s\n' "$1" | jq -Rr 'split(" ") | map(select(. != "")) | @sh'
	fi
}

# hook_tmpdir: a private temp dir (outside cwd, so it never counts as output), removed at exit.
# $newdir too, if hook_newdir made one.
hook_tmpdir() {
	tmp=$(mktemp -d "${TMPDIR:-/tmp}/abx-hook.XXXXXX") || hook_done failed "cannot create a temp dir"
	trap 'rm -rf "$tmp" ${newdir:+"$newdir"}' EXIT
	trap 'rm -rf "$tmp" ${newdir:+"$newdir"}; hook_result failed "interrupted by SIGTERM"; exit 143' TERM
	trap 'rm -rf "$tmp" ${newdir:+"$newdir"}; hook_result failed "interrupted by SIGINT"; exit 130' INT
}

# Output files, never written through what was planted in the cwd (abx(7)
# SECURITY: another hook may have put a symlink, or a hard link, where
# this one writes; a program that writes a file by name follows it).
#
# hook_put FILE NAME: FILE becomes NAME in the cwd: moved to a new name
# there first (mktemp creates it, O_EXCL: never through a symlink), then
# renamed over NAME (mv -T: a symlink or hard link at NAME is replaced,
# what it points to untouched; a directory at NAME is refused).  1 if it
# could not (the new name removed).
hook_put() {
	_hp_t=$(mktemp "./.$2.XXXXXX") || return 1
	if mv -f -- "$1" "$_hp_t" && mv -fT -- "$_hp_t" "$2"; then
		return 0
	fi
	rm -f -- "$_hp_t"
	return 1
}

# hook_newdir: $newdir, a new empty directory in the cwd (mktemp -d: no
# one planted anything in it), for a program that writes a file by name
# (chromium's --screenshot=PATH): then hook_put it.  Removed at exit
# (hook_tmpdir's trap: call hook_tmpdir first).
hook_newdir() {
	newdir=$(mktemp -d "$(pwd)/.new.XXXXXX") || hook_done failed "cannot create a directory in $(pwd)"
}

# hook_default KEY: the schema default of KEY in the plugin's config.json, as JSON.
hook_default() {
	if _hook_default "$1"; then
		[ -n "$_hook_def" ] && printf '%s\n' "$_hook_def"
		return 0
	fi
	jq -c --arg k "$1" '.properties[$k].default // empty' "$hook_dir/config.json" 2>/dev/null
}

# chrome_find: set $chrome to CHROME_BINARY (default chromium) found in PATH, or skip.
# A distribution's launcher script ("#!" in /usr/bin or /bin, NAME) with the
# program it starts at /usr/lib/NAME/NAME or /usr/lib64/NAME/NAME is passed
# over for that program, as the chrome hook's find_binary does (ten
# processes fewer with Debian's); a script anywhere else runs as it is.
chrome_find() {
	chrome=$(command -v "${CHROME_BINARY:-chromium}" 2>/dev/null) ||
		hook_done skipped "chromium not found (CHROME_BINARY=${CHROME_BINARY:-chromium})"
	case $chrome in /usr/bin/*/* | /bin/*/*) return 0 ;; /usr/bin/?* | /bin/?*) ;; *) return 0 ;; esac
	_first=
	IFS= read -r _first <"$chrome" 2>/dev/null || :
	case $_first in
	'#!'*)
		for _real in "/usr/lib/${chrome##*/}/${chrome##*/}" "/usr/lib64/${chrome##*/}/${chrome##*/}"; do
			if [ -f "$_real" ] && [ -x "$_real" ]; then
				chrome=$_real
				return 0
			fi
		done
		;;
	esac
}

# chrome_sandbox: whether chromium keeps its sandbox (abx(7) SECURITY).  It
# does, unless CHROME_SANDBOX is false or the hook runs as root (chromium
# refuses to start sandboxed as root): then $hook_note says why it runs
# without, and every result of the hook carries it in its notes.
chrome_sandbox() {
	if is_false "${CHROME_SANDBOX:-true}"; then
		hook_note="chromium ran without its sandbox: CHROME_SANDBOX is false"
	elif [ "$(id -u)" -eq 0 ]; then
		hook_note="chromium ran without its sandbox: the hook runs as root, where chromium cannot have one (run abx as an unprivileged user: abx(7) SECURITY)"
	else
		hook_note=
	fi
}

# chrome_run ARGS...: headless chromium with ARGS, then the URL, in a fresh
# profile, killed after 90% of the hook's timeout; without its sandbox
# only as chrome_sandbox decides, said once on stderr; every connection
# through the egress gate ($ABX_GATE), else unable to reach the address
# literals of the private zones the page may not enter (hook_zone_rules).
chrome_run() {
	mkdir -p "$tmp/profile"
	chrome_sandbox
	if [ -n "$hook_note" ]; then
		echo "$hook_note" >&2
		set -- --no-sandbox "$@"
	fi
	is_false "${CHECK_SSL_VALIDITY:-true}" && set -- --ignore-certificate-errors "$@"
	# the network: through the egress gate (abx-hook's $ABX_GATE,
	# lib/net/gate.h), loopback included (chromium bypasses a proxy for
	# it by default), QUIC off (UDP would not go through it), WebRTC kept
	# to proxied connections; without a gate (the crawl may enter every
	# zone, or a hook run outside abx-hook), hook_zone_rules instead
	# chromium's own services, which it asks at every start despite
	# --disable-background-networking (its network time, a component's
	# on-demand install, accounts.google.com), bypass the gate and resolve
	# to nothing, and its time is not asked at all (a page of those hosts
	# is not captured by this fallback); the C chrome hook gives them a
	# proxy that refuses instead (launch.c browser_no_network)
	_own='accounts.google.com update.googleapis.com clients2.google.com'
	_ownrules= _ownbypass=
	for _o in $_own; do
		_ownrules="${_ownrules:+$_ownrules,}MAP $_o ~NOTFOUND"
		_ownbypass="$_ownbypass;$_o"
	done
	if [ -n "${ABX_GATE:-}" ]; then
		set -- --proxy-server="http://$ABX_GATE" --proxy-bypass-list="<-loopback>$_ownbypass" --disable-quic \
			--force-webrtc-ip-handling-policy=disable_non_proxied_udp --host-resolver-rules="$_ownrules" "$@"
	else
		hook_zone_rules
		set -- --host-resolver-rules="${hook_zone_rules:+$hook_zone_rules,}$_ownrules" "$@"
	fi
	timeout -k 5 $(( timeout * 9 / 10 > 5 ? timeout * 9 / 10 : 5 )) "$chrome" \
		--headless --disable-gpu --in-process-gpu --disable-dev-shm-usage --no-first-run \
		--disable-background-networking --disable-component-update --disable-sync \
		--disable-crashpad-for-testing --no-unsandboxed-zygote --enable-features=NetworkServiceInProcess2 \
		--disable-features=NetworkTimeServiceQuerying \
		--user-data-dir="$tmp/profile" --user-agent="${USER_AGENT:-$HOOK_DEFAULT_UA}" \
		"$@" -- "$url"
}

# chrome_log: chromium's stderr ($tmp/err) to ours, without the noise of a
# machine without a D-Bus session (dozens of "ERROR:dbus/..." lines a run).
chrome_log() {
	grep -v -e 'ERROR:dbus/' -e 'ERROR:bus.cc' -e 'ERROR:object_proxy.cc' "$tmp/err" >&2
	return 0
}

# chrome_error RC: why chrome_run failed, from its exit code and $tmp/err.
chrome_error() {
	case $1 in
	124 | 137) echo "chromium timed out after $(( timeout * 9 / 10 ))s" ;;
	*)
		if grep -q 'No usable sandbox' "$tmp/err"; then
			echo "chromium found no usable sandbox (unprivileged user namespaces or a setuid chrome-sandbox); CHROME_SANDBOX=false runs it without one (abx(7) SECURITY)"
			return
		fi
		_why=$(grep -v -e dbus -e 'Fontconfig' "$tmp/err" | grep 'ERROR' | tail -n 1 | sed 's/^\[[^]]*\] *//')
		echo "${_why:-chromium exited $1 without output}"
		;;
	esac
}

# -- network zones (abx(7) SECURITY, lib/net/netzone.h) -------------------------
# A fetcher following a page's requisites must not wander into the private
# network either.  Only literal hosts can be matched before the fetch; a name
# is resolved by the fetcher itself, later (abx(7) says what that leaves).

# hook_zone HOST: the zone of HOST (no port): a literal, localhost, or a
# name looked up with getent (public if any address is public).
hook_zone() {
	_hz=$1
	case $_hz in
	localhost | *.localhost) echo loopback; return ;;
	\[*\]) _hz=${_hz#\[} _hz=${_hz%\]} ;;
	*[!0-9.]*) _hz=$(getent ahosts "$_hz" 2>/dev/null | awk '{print $1}' | sort -u) ;;
	esac
	_hzs=
	for _ha in $_hz; do
		_hzs="$_hzs $(_hook_addr_zone "$_ha")"
	done
	case " $_hzs " in
	'  ' | *' public '*) echo public ;;
	*) set -- $_hzs; echo "$1" ;;
	esac
}

# _hook_addr_zone ADDR: the zone of one IPv4 or IPv6 address.
_hook_addr_zone() {
	case $1 in
	127.*) echo loopback ;;
	10.* | 172.1[6-9].* | 172.2[0-9].* | 172.3[01].* | 192.168.*) echo private ;;
	169.254.*) echo linklocal ;;
	100.6[4-9].* | 100.[7-9][0-9].* | 100.1[01][0-9].* | 100.12[0-7].*) echo cgnat ;;
	0.*) echo unspecified ;;
	22[4-9].* | 23[0-9].*) echo multicast ;;
	24[0-9].* | 25[0-5].*) echo reserved ;;
	::ffff:*.*.*.*) _hook_addr_zone "${1#::ffff:}" ;;   # before *.*.*.*, which it also matches
	*.*.*.*) echo public ;;
	::1) echo loopback ;;
	::) echo unspecified ;;
	[Ff][CcDd]*:*) echo uniquelocal ;;
	[Ff][Ee][89AaBb]*:*) echo linklocal ;;
	[Ff][Ee][C-Fc-f]*:*) echo private ;;
	[Ff][Ff]*:*) echo multicast ;;
	*) echo public ;;
	esac
}

# hook_zones_denied: $hook_zones_denied = the private zones a requisite of
# this page may not be in: all of them but the page's own and those
# ALLOW_PRIVATE_NETWORKS names; "" if it is true.
hook_zones_denied() {
	hook_zones_denied=
	_hzallow=${ALLOW_PRIVATE_NETWORKS:-false}
	case $_hzallow in
	[Tt]rue | TRUE | 1 | [Yy]es | YES | [Oo]n | ON | [Yy]) return ;;
	esac
	_hzhost=${url#*://}
	_hzhost=${_hzhost%%[/?#\\]*}
	_hzhost=${_hzhost##*@}
	case $_hzhost in
	\[*) _hzhost=${_hzhost%%\]*}\] ;;
	*) _hzhost=${_hzhost%%:*} ;;
	esac
	_hzallow=" $(printf '%s' "$_hzallow" | tr 'A-Z,' 'a-z ') $(hook_zone "$_hzhost") "
	for _hz in loopback private linklocal cgnat unspecified multicast uniquelocal reserved; do
		case $_hzallow in
		*" $_hz "*) ;;
		*) hook_zones_denied="$hook_zones_denied $_hz" ;;
		esac
	done
}

# hook_zone_rules: $hook_zone_rules = chromium's --host-resolver-rules that
# make every host of hook_zones_denied unresolvable ("MAP 10.* ~NOTFOUND",
# ...).  Chromium applies them to the hosts of address literals too, after
# reading them as a browser does (2130706433 is 127.0.0.1), and IPv6 ones
# without brackets.  A name that merely looks like an address
# ("10.example.com") matches too.
hook_zone_rules() {
	hook_zones_denied
	hook_zone_rules=
	[ -n "$hook_zones_denied" ] || return 0
	_hzp='::ffff:*'
	for _hz in $hook_zones_denied; do
		case $_hz in
		loopback) _hzp="$_hzp 127.* localhost *.localhost ::1" ;;
		private) _hzp="$_hzp 10.* $(_hook_seq 172. 16 31) 192.168.* fec*:* fed*:* fee*:* fef*:*" ;;
		linklocal) _hzp="$_hzp 169.254.* fe8*:* fe9*:* fea*:* feb*:*" ;;
		cgnat) _hzp="$_hzp $(_hook_seq 100. 64 127)" ;;
		unspecified) _hzp="$_hzp 0.* ::" ;;
		multicast) _hzp="$_hzp $(_hook_seq '' 224 239) ff*:*" ;;
		uniquelocal) _hzp="$_hzp fc*:* fd*:*" ;;
		reserved) _hzp="$_hzp $(_hook_seq '' 240 255)" ;;
		esac
	done
	for _hz in $_hzp; do
		hook_zone_rules="${hook_zone_rules:+$hook_zone_rules,}MAP $_hz ~NOTFOUND"
	done
}

# _hook_seq PREFIX FROM TO: "PREFIX<n>.*" for n = FROM..TO
_hook_seq() {
	_hs=$2
	while [ "$_hs" -le "$3" ]; do
		printf '%s%s.* ' "$1" "$_hs"
		_hs=$((_hs + 1))
	done
}

HOOK_DEFAULT_UA="Mozilla/5.0 (compatible; abx/0.1; +https://github.com/ArchiveBox/ArchiveBox)"

# -- JSON ------------------------------------------------------------------
# Just what the hooks need, by the shell alone (no process but for a rare
# control character): strings with the escapes \" \\ \/ \n, arrays of
# them, and objects of them, integers, true, false, null.  Anything else
# makes these functions return 1, and the callers use jq as before.  The
# text being read is in $_hj, consumed from the front.


# hook_json VALUE: $hook_json = VALUE as a JSON string, escaped as jq -c
# does (bytes that are not UTF-8 are left alone: the runner replaces them).
# Each escape costs the shell a copy of the rest, so a long VALUE, or one
# with many characters to escape (a page's title may be anything), goes to
# jq, which is linear.
hook_json() {
	# shellcheck disable=SC2295 # $_hj_stop is a pattern
	case $1 in
	*$_hj_stop*) ;;
	*)
		hook_json=\"$1\"
		return
		;;
	esac
	_hj_r=$1 _hj_o='' _hj_i=0
	[ ${#1} -le 4096 ] || _hj_i=64
	while :; do
		# shellcheck disable=SC2295 # $_hj_stop is a pattern
		_hj_p=${_hj_r%%$_hj_stop*}
		[ "$_hj_p" != "$_hj_r" ] || break
		if [ $((_hj_i += 1)) -gt 64 ]; then
			hook_json=$(printf '%s' "$1" | jq -Rs .)
			return
		fi
		_hj_r=${_hj_r#"$_hj_p"}
		case $_hj_r in
		\"*) _hj_c='\"' ;;
		\\*) _hj_c=\\\\ ;;
		"$_hook_nl"*) _hj_c='\n' ;;
		[[:blank:]]*) _hj_c='\t' ;;
		*) _hook_json_ctl ;;
		esac
		_hj_r=${_hj_r#?} _hj_o=$_hj_o$_hj_p$_hj_c
	done
	hook_json=\"$_hj_o$_hj_r\"
}

# _hook_json_ctl: $_hj_c = the escape of the control character that starts $_hj_r.
_hook_json_ctl() {
	_hj_n=$(printf '%d' "'$_hj_r")
	case $_hj_n in
	8) _hj_c='\b' ;;
	12) _hj_c='\f' ;;
	13) _hj_c='\r' ;;
	*)
		if [ "$_hj_n" -ge 128 ] 2>/dev/null; then   # a C1 control of a UTF-8 shell
			_hj_c=${_hj_r%"${_hj_r#?}"}
			return
		fi
		_hj_x=$((_hj_n % 16))
		case $_hj_x in
		10) _hj_x=a ;; 11) _hj_x=b ;; 12) _hj_x=c ;;
		13) _hj_x=d ;; 14) _hj_x=e ;; 15) _hj_x=f ;;
		esac
		_hj_c=\\u00$((_hj_n / 16))$_hj_x
		;;
	esac
}

# _hook_quote S: append S, single-quoted for sh, to $_hook_words.
_hook_quote() {
	_hj_q='' _hj_t=$1
	while :; do
		case $_hj_t in
		*\'*) _hj_q="$_hj_q${_hj_t%%\'*}'\\''" _hj_t=${_hj_t#*\'} ;;
		*) break ;;
		esac
	done
	_hook_words="$_hook_words '$_hj_q$_hj_t'"
}

# _hj_ws: drop the leading JSON whitespace; 1 if there was other space (\r, \v, \f).
_hj_ws() {
	_hj_w=${_hj%%[![:space:]]*}
	[ -n "$_hj_w" ] || return 0
	_hj=${_hj#"$_hj_w"}
	case $_hj_w in
	*$_hj_badws*) return 1 ;;
	esac
	return 0
}

# _hj_str: read the string at the front: $_hj_s its value, $_hj_r its JSON text.
_hj_str() {
	_hj=${_hj#\"} _hj_s='' _hj_r=\"
	while :; do
		# shellcheck disable=SC2295 # $_hj_stop is a pattern
		_hj_p=${_hj%%$_hj_stop*}
		[ "$_hj_p" != "$_hj" ] || return 1
		_hj=${_hj#"$_hj_p"}
		_hj_s=$_hj_s$_hj_p _hj_r=$_hj_r$_hj_p
		case $_hj in
		\"*)
			_hj=${_hj#?} _hj_r=$_hj_r\"
			return 0
			;;
		\\\"*) _hj_s=$_hj_s\" _hj_r=$_hj_r\\\" ;;
		\\\\*) _hj_s=$_hj_s\\ _hj_r=$_hj_r\\\\ ;;
		\\/*) _hj_s=$_hj_s/ _hj_r=$_hj_r\\/ ;;
		\\n*) _hj_s=$_hj_s$_hook_nl _hj_r=$_hj_r\\n ;;
		*) return 1 ;;
		esac
		_hj=${_hj#??}
	done
}

# _hj_int: $_hj_p = the integer at the front, if jq prints it as it is.
_hj_int() {
	# shellcheck disable=SC2295 # $_hj_delim is a pattern
	_hj_p=${_hj%%$_hj_delim*}
	_hj_n=${_hj_p#-}
	case $_hj_p in
	0) ;;
	-0*) return 1 ;;
	*)
		case $_hj_n in
		'' | 0* | *[!0-9]*) return 1 ;;
		esac
		[ ${#_hj_n} -le 15 ] || return 1
		;;
	esac
	_hj=${_hj#"$_hj_p"}
}

# _hook_array VALUE: $_hook_words = the strings of the JSON array VALUE, quoted.
_hook_array() {
	_hj=$1 _hook_words=
	_hj_ws || return 1
	case $_hj in
	\[*) _hj=${_hj#?} ;;
	*) return 1 ;;
	esac
	_hj_ws || return 1
	case $_hj in
	\]*) _hj=${_hj#?} ;;
	*)
		while :; do
			case $_hj in
			\"*) _hj_str || return 1 ;;
			*) return 1 ;;
			esac
			_hook_quote "$_hj_s"
			_hj_ws || return 1
			case $_hj in
			,*) _hj=${_hj#?} ;;
			\]*)
				_hj=${_hj#?}
				break
				;;
			*) return 1 ;;
			esac
			_hj_ws || return 1
		done
		;;
	esac
	_hj_ws && [ -z "$_hj" ]
}

# _hook_ctx: $_hook_ctx = the members of $EXTRA_CONTEXT (an object, else
# {}) as jq -c prints them, each followed by ",".  1 if jq must do it: an
# object with other values, or keys of the result, or a key twice.
_hook_ctx() {
	_hook_ctx='' _hj=${EXTRA_CONTEXT:-} _hj_k=''
	[ -n "$_hj" ] || return 0
	_hj_ws || return 1
	case $_hj in
	\{*) _hj=${_hj#?} ;;
	*) return 1 ;;
	esac
	_hj_ws || return 1
	case $_hj in
	\}*) _hj=${_hj#?} ;;
	*)
		while :; do
			case $_hj in
			\"*) _hj_str || return 1 ;;
			*) return 1 ;;
			esac
			case $_hj_r in
			*\\/* | '"type"' | '"status"' | '"output_str"' | '"error"') return 1 ;;
			esac
			case $_hj_k in
			*"$_hj_r"*) return 1 ;;
			esac
			_hj_k=$_hj_k$_hj_r _hook_ctx=$_hook_ctx$_hj_r:
			_hj_ws || return 1
			case $_hj in
			:*) _hj=${_hj#?} ;;
			*) return 1 ;;
			esac
			_hj_ws || return 1
			case $_hj in
			\"*)
				_hj_str || return 1
				case $_hj_r in
				*\\/*) return 1 ;;
				esac
				_hook_ctx=$_hook_ctx$_hj_r,
				;;
			true* | false* | null*)
				# shellcheck disable=SC2295 # $_hj_delim is a pattern
				_hj_p=${_hj%%$_hj_delim*}
				case $_hj_p in
				true | false | null) ;;
				*) return 1 ;;
				esac
				_hj=${_hj#"$_hj_p"} _hook_ctx=$_hook_ctx$_hj_p,
				;;
			*)
				_hj_int || return 1
				_hook_ctx=$_hook_ctx$_hj_p,
				;;
			esac
			_hj_ws || return 1
			case $_hj in
			,*) _hj=${_hj#?} ;;
			\}*)
				_hj=${_hj#?}
				break
				;;
			*) return 1 ;;
			esac
			_hj_ws || return 1
		done
		;;
	esac
	_hj_ws && [ -z "$_hj" ]
}

# _hook_default KEY: $_hook_def = the JSON text of properties.KEY.default in
# the plugin's config.json, empty if it is null or false (jq's //).  1 if
# jq must read it.
_hook_default() {
	_hook_def='' _hj=''
	[ -r "$hook_dir/config.json" ] || return 1
	while IFS= read -r _hj_l || [ -n "$_hj_l" ]; do
		_hj=$_hj$_hj_l$_hook_nl
	done <"$hook_dir/config.json"
	_hj_member properties && _hj_member "$1" && _hj_member default || return 1
	_hj_t=$_hj
	_hj_skip || return 1
	_hook_def=${_hj_t%"$_hj"}
	case $_hook_def in
	null | false) _hook_def= ;;
	esac
}

# _hj_member KEY: the front is an object; move to the value of its member KEY.
_hj_member() {
	_hj_ws || return 1
	case $_hj in
	\{*) _hj=${_hj#?} ;;
	*) return 1 ;;
	esac
	while :; do
		_hj_ws || return 1
		case $_hj in
		\"*) _hj_str || return 1 ;;
		*) return 1 ;;
		esac
		_hj_ws || return 1
		case $_hj in
		:*) _hj=${_hj#?} ;;
		*) return 1 ;;
		esac
		_hj_ws || return 1
		[ "$_hj_s" != "$1" ] || return 0
		_hj_skip || return 1
		_hj_ws || return 1
		case $_hj in
		,*) _hj=${_hj#?} ;;
		*) return 1 ;;
		esac
	done
}

# _hj_skip: move past the value at the front (not checked in full).
_hj_skip() {
	_hj_d=0
	while :; do
		case $_hj in
		\"*) _hj_str || return 1 ;;
		\[* | \{*) _hj=${_hj#?} _hj_d=$((_hj_d + 1)) ;;
		\]* | \}*) _hj=${_hj#?} _hj_d=$((_hj_d - 1)) ;;
		[,:]*)
			[ "$_hj_d" -gt 0 ] || return 1
			_hj=${_hj#?}
			;;
		*)
			# shellcheck disable=SC2295 # $_hj_delim is a pattern
			_hj_p=${_hj%%$_hj_delim*}
			[ -n "$_hj_p" ] || return 1
			_hj=${_hj#"$_hj_p"}
			;;
		esac
		[ "$_hj_d" -gt 0 ] || return "$(( _hj_d < 0 ))"
		_hj_ws || return 1
	done
}
