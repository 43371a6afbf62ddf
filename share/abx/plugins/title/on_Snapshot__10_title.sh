#!/bin/sh
# on_Snapshot__10_title — the page's <title>, into title.txt and a Snapshot record.
#
#   on_Snapshot__10_title.sh --url=URL      (cwd = <snapshot>/title/)
#
# 1. GET the URL with $CURL_BINARY (redirects followed, TITLE_TIMEOUT).
#    An HTTP status >= 400 or no response: "failed" with the reason.
# 2. Take the first <title>...</title> of the first MiB (any case, across
#    lines), whitespace collapsed, &amp; &lt; &gt; &quot; &#39; &apos;
#    &nbsp; decoded.  None: "noresults", "No title found".
# 3. title.txt gets the title's bytes as served (no newline).  The records
#    need UTF-8: a title that is not UTF-8 is converted from the charset of
#    the Content-Type (else of a <meta charset>, else windows-1252), and
#    what cannot be converted becomes U+FFFD.  Prints
#      {"type":"Snapshot","title":"..."}
#      {"type":"ArchiveResult","status":"succeeded","output_str":"<title>",...}
# shellcheck source-path=SCRIPTDIR source=../_lib/hook.sh
case $0 in */*) _d=${0%/*} ;; *) _d=. ;; esac
. "$_d/../_lib/hook.sh"

hook_init TITLE "$@"
require_http
hook_tmpdir

if ! meta=$(hook_curl --output "$tmp/page" --write-out '%{http_code} %{content_type}' -- "$url_sp" 2>"$tmp/err"); then
	cat "$tmp/err" >&2
	why=$(tail -n 1 "$tmp/err")
	hook_done failed "${why:-curl failed}" "${why:-curl failed}"
fi
code=${meta%% *}
ctype=${meta#* }
[ "$code" -lt 400 ] 2>/dev/null || hook_done failed "HTTP $code" "HTTP $code from $url"

LC_ALL=C
export LC_ALL
title=$(head -c 1048576 "$tmp/page" | tr '\n\r\t\f' '    ' |
	grep -io -m 1 '<title\([[:space:]][^>]*\)\{0,1\}>[^<]*</title' | head -n 1 |
	sed 's/^<[^>]*>//; s/<\/[Tt][Ii][Tt][Ll][Ee]$//; s/  */ /g; s/^ //; s/ $//' |
	sed "s/&lt;/</g; s/&gt;/>/g; s/&quot;/\"/g; s/&#0*39;/'/g; s/&#[xX]0*27;/'/g; s/&apos;/'/g;
		s/&nbsp;/ /g; s/&amp;/\\&/g")
[ -n "$title" ] || hook_done noresults "No title found"

printf '%s' "$title" >title.txt || hook_done failed "cannot write title.txt"

utf8=$title
if ! printf '%s' "$title" | iconv -f UTF-8 -t UTF-8 >/dev/null 2>&1; then
	charset=$(printf '%s\n' "$ctype" | sed -n 's/.*[Cc][Hh][Aa][Rr][Ss][Ee][Tt]=["'\'']\{0,1\}\([-A-Za-z0-9_:.]*\).*/\1/p')
	[ -n "$charset" ] || charset=$(head -c 4096 "$tmp/page" |
		grep -io 'charset=["'\'']\{0,1\}[-A-Za-z0-9_:.]*' | head -n 1 | sed 's/^charset=["'\'']\{0,1\}//')
	utf8=$(printf '%s' "$title" | iconv -f "${charset:-WINDOWS-1252}" -t UTF-8 2>/dev/null) || utf8=$title
fi
hook_json "$utf8"
printf '{"type":"Snapshot","title":%s}\n' "$hook_json"
hook_done succeeded "$utf8"
