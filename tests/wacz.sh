#!/bin/sh
# abx-seal --pack FILE.wacz: a crawl of the test site packed as WACZ 1.1.1
# and read back by tests/lib/wacz-check.py (written from the spec, apart
# from the writer: hashes, index offsets, pages); wget's WARCs stored byte
# for byte, others re-encoded per record; a snapshot without a WARC left
# out; no overwrite without -f, for every format; no partial file when the
# pack fails or is killed; PACK_ON_SEAL through a real abx-tick run.
. "$(dirname "$0")/lib/tap.sh"
. "$(dirname "$0")/lib/httpd.sh"
. "$(dirname "$0")/lib/tick-lib.sh"
httpd_start || exit 1
# check FILE: the independent reader; its summary in $T/last.json
check() { python3 "$TOP/tests/lib/wacz-check.py" "$1" >"$T/last.json"; }
D=$T/data
C=$(abx-add -d "$D" --depth 2 --plugins wget,title,parse_html_urls "$BASE/site/" | jq -r .id)
expect_exit 0 "abx-tick crawls the test site two levels deep" abx-tick -d "$D"
abx-ls -d "$D" -k snapshot -s sealed --jsonl >"$T/snaps"
n=$(wc -l <"$T/snaps" | tr -d ' ')
ok "it sealed the site's pages ($n)" test "$n" -ge 5

# --- the crawl as WACZ
expect_exit 0 "abx-seal --pack crawl.wacz CRAWL" abx-seal -d "$D" --pack "$T/crawl.wacz" "$C"
is "$(cat "$T/stdout" "$T/stderr")" "" "says nothing"
ok "the independent reader accepts it (hashes, index offsets, pages)" \
	sh -c "python3 '$TOP/tests/lib/wacz-check.py' '$T/crawl.wacz' >'$T/check.json' 2>'$T/check.err'"
diag "$(head -c 600 "$T/check.err")"
is "$(jq -r '.pages[].url' "$T/check.json" | sort)" "$(jq -r .url "$T/snaps" | sort)" \
	"pages.jsonl lists every sealed snapshot's URL, each resolvable through the index"
is "$(jq -r '.pages[] | select(.url | endswith("page1.html")) | .title' "$T/check.json")" "Page 1" \
	"with the snapshot's title"
is "$(jq -r .warcs "$T/check.json")" "$n" "one WARC per snapshot in archive/"
ok "the index has a record for every page and its requisites" test "$(jq -r .records "$T/check.json")" -gt "$n"
bsdtar -xf "$T/crawl.wacz" -C "$T" datapackage.json indexes/index.cdxj
is "$(jq -r '[.profile, .wacz_version, .created] | join(" ")' "$T/datapackage.json")" \
	"data-package 1.1.1 $(abx-ls -d "$D" "$C" | jq -r .created_at)" "datapackage.json: profile, version, created from the crawl"
is "$(jq -r .title "$T/datapackage.json")" "abx crawl of $BASE/site/" "titled after the crawl's first page"
like "$(head -n 1 "$T/indexes/index.cdxj")" '^1,0,0,127:[0-9]+\)/' "index keys are SURTs (127.0.0.1:port reversed)"
same=""
S1=$(jq -r 'select(.url | endswith("page1.html")) | .id' "$T/snaps")
for w in "$D/crawls/$C/$S1"/wget/warc/*.warc.gz; do
	bsdtar -xOf "$T/crawl.wacz" "archive/$S1-wget-$(basename "$w")" | cmp -s - "$w" && same=yes
done
is "$same" yes "wget's per-record gzip WARC is stored byte for byte (no recompression)"
# the reader is not a rubber stamp: one byte changed in a stored WARC fails it
# (the zip's first entry is a WARC: its data begins within the first 200 bytes)
python3 -c 'import sys
b = bytearray(open(sys.argv[1], "rb").read()); b[300] ^= 0xff
open(sys.argv[2], "wb").write(b)' "$T/crawl.wacz" "$T/bad.wacz"
expect_exit 1 "the reader refuses a WACZ with a byte changed in a WARC" \
	python3 "$TOP/tests/lib/wacz-check.py" "$T/bad.wacz"
like "$(cat "$T/stderr")" "archive/" "naming the damaged WARC"

# --- a snapshot as WACZ
expect_exit 0 "abx-seal --pack page1.wacz SNAPSHOT" abx-seal -d "$D" --pack "$T/page1.wacz" "$S1"
ok "the reader accepts it" sh -c "python3 '$TOP/tests/lib/wacz-check.py' '$T/page1.wacz' >'$T/c1.json'"
is "$(jq -r '.pages | map(.url) | join(" ")' "$T/c1.json")" "$BASE/site/page1.html" "its one page is the snapshot"

# --- WARCs that are not per-record gzip are re-encoded, record by record
S2=$(jq -r 'select(.url | endswith("page2.html")) | .id' "$T/snaps")
W2=$(ls "$D/crawls/$C/$S2"/wget/warc/*.warc.gz)
gzip -dc "$W2" >"$T/plain.warc"
gzip -dc "$W2" | gzip -c >"$T/whole.warc.gz"
records=$(grep -c '^WARC/1' "$T/plain.warc")
cp "$W2" "$T/orig.warc.gz"
rm "$W2"
cp "$T/plain.warc" "${W2%.gz}"
expect_exit 0 "a plain .warc packs" abx-seal -d "$D" --pack "$T/plain.wacz" "$S2"
ok "re-encoded, it reads back" sh -c "python3 '$TOP/tests/lib/wacz-check.py' '$T/plain.wacz' >'$T/c2.json'"
is "$(jq -r '.pages[0].url' "$T/c2.json")" "$BASE/site/page2.html" "and its page resolves"
members=$(bsdtar -xOf "$T/plain.wacz" "archive/$S2-wget-$(basename "$W2")" |
	python3 -c 'import sys, zlib
b = sys.stdin.buffer.read(); n = 0
while b:
    d = zlib.decompressobj(31); d.decompress(b); b = d.unused_data; n += 1
print(n)')
is "$members" "$records" "one gzip member per record ($records)"
rm "${W2%.gz}"
cp "$T/whole.warc.gz" "$W2"
expect_exit 0 "a WARC gzipped whole packs" abx-seal -d "$D" --pack "$T/whole.wacz" "$S2"
ok "re-encoded, it reads back" check "$T/whole.wacz"
head -c "$(( $(wc -c <"$T/orig.warc.gz") - 300 ))" "$T/orig.warc.gz" >"$W2"
expect_exit 0 "a WARC cut short packs" abx-seal -d "$D" --pack "$T/cut.wacz" "$S2"
like "$(cat "$T/stderr")" "damaged .* its tail is left out" "with a warning"
ok "its whole records read back" check "$T/cut.wacz"
ok "(some of them)" test "$(jq -r .records "$T/last.json")" -gt 0
cp "$T/orig.warc.gz" "$W2"

# --- a snapshot without a WARC
E=$T/nowarc
abx-add -d "$E" --plugins title "$BASE/site/page3.html" >/dev/null
abx-tick -d "$E" >/dev/null 2>&1
S3=$(abx-ls -d "$E" -k snapshot --jsonl | jq -r .id)
expect_exit 0 "a snapshot without a WARC packs" abx-seal -d "$E" --pack "$T/nowarc.wacz" "$S3"
like "$(cat "$T/stderr")" "1 sealed snapshot without a WARC left out of the WACZ \(the first: $S3\)" "with a note"
ok "an empty but valid WACZ" check "$T/nowarc.wacz"

# --- never over an existing file without -f, for every format
for ext in wacz tar.gz zip tar.zst; do
	abx-seal -d "$D" --pack "$T/x.$ext" "$S1" 2>/dev/null
	ino=$(stat -c %i "$T/x.$ext")
	sum=$(cksum <"$T/x.$ext")
	expect_exit 73 "--pack x.$ext over an existing file exits 73" abx-seal -d "$D" --pack "$T/x.$ext" "$C"
	like "$(cat "$T/stderr")" "exists .*-f" "and says to use -f"
	is "$(stat -c %i "$T/x.$ext") $(cksum <"$T/x.$ext")" "$ino $sum" "the file is untouched"
	expect_exit 0 "-f replaces it" abx-seal -d "$D" -f --pack "$T/x.$ext" "$C"
	ok "with a new file" test "$(stat -c %i "$T/x.$ext")" != "$ino"
done
ok "the replaced WACZ is the crawl's" check "$T/x.wacz"
echo keep >"$T/dangling-target"
ln -s "$T/nowhere" "$T/link.wacz"
expect_exit 73 "a dangling symlink counts as existing" abx-seal -d "$D" --pack "$T/link.wacz" "$C"
ok "and is left alone" test -L "$T/link.wacz" -a ! -e "$T/nowhere"

# --- no partial file
mkdir "$T/out"
expect_exit 73 "a target in a missing directory exits 73" abx-seal -d "$D" --pack "$T/missing/c.wacz" "$C"
expect_exit 73 "a target below a file exits 73" abx-seal -d "$D" --pack "$T/dangling-target/c.wacz" "$C"
# a failure mid-pack: page2's WARC made plain again, and no temp file to
# re-encode it in (DIR/tmp gone, TMPDIR missing), after other WARCs went in
rm "$W2"
cp "$T/plain.warc" "${W2%.gz}"
mv "$D/tmp" "$D/tmp.off"
expect_exit 73 "a pack that fails midway exits 73" env TMPDIR="$T/none" abx-seal -d "$D" --pack "$T/out/c.wacz" "$C"
like "$(cat "$T/stderr")" "unable to create a temp file to re-encode" "and says why"
is "$(ls -A "$T/out")" "" "and leaves nothing in the directory"
mv "$D/tmp.off" "$D/tmp"
rm "${W2%.gz}"
cp "$T/orig.warc.gz" "$W2"
# a file size limit kills the packer (SIGXFSZ) mid-write
sh -c "ulimit -f 16; exec abx-seal -d '$D' --pack '$T/out/big.wacz' '$C'" 2>/dev/null
is "$?" 153 "killed by SIGXFSZ mid-pack"
is "$(ls -A "$T/out")" "" "nothing left, not even a temp file"
ABX_TEST_FAULT=pack-before-link abx-seal -d "$D" --pack "$T/out/late.wacz" "$C" 2>/dev/null
is "$?" 137 "killed after the archive is whole, before it is named"
is "$(ls -A "$T/out")" "" "nothing left either"
expect_exit 0 "the same pack, not killed" abx-seal -d "$D" --pack "$T/out/late.wacz" "$C"
is "$(ls -A "$T/out")" "late.wacz" "leaves the file alone in its directory"

# --- PACK_ON_SEAL: abx-tick packs each crawl it seals
F=$T/onseal
C2=$(abx-add -d "$F" --depth 1 --plugins wget,title,parse_html_urls "$BASE/site/" | jq -r .id)
echo "PACK_ON_SEAL=wacz,tar.gz" >>"$F/abx.conf"
expect_exit 0 "abx-tick with PACK_ON_SEAL=wacz,tar.gz" abx-tick -d "$F"
is "$(abx-ls -d "$F" "$C2" | jq -r .status)" sealed "seals the crawl"
is "$(ls "$F/packs")" "$(printf '%s\n' "$C2.tar.gz" "$C2.wacz")" "and leaves DIR/packs/CRAWL.wacz and .tar.gz"
ok "the WACZ reads back" sh -c "python3 '$TOP/tests/lib/wacz-check.py' '$F/packs/$C2.wacz' >'$T/c3.json'"
is "$(jq -r '.pages | length' "$T/c3.json")" "$(abx-ls -d "$F" -k snapshot -s sealed --jsonl | wc -l | tr -d ' ')" \
	"with a page for every sealed snapshot"
is "$(bsdtar -xOf "$F/packs/$C2.tar.gz" "$C2/crawl.json" | jq -r '.id + " " + .status')" "$C2 sealed" \
	"the tar.gz holds the sealed Crawl record"
C3=$(abx-add -d "$F" --again --plugins title --config PACK_ON_SEAL=zip "$BASE/site/page1.html" | jq -r .id)
abx-tick -d "$F" >/dev/null 2>&1
ok "a crawl's own --config PACK_ON_SEAL=zip packs it as zip" test -s "$F/packs/$C3.zip"
expect_exit 78 "PACK_ON_SEAL=rar is refused" env PACK_ON_SEAL=rar abx-tick -d "$F"
like "$(cat "$T/stderr")" "PACK_ON_SEAL=rar: want pack formats" "naming the setting and what it wants"
done_testing
