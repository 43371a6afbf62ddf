#!/bin/sh
# abx-ctl remove takes a snapshot off its crawl's page and out of the
# crawl's packs, whether its files were kept or deleted: a tar holds no
# directory of it, a WACZ no page or WARC of it, and a WACZ made after
# remove --delete does not warn that the removed page has no WARC; and
# index.jsonl is as abx-ctl(1) says (a line added, none taken out).
. "$(dirname "$0")/lib/tap.sh"
. "$(dirname "$0")/lib/httpd.sh"
httpd_start || exit 1
D=$T/data
C=$(abx-add -d "$D" --depth 1 --plugins wget,title,parse_html_urls "$BASE/site/" | jq -r .id)
abx-tick -d "$D" >/dev/null 2>&1
snap() { abx-ls -d "$D" -k snapshot --url "$1" --jsonl | jq -r .id; }
S2=$(snap /site/page2.html)
S3=$(snap /site/page3.html)
ok "the crawl is sealed with page2 and page3" test -n "$S2" -a -n "$S3"
ok "its page lists page2" grep -q "site/page2.html" "$D/crawls/$C/index.html"

# removed, its files kept
expect_exit 0 "abx-ctl remove (files kept)" abx-ctl -d "$D" remove "$S2"
ok "its files are still there" test -d "$D/crawls/$C/$S2"
is "$(grep -c "site/page2.html" "$D/crawls/$C/index.html")" 0 "the crawl page no longer shows it"
ok "the crawl page still shows the others" grep -q "site/page3.html" "$D/crawls/$C/index.html"
like "$(cat "$D/crawls/$C/index.html")" "3 snapshots" "and counts 3 snapshots"
expect_exit 0 "abx-seal --pack crawl.tar" abx-seal -d "$D" --pack "$T/crawl.tar" "$C"
bsdtar -tf "$T/crawl.tar" >"$T/tar.list"
is "$(grep -c "^$C/$S2" "$T/tar.list")" 0 "the tar holds nothing of the removed snapshot"
ok "and the others' files" grep -q "^$C/$S3/wget/" "$T/tar.list"
expect_exit 0 "abx-seal --pack crawl.wacz" abx-seal -d "$D" --pack "$T/crawl.wacz" "$C"
bsdtar -xOf "$T/crawl.wacz" pages/pages.jsonl >"$T/pages"
is "$(grep -c "page2.html" "$T/pages")" 0 "the WACZ has no page of it"
ok "but has page3" grep -q "page3.html" "$T/pages"
is "$(bsdtar -tf "$T/crawl.wacz" | grep -c "$S2")" 0 "nor a WARC of it"

# removed with its files
expect_exit 0 "abx-ctl remove --delete" abx-ctl -d "$D" remove --delete "$S3"
is "$(grep -c "site/page3.html" "$D/crawls/$C/index.html")" 0 "the crawl page no longer shows it"
expect_exit 0 "abx-seal --pack after it" abx-seal -d "$D" --pack "$T/after.wacz" "$C"
is "$(cat "$T/stderr")" "" "the WACZ does not warn about the removed page"
bsdtar -xOf "$T/after.wacz" pages/pages.jsonl >"$T/pages2"
is "$(grep -c "page[23].html" "$T/pages2")" 0 "and holds neither removed page"
ok "but the others" grep -q "page1.html" "$T/pages2"

# what abx-ctl(1) says of index.jsonl: no line is taken out, one is added
is "$(grep -c "\"id\":\"$S2\"" "$D/index.jsonl")" 2 \
	"index.jsonl keeps the seal's line of a removed snapshot and gets one more"
like "$(grep "\"id\":\"$S2\"" "$D/index.jsonl" | tail -n 1)" '"deleted_at":"20' "the last says deleted_at"
# the man page's recipe for the rows, run as it is printed there
recipe=$(mandoc -Tascii "$TOP/man/abx-ctl.1" | col -b | sed -n '/^[[:space:]]*jq -s .group_by/,/index\.jsonl$/p')
ok "abx-ctl(1) gives a recipe for the rows of index.jsonl" test -n "$recipe"
(cd "$D" && sh -c "$recipe") >"$T/rows" 2>&1
is "$(jq -r '.[].url' "$T/rows" | grep -c "page[23].html")" 0 "which leaves out the removed snapshots"
ok "and keeps the others" grep -q "page1.html" "$T/rows"
done_testing
