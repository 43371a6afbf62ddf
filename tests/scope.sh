#!/bin/sh
# Crawl scopes (scope.h): from one seed, a plugin that fetches nothing
# reports four outlinks — same directory, same host, same registrable
# domain, another domain — and abx-add --scope page|prefix|host|domain|any
# queues exactly the expected children.  No URL is ever fetched: the only
# plugin writes urls.jsonl from a fixed list; and no name is looked up
# (ALLOW_PRIVATE_NETWORKS=true: the zone rule, which would resolve them,
# is not what this tests).
. "$(dirname "$0")/lib/tap.sh"
D=$T/data
mkdir -p "$T/plugins/links"
cat >"$T/plugins/links/on_Snapshot__50_links.sh" <<'EOS'
#!/bin/sh
for u in http://a.example.test/docs/b.html http://a.example.test/other/c.html \
	http://b.example.test/d.html http://example.org/e.html; do
	printf '{"type":"Snapshot","url":"%s"}\n' "$u" >>urls.jsonl
done
echo '{"type":"ArchiveResult","status":"succeeded","output_str":"4 links"}'
EOS
chmod +x "$T/plugins/links/on_Snapshot__50_links.sh"
ABX_PLUGINS_DIR=$T/plugins
export ABX_PLUGINS_DIR

children() { # children SCOPE: the URLs queued below the seed
	d=$D-$1
	abx-add -d "$d" --depth 1 --plugins links --scope "$1" --config ALLOW_PRIVATE_NETWORKS=true \
		http://a.example.test/docs/index.html >/dev/null
	abx-tick -d "$d" >/dev/null 2>&1
	abx-ls -d "$d" -k snapshot --jsonl | jq -r 'select(.depth == 1) | .url' | sort | tr '\n' ' '
}
is "$(children page)" "" "page: nothing discovered is queued"
is "$(children prefix)" "http://a.example.test/docs/b.html " "prefix: the seed's directory"
is "$(children host)" "http://a.example.test/docs/b.html http://a.example.test/other/c.html " "host: the seed's host"
is "$(children domain)" "http://a.example.test/docs/b.html http://a.example.test/other/c.html http://b.example.test/d.html " \
	"domain: the seed's registrable domain"
is "$(children any)" "http://a.example.test/docs/b.html http://a.example.test/other/c.html http://b.example.test/d.html http://example.org/e.html " \
	"any: every outlink"
d=$D-default
abx-add -d "$d" --depth 1 --plugins links --config ALLOW_PRIVATE_NETWORKS=true http://a.example.test/docs/index.html >/dev/null
abx-tick -d "$d" >/dev/null 2>&1
is "$(abx-ls -d "$d" -k snapshot --jsonl | jq -r 'select(.depth == 1) | .url' | wc -l | tr -d ' ')" 4 \
	"the default scope is any (ArchiveBox's: a depth-1 crawl archives what a page links to)"
d=$D-jsonl
printf '{"url":"http://a.example.test/docs/index.html","title":"a seed given as JSONL"}\n' |
	abx-add -d "$d" --depth 1 --plugins links --scope host --config ALLOW_PRIVATE_NETWORKS=true >/dev/null
abx-tick -d "$d" >/dev/null 2>&1
is "$(abx-ls -d "$d" -k snapshot --jsonl | jq -r 'select(.depth == 1) | .url' | sort | tr '\n' ' ')" \
	"http://a.example.test/docs/b.html http://a.example.test/other/c.html " "a seed given as a JSONL record defines the scope too"
expect_exit 65 "an unknown scope is refused with 65" abx-add -d "$D" --scope site http://a.example.test/
like "$(cat "$T/stderr")" "CRAWL_SCOPE=site.*any, page, prefix, host, domain" "the message names the value and the valid ones"
done_testing
