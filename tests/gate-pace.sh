#!/bin/sh
# Pacing counts what the server sees (abx-gate(1) PACING, lib/net/gatepace.c):
# every connection abx's fetchers make goes through the egress gate, which
# lets a host have at most HOST_MAX_CONCURRENT of them open at once, across
# the gates of every slot and tick on the data directory.  The test site
# (tests/lib/pacesite.py) counts the connections it has open at once, and
# answers every request 0.2 s late so that fetchers side by side overlap.
. "$(dirname "$0")/lib/tap.sh"
. "$(dirname "$0")/lib/procs.sh"

python3 "$TOP/tests/lib/pacesite.py" serve "$T/port" "$T/max" "$T/site.log" 2>"$T/site.err" &
SITE=$!
i=0
while [ ! -s "$T/port" ] && [ $i -lt 400 ]; do sleep 0.05; i=$((i + 1)); done
[ -s "$T/port" ] || { echo "1..0 # SKIP the test site did not start: $(head -c 300 "$T/site.err")"; exit 0; }
P=$(cat "$T/port")
BASE=http://127.0.0.1:$P
PL=wget,title,favicon,headers
# chromium too, once: its connections go through the gate as well
if command -v chromium >/dev/null 2>&1; then PLC=$PL,chrome; else PLC=$PL; fi
export CHROME_SANDBOX=false TIMEOUT=60

# crawl DIR MAX [PLUGINS]: three pages with PLUGINS ($PL), three slots,
# HOST_MAX_CONCURRENT=MAX; the most connections the site then had open at
# once is in $T/DIR.max
crawl() {
	kill -USR1 "$SITE"
	sleep 0.2
	abx-add -d "$T/$1" --depth 0 --plugins "${3:-$PL}" --config CRAWL_MAX_CONCURRENT_SNAPSHOTS=3 \
		--config HOST_MAX_CONCURRENT="$2" "$BASE/page?a=$1" "$BASE/page?b=$1" "$BASE/page?c=$1" >/dev/null &&
		abx-tick -d "$T/$1" >"$T/$1.out" 2>"$T/$1.err"
	_rc=$?
	cp "$T/max" "$T/$1.max"
	return $_rc
}
sealed() { abx-ls -d "$T/$1" -k snapshot --jsonl | jq -r .sealed_reason | sort | uniq -c | tr -s ' ' | tr '\n' ' '; }
paced() { abx-ls -d "$T/$1" -k result --jsonl | jq -r 'select(.notes // "" | test("gave up")) | .plugin'; }

ok "a crawl of 3 pages in 3 slots with HOST_MAX_CONCURRENT=1 ($PLC)" crawl one 1 "$PLC"
is "$(cat "$T/one.max")" 1 "the site never had more than 1 connection from abx open at once"
is "$(sealed one)" " 3 archived " "the crawl completes: every page archived"
is "$(paced one)" "" "and no connection was given up"
ok "(the site was asked for the pages)" grep -q '^/page?c=one' "$T/site.log"
ok "the pacing's state is in the data directory's locks/" test -f "$T/one/locks/conn/127.0.0.1%3A$P/slot-0"
is "$(stat -c %a "$T/one/locks/conn/127.0.0.1%3A$P/slot-0")" 600 "a slot file is 0600"
ok "no gate is left" none_in "$T/one"

ok "the same crawl with HOST_MAX_CONCURRENT=2" crawl two 2
like "$(cat "$T/two.max")" '^[12]$' "the site never had more than 2 open at once ($(cat "$T/two.max"))"
is "$(sealed two)" " 3 archived " "every page archived"

ok "the same crawl with HOST_MAX_CONCURRENT=8 (the control)" crawl eight 8
ok "without the limit the fetchers overlap ($(cat "$T/eight.max") at once): the site can tell" \
	test "$(cat "$T/eight.max")" -gt 2

# abx-gate by hand, on its own data directory: --pace 1
abx-add -d "$T/h" --depth 0 "$BASE/other" >/dev/null
KEY="127.0.0.1%3A$P"
# gate NAME FD [ARGS]: start abx-gate --pace 1 --data $T/h, its stdin a
# fifo held open on FD; its address in $G, its pid in $GPID
gate() {
	_g=$1 _gfd=$2
	shift 2
	mkfifo "$T/$_g.in"
	abx-gate --allow loopback --pace 1 --data "$T/h" "$@" <"$T/$_g.in" >"$T/$_g.out" 2>"$T/$_g.err" &
	GPID=$!
	eval "exec $_gfd>\"\$T/\$_g.in\""
	_i=0
	while [ ! -s "$T/$_g.out" ] && [ $_i -lt 200 ]; do sleep 0.05; _i=$((_i + 1)); done
	G=$(head -n 1 "$T/$_g.out")
}
# code PROXY PATH: the status of a GET through PROXY
code() { curl -s -o /dev/null -w '%{http_code}' --max-time 40 -x "http://$1" "$BASE$2"; }
# until FILE TEXT: wait (20 s at most) for FILE to hold TEXT
until_has() { _i=0; while ! grep -q "$2" "$1" 2>/dev/null && [ $_i -lt 400 ]; do sleep 0.05; _i=$((_i + 1)); done; }

gate a 5 --pace-wait 2
GA=$G
code "$GA" "/slow?s=5" >"$T/slow.code" &
slow=$!
until_has "$T/site.log" "^/slow?s=5"
curl -s -D "$T/h503" -o "$T/b503" --max-time 40 -x "http://$GA" "$BASE/other"
like "$(head -n 1 "$T/h503")" "^HTTP/1.1 503" "a second connection to the host, while the first is busy past --pace-wait: 503"
like "$(cat "$T/h503")" "X-Abx-Gate: paced host=$KEY max=1" "its X-Abx-Gate header says pacing, the host and the limit"
like "$(cat "$T/b503")" "HOST_MAX_CONCURRENT=1" "its body says why"
wait $slow
is "$(cat "$T/slow.code")" 200 "the first is answered"
sleep 0.2
like "$(sed -n 2p "$T/a.out")" '"paced":1' "the log has a line for it, a pacing one ($(sed -n 2p "$T/a.out"))"
is "$(sed -n 2p "$T/a.out" | grep -c zone)" 0 "not a zone refusal"
is "$(code "$GA" /other)" 200 "once the first has closed, the host is served"

# a kept-alive tunnel that sits idle yields its slot to a waiter
gate b 6 --pace-wait 30
GB=$G
python3 "$TOP/tests/lib/pacesite.py" tunnel "$GB" "127.0.0.1:$P" idle "$T/tun1" 2>"$T/tun1.err" &
tun=$!
until_has "$T/tun1" ready
is "$(code "$GB" /other)" 200 "a connection that waits while an idle tunnel holds the slot is served"
wait $tun
is "$(cat "$T/tun1")" closed "the idle tunnel was closed to make room"

# a tunnel whose client asked last (waiting for an answer) keeps it
gate c 7 --pace-wait 2
GC=$G c_pid=$GPID
python3 "$TOP/tests/lib/pacesite.py" tunnel "$GC" "127.0.0.1:$P" asking "$T/tun2" 2>"$T/tun2.err" &
tun=$!
until_has "$T/tun2" ready
is "$(code "$GC" /other)" 503 "a tunnel waiting for its answer is not cut for a waiter"
kill "$tun"
exec 7>&-
wait "$c_pid"

# kill -9 of a gate holding a slot frees it
gate d 8 --pace-wait 30
GD=$G d_pid=$GPID
child=$(tr -d ' ' <"/proc/$d_pid/task/$d_pid/children")
code "$GD" "/slow?s=20" >/dev/null &
held=$!
until_has "$T/site.log" "^/slow?s=20"
ok "the slot is held meanwhile" sh -c "! flock -n '$T/h/locks/conn/$KEY/slot-0' true"
kill -9 "$child"
wait $held
ok "killed with -9, the gate's slot is free at once" flock -n "$T/h/locks/conn/$KEY/slot-0" true
is "$(code "$GA" /other)" 200 "another gate is served at once (its --pace-wait is 2 s)"
printf 'HOST_MAX_CONCURRENT=1\n' >"$T/h/abx.conf"
ok "and a crawl on the data directory runs" crawl h 1
is "$(sealed h)" " 4 archived " "its pages are archived"
is "$(paced h)" "" "nothing given up"

# what the gate is given, and checks
expect_exit 64 "--pace without --data is a usage error" abx-gate --pace 1
like "$(cat "$T/stderr")" "go together" "which says so"
expect_exit 64 "--pace 0: usage error" abx-gate --pace 0 --data "$T/h"
expect_exit 64 "--pace 65: usage error" abx-gate --pace 65 --data "$T/h"
expect_exit 64 "a --data that is no directory: exit 64" abx-gate --pace 2 --data "$T/nowhere"
like "$(cat "$T/stderr")" "nowhere: cannot open" "and it says so"
mkdir -p "$T/nolocks"
like "$(abx-gate --pace 2 --data "$T/nolocks" 2>&1 </dev/null)" "not a data directory" "a directory without locks/ is not one"
mkdir -p "$T/open/locks" && chmod 777 "$T/open/locks"
like "$(abx-gate --pace 2 --data "$T/open" 2>&1 </dev/null)" "others may write" "nor is one whose locks/ others may write in"

exec 5>&- 6>&- 7>&- 8>&-
kill "$SITE" 2>/dev/null
done_testing
