#!/bin/sh
# url-add.sh — abx-add reads URLs as a browser does and stores one
# canonical form: two spellings of one URL are one snapshot; what a browser
# refuses, and schemes no plugin fetches (file: too), are refused with the
# reason and exit 65 when nothing is left.
# shellcheck source-path=SCRIPTDIR source=lib/tap.sh
. "$(dirname "$0")/lib/tap.sh"
D=$T/data
plan 9

snaps() { abx-ls -d "$D" -k snapshot --jsonl | jq -r .url | LC_ALL=C sort; }

abx-add -d "$D" 'HTTP://Example.COM:80/a/../b#top' 'http://example.com/b' >/dev/null 2>"$T/err"
is "$(snaps)" "http://example.com/b" "HTTP://Example.COM:80/a/../b#top and http://example.com/b are one snapshot"

D=$T/d2
printf '%s\n' 'http://0x7f.1/' 'http://2130706433/x' 'http://[::ffff:127.0.0.1]:80/' \
	'https://Bücher.example/ü?q=ü' '  http://example.com/a b  ' '{"url":"https://EXAMPLE.org:443"}' |
	abx-add -d "$D" >/dev/null 2>"$T/err"
is "$(snaps | tr '\n' ' ')" "http://127.0.0.1/ http://127.0.0.1/x http://[::ffff:7f00:1]/ http://example.com/a%20b https://example.org/ https://xn--bcher-kva.example/%C3%BC?q=%C3%BC " \
	"hosts, ports, paths and queries in their canonical form"
is "$(abx-ls -d "$D" -k crawl --jsonl | jq -r .urls | head -1)" "http://127.0.0.1/" "the crawl's urls are canonical too"

D=$T/d3
expect_exit 65 "file:// is refused" abx-add -d "$D" 'file:///etc/passwd'
like "$(cat "$T/stderr")" "file: URLs are not archived" "with the reason"
expect_exit 65 "a space in the host is refused" abx-add -d "$D" 'http://example example.com/'
expect_exit 65 "a port above 65535 is refused" abx-add -d "$D" 'http://f:999999/c'
like "$(cat "$T/stderr")" "port" "with the reason"
abx-add -d "$D" 'mailto:a@example.com' 'http://ok.example/' >/dev/null 2>"$T/err"
like "$(cat "$T/err")" "argument 1: the scheme is not archived" "a bad URL among good ones is reported by its position"
