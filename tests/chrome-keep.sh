#!/bin/sh
# The chrome plugin's kept browser (share/abx/plugins/chrome/keep.c): a
# serving worker (abx-hook --serve) keeps one chromium up across its
# snapshots, each loading its page in a browser context of its own whose
# proxy is its own egress gate.  A real crawl at one slot (one worker) of
# the test site, with a real chromium; skipped without one.  The browsers
# are found as the children of the keeper, itself found by its working
# directory (locks/chrome.<worker>/ in the data directory) and its
# ABX_KEPT, never by a name.
# (the URLs that gen and slow print are one word each: unquoted on purpose)
# shellcheck disable=SC2046
. "$(dirname "$0")/lib/tap.sh"
. "$(dirname "$0")/lib/httpd.sh"
. "$(dirname "$0")/lib/procs.sh"

command -v chromium >/dev/null 2>&1 || { echo "1..0 # SKIP chromium is not installed"; exit 0; }
httpd_start --pages 8 --log "$T/req.log" || httpd_start --pages 8 --log "$T/req.log" ||
	{ echo "1..0 # SKIP the test server did not start"; exit 0; }
export CHROME_SANDBOX=false TIMEOUT=60
# under the sanitizers, their reports (the keeper's stderr is its own
# log, removed with it) go to files checked at the end
[ -n "${ASAN_OPTIONS:-}" ] && export ASAN_OPTIONS="$ASAN_OPTIONS:log_path=$T/sanitizer"
[ -n "${UBSAN_OPTIONS:-}" ] && export UBSAN_OPTIONS="$UBSAN_OPTIONS:log_path=$T/sanitizer"

# keepers DIR: the pids of DIR's keepers (cwd locks/chrome.*, ABX_KEPT set)
keepers() {
	for _p in $(procs_in "$1/locks"); do
		case $(readlink "/proc/$_p/cwd" 2>/dev/null) in */locks/chrome.*) ;; *) continue ;; esac
		tr '\0' '\n' 2>/dev/null <"/proc/$_p/environ" | grep -q '^ABX_KEPT=' && echo "$_p"
	done
}
# children PID: its children's pids
children() { cat "/proc/$1/task/$1/children" 2>/dev/null; }
# starttime PID: field 22 of /proc/PID/stat
starttime() {
	_st=
	{ read -r _st <"/proc/$1/stat"; } 2>/dev/null
	# shellcheck disable=SC2086 # the fields after comm
	set -- ${_st##*") "}
	echo "${20:-}"
}
# sample DIR: until $T/stop exists, "KEEPER BROWSER STARTTIME PROXY" lines
# into DIR.seen, one for each keeper's browser, every 0.1 s
sample() {
	: >"$1.seen"
	while [ ! -e "$T/stop" ]; do
		for _k in $(keepers "$1"); do
			for _b in $(children "$_k"); do
				# the browser is the child on the pipe (not a fork
				# caught before its exec, nor a helper of chromium's
				# the keeper may have been left as parent of)
				_cl=$(tr '\0' '\n' 2>/dev/null <"/proc/$_b/cmdline")
				case $_cl in *--remote-debugging-pipe*) ;; *) continue ;; esac
				_px=$(printf '%s\n' "$_cl" | grep -e '^--proxy-server=' | head -n 1)
				_bs=$(starttime "$_b")
				# (a process caught ending has no stat left)
				[ -n "$_bs" ] && echo "$_k $_b $_bs ${_px:-?}"
			done
		done >>"$1.seen"
		sleep 0.1
	done
}
# crawl DIR URL...: the URLs at depth 0, one slot, chrome alone, sampled
crawl() {
	_d=$1
	shift
	rm -f "$T/stop"
	: >"$T/req.log"
	sample "$_d" &
	_sp=$!
	abx-add -d "$_d" --depth 0 --plugins chrome --config CRAWL_MAX_CONCURRENT_SNAPSHOTS=1 "$@" >/dev/null &&
		abx-tick -d "$_d" >"$_d.out" 2>"$_d.err"
	_rc=$?
	touch "$T/stop"
	wait "$_sp"
	return $_rc
}
nbrowsers() { awk '{ print $2, $3 }' "$1.seen" | sort -u | grep -c .; }
nkeepers() { awk '{ print $1 }' "$1.seen" | sort -u | grep -c .; }
chrome() { abx-ls -d "$1" -k result --jsonl | jq -r "select(.plugin == \"chrome\") | .$2"; }
# all_ok DIR N: N chrome results, all succeeded (else their errors, as diagnostics)
all_ok() {
	is "$(chrome "$1" status | sort | uniq -c | tr -s ' ')" " $2 succeeded" "the chrome hook succeeded for every page"
	[ "$(chrome "$1" status | grep -c succeeded)" = "$2" ] ||
		diag "$(abx-ls -d "$1" -k result --jsonl | jq -r 'select(.status != "succeeded") | "\(.status): \(.error) \(.notes)"')"
}
# kept DIR: the chromium pids the chrome hooks name on stderr, one a snapshot
kept() { cat "$1"/crawls/*/*/chrome/on_Snapshot__29_chrome.stderr.log | sed -n 's/^chromium \([0-9]*\), kept by .*/\1/p'; }
# nothing_left DIR: no process of DIR's, no keeper's directory, no lock held
nothing_left() {
	none_in "$1" || return 1
	! ls -d "$1"/locks/chrome.* >/dev/null 2>&1 || return 1
	for _f in "$1"/locks/*; do flock -n -x "$_f" true || return 1; done
}
# files SNAPDIR: does its chrome/ have every file, title.txt TITLE?
files() {
	for _f in output.html screenshot.png output.pdf title.txt headers.json capture.warc.gz .run; do
		[ -s "$1/chrome/$_f" ] || { diag "no $1/chrome/$_f"; return 1; }
	done
}
titles_ok() {
	for _s in $(abx-ls -d "$1" -k snapshot --jsonl | jq -r .id); do
		_sd=$(abx-ls -d "$1" "$_s" | jq -r '"'"$1"'/crawls/\(.crawl_id)/\(.id)"')
		_u=$(abx-ls -d "$1" "$_s" | jq -r .url)
		_i=${_u##*/p}
		_i=${_i%.html}
		files "$_sd" || return 1
		[ "$(cat "$_sd/chrome/title.txt")" = "Generated page $_i" ] ||
			{ diag "$_u: title '$(cat "$_sd/chrome/title.txt")'"; return 1; }
	done
}
gen() { for _i in "$@"; do echo "$BASE/gen/p$_i.html"; done; }

# 1. six pages, one worker: one browser
ok "a crawl of six pages at one slot" crawl "$T/a" $(gen 0 1 2 3 4 5)
all_ok "$T/a" 6
ok "every snapshot has all its files and its page's title" titles_ok "$T/a"
is "$(nkeepers "$T/a")" 1 "one keeper"
is "$(nbrowsers "$T/a")" 1 "one browser for the six snapshots"
[ "$(nbrowsers "$T/a")" = 1 ] || diag "$(sort -u "$T/a.seen")"
is "$(kept "$T/a" | sort -u | tr '\n' ' ')" "$(awk '{ print $2 }' "$T/a.seen" | sort -u | tr '\n' ' ')" \
	"each snapshot names that browser, the keeper's child"
is "$(kept "$T/a" | grep -c .)" 6 "through the kept browser, each of the six"
is "$(grep -c 'started for this snapshot' "$T"/a/crawls/*/*/chrome/*.stderr.log | awk -F: '{ s += $2 } END { print s }')" 1 \
	"started for the first snapshot only"
ok "the worker ended: no keeper, browser or lock is left" nothing_left "$T/a"
# the browser's own proxy: a port on 127.0.0.1 that refuses every connection
px=$(awk '{ print $4 }' "$T/a.seen" | sort -u | head -n 1)
like "$px" '^--proxy-server=http://127\.0\.0\.1:[0-9]+$' "the kept browser's own proxy is on 127.0.0.1 ($px)"
is "$(grep -c -x -e '/gen/p[0-5]\.html' "$T/req.log")" 6 "each page was asked for once"

# 2. the browser killed mid-crawl (slow pages): started again, the page retried
# kill_when DIR PATTERN WHO: once PATTERN is in the server's log, kill -9
# the keeper's browser (WHO=browser) or the keeper (WHO=keeper) at once
# (the keeper is looked for before); its pid to DIR.killed
kill_when() {
	: >"$1.killed"
	_k=
	_i=0
	while [ $_i -lt 1200 ] && [ ! -s "$1.killed" ]; do
		[ -n "$_k" ] && kill -0 "$_k" 2>/dev/null || _k=$(keepers "$1" | head -n 1)
		if [ -n "$_k" ] && grep -q -e "$2" "$T/req.log"; then
			if [ "$3" = keeper ]; then
				kill -9 "$_k" && echo "$_k" >"$1.killed"
			else
				for _b in $(children "$_k"); do kill -9 "$_b" && echo "$_b" >"$1.killed"; done
			fi
		fi
		sleep 0.05
		_i=$((_i + 1))
	done
}
slow() { for _i in "$@"; do echo "$BASE/slow?s=5&i=$_i"; done; }
kill_when "$T/k" '^/slow?s=5&i=2$' browser &
kp=$!
ok "a crawl of four slow pages" crawl "$T/k" $(slow 1 2 3 4)
wait "$kp"
ok "the kept browser was killed during the second page ($(cat "$T/k.killed"))" test -s "$T/k.killed"
all_ok "$T/k" 4
like "$(chrome "$T/k" notes)" "chromium died during the capture \(chromium exited \(137\)" "the second's notes say its browser died"
is "$(grep -c -x -e '/slow?s=5&i=2' "$T/req.log")" 2 "that page was asked for once more, not more"
is "$(nbrowsers "$T/k")" 2 "two browsers in all: the one killed, and one started again"
is "$(nkeepers "$T/k")" 1 "by the one keeper"
ok "the worker ended: nothing is left" nothing_left "$T/k"

# 3. the keeper killed mid-crawl: a new one, with a new browser
kill_when "$T/q" '^/slow?s=5&i=2$' keeper &
kp=$!
ok "a crawl of four slow pages" crawl "$T/q" $(slow 1 2 3 4)
wait "$kp"
ok "the keeper was killed during the second page ($(cat "$T/q.killed"))" test -s "$T/q.killed"
all_ok "$T/q" 4
like "$(chrome "$T/q" notes)" "chromium died during the capture" "the second's notes say its browser was lost"
is "$(nkeepers "$T/q")" 2 "a second keeper took over"
is "$(nbrowsers "$T/q")" 2 "with a browser of its own"
ok "the worker ended: nothing is left, the orphaned browser neither" nothing_left "$T/q"

# 4. the worker killed mid-crawl: its keeper and browser end with it
abx-add -d "$T/w" --depth 0 --plugins chrome --config CRAWL_MAX_CONCURRENT_SNAPSHOTS=1 $(slow 5 6 7) >/dev/null
: >"$T/req.log"
abx-tick -d "$T/w" >"$T/w.out" 2>"$T/w.err" &
tp=$!
wait_for 120 grep -q -e '^/slow?s=5&i=6$' "$T/req.log"
k=$(keepers "$T/w")
b=$(children "$k")
ok "a keeper ($k) and its browser ($b) run mid-crawl" test -n "$k" -a -n "$b"
w=$(awk '{ print $4 }' "/proc/$k/stat" 2>/dev/null)
like "$(tr '\0' ' ' 2>/dev/null <"/proc/$w/cmdline")" "abx-hook -d .* --serve" "its parent is the worker ($w)"
kill -9 "$w"
ok "the keeper ends with its worker" wait_for 30 sh -c "! kill -0 $k 2>/dev/null"
ok "and so does its browser" wait_for 30 sh -c "! kill -0 $b 2>/dev/null"
wait "$tp"
ok "the tick finished the crawl with another worker: nothing is left" nothing_left "$T/w"

# 5. a page redirected to a private address, through the kept browser
python3 "$TOP/tests/lib/gatesite.py" "$T/gport" "$T/gsite.log" 0.0.0.0 2>"$T/gsite.err" &
i=0
while [ ! -s "$T/gport" ] && [ $i -lt 400 ]; do sleep 0.05; i=$((i + 1)); done
if [ -s "$T/gport" ]; then
	G=http://127.0.0.1:$(cat "$T/gport")
	ok "a crawl of a page with private requisites, then one that redirects to a private address" \
		crawl "$T/g" "$G/page" "$G/away"
	sealed() { abx-ls -d "$T/g" -k snapshot --jsonl | jq -r "select(.url == \"$1\") | .sealed_reason"; }
	is "$(sealed "$G/away")" network_zone "the redirected page is sealed network_zone"
	is "$(sealed "$G/page")" archived "the other is archived"
	is "$(grep -c -e '^0\.0\.0\.0' -e '^\[::ffff' "$T/gsite.log")" 0 "nothing on 0.0.0.0 was fetched"
	like "$(chrome "$T/g" notes)" "egress gate refused .*unspecified" "the gate refused the kept browser's requests"
	is "$(kept "$T/g" | sort -u | grep -c .)" 1 "both snapshots went through one kept browser"
	is "$(nbrowsers "$T/g")" 1 "one browser"
	gp=$(awk '{ print $4 }' "$T/g.seen" | sort -u | head -n 1)
	gp=${gp##*:}
	ok "its own proxy (127.0.0.1:$gp) refuses connections: a context's proxy, the gate, won" \
		sh -c "! curl -s -m 5 -o /dev/null http://127.0.0.1:$gp/"
	ok "nothing is left" nothing_left "$T/g"
else
	pass "# SKIP the gate test site did not start"
fi

# 6. CHROME_KEEP=false: a browser a snapshot, as before
CHROME_KEEP=false
export CHROME_KEEP
crawl "$T/n" $(gen 6 7)
unset CHROME_KEEP
all_ok "$T/n" 2
is "$(nkeepers "$T/n")$(kept "$T/n" | grep -c .)" 00 "by browsers of their own, no keeper"

ok "no sanitizer report" test -z "$(cat "$T"/sanitizer* 2>/dev/null)"
[ -z "$(cat "$T"/sanitizer* 2>/dev/null)" ] || diag "$(cat "$T"/sanitizer* | head -c 2000)"

done_testing
