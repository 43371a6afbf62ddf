#!/bin/sh
# The chrome plugin (share/abx/plugins/chrome/chrome.c): one headless
# chromium loads the page once, and the screenshot, pdf and dom plugins
# take their files from that load instead of starting a browser each
# (chrome_derived in share/abx/plugins/_lib/hook.sh).  A real crawl of the
# test site (tests/httpd.py, its --log counting what the server was asked
# for) with a real chromium; skipped without one.
. "$(dirname "$0")/lib/tap.sh"
. "$(dirname "$0")/lib/httpd.sh"
. "$(dirname "$0")/lib/procs.sh"

command -v chromium >/dev/null 2>&1 || { echo "1..0 # SKIP chromium is not installed"; exit 0; }
# (twice: on a loaded machine python's start alone can take most of httpd_start's 10 s)
httpd_start --log "$T/req.log" || httpd_start --log "$T/req.log" || { echo "1..0 # SKIP the test server did not start"; exit 0; }
export CHROME_SANDBOX=false TIMEOUT=60

# chromium_exe PID: true if PID runs chromium's own program (not the shell
# of its wrapper script, /usr/bin/chromium)
chromium_exe() {
	case $(readlink "/proc/$1/exe" 2>/dev/null) in
	*/chromium | */chrome) return 0 ;;
	esac
	return 1
}
# browser PID: true if PID is a browser: chromium's own program without
# --type= (not a renderer, zygote or utility process: chromium rewrites
# theirs into one string, so --type= is looked for anywhere) nor --version
# (abx-hook's check of the plugins' required binaries), with the profile
# every hook gives it (--user-data-dir=: a process caught exiting has an
# empty command line), whose parent
# is not chromium (a child caught between its fork and its exec still has
# the browser's command line)
browser() {
	chromium_exe "$1" || return 1
	_cl=$(tr '\0' '\n' <"/proc/$1/cmdline" 2>/dev/null)
	case $_cl in *--type=* | *--version*) return 1 ;; esac
	printf '%s\n' "$_cl" | grep -q -e '^--user-data-dir=' || return 1
	_st=
	{ read -r _st <"/proc/$1/stat"; } 2>/dev/null
	# shellcheck disable=SC2086 # the fields after comm
	set -- ${_st##*") "}
	! chromium_exe "${2:-1}"
}
# browsers DIR: sample, until $T/stop exists, the pids of the browsers run
# for DIR, one a line (the pid, then its command line), into DIR.browsers
browsers() {
	: >"$1.browsers"
	while [ ! -e "$T/stop" ]; do
		for p in $(procs_in "$1" chromium); do
			browser "$p" && echo "$p $(tr '\0' ' ' <"/proc/$p/cmdline" | cut -c1-300)"
		done >>"$1.browsers"
		sleep 0.1
	done
}
# crawl DIR URL PLUGINS: archive URL at depth 0 with PLUGINS, browsers sampled
crawl() {
	rm -f "$T/stop"
	: >"$T/req.log"
	browsers "$1" &
	_bp=$!
	abx-add -d "$1" --depth 0 --plugins "$3" "$2" >/dev/null &&
		abx-tick -d "$1" >"$1.out" 2>"$1.err"
	_rc=$?
	touch "$T/stop"
	wait "$_bp"
	return $_rc
}
nbrowsers() { cut -d' ' -f1 "$1.browsers" | sort -u | grep -c .; }
result() { abx-ls -d "$1" -k result --jsonl | jq -r "select(.plugin == \"$2\") | .$3"; }
seen() { grep -c -x -e "$1" "$T/req.log"; }

ok "a crawl with chrome,screenshot,pdf,dom,wget" crawl "$T/a" "$BASE/site/" chrome,screenshot,pdf,dom,wget
S=$(echo "$T"/a/crawls/*/*/chrome)
S=${S%/chrome}
is "$(result "$T/a" chrome status)" succeeded "the chrome hook succeeded"
is "$(seen /site/)" 2 "the page was asked for twice: once by wget, once by the browser (not 4 times)"
is "$(seen /site/img.png)" 2 "its image twice too"
is "$(nbrowsers "$T/a")" 1 "one browser for the snapshot, not three"
[ "$(nbrowsers "$T/a")" = 1 ] || diag "$(sort -u "$T/a.browsers")"
for p in screenshot pdf dom; do
	is "$(result "$T/a" $p status)" succeeded "$p succeeded, from the chrome hook's load"
done
is "$(head -c 8 "$S/screenshot/screenshot.png" | od -An -c | tr -d ' \n')" '211PNG\r\n032\n' "screenshot.png is a PNG"
is "$(head -c 5 "$S/pdf/output.pdf")" "%PDF-" "output.pdf is a PDF"
like "$(cat "$S/dom/output.html")" "<title>abx test site</title>" "output.html is the page's DOM"
like "$(head -c 15 "$S/dom/output.html")" "^<!DOCTYPE html>" "with its doctype first"
is "$(stat -c %i "$S/screenshot/screenshot.png")" "$(stat -c %i "$S/chrome/screenshot.png")" \
	"the screenshot is a hard link to the chrome hook's"
is "$(cat "$S/chrome/title.txt")" "abx test site" "title.txt"
is "$(jq -r .status "$S/chrome/headers.json")" 200 "headers.json names status 200"
is "$(jq -r '."content-type"' "$S/chrome/headers.json")" "text/html; charset=utf-8" "and the page's headers"
W=$(python3 - "$S/chrome/capture.warc.gz" <<'EOF'
import gzip, sys, re
data = gzip.open(sys.argv[1]).read()
recs, i = [], 0
while i < len(data):
    end = data.index(b"\r\n\r\n", i)
    head = data[i:end].decode()
    n = int(re.search(r"Content-Length: (\d+)", head).group(1))
    f = dict(l.split(": ", 1) for l in head.split("\r\n")[1:])
    block = data[end + 4:end + 4 + n]
    recs.append((f["WARC-Type"], f.get("WARC-Target-URI", "-"), block.split(b"\r\n", 1)[0].decode("latin1")))
    i = end + 4 + n + 4
for r in recs:
    print(*r)
EOF
)
like "$W" "response $BASE/site/ HTTP/1.1 200 OK" "the WARC holds the page's response"
like "$W" "request $BASE/site/ GET /site/ HTTP/1.1" "and its request"
like "$W" "response $BASE/site/img.png HTTP/1.1 200" "and its image's response"
C=$(abx-ls -d "$T/a" -k crawl --jsonl | jq -r .id | head -n 1)
expect_exit 0 "abx-seal --pack crawl.wacz" abx-seal -d "$T/a" --pack "$T/a.wacz" "$C"
ok "the WACZ reads back" sh -c "python3 '$TOP/tests/lib/wacz-check.py' '$T/a.wacz' >'$T/check.json'"
bsdtar -xf "$T/a.wacz" -C "$T" indexes/index.cdxj
like "$(bsdtar -tf "$T/a.wacz")" "archive/[^ ]*-chrome-capture\.warc\.gz" "it includes the chrome hook's WARC"
is "$(grep -c '"filename": *"[^"]*-chrome-capture\.warc\.gz"' "$T/indexes/index.cdxj")" \
	"$(echo "$W" | grep -c '^response ')" "and indexes each of its responses"

# a screenshot alone still gets its own browser
ok "a crawl with screenshot alone" crawl "$T/b" "$BASE/site/" screenshot
is "$(result "$T/b" screenshot status)" succeeded "screenshot succeeded with a browser of its own"
is "$(seen /site/)" 1 "which loaded the page once"
is "$(nbrowsers "$T/b")" 1 "one browser"
[ "$(nbrowsers "$T/b")" = 1 ] || diag "$(sort -u "$T/b.browsers")"

# through the egress gate: a page whose requisites are on 0.0.0.0 (the
# unspecified zone, delivered to the test's own server: tests/lib/gatesite.py)
python3 "$TOP/tests/lib/gatesite.py" "$T/gport" "$T/gsite.log" 0.0.0.0 2>"$T/gsite.err" &
i=0
while [ ! -s "$T/gport" ] && [ $i -lt 400 ]; do sleep 0.05; i=$((i + 1)); done
if [ -s "$T/gport" ]; then
	abx-add -d "$T/g" --depth 0 --plugins chrome "http://127.0.0.1:$(cat "$T/gport")/page" >/dev/null
	abx-tick -d "$T/g" >"$T/g.out" 2>"$T/g.err"
	is "$(result "$T/g" chrome status)" succeeded "a page with requisites in another zone is captured"
	is "$(grep -c -e '^0\.0\.0\.0' -e '^\[::ffff' "$T/gsite.log")" 0 "and nothing on 0.0.0.0 was fetched by the browser"
	like "$(result "$T/g" chrome notes)" "egress gate refused .*unspecified" "the chrome hook went through the gate"
	# run by hand, without a gate: chromium's --host-resolver-rules keep it out
	mkdir -p "$T/h"
	: >"$T/gsite.log"
	(cd "$T/h" && "$SHARE/abx/plugins/chrome/on_Snapshot__29_chrome.bin" \
		--url="http://127.0.0.1:$(cat "$T/gport")/page" >"$T/h.out" 2>"$T/h.err")
	is "$(jq -r .status "$T/h.out")" succeeded "run by hand, without a gate, the page is captured"
	is "$(grep -c -e '^0\.0\.0\.0' -e '^\[::ffff' "$T/gsite.log")" 0 "and nothing on 0.0.0.0 was fetched"
else
	pass "# SKIP the gate test site did not start"
fi

# the browser killed mid-capture (a slow page): started again, the page retried once
rm -f "$T/stop"
: >"$T/req.log"
abx-add -d "$T/k" --depth 0 --plugins chrome "$BASE/slow?s=4" >/dev/null
abx-tick -d "$T/k" >"$T/k.out" 2>"$T/k.err" &
tp=$!
killed=
i=0
while [ $i -lt 300 ] && [ -z "$killed" ]; do
	if grep -q '^/slow' "$T/req.log"; then
		for p in $(procs_in "$T/k" chromium); do
			browser "$p" || continue
			tr '\0' '\n' <"/proc/$p/cmdline" 2>/dev/null | grep -q -x -e '--remote-debugging-pipe' || continue
			kill -9 "$p" && killed=$p
		done
	fi
	sleep 0.1
	i=$((i + 1))
done
wait "$tp"
ok "the chrome hook's browser was found and killed mid-capture ($killed)" test -n "$killed"
is "$(result "$T/k" chrome status)" succeeded "the capture succeeded in a second browser"
like "$(result "$T/k" chrome notes)" "chromium died during the capture" "and its notes say the first one died"
is "$(seen '/slow?s=4')" 2 "the page was asked for once more, not more"
ok "no browser is left" none_in "$T/k"

done_testing
