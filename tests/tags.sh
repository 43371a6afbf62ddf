#!/bin/sh
# One rule for tags (abx(7) TAGS): every snapshot of a crawl carries the
# crawl's tags (abx-add --tag), then its own (its input record's, the
# record a hook discovered it by, the hooks' Tag records), each once.  On a
# depth-1 crawl, through abx-tick and by hand (claim -> hook -> seal, then
# a tick), and on a schedule's copies: every snapshot, seed and outlinks,
# has the tags in its record, in abx-ls --tag, in its index.json and in
# the site index.  Nothing is fetched: the plugin reports fixed outlinks.
. "$(dirname "$0")/lib/tap.sh"
mkdir -p "$T/plugins/links"
cat >"$T/plugins/links/on_Snapshot__50_links.sh" <<'EOS'
#!/bin/sh
printf '%s\n' '{"type":"Snapshot","url":"http://127.0.0.1:9/a"}' \
	'{"type":"Snapshot","url":"http://127.0.0.1:9/b","tags":"found"}' \
	'{"type":"Snapshot","url":"http://127.0.0.1:9/c","tags":["t1","x y"]}' >urls.jsonl
echo '{"type":"Tag","name":"hooked"}'
echo '{"type":"ArchiveResult","status":"succeeded","output_str":"3 links"}'
EOS
chmod +x "$T/plugins/links/on_Snapshot__50_links.sh"
ABX_PLUGINS_DIR=$T/plugins
export ABX_PLUGINS_DIR
U=http://127.0.0.1:9/
want="http://127.0.0.1:9/ t1,t2,hooked
http://127.0.0.1:9/a t1,t2,hooked
http://127.0.0.1:9/b t1,t2,found,hooked
http://127.0.0.1:9/c t1,t2,x y,hooked"

tags_of() { abx-ls -d "$1" -k snapshot --jsonl | jq -r '.url + " " + .tags' | LC_ALL=C sort; }
# every_where DIR TAG: each snapshot has TAG in abx-ls --tag, index.json and the site index
every_where() {
	n=$(abx-ls -d "$1" -k snapshot --jsonl | wc -l | tr -d ' ')
	[ "$(abx-ls -d "$1" -k snapshot --tag "$2" --jsonl | wc -l | tr -d ' ')" = "$n" ] || return 1
	for s in $(abx-ls -d "$1" -k snapshot --jsonl | jq -r '"crawls/\(.crawl_id)/\(.id)"'); do
		jq -e --arg t "$2" '.tags | index($t)' "$1/$s/index.json" >/dev/null || return 1
	done
	[ "$(jq -r --arg t "$2" 'select(.tags | split(",") | index($t)) | .id' "$1/index.jsonl" | sort -u | wc -l |
		tr -d ' ')" = "$n" ]
}

# through the tick
D=$T/tick
C=$(abx-add -d "$D" --depth 1 --tag ' t1, t2,t1' --plugins links "$U" | jq -r .id)
is "$(abx-ls -d "$D" "$C" | jq -r .tags_str)" "t1,t2" "the crawl's tags, as a set"
expect_exit 0 "abx-tick runs the depth-1 crawl" abx-tick -d "$D"
is "$(tags_of "$D")" "$want" "seed and outlinks: the crawl's tags, then their own"
ok "each in abx-ls --tag, its index.json and the site index" every_where "$D" t2

# by hand: claim -> hook -> seal the seed, then a tick
D=$T/hand
abx-add -d "$D" --depth 1 --tag ' t1, t2,t1' --plugins links "$U" >/dev/null
S=$(abx-ls -d "$D" -k snapshot --jsonl | jq -r .id)
# shellcheck disable=SC2016
expect_exit 0 "the seed run by hand" \
	abx-claim -d "$D" -i "$S" sh -c 'abx-hook "$ABX_ID" >/dev/null && abx-seal "$ABX_ID"'
expect_exit 0 "a tick archives its outlinks" abx-tick -d "$D"
is "$(tags_of "$D")" "$want" "the same tags as through the tick"
ok "each in abx-ls --tag, its index.json and the site index" every_where "$D" t1

# a seed given as a record with tags of its own: its children do not get them
D=$T/record
printf '{"url":"%s","tags":["own","t1"]}\n' "$U" | abx-add -d "$D" --depth 1 --tag t1,t2 --plugins links >/dev/null
abx-tick -d "$D" >/dev/null 2>&1
is "$(tags_of "$D" | head -n 2)" "http://127.0.0.1:9/ t1,t2,own,hooked
http://127.0.0.1:9/a t1,t2,hooked" "a seed's record adds its tags to its own snapshot only"

# a schedule's copy: its seeds are made by the tick, with the same rule
D=$T/sched
printf '{"url":"%s","tags":"own"}\n' "$U" |
	ABX_NOW=2030-01-01T10:15:00Z abx-add -d "$D" --depth 1 --tag t1,t2 --plugins links --schedule hourly >/dev/null
ABX_NOW=2030-01-01T11:00:00Z abx-tick -d "$D" >/dev/null 2>&1
is "$(tags_of "$D" | head -n 2)" "http://127.0.0.1:9/ t1,t2,own,hooked
http://127.0.0.1:9/a t1,t2,hooked" "a schedule's copy: the crawl's tags on its seed and outlinks"
ok "each in abx-ls --tag" every_where "$D" t1
done_testing
