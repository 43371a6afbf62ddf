#!/bin/sh
# on_Snapshot__12_headers — the page's HTTP response headers, as headers.json.
#
#   on_Snapshot__12_headers.sh --url=URL      (cwd = <snapshot>/headers/)
#
# 1. GET the URL with $CURL_BINARY (body discarded, redirects followed,
#    headers of every response dumped).  A HEAD would not do: servers
#    answer it differently.
# 2. Keep the last response's block: names lower-cased, a repeated header's
#    values joined with ", " (RFC 9110 5.3), the status code as the number
#    under "status":  {"status":200,"content-type":"text/html",...}
# 3. "succeeded" whatever the status (the headers of a 404 are the record
#    of a 404), output_str "headers.json (HTTP <code>)"; "failed" only when
#    no response came.
# shellcheck source-path=SCRIPTDIR source=../_lib/hook.sh
case $0 in */*) _d=${0%/*} ;; *) _d=. ;; esac
. "$_d/../_lib/hook.sh"

hook_init HEADERS "$@"
require_http
hook_tmpdir

if ! code=$(hook_curl --output /dev/null --dump-header "$tmp/head" --write-out '%{http_code}' -- "$url_sp" 2>"$tmp/err"); then
	cat "$tmp/err" >&2
	why=$(tail -n 1 "$tmp/err")
	hook_done failed "${why:-curl failed}" "${why:-curl failed}"
fi
case $code in
'' | *[!0-9]*) code=0 ;;
esac

# the last block of "HTTP/x NNN" + header lines, CRs dropped
tr -d '\r' <"$tmp/head" | awk '/^HTTP\// { n = 0; next } /^[^ \t][^:]*:/ { line[++n] = $0 }
	END { for (i = 1; i <= n; i++) print line[i] }' |
	jq -Rn --argjson status "$code" '
		reduce (inputs | capture("^(?<k>[^:]+):[ \t]*(?<v>.*)$") | .k |= ascii_downcase) as $h
			({}; .[$h.k] = (if has($h.k) then .[$h.k] + ", " + $h.v else $h.v end))
		| {status: $status} + .' >"$tmp/headers.json" ||
	hook_done failed "cannot parse the headers"
mv "$tmp/headers.json" headers.json || hook_done failed "cannot write headers.json"
hook_done succeeded "headers.json (HTTP $code)"
