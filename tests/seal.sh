#!/bin/sh
# abx-seal: a snapshot's index files, idempotent re-sealing, ArchiveBox's
# crawl finalize rule, --pack through libarchive, and the exit codes.
. "$(dirname "$0")/lib/tap.sh"
. "$(dirname "$0")/lib/httpd.sh"
. "$(dirname "$0")/lib/tick-lib.sh"
httpd_start || exit 1
D=$T/data
C=$(abx-add -d "$D" --plugins wget,title "$BASE/site/page1.html" "$BASE/site/page2.html" | jq -r .id)
S=$(abx-ls -d "$D" -k snapshot --jsonl | jq -r 'select(.url | endswith("page1.html")) | .id')
S2=$(abx-ls -d "$D" -k snapshot --jsonl | jq -r 'select(.url | endswith("page2.html")) | .id')
SD=$D/crawls/$C/$S

abx-hook -d "$D" "$S" >"$T/hook.out" 2>"$T/hook.err"
is "$(jq -r 'select(.type == "ArchiveResult") | .plugin + " " + .status' "$T/hook.out" | sort | tr '\n' ' ')" \
	"title succeeded wget succeeded " "the hooks of page1 ran"

# --- a snapshot
expect_exit 0 "abx-seal SNAPSHOT" abx-seal -d "$D" "$S"
is "$(jq -r '.type + " " + .id + " " + .status' "$T/stdout")" "Snapshot $S sealed" "prints the sealed record"
is "$(abx-ls -d "$D" "$S" | jq -r '[.status, .retry_at, .lease, (.downloaded_at != null), (.output_size > 0)] | map(tostring) | join(" ")')" \
	"sealed null null true true" "the snapshot is sealed: no retry_at, no lease, downloaded_at and output_size set"
for f in index.jsonl index.json index.html; do
	ok "$f is written" test -s "$SD/$f"
done
is "$(head -n 1 "$SD/index.jsonl" | jq -r '.type + " " + .id')" "Snapshot $S" "index.jsonl: first line the Snapshot"
is "$(tail -n +2 "$SD/index.jsonl" | jq -r .type | sort -u | tr '\n' ' ')" "ArchiveResult Binary Process " \
	"then Binary, Process and ArchiveResult lines"
is "$(jq -r 'select(.type == "ArchiveResult") | .plugin' "$SD/index.jsonl" | sort | tr '\n' ' ')" "title wget " \
	"one result per hook"
# each result comes after its Process, each Binary once
order=$(jq -r 'if .type == "Process" then "P \(.id)" elif .type == "ArchiveResult" then "R \(.process_id)" else empty end' \
	"$SD/index.jsonl" | awk '$1 == "P" { p[$2] = 1 } $1 == "R" && !p[$2] { print "result before its process: " $2 }')
is "$order" "" "each ArchiveResult follows its Process"
is "$(jq -r 'select(.type == "Binary") | .name' "$SD/index.jsonl" | sort | uniq -d)" "" "each Binary once"
is "$(jq -r 'select(.type == "ArchiveResult") | .start_ts' "$SD/index.jsonl" | tr '\n' ' ')" \
	"$(jq -r 'select(.type == "ArchiveResult") | .start_ts' "$SD/index.jsonl" | sort | tr '\n' ' ')" \
	"results in start_ts order"
is "$(jq -e type "$SD/index.json")" '"object"' "index.json is valid JSON: one object"
is "$(jq -r '.id + " " + .status + " " + .url' "$SD/index.json")" "$S sealed $BASE/site/page1.html" \
	"index.json describes the snapshot"
missing=""
for f in $(jq -r 'select(.type == "ArchiveResult") | .plugin as $p | .output_files | keys[] | "\($p)/\(.)"' "$SD/index.jsonl"); do
	grep -qF -e "href=\"$f\"" -e "data-src=\"$f\"" "$SD/index.html" || missing="$missing $f(link)"   # data-src: the viewer
	[ -e "$SD/$f" ] || missing="$missing $f(file)"
done
is "$missing" "" "index.html links every output file listed in the results, and they exist"
ok "which include title.txt and wget's page" sh -c "grep -qF 'href=\"title/title.txt\"' '$SD/index.html' &&
	grep -qF 'site/page1.html\"' '$SD/index.html'"
like "$(cat "$SD/index.html")" "<title>Page 1</title>" "index.html is titled with the page's title"
grep -o 'href="[^"]*"' "$SD/index.html" | sed 's/^href="//; s/"$//; s/^?view=[0-9]*$/index.html/' | grep -v '^https\?:' >"$T/links"
dead=""
while read -r l; do [ -e "$SD/$l" ] || dead="$dead $l"; done <"$T/links"
is "$dead" "" "every relative link of index.html resolves"
is "$(jq -r .id "$D/index.jsonl")" "$S" "the site index.jsonl lists it"

# --- sealing again: same records, files rewritten
cp "$SD/index.jsonl" "$T/index.jsonl.1"
cp "$SD/index.json" "$T/index.json.1"
jsize=$(wc -c <"$D/crawls/$C/snapshots.jsonl")
ino=$(stat -c %i "$SD/index.jsonl")
rm "$SD/index.html"
expect_exit 0 "sealing again" abx-seal -d "$D" "$S"
ok "index.html is written again" test -s "$SD/index.html"
ok "index.jsonl holds the same records" cmp -s "$SD/index.jsonl" "$T/index.jsonl.1"
ok "index.json too" cmp -s "$SD/index.json" "$T/index.json.1"
ok "index.jsonl was rewritten (a new file)" test "$(stat -c %i "$SD/index.jsonl")" != "$ino"
is "$(wc -c <"$D/crawls/$C/snapshots.jsonl" | tr -d ' ')" "$(echo "$jsize" | tr -d ' ')" "the journal did not change"
is "$(abx-ls -d "$D" "$S" | jq -r .status)" sealed "the snapshot is still sealed"
is "$(jq -r .id "$D/index.jsonl" | sort | uniq -d)" "" "the site index lists it once"

# --- a crawl: requeued while a snapshot is unfinished, sealed once none is
expect_exit 1 "abx-seal CRAWL with a queued snapshot exits 1" abx-seal -d "$D" "$C"
like "$(cat "$T/stderr")" "unfinished" "and says why"
is "$(abx-ls -d "$D" "$C" | jq -r '.status + " " + .retry_at')" \
	"queued $(abx-ls -d "$D" "$S2" | jq -r .retry_at)" "the crawl is requeued at its child's retry_at"

# --- a worker holds the lease: 75
abx-claim -d "$D" -i "$S2" sleep 5 &
claim=$!
leased() { abx-claim -d "$D" --test "$S2"; }
ok "abx-claim holds page2's lease" wait_for 10 leased
expect_exit 75 "abx-seal of a leased snapshot exits 75" abx-seal -d "$D" "$S2"
is "$(abx-ls -d "$D" "$S2" | jq -r .status)" started "and leaves it alone"
kill "$claim" 2>/dev/null
wait "$claim" 2>/dev/null
released() { ! abx-claim -d "$D" --test "$S2"; }
ok "the lease is released" wait_for 10 released

expect_exit 65 "packing an unsealed snapshot exits 65" abx-seal -d "$D" --pack "$T/x.tar.gz" "$S2"
expect_exit 65 "packing an unsealed crawl exits 65" abx-seal -d "$D" --pack "$T/x.tar.gz" "$C"
ok "and writes nothing" test ! -e "$T/x.tar.gz"

abx-hook -d "$D" "$S2" >/dev/null 2>&1
expect_exit 0 "abx-seal of page2" abx-seal -d "$D" "$S2"
expect_exit 0 "then abx-seal CRAWL seals it" abx-seal -d "$D" "$C"
is "$(abx-ls -d "$D" "$C" | jq -r '.status + " " + (.retry_at | tostring)')" "sealed null" "the crawl is sealed"
expect_exit 0 "sealing the crawl again is a no-op" abx-seal -d "$D" "$C"
is "$(jq -r .id "$D/index.jsonl" | sort | tr '\n' ' ')" "$(printf '%s\n' "$S" "$S2" | sort | tr '\n' ' ')" \
	"the site index.jsonl lists both snapshots"
for s in "$S" "$S2"; do
	ok "the site index.html links $s" grep -qF "href=\"crawls/$C/$s/index.html\"" "$D/index.html"
done

# --- --pack: the format by suffix, the snapshot's files inside
(cd "$D/crawls/$C" && find "$S" -type f | LC_ALL=C sort) >"$T/files"
for ext in tar.gz tar.zst zip; do
	expect_exit 0 "--pack snap.$ext" abx-seal -d "$D" --pack "$T/snap.$ext" "$S"
	bsdtar -tf "$T/snap.$ext" | grep -v '/$' | LC_ALL=C sort >"$T/listed"
	is "$(cat "$T/listed")" "$(cat "$T/files")" "bsdtar -tf snap.$ext lists exactly the snapshot's files"
	is "$(bsdtar -xOf "$T/snap.$ext" "$S/title/title.txt")" "Page 1" "and holds their contents"
done
is "$(od -An -tx1 -N2 "$T/snap.tar.gz" | tr -d ' ')" 1f8b ".tar.gz is gzip"
is "$(od -An -tx1 -N4 "$T/snap.tar.zst" | tr -d ' ')" 28b52ffd ".tar.zst is zstd"
is "$(od -An -c -N2 "$T/snap.zip" | tr -d ' ')" PK ".zip is a zip"
ok "index.jsonl, index.json and index.html are inside" sh -c "grep -qx '$S/index.jsonl' '$T/listed' &&
	grep -qx '$S/index.json' '$T/listed' && grep -qx '$S/index.html' '$T/listed'"
expect_exit 0 "--pack a sealed crawl" abx-seal -d "$D" --pack "$T/crawl.tar.gz" "$C"
(cd "$D/crawls" && { find "$C" -type f; echo "$C/crawl.json"; } | LC_ALL=C sort) >"$T/files"
is "$(bsdtar -tf "$T/crawl.tar.gz" | grep -v '/$' | LC_ALL=C sort)" "$(cat "$T/files")" \
	"it lists the crawl's journal, both snapshots' files and crawl.json"
is "$(bsdtar -xOf "$T/crawl.tar.gz" "$C/crawl.json" | jq -r '.type + " " + .id + " " + .status')" \
	"Crawl $C sealed" "crawl.json is the crawl's own record, as sealed"
expect_exit 73 "an unknown suffix exits 73" abx-seal -d "$D" --pack "$T/snap.rar" "$S"

# --- --index rebuilds the site index (a hint)
rm "$D/index.html"
expect_exit 0 "abx-seal --index" abx-seal -d "$D" --index
for s in "$S" "$S2"; do
	ok "the rebuilt index.html links $s" grep -qF "href=\"crawls/$C/$s/index.html\"" "$D/index.html"
done
E=$T/empty
abx-add -d "$E" "$BASE/site/" >/dev/null
expect_exit 0 "abx-seal --index with no sealed snapshot yet" abx-seal -d "$E" --index
like "$(cat "$E/index.html")" "0 snapshots" "writes an empty listing"

# --- usage and bad operands
expect_exit 65 "not an id: 65" abx-seal -d "$D" nonsense
expect_exit 65 "an unknown id: 65" abx-seal -d "$D" 01234567-89ab-7cde-8f01-23456789abcd
expect_exit 64 "an unknown flag: 64" abx-seal -d "$D" --bogus "$S"
expect_exit 64 "no id: 64" abx-seal -d "$D"
expect_exit 78 "not a data directory: 78" abx-seal -d "$T" "$S"
done_testing
