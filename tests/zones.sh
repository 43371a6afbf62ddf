#!/bin/sh
# Network zones (abx(7) SECURITY): a discovered URL whose host is in a
# private zone (loopback, private, link-local, CGNAT, unspecified, multicast,
# unique-local) is not queued unless a seed of the crawl is in that zone or
# ALLOW_PRIVATE_NETWORKS allows it; it is recorded, sealed unrun, with
# notes saying why.  The only plugin here writes urls.jsonl and fetches
# nothing: the queueing decision is tested, never a fetch, and strace
# checks that abx-tick connects to nothing outside 127.0.0.0/8.
. "$(dirname "$0")/lib/tap.sh"
. "$(dirname "$0")/lib/tick-lib.sh"

# the links plugin: every zone, written as outlinks of every page it runs on
mkdir -p "$T/plugins/links"
cat >"$T/plugins/links/on_Snapshot__50_links.sh" <<'EOS'
#!/bin/sh
for u in http://127.0.0.1:9/a http://localhost:9/b 'http://[::1]:9/c' http://10.1.2.3/d \
	http://172.16.0.1/e http://192.168.1.1/f http://169.254.169.254/latest/meta-data/ \
	http://100.64.0.1/g http://0.0.0.0/h 'http://[fd00::1]/i' http://224.0.0.1/j \
	'http://[ff02::1]/k' file:///etc/passwd http://198.51.100.8/public 'http://[2001:db8::1]/public6'; do
	printf '{"url":"%s"}\n' "$u"
done >urls.jsonl
echo '{"type":"ArchiveResult","status":"succeeded","output_str":"urls.jsonl"}'
EOS
chmod +x "$T/plugins/links/on_Snapshot__50_links.sh"
ABX_PLUGINS_DIR=$T/plugins
export ABX_PLUGINS_DIR

# traced_tick DIR: one pass, its connect(2) calls in $T/connect.log (LeakSanitizer
# cannot run under ptrace: the untraced passes below check for leaks)
traced_tick() {
	ASAN_OPTIONS="${ASAN_OPTIONS:-}:detect_leaks=0" \
		strace -f -qq -e trace=connect -o "$T/connect.log" abx-tick -d "$1"
}
tick() { abx-tick -d "$1"; }
# children DIR: "URL STATUS NOTES" of the depth-1 snapshots, sorted
children() {
	abx-ls -d "$1" -k snapshot --jsonl |
		jq -r 'select(.depth == 1) | "\(.url) \(.status) \(if .downloaded_at == null then .notes else "ran" end)"' |
		LC_ALL=C sort
}
refused() { children "$1" | grep -c 'not archived: .* network zone'; }
ran() { children "$1" | awk '$NF == "ran" { print $1 }' | tr '\n' ' '; }
# no_outside: abx-tick connected to no inet address outside 127.0.0.0/8
no_outside() {
	! grep -E 'sin6?_(addr|family)=AF_INET' "$T/connect.log" | grep -v 'inet_addr("127\.' |
		grep -q .
}

# --- a public seed: every private zone refused, the public links queued
D=$T/public
abx-add -d "$D" --depth 1 --plugins links http://198.51.100.7/ >/dev/null
expect_exit 0 "a depth-1 crawl of a public seed (a made-up address, never fetched)" traced_tick "$D"
ok "abx-tick connected to nothing outside 127.0.0.0/8" no_outside
is "$(refused "$D")" 12 "all 12 URLs into private zones are refused"
is "$(ran "$D")" "http://198.51.100.8/public http://[2001:db8::1]/public6 " "only the public ones are queued and run"
is "$(children "$D" | grep '169.254.169.254')" \
	"http://169.254.169.254/latest/meta-data/ sealed not archived: 169.254.169.254 is in the linklocal network zone and the crawl's seeds are not (ALLOW_PRIVATE_NETWORKS)" \
	"a refused URL is a sealed snapshot, never run, whose notes say why"
is "$(abx-ls -d "$D" -k snapshot --jsonl | jq -r 'select((.notes // "") | test("network zone")) | .sealed_reason' | sort -u)" network_zone \
	"and whose sealed_reason is network_zone"
for z in 'localhost loopback' '\[::1\] loopback' '10.1.2.3 private' '172.16.0.1 private' \
	'192.168.1.1 private' '100.64.0.1 cgnat' '0.0.0.0 unspecified' '\[fd00::1\] uniquelocal' \
	'224.0.0.1 multicast' '\[ff02::1\] multicast'; do
	h=${z% *} zone=${z##* }
	like "$(children "$D")" "not archived: $h is in the $zone network zone" "a link into the $zone zone is refused, naming its host"
done
is "$(children "$D" | grep -c '^file:')" 0 "a file: link is no URL abx archives (url.h): never queued, as mailto: is not"
is "$(abx-ls -d "$D" -k crawl --jsonl | jq -r .status)" sealed "the crawl is sealed"
is "$(find "$D"/crawls/*/ -mindepth 1 -maxdepth 1 -type d | grep -c .)" 3 "only the seed and the two public children have snapshot directories"

# --- a loopback seed: a crawl of a local site keeps working
D=$T/loopback
abx-add -d "$D" --depth 1 --plugins links http://127.0.0.1:9/ >/dev/null
expect_exit 0 "a depth-1 crawl of a loopback seed" tick "$D"
is "$(ran "$D")" "http://127.0.0.1:9/a http://198.51.100.8/public http://[2001:db8::1]/public6 http://[::1]:9/c http://localhost:9/b " \
	"loopback and public links are queued"
is "$(refused "$D")" 9 "the 9 others are still refused"
like "$(children "$D")" "http://10.1.2.3/d sealed not archived: 10.1.2.3 is in the private network zone" \
	"a private link from a loopback seed is refused"

# --- ALLOW_PRIVATE_NETWORKS
D=$T/allow
abx-add -d "$D" --depth 1 --plugins links --config ALLOW_PRIVATE_NETWORKS=loopback,private \
	http://198.51.100.7/ >/dev/null
expect_exit 0 "a public seed with ALLOW_PRIVATE_NETWORKS=loopback,private" tick "$D"
is "$(refused "$D")" 6 "loopback and private links are queued, the 6 others refused"
like "$(ran "$D")" "http://10.1.2.3/d .*http://localhost:9/b" "including 10.1.2.3 and localhost"
D=$T/allowall
abx-add -d "$D" --depth 1 --plugins links --config ALLOW_PRIVATE_NETWORKS=true http://198.51.100.7/ >/dev/null
expect_exit 0 "ALLOW_PRIVATE_NETWORKS=true" traced_tick "$D"
is "$(refused "$D")" 0 "nothing is refused"
ok "abx-tick still connected to nothing outside 127.0.0.0/8" no_outside
expect_exit 65 "a bad ALLOW_PRIVATE_NETWORKS is refused by abx-add" \
	abx-add -d "$D" --config ALLOW_PRIVATE_NETWORKS=intranet http://198.51.100.7/
like "$(cat "$T/stderr")" "ALLOW_PRIVATE_NETWORKS=intranet: want true, false, or zone names" "naming the value and what is wanted"

# --- loopback in the forms a browser reads as loopback (the WHATWG parser
# canonicalises the host first: url.h), from a public seed: all refused
mkdir -p "$T/plugins/forms"
cat >"$T/plugins/forms/on_Snapshot__50_forms.sh" <<'EOS'
#!/bin/sh
for u in http://2130706433/n1 http://0x7f.1/n2 http://0177.0.0.1/n3 http://127.1/n4 \
	'http://[::ffff:127.0.0.1]/n5' 'http://[0:0:0:0:0:0:0:1]/n6' http://%31%32%37.0.0.1/n7 \
	'http://ⓛocalhost/n8' http://0/n9 http://LOCALHOST./n10; do
	printf '{"url":"%s"}\n' "$u"
done >urls.jsonl
echo '{"type":"ArchiveResult","status":"succeeded","output_str":"urls.jsonl"}'
EOS
chmod +x "$T/plugins/forms/on_Snapshot__50_forms.sh"
D=$T/forms
abx-add -d "$D" --depth 1 --plugins forms http://198.51.100.7/ >/dev/null
expect_exit 0 "a public seed whose page links loopback in ten spellings" traced_tick "$D"
ok "abx-tick connected to nothing outside 127.0.0.0/8" no_outside
is "$(refused "$D")" 10 "every spelling is refused"
is "$(children "$D" | awk '{ print $1 }' | tr '\n' ' ')" \
	"http://0.0.0.0/n9 http://127.0.0.1/n1 http://127.0.0.1/n2 http://127.0.0.1/n3 http://127.0.0.1/n4 http://127.0.0.1/n7 http://[::1]/n6 http://[::ffff:7f00:1]/n5 http://localhost./n10 http://localhost/n8 " \
	"each recorded under its canonical URL"

done_testing
