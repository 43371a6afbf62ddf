#!/bin/sh
# hooks-c.sh — the hooks built from C (wget, parse_html_urls: on_*.bin) start
# no program but the fetcher: they work with an empty PATH; a fetcher that
# cannot be run is named in the result; their ENABLED settings; a kill -9 of
# the wget hook alone leaves no lock once wget has gone; two wget hooks on
# one directory: one runs, the other is skipped; wget gets glibc's malloc
# told to keep its heap (GLIBC_TUNABLES), a person's own setting after it,
# and GnuTLS told not to initialise itself (GNUTLS_NO_IMPLICIT_INIT=1) unless
# the person set that; tests/hooks-c-tls.sh fetches https with it.
# shellcheck source-path=SCRIPTDIR source=lib/tap.sh
. "$(dirname "$0")/lib/tap.sh"
# shellcheck source-path=SCRIPTDIR source=lib/httpd.sh
. "$(dirname "$0")/lib/httpd.sh"
# shellcheck source-path=SCRIPTDIR source=lib/procs.sh
. "$(dirname "$0")/lib/procs.sh"

PLUG=$SHARE/abx/plugins
WH=$PLUG/wget/on_Snapshot__06_wget.finite.bg.bin
PH=$PLUG/parse_html_urls/on_Snapshot__75_parse_html_urls.bin
WGET=$(command -v wget)
plan 33

httpd_start --log "$T/requests.log" || exit 1

# run DIR HOOK [VAR=value...]: HOOK with cwd DIR (made), stdout in $T/out,
# its exit code in $rc, PATH empty unless the caller sets one
run() {
	_d=$1 _h=$2
	shift 2
	mkdir -p "$_d"
	(cd "$_d" && exec env -u GLIBC_TUNABLES -u GNUTLS_NO_IMPLICIT_INIT PATH=/nonexistent TIMEOUT=30 WGET_BINARY="$WGET" "$@" "$_h" \
		--url="$BASE/site/" >"$T/out" 2>"$T/err")
	rc=$?
}
field() { jq -r "select(.type == \"ArchiveResult\") | .$1" "$T/out"; }

run "$T/a/wget" "$WH"
is "$rc/$(field status)" "0/succeeded" "wget hook with an empty PATH: succeeded (it starts wget and nothing else)"
is "$(field output_str)" "wget/127.0.0.1+$HTTPD_PORT/site/index.html" "and names the page it saved"
ok "the WARC and its CDX are written" test -s "$(ls "$T"/a/wget/warc/*.warc.gz)" -a -s "$(ls "$T"/a/wget/warc/*.cdx)"
like "$(cat "$T/err")" "--  $BASE/site/\$" "wget's log reaches the hook's stderr"

run "$T/a/parse_html_urls" "$PH" SNAP_DIR="$T/a"
is "$rc/$(field status)" "0/succeeded" "parse_html_urls with an empty PATH: succeeded"
ok "and wrote urls.jsonl" test -s "$T/a/parse_html_urls/urls.jsonl"
field output_str >"$T/a.src"
# the page is read by the shortest path: .. when SNAP_DIR is its cwd's
# parent (on a network filesystem each component is a round trip)
if command -v strace >/dev/null 2>&1; then
	# (LeakSanitizer does not run under ptrace: a sanitizer build aborts)
	(cd "$T/a/parse_html_urls" && exec strace -f -qq -e trace=open,openat -o "$T/ph.trace" \
		env ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" SNAP_DIR="$T/a" TIMEOUT=30 \
		"$PH" --url="$BASE/site/" >"$T/out" 2>"$T/err")
	is "$?/$(field status)" "0/succeeded" "under strace too"
	ok "it reads the page through .. (SNAP_DIR is its cwd's parent)" grep -q '"\.\./wget/127' "$T/ph.trace"
	is "$(grep -c "\"$T/a/" "$T/ph.trace")" 0 "and opens nothing by SNAP_DIR's whole path"
else
	pass "# SKIP strace is not installed"
	pass "# SKIP strace is not installed"
	pass "# SKIP strace is not installed"
fi
run "$T/elsewhere" "$PH" SNAP_DIR="$T/a"
is "$rc/$(field status)" "0/succeeded" "from a cwd outside SNAP_DIR it reads SNAP_DIR's page"
is "$(field output_str)" "$(cat "$T/a.src")" "(the same result as from its own directory: $(cat "$T/a.src"))"

mkdir -p "$T/p/wget"
(cd "$T/p/wget" && exec env PATH="$PLUG/wget:$PATH" TIMEOUT=30 on_Snapshot__06_wget.finite.bg.bin \
	--url="$BASE/site/" >"$T/out" 2>"$T/err")
is "$(field output_str)" "wget/127.0.0.1+$HTTPD_PORT/site/index.html" \
	"started by name from PATH, the hook still finds config.json's WGET_ARGS (--force-directories)"

run "$T/b/wget" "$WH" WGET_BINARY=/nonexistent/wget
is "$rc/$(field status)" "1/failed" "a WGET_BINARY that cannot be run: failed"
is "$(field error)" "unable to run /nonexistent/wget: No such file or directory" "and the error names it and why"

# wget's malloc keeps its heap (glibc tunables), a person's own win
# (the loader, which lists the tunables it took, named by wget's ELF header)
LDSO=$(readelf -l "$WGET" 2>/dev/null | sed -n 's/.*program interpreter: \([^]]*\)].*/\1/p')
[ -x "$LDSO" ] || LDSO=/bin/false
cat >"$T/wget-env" <<EOF
#!/bin/sh
printf '%s\n' "\$GLIBC_TUNABLES" >"$T/tunables"
printf '%s\n' "\${GNUTLS_NO_IMPLICIT_INIT-unset}" >"$T/gnutls"
"$LDSO" --list-tunables >"$T/tunables.list" 2>&1
exec "$WGET" "\$@"
EOF
chmod +x "$T/wget-env"
run "$T/t/wget" "$WH" WGET_BINARY="$T/wget-env"
is "$rc/$(cat "$T/tunables")" \
	"0/glibc.malloc.trim_threshold=268435456:glibc.malloc.top_pad=4194304" \
	"wget is started with glibc's malloc told to keep its heap"
ok "and glibc takes both settings (a misspelt name would be ignored)" \
	sh -c "grep -q '^glibc.malloc.trim_threshold: 0x10000000 ' '$T/tunables.list' &&
	       grep -q '^glibc.malloc.top_pad: 0x400000 ' '$T/tunables.list'"
run "$T/u/wget" "$WH" WGET_BINARY="$T/wget-env" GLIBC_TUNABLES=glibc.malloc.trim_threshold=5000
is "$rc/$(cat "$T/tunables")" \
	"0/glibc.malloc.trim_threshold=268435456:glibc.malloc.top_pad=4194304:glibc.malloc.trim_threshold=5000" \
	"a GLIBC_TUNABLES of the hook's environment is kept, after ours"
like "$(tr '\n' ' ' <"$T/tunables.list")" "glibc.malloc.trim_threshold: 0x1388 " "so its own setting wins"
is "$(cat "$T/gnutls")" "1" "wget is started with GNUTLS_NO_IMPLICIT_INIT=1 (GnuTLS starts when wget first needs it)"
run "$T/v/wget" "$WH" WGET_BINARY="$T/wget-env" GNUTLS_NO_IMPLICIT_INIT=0
is "$rc/$(cat "$T/gnutls")" "0/0" "a GNUTLS_NO_IMPLICIT_INIT of the hook's environment is kept"

run "$T/c/wget" "$WH" WGET_ENABLED=false
is "$rc/$(field status)/$(field output_str)" "10/skipped/WGET_ENABLED is false" "WGET_ENABLED=false: skipped"
run "$T/c/parse_html_urls" "$PH" PARSE_HTML_URLS_ENABLED=no
is "$rc/$(field status)/$(field output_str)" "10/skipped/PARSE_HTML_URLS_ENABLED is false" \
	"PARSE_HTML_URLS_ENABLED=no: skipped"

run "$T/d/wget" "$WH" WGET_ARGS='["--no-verbose","--tries=1"]' WGET_SAVE_WARC=
is "$rc/$(field status)" "0/succeeded" "WGET_ARGS as a JSON array; WGET_SAVE_WARC empty"
ok "the empty WGET_SAVE_WARC is false: no WARC" test ! -e "$T/d/wget/warc"

# two hooks on one directory: the second finds the lock taken
mkdir -p "$T/e/wget"
(cd "$T/e/wget" && exec env TIMEOUT=30 "$WH" --url="$BASE/slow?s=3" >"$T/e.out" 2>/dev/null) &
first=$!
wait_for 5 grep -q 'slow' "$T/requests.log"
(cd "$T/e/wget" && exec env TIMEOUT=30 "$WH" --url="$BASE/site/" >"$T/e2.out" 2>/dev/null)
is "$?/$(jq -r .status "$T/e2.out")" "10/skipped" "a second wget hook on a directory being written is skipped"
wait "$first"
is "$?/$(jq -r .status "$T/e.out")" "0/succeeded" "while the first one finishes"

# kill -9 of the hook alone: wget keeps the lock while it runs, then it is free
mkdir -p "$T/f/wget"
: >"$T/requests.log"
(cd "$T/f/wget" && exec env TIMEOUT=30 "$WH" --url="$BASE/slow?s=2" >/dev/null 2>&1) &
hk=$!
wait_for 5 grep -q 'slow' "$T/requests.log"
kill -KILL "$hk"
wait "$hk" 2>/dev/null
held() { ! flock -n "$T/f/wget" true && ! none_in "$T/f" wget; }
ok "after kill -9 of the hook, the wget it started still holds the directory's lock" held
free() { flock -n "$T/f/wget" true; }
ok "and once wget has ended the lock is free" wait_for 15 free
ok "no wget is left behind" wait_for 15 none_in "$T/f" wget

# parse_html_urls waits for the wget hook's lock, up to 80% of its timeout
mkdir -p "$T/g/wget/127.0.0.1+$HTTPD_PORT/site" "$T/g/parse_html_urls"
curl -s "$BASE/site/" >"$T/g/wget/127.0.0.1+$HTTPD_PORT/site/index.html"
flock -x "$T/g/wget" sleep 4 &
holder=$!
wait_for 5 sh -c "! flock -n '$T/g/wget' true"
s0=$(date +%s)
(cd "$T/g/parse_html_urls" && exec env SNAP_DIR="$T/g" TIMEOUT=2 "$PH" --url="$BASE/site/" >"$T/out" 2>"$T/err")
s1=$(date +%s)
is "$(field status)" succeeded "parse_html_urls reads a page still locked once 80% of its timeout has passed"
ok "and says so, after about 1.6 s ($((s1 - s0)) s), not at the holder's end" \
	sh -c "grep -q 'still being written' '$T/err' && [ $((s1 - s0)) -lt 4 ]"
wait "$holder"

# kill -9 of wget alone: the hook says so in its result
mkdir -p "$T/h/wget"
: >"$T/requests.log"
(cd "$T/h/wget" && exec env TIMEOUT=30 "$WH" --url="$BASE/slow?s=5" >"$T/h.out" 2>/dev/null) &
hk=$!
wait_for 5 grep -q 'slow' "$T/requests.log"
pkill -KILL -P "$hk" -x wget
wait "$hk"
is "$?/$(jq -r .status "$T/h.out")" "1/failed" "kill -9 of wget alone: the hook fails"
is "$(jq -r .error "$T/h.out")" "wget exited 137" "and names how wget ended"
