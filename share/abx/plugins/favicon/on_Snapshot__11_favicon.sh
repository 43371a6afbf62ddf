#!/bin/sh
# on_Snapshot__11_favicon — the site's icon, as favicon.<ext>.
#
#   on_Snapshot__11_favicon.sh --url=URL      (cwd = <snapshot>/favicon/)
#
# 1. GET the page; its first <link rel=icon> (any rel with the token
#    "icon"), resolved against the page's final URL and its <base>, is the
#    first candidate.  The HTML is read by parse_html_urls --icon, the C
#    parser of the sibling plugin; without it only step 2 is tried.
# 2. Then /favicon.ico of the page's origin.
# 3. The first candidate that answers 2xx with a non-empty body that is not
#    HTML is saved as favicon.<ext>, ext from its Content-Type (ico, png,
#    gif, jpg, svg, webp; else ico).  "succeeded", output_str favicon.<ext>.
#    None: "skipped", exit 10 ("no favicon found"); a candidate that could
#    not be fetched at all (no response) makes it "failed" instead.
# shellcheck source-path=SCRIPTDIR source=../_lib/hook.sh
case $0 in */*) _d=${0%/*} ;; *) _d=. ;; esac
. "$_d/../_lib/hook.sh"

hook_init FAVICON "$@"
require_http
hook_tmpdir

parser="$hook_dir/../parse_html_urls/on_Snapshot__75_parse_html_urls.bin"
base=$url
icon=
if base=$(hook_curl --output "$tmp/page" --write-out '%{url_effective}' -- "$url_sp" 2>>"$tmp/err") &&
	[ -x "$parser" ]; then
	icon=$("$parser" --icon --url="$base" --html="$tmp/page" 2>/dev/null)
fi
[ -n "$base" ] || base=$url
origin=$(printf '%s\n' "$base" | sed -n 's|^\([A-Za-z][A-Za-z0-9+.-]*://[^/?#]*\).*|\1|p' | head -n 1)

# try URL: fetch one candidate into favicon.<ext>; 0 if saved
try() {
	if ! ctype=$(hook_curl --fail --output "$tmp/icon" --write-out '%{content_type}' -- "$1" 2>>"$tmp/err"); then
		transport_error=$(tail -n 1 "$tmp/err")
		case $transport_error in
		*'(22)'*) transport_error= ;;  # an HTTP error: just no icon there
		esac
		return 1
	fi
	[ -s "$tmp/icon" ] || return 1
	case $ctype in
	text/html* | application/xhtml*) return 1 ;;
	*icon*) ext=ico ;;
	image/png*) ext=png ;;
	image/gif*) ext=gif ;;
	image/jpeg*) ext=jpg ;;
	image/svg*) ext=svg ;;
	image/webp*) ext=webp ;;
	*) ext=ico ;;
	esac
	mv "$tmp/icon" "favicon.$ext"
}

transport_error=
for candidate in "$icon" "$origin/favicon.ico"; do
	[ -n "$candidate" ] || continue
	if try "$candidate"; then
		hook_done succeeded "favicon.$ext"
	fi
done
cat "$tmp/err" >&2
[ -n "$transport_error" ] && hook_done failed "$transport_error" "$transport_error"
hook_done skipped "no favicon found"
