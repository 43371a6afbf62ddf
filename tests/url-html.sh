#!/bin/sh
# url-html.sh — the shipped outlink parser resolves links as a browser does.
# Every entry of the WHATWG URL suite (tests/data/wpt-url/urltestdata.json)
# whose base is an http(s) URL becomes a link, <a href="INPUT">, in a page
# for that base (ASCII punctuation written as character references, so the
# page's HTML carries the input exactly); the real hook,
# on_Snapshot__75_parse_html_urls.bin --url=BASE --html=PAGE, must write to
# urls.jsonl exactly the http(s) hrefs the suite wants, fragment dropped,
# the page itself left out, and nothing for an input a browser refuses or
# that is not http(s).  Inputs with U+0000 or a lone surrogate (which no
# HTML page can carry as they are) are left out.  Counts are printed.
# shellcheck source-path=SCRIPTDIR source=lib/tap.sh
. "$(dirname "$0")/lib/tap.sh"

HOOK=$SHARE/abx/plugins/parse_html_urls/on_Snapshot__75_parse_html_urls.bin
SUITE=$TOP/tests/data/wpt-url/urltestdata.json
plan 5

ok "the suite is there" test -s "$SUITE"
# one directory per base: page.html, url (the base), want (sorted URLs)
python3 - "$SUITE" "$T/pages" <<'EOF' >"$T/gen.out"
import json, os, re, sys
suite, out = sys.argv[1], sys.argv[2]
entries = [e for e in json.load(open(suite, encoding="utf-8")) if isinstance(e, dict)]
pages, links = {}, 0
def html_attr(s):
    return "".join(c if c.isalnum() or ord(c) > 127 else "&#x%x;" % ord(c) for c in s)
for e in entries:
    base, inp = e["base"], e["input"]
    if not base or not re.match(r"https?:", base):
        continue
    if "\0" in inp or any(0xD800 <= ord(c) <= 0xDFFF for c in inp):
        continue
    p = pages.setdefault(base, {"links": [], "want": set()})
    p["links"].append(inp)
    links += 1
    href = e.get("href")
    if not e.get("failure") and href and re.match(r"https?://", href):
        p["want"].add(href.split("#", 1)[0])
for i, (base, p) in enumerate(sorted(pages.items())):
    d = os.path.join(out, "%03d" % i)
    os.makedirs(d)
    with open(os.path.join(d, "page.html"), "w", encoding="utf-8") as f:
        f.write("<!doctype html><title>links</title>\n")
        for l in p["links"]:
            f.write('<a href="%s">x</a>\n' % html_attr(l))
    with open(os.path.join(d, "url"), "w", encoding="utf-8") as f:
        f.write(base)
    with open(os.path.join(d, "want"), "w", encoding="utf-8") as f:
        for u in sorted(p["want"] - {base.split("#", 1)[0]}):
            f.write(u + "\n")
print(len(pages), links)
EOF
read -r npages nlinks <"$T/gen.out"
ok "pages made ($npages bases, $nlinks links)" test "$nlinks" -gt 100

bad=0 missing=0 extra=0 wanted=0 runs=0
for d in "$T"/pages/*/; do
	base=$(cat "$d/url")
	(cd "$d" && EXTRA_CONTEXT='{"snapshot_depth":0}' "$HOOK" --url="$base" --html=page.html >result 2>stderr) ||
		bad=$((bad + 1))
	runs=$((runs + 1))
	if [ -f "$d/urls.jsonl" ]; then jq -r .url "$d/urls.jsonl"; fi | LC_ALL=C sort >"$d/got"
	LC_ALL=C sort "$d/want" >"$d/want.sorted"
	w=$(wc -l <"$d/want.sorted")
	m=$(LC_ALL=C comm -23 "$d/want.sorted" "$d/got" | wc -l)
	x=$(LC_ALL=C comm -13 "$d/want.sorted" "$d/got" | wc -l)
	wanted=$((wanted + w)) missing=$((missing + m)) extra=$((extra + x))
	if [ "$m" -gt 0 ] || [ "$x" -gt 0 ]; then
		diag "base $base:"
		LC_ALL=C comm -3 "$d/want.sorted" "$d/got" | sed 's/^/  missing: /; s/^  missing: \t/  extra:   /' | head -20 |
			while IFS= read -r l; do diag "$l"; done
	fi
done
diag "parse_html_urls on $nlinks WPT links in $runs pages: $((wanted - missing)) of $wanted wanted URLs found, $extra unwanted URLs written"
is "$bad" 0 "the hook succeeded on every page"
is "$missing" 0 "every http(s) URL the suite wants is found, resolved the same way ($((wanted - missing)) of $wanted)"
is "$extra" 0 "no URL a browser would not resolve to is written"
done_testing
