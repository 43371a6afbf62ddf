#!/bin/sh
# plugins.sh — the shipped hooks, run one by one the way abx-hook runs them
# (cwd <snapshot>/<plugin>/, --url=, SNAP_DIR, CRAWL_DIR, EXTRA_CONTEXT,
# TIMEOUT in the environment), against tests/httpd.py; outputs checked.
# shellcheck source-path=SCRIPTDIR source=lib/tap.sh
. "$(dirname "$0")/lib/tap.sh"
# shellcheck source-path=SCRIPTDIR source=lib/httpd.sh
. "$(dirname "$0")/lib/httpd.sh"

PLUG=$SHARE/abx/plugins
PHU=$PLUG/parse_html_urls/on_Snapshot__75_parse_html_urls.bin
CTX='{"snapshot_id":"0190b0d0-0000-7000-8000-000000000001","snapshot_depth":0,"plugin":"x","hook_name":"y"}'
plan 59

httpd_start --log "$T/requests.log" || exit 1

# hook SNAP PLUGIN URL [VAR=value...]: run PLUGIN's hook for snapshot dir
# $T/SNAP; stdout in $out, exit code in $rc, stderr in $T/stderr.
hook() {
	_snap=$T/$1 _plugin=$2 _url=$3
	shift 3
	mkdir -p "$_snap/$_plugin"
	_h=$(ls "$PLUG/$_plugin"/on_Snapshot__*)
	out=$(cd "$_snap/$_plugin" && env SNAP_DIR="$_snap" CRAWL_DIR="$T" EXTRA_CONTEXT="$CTX" \
		TIMEOUT=30 "$@" "$_h" --url="$_url" 2>"$T/stderr")
	rc=$?
}
# result FIELD: FIELD of the ArchiveResult in $out
result() { printf '%s\n' "$out" | jq -r "select(.type == \"ArchiveResult\") | .$1"; }
# all_json: every stdout line is one JSON object
all_json() { printf '%s\n' "$out" | jq -e -s 'length > 0 and all(type == "object")' >/dev/null; }

# -- layout --
bad=
for c in "$PLUG"/*/config.json; do
	p=$(basename "$(dirname "$c")" | tr '[:lower:]' '[:upper:]')
	jq -e --arg p "$p" '.type == "object" and (.required_binaries | type == "array")
		and .properties[$p + "_ENABLED"].type == "boolean"
		and .properties[$p + "_TIMEOUT"]["x-fallback"] == "TIMEOUT"' "$c" >/dev/null || bad="$bad $c"
done
is "$bad" "" "every config.json has the schema keys, <PLUGIN>_ENABLED and _TIMEOUT"
bad=
for h in "$PLUG"/*/on_*; do
	basename "$h" | grep -Eq '^on_Snapshot__[0-9]{2}_[a-z_]+(\.finite)?(\.bg)?\.(sh|bin)$' && [ -x "$h" ] ||
		bad="$bad $h"
done
is "$bad" "" "hook names follow the grammar and are executable"
ok "parse_html_urls is built" test -x "$PHU"

# -- wget --
hook s wget "$BASE/site/"
is "$rc" 0 "wget: exit 0"
is "$(result status)" succeeded "wget: succeeded"
page="127.0.0.1+$HTTPD_PORT/site/index.html"
is "$(result output_str)" "wget/$page" "wget: output_str is the saved page"
ok "wget: the page is saved" grep -q 'abx test site' "$T/s/wget/$page"
curl -s "$BASE/site/img.png" >"$T/img.png"
ok "wget: its image is saved, byte for byte" cmp -s "$T/img.png" "$T/s/wget/127.0.0.1+$HTTPD_PORT/site/img.png"
warc_ok() { zcat "$T"/s/wget/warc/*.warc.gz | grep -q '^WARC/1'; }
ok "wget: a WARC is written" warc_ok
like "$(zcat "$T"/s/wget/warc/*.warc.gz | grep -a '^WARC-Target-URI')" "$BASE/site/img.png" \
	"wget: the WARC holds the requisites"
is "$(result snapshot_id)" 0190b0d0-0000-7000-8000-000000000001 "wget: EXTRA_CONTEXT is merged into the result"

hook s404 wget "$BASE/missing"
failed_rc() { [ "$rc" -ne 0 ] && [ "$rc" -ne 10 ]; }
ok "wget: a 404 fails (exit $rc)" failed_rc
is "$(result status)" failed "wget: a 404 is failed"
like "$(result error)" '404' "wget: the reason names the 404"

# -- parse_html_urls (reads what wget saved) --
hook s parse_html_urls "$BASE/site/"
is "$rc" 0 "parse_html_urls: exit 0"
want=$(printf '%s\n' "$BASE/site/page1.html" "$BASE/site/page2.html" "$BASE/site/page3.html" \
	"$BASE/site/style.css")
is "$(jq -r .url "$T/s/parse_html_urls/urls.jsonl")" "$want" \
	"parse_html_urls: the index's outlinks, fragment dropped, deduplicated, mailto/js ignored"
is "$(jq -c '[.type, .plugin, .depth]' "$T/s/parse_html_urls/urls.jsonl" | sort -u)" \
	'["Snapshot","parse_html_urls",1]' "parse_html_urls: Snapshot records at depth parent+1"
is "$(result output_str)" "4 URLs parsed" "parse_html_urls: the count in the result"

hook sredir wget "$BASE/redirect"
hook sredir parse_html_urls "$BASE/redirect"
is "$(jq -r .url "$T/sredir/parse_html_urls/urls.jsonl" | head -n 1)" "$BASE/site/page1-1.html" \
	"parse_html_urls: links of a redirected page resolve against where it was served from"

hook snone parse_html_urls "$BASE/site/"
is "$rc" 10 "parse_html_urls: nothing to read is skipped (exit 10)"

# a wget still running holds its dir's lock: the parser waits for it
mkdir -p "$T/slock/wget/127.0.0.1+$HTTPD_PORT/site"
curl -s "$BASE/site/" >"$T/index.html"
# shellcheck disable=SC2016 # the inner sh expands its own arguments
flock -x "$T/slock/wget" sh -c 'touch "$1.held"; sleep 1; cp "$2" "$1/127.0.0.1+$3/site/index.html"' \
	- "$T/slock/wget" "$T/index.html" "$HTTPD_PORT" &
wait_for 5 test -e "$T/slock/wget.held"
hook slock parse_html_urls "$BASE/site/"
is "$(result output_str)" "4 URLs parsed" "parse_html_urls: waits for the wget hook's lock"

cat >"$T/edge.html" <<'EOF'
<html><HEAD><BASE HREF="http://Example.COM/dir/sub/">
<link rel="alternate" type="application/rss+xml" href="/feed.xml">
<link rel="stylesheet" href="s.css"><link rel="alternate stylesheet" href="alt.css">
<link rel="shortcut icon" href="../fav.png"><link rel=next href=page2.html>
<meta http-equiv="Refresh" content="5; URL='refresh.html'">
</HEAD><body><!-- <a href="commented.html"> -->
<script>var s = '<a href="inscript.html">';</script>
<a href='single.html?a=1&amp;b=2'>x</a> <a href=unquoted.html#frag>y</a>
<a
  href = "
   spaced.html  ">z</a>
<A HREF="//other.org/x">o</A> <a href="?q=1">q</a> <a href="../../up.html">up</a>
<a href="mailto:a@b.c">m</a><a href="javascript:alert(1)">j</a><a href="data:text/html,hi">d</a>
<a href="tel:+1">t</a><a href="ftp://ftp.example.com/f">ftp</a>
<iframe src="frame.html"></iframe><frameset><frame src="f2.html"></frameset>
<map><area href="area.html"></map><img src="img.png">
<a href="a b.html">space</a><a href="&#x2F;slash&#47;ok.html">num</a>
<a href="single.html?a=1&b=2">dup</a><a href="http://example.com/dir/sub/single.html?a=1&b=2#x">dup2</a>
<a href="\back\slash.html">bs</a>
<a href="unterminated.html
EOF
mkdir -p "$T/sedge/parse_html_urls"
out=$(cd "$T/sedge/parse_html_urls" && EXTRA_CONTEXT='{"snapshot_depth":2}' "$PHU" \
	--url=http://example.com/dir/sub/index.html --html="$T/edge.html" 2>/dev/null)
E=http://example.com
want=$(printf '%s\n' "$E/feed.xml" "$E/dir/sub/page2.html" "$E/dir/sub/refresh.html" \
	"$E/dir/sub/single.html?a=1&b=2" "$E/dir/sub/unquoted.html" "$E/dir/sub/spaced.html" \
	"http://other.org/x" "$E/dir/sub/?q=1" "$E/up.html" "$E/dir/sub/frame.html" "$E/dir/sub/f2.html" \
	"$E/dir/sub/area.html" "$E/dir/sub/a%20b.html" "$E/slash/ok.html" "$E/back/slash.html" \
	"$E/dir/sub/unterminated.html")
is "$(jq -r .url "$T/sedge/parse_html_urls/urls.jsonl")" "$want" \
	"parse_html_urls: base, entities, quoting, case, raw text, comments, schemes"
is "$(jq -r .depth "$T/sedge/parse_html_urls/urls.jsonl" | sort -u)" 3 "parse_html_urls: depth from EXTRA_CONTEXT"
is "$("$PHU" --icon --url=http://example.com/dir/sub/index.html --html="$T/edge.html")" "$E/dir/fav.png" \
	"parse_html_urls --icon: the first rel~=icon, resolved"

printf '<p>no links <a name=x>here</a></p>' >"$T/nolinks.html"
: >"$T/sedge/parse_html_urls/urls.jsonl"
out=$(cd "$T/sedge/parse_html_urls" && "$PHU" --url="$BASE/" --html="$T/nolinks.html" 2>/dev/null)
is "$(result status) $(test -e "$T/sedge/parse_html_urls/urls.jsonl" && echo kept)" "noresults " \
	"parse_html_urls: no outlinks is noresults, and no urls.jsonl"

curl -s "$BASE/big" >"$T/big.html"
out=$(cd "$T/sedge/parse_html_urls" && "$PHU" --url="$BASE/big" --html="$T/big.html" 2>/dev/null)
is "$(result output_str)" "1000 URLs parsed" "parse_html_urls: a 5 MB page"
head -c 300000 /dev/urandom >"$T/garbage.html"
out=$(cd "$T/sedge/parse_html_urls" && "$PHU" --url="$BASE/" --html="$T/garbage.html" 2>/dev/null)
ok "parse_html_urls: random bytes give a result, no crash" all_json

# RFC 3986 5.4: reference -> target, against http://a/b/c/d;p?q (but "http:g" as
# browsers read it, WHATWG: a relative reference when the scheme is the base's)
fails=
while read -r ref target; do
	[ "$ref" = '""' ] && ref=
	got=$("$PHU" --resolve 'http://a/b/c/d;p?q' "$ref")
	[ "$got" = "$target" ] || fails="$fails [$ref -> $got, not $target]"
done <<'EOF'
g:h g:h
g http://a/b/c/g
./g http://a/b/c/g
g/ http://a/b/c/g/
/g http://a/g
//g http://g/
?y http://a/b/c/d;p?y
g?y http://a/b/c/g?y
#s http://a/b/c/d;p?q#s
g#s http://a/b/c/g#s
g?y#s http://a/b/c/g?y#s
;x http://a/b/c/;x
g;x http://a/b/c/g;x
g;x?y#s http://a/b/c/g;x?y#s
"" http://a/b/c/d;p?q
. http://a/b/c/
./ http://a/b/c/
.. http://a/b/
../ http://a/b/
../g http://a/b/g
../.. http://a/
../../ http://a/
../../g http://a/g
../../../g http://a/g
../../../../g http://a/g
/./g http://a/g
/../g http://a/g
g. http://a/b/c/g.
.g http://a/b/c/.g
g.. http://a/b/c/g..
..g http://a/b/c/..g
./../g http://a/b/g
./g/. http://a/b/c/g/
g/./h http://a/b/c/g/h
g/../h http://a/b/c/h
g;x=1/./y http://a/b/c/g;x=1/y
g;x=1/../y http://a/b/c/y
g?y/./x http://a/b/c/g?y/./x
g?y/../x http://a/b/c/g?y/../x
g#s/./x http://a/b/c/g#s/./x
g#s/../x http://a/b/c/g#s/../x
http:g http://a/b/c/g
EOF
is "$fails" "" "resolver: the RFC 3986 5.4 examples"
is "$("$PHU" --resolve 'HTTP://User@Ex.COM' 'a b\c?x y#f')" 'http://User@ex.com/a%20b/c?x%20y#f' \
	"resolver: scheme and host lowered, spaces encoded, backslash is a slash in http"

# -- title --
hook s title "$BASE/site/"
is "$(cat "$T/s/title/title.txt")" "abx test site" "title: title.txt"
is "$(printf '%s\n' "$out" | jq -r 'select(.type == "Snapshot") | .title')" "abx test site" \
	"title: a Snapshot record with the title"
is "$(result output_str)" "abx test site" "title: output_str is the title"
hook slatin title "$BASE/latin1"
printf 'caf\351 \377' >"$T/latin1.want"
ok "title: non-UTF-8 title bytes are kept in title.txt" cmp -s "$T/latin1.want" "$T/slatin/title/title.txt"
ok "title: and every stdout line is still valid JSON" all_json
is "$(result output_str)" "café ÿ" "title: converted from the page's charset in the records"
hook sent title "$BASE/headers"
is "$(cat "$T/sent/title/title.txt")" "Headers & <more> \"x\" 'y'" \
	"title: <TITLE> across lines, entities decoded"
hook s404 title "$BASE/missing"
is "$rc/$(result status)" "1/failed" "title: a 404 fails"

# -- headers --
hook s headers "$BASE/headers"
is "$rc" 0 "headers: exit 0"
is "$(jq -r '."x-abx-test"' "$T/s/headers/headers.json")" yes "headers: a custom header, name lowercased"
is "$(jq -r '.status' "$T/s/headers/headers.json")" 200 "headers: the status code"
hook sredir headers "$BASE/redirect"
is "$(jq -r '.status, ."content-length"' "$T/sredir/headers/headers.json" | tr '\n' ' ')" "200 305 " \
	"headers: the final response's after a redirect"

# -- favicon --
hook s favicon "$BASE/site/"
curl -s "$BASE/favicon.ico" >"$T/favicon.ico"
is "$rc $(result output_str)" "0 favicon.ico" "favicon: succeeded"
ok "favicon: the server's bytes" cmp -s "$T/favicon.ico" "$T/s/favicon/favicon.ico"

# -- hashes --
touch "$T/s/wget/on_Snapshot__06_wget.finite.bg.x.sh" "$T/s/wget/x.stdout.log"
hook s hashes "$BASE/site/"
is "$rc" 0 "hashes: exit 0"
want=$(cd "$T/s" && find . -mindepth 2 -type f ! -path './hashes/*' ! -name '*.log' ! -name 'on_*.sh' |
	sort | xargs sha256sum | jq -Rn '[inputs | {key: .[66:] | ltrimstr("./"), value: .[0:64]}] | from_entries')
is "$(jq -S . "$T/s/hashes/hashes.json")" "$(printf '%s' "$want" | jq -S .)" "hashes: hashes.json matches sha256sum"
no_logs() { ! grep -q -e 'stdout\.log' -e 'x\.sh' "$T/s/hashes/hashes.json"; }
ok "hashes: the runner's logs and argv files are left out" no_logs
is "$(result output_str)" "hashes.json ($(jq length "$T/s/hashes/hashes.json") files)" "hashes: output_str"

# -- screenshot, pdf, dom --
mkdir -p "$T/nochrome"
ln -s /usr/bin/* "$T/nochrome/" 2>/dev/null
rm -f "$T"/nochrome/chromium* "$T"/nochrome/google-chrome*
for p in screenshot pdf dom; do
	hook schrome "$p" "$BASE/site/" PATH="$T/nochrome"
	is "$rc $(result status)" "10 skipped" "$p: skipped without chromium"
done
if command -v chromium >/dev/null 2>&1; then
	hook schrome screenshot "$BASE/site/"
	is "$rc $(head -c 8 "$T/schrome/screenshot/screenshot.png" | od -An -tx1 | tr -d ' \n')" \
		"0 89504e470d0a1a0a" "screenshot: a PNG (chromium)"
	hook schrome pdf "$BASE/site/"
	is "$rc $(head -c 5 "$T/schrome/pdf/output.pdf")" "0 %PDF-" "pdf: a PDF (chromium)"
	hook schrome dom "$BASE/site/"
	ok "dom: the rendered DOM (chromium)" grep -q '<title>abx test site</title>' "$T/schrome/dom/output.html"
else
	pass "# SKIP screenshot: chromium is not installed"
	pass "# SKIP pdf: chromium is not installed"
	pass "# SKIP dom: chromium is not installed"
fi

# -- the URL is data --
evil="$BASE/x?a=\$(touch $T/pwned);b=\`touch $T/pwned2\`"
for p in wget title headers favicon; do
	hook sevil "$p" "$evil"
done
no_pwned() { for f in "$T"/pwned*; do [ ! -e "$f" ] || return 1; done; }
ok "a URL with shell syntax runs nothing" no_pwned
n=$(python3 -c 'import sys, urllib.parse
print(sum(urllib.parse.unquote(l.rstrip("\n")) == sys.argv[1] for l in open(sys.argv[2])))' \
	"${evil#"$BASE"}" "$T/requests.log")
ok "and reaches the server intact from wget, title, headers, favicon ($n times)" test "$n" -ge 4

# -- flags and signals --
hook soff title "$BASE/site/" TITLE_ENABLED=false
is "$rc $(result status)" "10 skipped" "TITLE_ENABLED=false skips"
hook soff wget "ftp://example.com/"
is "$rc $(result status)" "10 skipped" "a non-http URL is skipped"
mkdir -p "$T/sterm/wget"
(cd "$T/sterm/wget" && exec env SNAP_DIR="$T/sterm" TIMEOUT=30 "$PLUG/wget/on_Snapshot__06_wget.finite.bg.bin" \
	--url="$BASE/slow?s=20" >"$T/sterm.out" 2>/dev/null) &
pid=$!
wait_for 5 grep -q 'slow' "$T/requests.log"
kill -TERM "$pid"
wait "$pid"
is "$?/$(jq -r .status "$T/sterm.out")" "143/failed" "wget: SIGTERM stops it and still prints a result"

httpd_stop
mkdir -p "$T/bare"
echo '<title>bare</title>' >"$T/bare/index.html"
httpd_start --root "$T/bare"
hook sbare favicon "$BASE/index.html"
is "$rc $(result status)" "10 skipped" "favicon: none on the site is skipped"
httpd_stop
done_testing
