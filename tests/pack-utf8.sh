#!/bin/sh
# pack-utf8.sh — packs hold any file name: a page with an image named
# café.png (UTF-8), archived by wget, packs as .tar, .tar.gz, .tar.zst and
# .zip under the C locale that cron gives (no "Invalid or incomplete
# multibyte or wide character"), and bsdtar lists the name as it was; a
# file name that is not UTF-8 at all packs too; PACK_ON_SEAL does the same.
# shellcheck source-path=SCRIPTDIR source=lib/tap.sh
. "$(dirname "$0")/lib/tap.sh"
# shellcheck source-path=SCRIPTDIR source=lib/httpd.sh
. "$(dirname "$0")/lib/httpd.sh"
plan 14
export LC_ALL=C LANG=C
unset LC_CTYPE

mkdir -p "$T/site"
cp "$TOP/tests/data/"*.png "$T/site/café.png" 2>/dev/null ||
	printf '\211PNG\r\n\032\n' >"$T/site/café.png"
cat >"$T/site/index.html" <<'HTML'
<html><head><title>Café</title></head><body><img src="caf%C3%A9.png"></body></html>
HTML
httpd_start --root "$T/site" || exit 1
D=$T/data
C=$(abx-add -d "$D" --plugins wget --config PACK_ON_SEAL=tar.gz "$BASE/index.html" | jq -r .id)
expect_exit 0 "the page is archived (PACK_ON_SEAL=tar.gz)" abx-tick -d "$D"
S=$(abx-ls -d "$D" -k snapshot --jsonl | jq -r .id)
SD=$D/crawls/$C/$S
ok "wget saved café.png under its UTF-8 name" test -n "$(find "$SD/wget" -name 'caf*.png')"
name=$(cd "$SD" && find wget -name 'caf*.png')
ok "PACK_ON_SEAL wrote the crawl's tar.gz" test -s "$D/packs/$C.tar.gz"
is "$(LC_ALL=C.UTF-8 bsdtar -tf "$D/packs/$C.tar.gz" | grep -cxF "$C/$S/$name")" 1 "and it lists the name"
for ext in tar tar.gz tar.zst zip; do
	expect_exit 0 "abx-seal --pack snap.$ext" abx-seal -d "$D" --pack "$T/snap.$ext" "$S"
	is "$(LC_ALL=C.UTF-8 bsdtar -tf "$T/snap.$ext" | grep -c "^$S/$name\$")" 1 "snap.$ext lists $name as it was"
done
# a name that is not UTF-8 (Latin-1 0xe9): packed as its bytes
printf x >"$SD/wget/caf$(printf '\351').txt"
expect_exit 0 "a name that is not UTF-8 packs in a .tar.gz" abx-seal -d "$D" --pack "$T/raw.tar.gz" "$S"
is "$(bsdtar -tf "$T/raw.tar.gz" 2>/dev/null | grep -c "wget/caf.*txt")" 1 "and is listed"
