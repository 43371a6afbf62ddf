#!/bin/sh
# hooks-c-curl.sh — the title, headers and favicon hooks, built from C
# (on_*.bin), start no program but curl (and favicon the parser): they
# work with an empty PATH and leave nothing in TMPDIR, not even after a
# kill -9; a curl that cannot be run is named; a title is found as the
# shell hook found it (the first <title ...>; none in a binary page) and
# converted from a <meta charset>; headers.json joins a repeated header,
# lets a Status: header replace the code, is written as jq writes it; the
# favicon is the page's <link rel=icon> first, found by the parser beside
# the hook even when it is run by name from PATH, and a site that cannot
# be reached fails with curl's words; SIGTERM stops curl and still gives
# a result.  (tests/plugins.sh has the rest of their behaviour.)
# shellcheck source-path=SCRIPTDIR source=lib/tap.sh
. "$(dirname "$0")/lib/tap.sh"
# shellcheck source-path=SCRIPTDIR source=lib/httpd.sh
. "$(dirname "$0")/lib/httpd.sh"
# shellcheck source-path=SCRIPTDIR source=lib/procs.sh
. "$(dirname "$0")/lib/procs.sh"

PLUG=$SHARE/abx/plugins
TH=$PLUG/title/on_Snapshot__54_title.bin
HH=$PLUG/headers/on_Snapshot__55_headers.bin
FH=$PLUG/favicon/on_Snapshot__56_favicon.bin
CURL=$(command -v curl)
plan 33

httpd_start --log "$T/requests.log" || exit 1
mkdir "$T/tmp"

# run DIR HOOK PATH [VAR=value...]: HOOK on $BASE/PATH with cwd DIR (made),
# stdout in $T/out, stderr in $T/err, its exit code in $rc; PATH empty,
# TMPDIR $T/tmp
run() {
	_d=$1 _h=$2 _p=$3
	shift 3
	mkdir -p "$_d"
	(cd "$_d" && exec env PATH=/nonexistent TMPDIR="$T/tmp" CURL_BINARY="$CURL" "$@" "$_h" \
		--url="$BASE/$_p" >"$T/out" 2>"$T/err")
	rc=$?
}
field() { jq -r "select(.type == \"ArchiveResult\") | .$1" "$T/out"; }

# ---- title
run "$T/t1" "$TH" site/
is "$rc $(field status) $(cat "$T/t1/title.txt")" "0 succeeded abx test site" "title: with PATH empty, curl alone"
is "$(ls -A "$T/tmp")" "" "title: nothing is left in TMPDIR"
run "$T/t2" "$TH" multi
is "$(field output_str)" "Привет" "title: converted from the charset a <meta> names"
ok "title: title.txt keeps the bytes as served" test "$(wc -c <"$T/t2/title.txt")" -eq 6
run "$T/t3" "$TH" nul
is "$rc $(field status) $(field output_str)" "0 noresults No title found" "title: a binary page has none"
ok "title: and no title.txt" test ! -e "$T/t3/title.txt"
run "$T/t3b" "$TH" latetitle
is "$rc $(field status) $(field output_str)" "0 noresults No title found" \
	"title: only the first MiB is read (a title past it is not found)"
run "$T/t4" "$TH" site/ CURL_BINARY=/nonexistent/curl
like "$rc $(field output_str)" "^1 unable to run /nonexistent/curl: No such file" "title: a curl that cannot be run is named"
run "$T/t5" "$TH" missing
is "$rc $(field output_str) | $(field error)" "1 HTTP 404 | HTTP 404 from $BASE/missing" "title: a 404 fails with its code"
run "$T/t6" "$TH" site/ TITLE_ENABLED=no
is "$rc $(field status)" "10 skipped" "title: TITLE_ENABLED=no skips"
run "$T/t7" "$TH" site/ EXTRA_CONTEXT='{"snapshot_id":"s1","status":"x"}'
is "$(jq -c 'select(.type == "ArchiveResult") | [.snapshot_id, .status]' "$T/out")" '["s1","succeeded"]' \
	"title: the result is printed over EXTRA_CONTEXT, whose status it replaces"

mkdir -p "$T/t8"
echo precious >"$T/victim"
ln -s "$T/victim" "$T/t8/title.txt"
run "$T/t8" "$TH" site/
is "$rc $(field status)" "0 succeeded" "title: a title.txt that is a symlink is not written through: replaced"
ok "... by a file of its own" sh -c "test -f '$T/t8/title.txt' && test ! -L '$T/t8/title.txt'"
is "$(cat "$T/victim")" precious "title: and what it points to is untouched"

# ---- headers
run "$T/h1" "$HH" multi
is "$rc $(field output_str)" "0 headers.json (HTTP 200)" "headers: with PATH empty, curl alone"
is "$(jq -r '."set-cookie"' "$T/h1/headers.json")" "a=1, b=2" "headers: a repeated header's values are joined"
is "$(jq -c '[.status, (keys_unsorted | .[0])]' "$T/h1/headers.json")" '["201 Made","status"]' \
	"headers: a Status: header takes the code's place"
is "$(head -n 2 "$T/h1/headers.json")" "{
  \"status\": \"201 Made\"," "headers: written as jq writes it"
is "$(jq -r type "$T/h1/headers.json")" object "headers: and it is one JSON object"
is "$(ls -A "$T/tmp")" "" "headers: nothing is left in TMPDIR"
run "$T/h2" "$HH" redirect
is "$(jq -c '[.status, .location]' "$T/h2/headers.json")" '[200,null]' "headers: the last response's block"
run "$T/h3" "$HH" site/ CURL_BINARY=/nonexistent/curl
like "$rc $(field output_str)" "^1 unable to run /nonexistent/curl: No such file" "headers: a curl that cannot be run is named"

# ---- favicon
run "$T/f1" "$FH" iconlink
is "$rc $(field output_str)" "0 favicon.png" "favicon: the page's <link rel=icon> first, with PATH empty"
curl -s "$BASE/site/img.png" >"$T/img.png"
ok "favicon: the server's bytes" cmp -s "$T/img.png" "$T/f1/favicon.png"
is "$(ls -A "$T/tmp")" "" "favicon: nothing is left in TMPDIR"
mkdir -p "$T/f2"
(cd "$T/f2" && exec env PATH="$PLUG/favicon" TMPDIR="$T/tmp" CURL_BINARY="$CURL" \
	on_Snapshot__56_favicon.bin --url="$BASE/iconlink" >"$T/out" 2>"$T/err")
is "$(field output_str)" "favicon.png" "favicon: run by name from PATH, it still finds the parser beside it"
mkdir -p "$T/f3"
(cd "$T/f3" && exec env PATH=/nonexistent CURL_BINARY="$CURL" "$FH" --url=http://127.0.0.1:9/ \
	>"$T/out" 2>"$T/err")
like "$? $(field output_str)" "^1 curl: \(7\) " "favicon: a site that does not answer fails with curl's words"

# what the parser inherits: a stand-in beside a copy of the hook records
# its descriptors and ignored signals
mkdir -p "$T/p/favicon" "$T/p/parse_html_urls" "$T/f4"
cp "$FH" "$T/p/favicon/"
cat >"$T/p/parse_html_urls/on_Snapshot__75_parse_html_urls.bin" <<EOF
#!/bin/sh
ls /proc/\$\$/fd >"$T/parser.fds"
grep '^SigIgn:' /proc/\$\$/status >"$T/parser.sig"
echo "$BASE/site/img.png"
EOF
chmod +x "$T/p/parse_html_urls/on_Snapshot__75_parse_html_urls.bin"
run "$T/f4" "$T/p/favicon/on_Snapshot__56_favicon.bin" iconlink PATH=/usr/bin:/bin
# (the shell keeps descriptors of its own at 10 and up)
is "$(awk '$1 < 10' "$T/parser.fds" | sort -n | tr '\n' ' ')" "0 1 2 3 " \
	"favicon: the parser gets stdio and the page (fd 3), nothing else"
sigign=$(awk '{ print $2 }' "$T/parser.sig")
is "$((0x${sigign:-1000} & 0x1000))" 0 "favicon: and SIGPIPE, which the hook ignores, is not ignored in it"

# ---- signals
mkdir -p "$T/s1"
(cd "$T/s1" && exec env TMPDIR="$T/tmp" "$TH" --url="$BASE/slow?s=30" >"$T/out" 2>"$T/err") &
pid=$!
# slow DIR S: a curl of the hook run in $T/DIR (its working directory) is
# fetching $BASE/slow?s=S
slow() {
	for _p in $(procs_in "$T/$1" curl); do
		tr '\0' '\n' <"/proc/$_p/cmdline" 2>/dev/null | grep -q "slow[?]s=$2" && return 0
	done
	return 1
}
ok "title: curl is fetching a slow page" wait_for 10 slow s1 30
kill -TERM "$pid"
wait "$pid"
rc=$?
is "$rc $(field output_str)" "143 interrupted by SIGTERM" "title: SIGTERM gives a failed result, exit 143"
gone() { ! slow "$1" "$2"; }
ok "title: and curl is gone" wait_for 5 gone s1 30
mkdir -p "$T/s2"
(cd "$T/s2" && exec env TMPDIR="$T/tmp" "$HH" --url="$BASE/slow?s=31" >"$T/out" 2>"$T/err") &
pid=$!
wait_for 10 slow s2 31
kill -KILL "$pid"
wait "$pid" 2>/dev/null
for p in $(procs_in "$T/s2" curl); do kill "$p"; done
is "$(ls -A "$T/tmp")" "" "headers: a kill -9 mid-fetch leaves nothing in TMPDIR (unlinked temp files)"

done_testing
