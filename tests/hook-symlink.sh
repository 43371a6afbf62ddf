#!/bin/sh
# No write through a planted symlink (abx(7) SECURITY): a hook that runs
# first (order 05) plants symlinks where the shipped hooks write next —
# wget's warc/ and host folder, dom's output.html, favicon.ico,
# title.txt, output.pdf, screenshot.png, hashes.json — and a hard link
# (headers.json) to a file outside, and makes one plugin's output
# directory (title/) a symlink, all pointing outside the snapshot.  After the phase nothing outside was written: the
# sentinel files there are unchanged and no file was added; abx-hook
# refused the symlinked directory (the title hook failed, saying why),
# and the wget hook removed what was planted in its tree before wget ran.
. "$(dirname "$0")/lib/tap.sh"
. "$(dirname "$0")/lib/httpd.sh"
command -v wget >/dev/null 2>&1 || { echo "1..0 # SKIP needs wget"; exit 0; }
httpd_start || exit 1
D=$T/data
O=$T/outside
mkdir -p "$O/warc" "$O/host" "$O/domdir" "$O/title" "$T/plant/aplant" "$T/bin"
for f in headers.json favicon.ico title.txt output.pdf screenshot.png hashes.json warc/x host/x \
	domdir/x title/x; do
	echo sentinel >"$O/$f"
done
# a stand-in chromium: what was asked, written where it was asked
cat >"$T/bin/chromium" <<'EOS'
#!/bin/sh
for a; do
	case $a in
	--dump-dom) echo '<html><body>stand-in</body></html>' ;;
	--screenshot=*) printf '\211PNG\r\n\032\n' >"${a#--screenshot=}" ;;
	--print-to-pdf=*) printf '%%PDF-1.4\n' >"${a#--print-to-pdf=}" ;;
	esac
done
EOS
chmod +x "$T/bin/chromium"
cat >"$T/plant/aplant/on_Snapshot__05_plant.sh" <<EOS
#!/bin/sh
# plants symlinks where the later hooks of this snapshot write
cd "\$SNAP_DIR" || exit 1
mkdir -p wget dom headers favicon pdf screenshot hashes
ln -s "$O/warc" wget/warc
ln -s "$O/host" "wget/127.0.0.1+$HTTPD_PORT"
ln -s "$O/domdir" dom/output.html
ln "$O/headers.json" headers/headers.json
ln -s "$O/favicon.ico" favicon/favicon.ico
ln -s "$O/title" title
ln -s "$O/output.pdf" pdf/output.pdf
ln -s "$O/screenshot.png" screenshot/screenshot.png
ln -s "$O/hashes.json" hashes/hashes.json
echo '{"type":"ArchiveResult","status":"succeeded","output_str":"planted"}'
EOS
chmod +x "$T/plant/aplant/on_Snapshot__05_plant.sh"
ABX_PLUGINS_DIR=$T/plant CHROME_BINARY=$T/bin/chromium
export ABX_PLUGINS_DIR CHROME_BINARY
( cd "$O" && find . -type f -exec md5sum {} + | sort ) >"$T/before"
touch "$T/stamp"
sleep 1
abx-add -d "$D" --plugins aplant,wget,title,favicon,headers,screenshot,pdf,dom,hashes "$BASE/site/" >/dev/null
abx-tick -d "$D" >"$T/tick.out" 2>"$T/tick.err"
( cd "$O" && find . -type f -exec md5sum {} + | sort ) >"$T/after"
S=$(find "$D/crawls" -mindepth 2 -maxdepth 2 -type d | head -1)
ok "the planting hook ran" test -L "$S/title"
is "$(cat "$T/after")" "$(cat "$T/before")" "nothing outside the snapshot was written: the sentinels are as they were"
is "$(find "$O" -newer "$T/stamp" | sort)" "" "... and nothing was added or changed there"
res() { abx-ls -d "$D" -k result --jsonl | jq -r "select(.plugin == \"$1\") | .status"; }
is "$(res title)" failed "the title hook, whose directory is a symlink, failed"
like "$(cat "$T/tick.err")" "refusing to run hooks in $S/title: it is a symlink to $O/title" \
	"... abx-hook said why, naming the directory and where it points"
is "$(res wget)" succeeded "the wget hook succeeded"
ok "... its page is in the snapshot" test -f "$S/wget/127.0.0.1+$HTTPD_PORT/site/index.html"
ok "... in a real directory" test ! -L "$S/wget/127.0.0.1+$HTTPD_PORT"
ok "... its WARC too" sh -c "ls '$S'/wget/warc/*.warc.gz >/dev/null && test ! -L '$S/wget/warc'"
like "$(cat "$S"/wget/*.stderr.log)" "removed the symlink ./warc from the output directory" \
	"... having said in its log what it removed"
is "$(res dom)" succeeded "the dom hook succeeded"
ok "... output.html is a file of the snapshot, not the planted symlink" \
	sh -c "test -f '$S/dom/output.html' && test ! -L '$S/dom/output.html'"
for p in pdf/output.pdf screenshot/screenshot.png; do
	ok "${p%%/*}: $p is a file of the snapshot, not the planted symlink" \
		sh -c "test -s '$S/$p' && test ! -L '$S/$p'"
done
is "$(res headers)" succeeded "the headers hook succeeded"
ok "... headers.json is a file of the snapshot, not the planted hard link" \
	sh -c "test -s '$S/headers/headers.json' && test ! '$S/headers/headers.json' -ef '$O/headers.json'"
is "$(res favicon)" succeeded "the favicon hook succeeded"
ok "... favicon.ico is a file of the snapshot, not the planted symlink" \
	sh -c "test -s '$S/favicon/favicon.ico' && test ! -L '$S/favicon/favicon.ico'"
done_testing
