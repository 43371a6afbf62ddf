#!/bin/sh
# abx-ls --search WORDS: the snapshots whose title or archived text (text.txt,
# written at seal from the page's HTML) holds every word, in any case; a
# phrase in double quotes; scripts, styles and tags are not text; entities
# are decoded; the words never pass through a shell; a ripgrep on PATH
# is not run.
. "$(dirname "$0")/lib/tap.sh"
D=$T/data
P=$T/plugins
mkdir -p "$P/page"
# the page plugin saves a page as wget would (wget/<host>/index.html), its
# HTML chosen by the URL's last path segment, from $T/pages/
cat >"$P/page/on_Snapshot__06_page.sh" <<'H'
#!/bin/sh
url=${1#--url=}
name=${url##*/}
mkdir -p host
cp "$PAGES/$name.html" host/index.html
printf '{"type":"ArchiveResult","status":"succeeded","output_str":"wget/host/index.html"}\n'
# the page's title as the snapshot's, as the title hook gives it
t=$(sed -n 's|.*<title>\(.*\)</title>.*|\1|p' host/index.html | head -n 1)
[ -n "$t" ] && jq -cn --arg t "$t" '{type: "Snapshot", title: $t}'
exit 0
H
chmod +x "$P/page/on_Snapshot__06_page.sh"
mv "$P/page" "$P/wget"
mv "$P/wget/on_Snapshot__06_page.sh" "$P/wget/on_Snapshot__06_wget.sh"
mkdir -p "$T/pages"
cat >"$T/pages/cafe.html" <<'H'
<!doctype html><html><head><meta charset="utf-8"><title>Le Café</title>
<style>.Zebra { color: red }</style><script>var hidden = "Quagga";</script></head>
<body><h1>Menu</h1><p>Crème br&ucirc;l&eacute;e &amp; open
source coffee&nbsp;beans</p><!-- Wombat --><p>Tea &#8212; &#x263A;</p></body></html>
H
cat >"$T/pages/plain.html" <<'H'
<html><head><title>Plain page</title></head><body><div>Nothing about drinks; the word is
<b>zebra</b>crossing.</div></body></html>
H
cat >"$T/pages/latin.html" <<'H'
<html><head><meta http-equiv="Content-Type" content="text/html; charset=iso-8859-1">
<title>Latin</title></head><body><p>Gr</p></body></html>
H
printf '<html><body><p>Stra\337e und M\374nchen</p></body></html>\n' >"$T/pages/latin.html"
PAGES=$T/pages
ABX_PLUGINS_DIR=$P
export ABX_PLUGINS_DIR PAGES
abx-add -d "$D" --plugins wget http://127.0.0.1:1/cafe http://127.0.0.1:1/plain http://127.0.0.1:1/latin >/dev/null
abx-tick -d "$D" >/dev/null 2>&1
CAFE=$(abx-ls -d "$D" -k snapshot --url /cafe --jsonl | jq -r .id)
C=$(abx-ls -d "$D" -k crawl --jsonl | jq -r .id)
TXT=$D/crawls/$C/$CAFE/text.txt
ok "the seal wrote the page's text" test -s "$TXT"
is "$(head -n 1 "$TXT")" "Le Café" "its first line is the page's title"
like "$(cat "$TXT")" "Crème brûlée & open source coffee beans" "entities decoded, blanks collapsed"
like "$(cat "$TXT")" "Tea — ☺" "numeric references too"
is "$(grep -c 'Quagga\|Zebra\|Wombat\|<' "$TXT")" 0 "no script, style, comment or tag"
like "$(cat "$D/crawls/$C"/*/text.txt)" "Straße und München" "a Latin-1 page is read as Windows-1252 into UTF-8"

urls() { abx-ls -d "$D" --jsonl "$@" | jq -r .url | sed 's|.*/||' | sort | tr '\n' ' '; }
# abx-ls reads the text files itself: a ripgrep on PATH is not run (one
# rg listing 10,000 files cost more than the whole search; abx-ls(1))
mkdir -p "$T/path"
printf '#!/bin/sh\necho "$@" >>"%s"\nexit 2\n' "$T/rg.argv" >"$T/path/rg"
chmod +x "$T/path/rg"
PATH=$T/path:$PATH
is "$(urls --search coffee)" "cafe " "a word of the page's text"
is "$(urls --search 'CAFÉ')" "cafe " "a word of the title, in another case (É and é)"
is "$(urls --search 'crème open')" "cafe " "every word must occur"
is "$(urls --search 'crème zebra')" "" "not one without the other"
is "$(urls --search '"open source"')" "cafe " "a phrase, across a line break"
is "$(urls --search '"source open"')" "" "its words in its order"
is "$(urls --search zebra)" "plain " "a word in a tag's text, not the style's"
is "$(urls --search quagga)" "" "a script's text is not the page's"
is "$(urls --search 'münchen')" "latin " "a Latin-1 page's words"
is "$(urls --search 'page' --url /plain)" "plain " "with the other filters"
# shellcheck disable=SC2016
is "$(urls --search '$(touch pwned); `touch pwned2`')" "" "shell syntax is only words"
ok "and nothing ran it" test ! -e pwned -a ! -e "$D/pwned" -a ! -e pwned2
ok "a ripgrep on PATH was not run" test ! -e "$T/rg.argv"
expect_exit 65 "--search with another kind is refused" abx-ls -d "$D" -k crawl --search coffee
expect_exit 65 "--search with no word" abx-ls -d "$D" --search '  '
like "$(cat "$T/stderr")" "no word" "says so"
expect_exit 65 "an unclosed quote" abx-ls -d "$D" --search '"open source'
if command -v script >/dev/null 2>&1; then
	script -qec "stty cols 120; abx-ls -d '$D' --search coffee" /dev/null | tr -d '\r' >"$T/tty"
	like "$(cat "$T/tty")" "^Snapshot .*http://127.0.0.1:1/cafe  Le Café" "on a terminal: the table, URL and title"
fi
done_testing
