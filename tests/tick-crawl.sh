#!/bin/sh
# abx-tick: a depth-2 crawl of the test site archives exactly the pages
# within two links (found independently by tests/lib/tick-bfs.py), each
# sealed with its index files and outputs; -n runs nothing; the top-level
# index lists every snapshot; URL_DENYLIST and URL_ALLOWLIST filter outlinks.
. "$(dirname "$0")/lib/tap.sh"
. "$(dirname "$0")/lib/httpd.sh"
. "$(dirname "$0")/lib/tick-lib.sh"
httpd_start --log "$T/requests.log" || exit 1
D=$T/data
P=wget,title,parse_html_urls

C=$(abx-add -d "$D" --depth 2 --plugins $P "$BASE/site/" | jq -r .id)

# -n: prints what is due as JSONL, runs nothing
expect_exit 0 "abx-tick -n exits 0 when a crawl is due" abx-tick -d "$D" -n
is "$(jq -r 'select(.type == "Crawl") | .id' "$T/stdout")" "$C" "-n prints the due crawl"
is "$(jq -r .type "$T/stdout" | sort -u | tr '\n' ' ')" "Crawl Snapshot " "-n prints JSON records: the crawl and its first snapshot"
is "$(nsnap "$D" sealed)" 0 "-n sealed nothing"
is "$(count_lines "$T/requests.log")" 0 "-n fetched nothing"
is "$(find "$D/crawls" -mindepth 2 -type d | wc -l | tr -d ' ')" 0 "-n made no snapshot directory"

# the crawl
expect_exit 0 "abx-tick exits 0 when it did work" abx-tick -d "$D"
is "$(cat "$T/stdout")" "" "not on a terminal it prints nothing on stdout"
is "$(cat "$T/stderr")" "" "and nothing on stderr"
reachable "$BASE/site/" 2 >"$T/want"
is "$(wc -l <"$T/want" | tr -d ' ')" 10 "the site has 10 pages within two links (style.css denied)"
snapshots "$D" >"$T/got"
is "$(cat "$T/got")" "$(cat "$T/want")" "the snapshots are exactly those pages, at their depths"
is "$(nsnap "$D" sealed)" 10 "all sealed"
is "$(abx-ls -d "$D" "$C" | jq -r .status)" sealed "the crawl is sealed"
is "$(abx-ls -d "$D" -k snapshot --jsonl | jq -r .url | sort | uniq -d)" "" "no URL twice"
is "$(jq -r 'select(.type == "Snapshot") | .url' "$D/crawls/$C/snapshots.jsonl" | sort -u | wc -l | tr -d ' ')" 10 \
	"the journal never held another URL (style.css was never queued)"

# every snapshot: index files and outputs
bad=""
for s in $(abx-ls -d "$D" -k snapshot --jsonl | jq -r .id); do
	sd=$(snapdir "$D" "$s")
	url=$(abx-ls -d "$D" "$s" | jq -r .url)
	title=$(curl -s "$url" | sed -n 's:.*<title>\(.*\)</title>.*:\1:p' | head -n 1)
	for f in index.jsonl index.json index.html title/title.txt; do
		[ -s "$sd/$f" ] || bad="$bad $s:$f-missing"
	done
	[ "$(head -n 1 "$sd/index.jsonl" | jq -r '.type + " " + .id + " " + .status')" = "Snapshot $s sealed" ] ||
		bad="$bad $s:index.jsonl-head"
	jq -e . "$sd/index.json" >/dev/null 2>&1 || bad="$bad $s:index.json-invalid"
	[ "$(cat "$sd/title/title.txt" 2>/dev/null)" = "$title" ] || bad="$bad $s:title"
	page=$(jq -r 'select(.type == "ArchiveResult" and .plugin == "wget") | .output_str' "$sd/index.jsonl")
	grep -qF "<title>$title</title>" "$sd/$page" 2>/dev/null || bad="$bad $s:wget-page($page)"
	for h in on_Snapshot__06_wget.finite.bg on_Snapshot__54_title on_Snapshot__75_parse_html_urls; do
		[ "$(jq -r 'select(.type == "ArchiveResult") | .hook_name + " " + .status' "$sd/index.jsonl" |
			grep -c "^$h succeeded$")" = 1 ] || bad="$bad $s:$h"
	done
	grep -qF "href=\"$page\"" "$sd/index.html" 2>/dev/null ||
		grep -qF "href=\"${page#wget/}\"" "$sd/index.html" ||
		grep -qF "data-src=\"$page\"" "$sd/index.html" || bad="$bad $s:html-link"   # the viewer
done
is "$bad" "" "each snapshot has index.jsonl, index.json, index.html, title.txt and wget's page"

# the top-level index lists every snapshot
is "$(jq -r .id "$D/index.jsonl" | sort -u)" "$(abx-ls -d "$D" -k snapshot --jsonl | jq -r .id | sort)" \
	"index.jsonl lists every snapshot"
is "$(wc -l <"$D/index.jsonl" | tr -d ' ')" 10 "once each"
missing=""
for s in $(abx-ls -d "$D" -k snapshot --jsonl | jq -r '"crawls/\(.crawl_id)/\(.id)/index.html"'); do
	grep -qF "href=\"$s\"" "$D/index.html" || missing="$missing $s"
done
is "$missing" "" "index.html links every snapshot's page"

# nothing due: exit 1, quietly; -n too
expect_exit 1 "a second tick with nothing due exits 1" abx-tick -d "$D"
is "$(cat "$T/stdout" "$T/stderr")" "" "quietly"
expect_exit 1 "-n with nothing due exits 1" abx-tick -d "$D" -n
is "$(cat "$T/stdout")" "" "and prints nothing"

# URL_DENYLIST: the denied outlink is never queued, nor fetched.  Setting it
# replaces the default denylist, so deny .css as well.
: >"$T/requests.log"
C2=$(abx-add -d "$D" --again --depth 2 --plugins $P --config 'URL_DENYLIST=/page2|\.css$' "$BASE/site/" | jq -r .id)
expect_exit 0 "a crawl with URL_DENYLIST" abx-tick -d "$D"
reachable "$BASE/site/" 2 '/page2|\.css$' >"$T/want"
is "$(wc -l <"$T/want" | tr -d ' ')" 7 "7 pages are reachable without page2"
abx-ls -d "$D" -k snapshot --jsonl | jq -r --arg c "$C2" 'select(.crawl_id == $c) | "\(.depth) \(.url)"' |
	LC_ALL=C sort >"$T/got"
is "$(cat "$T/got")" "$(cat "$T/want")" "the denylisted crawl archived exactly those"
ok "page2 was never queued" sh -c "! grep -q page2 '$D/crawls/$C2/snapshots.jsonl'"
ok "nor fetched" sh -c "! grep -q page2 '$T/requests.log'"

# URL_ALLOWLIST: only matching URLs are archived
allow='/site/(page1[^/]*)?$'
C3=$(abx-add -d "$D" --again --depth 2 --plugins $P --config "URL_ALLOWLIST=$allow" "$BASE/site/" | jq -r .id)
expect_exit 0 "a crawl with URL_ALLOWLIST" abx-tick -d "$D"
reachable "$BASE/site/" 2 '\.(css|js)$' "$allow" >"$T/want"
is "$(wc -l <"$T/want" | tr -d ' ')" 4 "4 pages pass the allowlist"
abx-ls -d "$D" -k snapshot --jsonl | jq -r --arg c "$C3" 'select(.crawl_id == $c) | "\(.depth) \(.url)"' |
	LC_ALL=C sort >"$T/got"
is "$(cat "$T/got")" "$(cat "$T/want")" "the allowlisted crawl archived exactly those"
is "$(jq -r '.crawl_id' "$D/index.jsonl" | sort | uniq -c | awk '{print $1}' | sort -n | tr '\n' ' ')" \
	"4 7 10 " "the top-level index.jsonl holds every crawl's snapshots"
done_testing
