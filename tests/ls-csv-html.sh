#!/bin/sh
# abx-ls --csv FIELDS (RFC 4180: a header row, values with commas, quotes
# or line breaks quoted, quotes doubled, CRLF rows; read back by Python's
# csv module) and --html (one self-contained page, every value escaped:
# a title holding markup shows as text, and nothing outside it is loaded).
. "$(dirname "$0")/lib/tap.sh"
D=$T/data
P=$T/plugins
mkdir -p "$P/titled"
cat >"$P/titled/on_Snapshot__10_titled.sh" <<'H'
#!/bin/sh
case "$1" in
*evil*) t='<script>alert(1)</script> "quoted", & <b>bold</b>' ;;
*) t='Plain title' ;;
esac
jq -cn --arg t "$t" '{type: "Snapshot", title: $t}'
echo '{"type":"ArchiveResult","status":"succeeded","output_str":"ok"}'
H
chmod +x "$P/titled/on_Snapshot__10_titled.sh"
ABX_PLUGINS_DIR=$P
export ABX_PLUGINS_DIR
abx-add -d "$D" --plugins titled 'http://127.0.0.1:1/evil?a=1,b="2"' http://127.0.0.1:1/plain >/dev/null
abx-tick -d "$D" >/dev/null 2>&1

expect_exit 0 "abx-ls --csv id,url,title,depth,nokey" abx-ls -d "$D" -k snapshot --csv id,url,title,depth,nokey
cp "$T/stdout" "$T/out.csv"
is "$(head -n 1 "$T/out.csv" | od -c | grep -c '\\r  \\n')" 1 "rows end in CRLF"
is "$(head -n 1 "$T/out.csv" | tr -d '\r')" "id,url,title,depth,nokey" "a header row of the keys"
python3 -c 'import csv, json, sys
rows = list(csv.reader(open(sys.argv[1], newline="")))
print(json.dumps(rows[1:], separators=(",", ":"), ensure_ascii=False))' "$T/out.csv" >"$T/rows.json"
abx-ls -d "$D" -k snapshot --jsonl | jq -sc 'map([.id, .url, .title, (.depth | tostring), ""])' >"$T/want.json"
is "$(cat "$T/rows.json")" "$(cat "$T/want.json")" "Python's csv module reads back every value as abx-ls --jsonl has it"
like "$(cat "$T/out.csv")" ',"http://127.0.0.1:1/evil\?a=1,b=%222%22","<script>alert\(1\)</script> ""quoted"", & <b>bold</b>",' \
	"a comma and quotes: quoted, quotes doubled"
expect_exit 65 "--csv with no field" abx-ls -d "$D" --csv ,
expect_exit 65 "--csv with a key that is not one" abx-ls -d "$D" --csv 'id,u rl'
like "$(cat "$T/stderr")" 'not a record key: "u rl"' "names it"
expect_exit 64 "--csv and --html together" abx-ls -d "$D" --csv id --html

expect_exit 0 "abx-ls --html" abx-ls -d "$D" -k snapshot --html
cp "$T/stdout" "$T/out.html"
like "$(head -c 15 "$T/out.html")" "<!doctype html>" "a page"
is "$(grep -c '<script' "$T/out.html")" 0 "a title's markup is not markup"
like "$(cat "$T/out.html")" '&lt;script&gt;alert\(1\)&lt;/script&gt; &quot;quoted&quot;, &amp; &lt;b&gt;bold' \
	"it is shown as text, escaped"
is "$(grep -Eo '(src|href)="[^"]*"' "$T/out.html" | grep -cv '^href="crawls/\|^href="http://127.0.0.1:1/')" 0 \
	"self-contained: links only to the pages and the URLs, nothing loaded"
is "$(grep -c '<link\|<img\|<iframe' "$T/out.html")" 0 "no stylesheet, image or frame to load"
S=$(abx-ls -d "$D" -k snapshot --url /plain --jsonl | jq -r '"crawls/\(.crawl_id)/\(.id)/index.html"')
ok "a snapshot's id links its page, relative to the data directory" grep -q "href=\"$S\"" "$T/out.html"
ok "which is there" test -f "$D/$S"
python3 -c 'import html.parser, sys
class P(html.parser.HTMLParser):
    rows = 0
    def handle_starttag(self, tag, attrs):
        if tag == "tr": P.rows += 1
p = P(); p.feed(open(sys.argv[1]).read()); print(P.rows)' "$T/out.html" >"$T/nrows"
is "$(cat "$T/nrows")" 3 "an HTML parser finds the header row and a row a snapshot"
like "$(cat "$T/out.html")" "2 records" "and the count"
done_testing
