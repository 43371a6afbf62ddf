#!/bin/sh
# Host pacing (hostpace.h): two crawls run by two concurrent ticks (one in
# its own UTS namespace: another host name, as another machine) on two
# host names of the test server never have more than HOST_MAX_CONCURRENT
# requests of one host in flight, leave HOST_DELAY between the end of one
# and the start of the next, and the other host runs meanwhile; a 429 with
# Retry-After: 2 pauses its host for 2 s and the page is then archived,
# while other hosts go on; the host state is readable JSON.  The server
# records each request's host, start and end (tests/httpd.py --timing).
. "$(dirname "$0")/lib/tap.sh"
. "$(dirname "$0")/lib/httpd.sh"
. "$(dirname "$0")/lib/tick-lib.sh"
httpd_start --timing "$T/timing" || exit 1
D=$T/data
mkdir -p "$D"
A="http://127.0.0.1:$HTTPD_PORT"
B="http://localhost:$HTTPD_PORT"
printf 'HOST_MAX_CONCURRENT=1\nHOST_DELAY=0.3\n' >"$D/abx.conf"

urls() { # urls TAG: four slow pages on each host
	for i in 1 2 3 4; do
		echo "$A/slow?s=0.2&$1=$i"
		echo "$B/slow?s=0.2&$1=$i"
	done
}
C1=$(urls a | abx-add -d "$D" --plugins headers --config CRAWL_MAX_CONCURRENT_SNAPSHOTS=4 | jq -r .id)
C2=$(urls b | abx-add -d "$D" --plugins headers --config CRAWL_MAX_CONCURRENT_SNAPSHOTS=4 | jq -r .id)
ok "two crawls of 8 URLs queued" test -n "$C1" -a -n "$C2"

abx-tick -d "$D" --crawl "$C1" 2>"$T/t1.err" &
p1=$!
# one tick per host and data directory: the second is "another machine"
# (its own UTS namespace and host name), as two machines sharing DIR
# shellcheck disable=SC2016
unshare -u sh -c 'hostname abx-other-host && exec abx-tick -d "$1" --crawl "$2"' sh "$D" "$C2" 2>"$T/t2.err" &
p2=$!
wait $p1
r1=$?
wait $p2
r2=$?
is "$r1 $r2" "0 0" "both ticks exit 0"; cat "$T/t1.err" "$T/t2.err"
is "$(nsnap "$D" sealed)" 16 "all 16 snapshots sealed"
is "$(grep -c '/slow' "$T/timing")" 16 "each page fetched once"

# per host: sorted by start, each request starts after the previous ended,
# at least HOST_DELAY later
check() { # check HOSTNAME: the first violation, or nothing
	awk -v h="$1" '$1 ~ "^" h ":" { print $2, $3, $4 }' "$T/timing" | sort -n |
		awk 'NR > 1 { if ($1 < end) print "overlap: " $3 " started " end - $1 "s before the previous ended";
		              else if ($1 - end < 0.3) print "gap " $1 - end "s < 0.3s before " $3 }
		     { end = $2 }'
}
is "$(check 127.0.0.1)" "" "127.0.0.1: one request at a time, 0.3 s apart, across both crawls and ticks"
is "$(check localhost)" "" "localhost: the same"
both=$(awk '{ print $1, $2, $3 }' "$T/timing" | awk '
	{ h[NR] = $1; s[NR] = $2; e[NR] = $3 }
	END { n = 0; for (i = 1; i <= NR; i++) for (j = 1; j <= NR; j++)
		if (h[i] != h[j] && s[i] < e[j] && s[j] < e[i]) n++; print (n > 0 ? "yes" : "no") }')
is "$both" yes "the other host's pages ran while one host waited"

key=$(printf '127.0.0.1%%3A%s' "$HTTPD_PORT")
jqok() { jq -e "$1" "$2" >/dev/null; }
ok "hosts/127.0.0.1%3APORT/slot-0 says, as JSON, when the host is next free" \
	jqok 'select(.state == "idle" and (.not_before_us | type) == "number")' "$D/hosts/$key/slot-0"
is "$(find "$D/hosts/$key" -name 'slot-*' | wc -l | tr -d ' ')" 1 "one slot file for HOST_MAX_CONCURRENT=1"

# 429 + Retry-After: 2 — the host pauses, the page runs again and is archived
: >"$T/timing"
printf 'HOST_MAX_CONCURRENT=2\n' >"$D/abx.conf"
C3=$( (echo "$A/ratelimit?key=x&n=1&ra=2"; for i in 1 2 3; do echo "$B/slow?s=0.3&c=$i"; done) |
	abx-add -d "$D" --plugins headers | jq -r .id)
expect_exit 0 "abx-tick runs the crawl with a 429 in it" abx-tick -d "$D" --crawl "$C3"
is "$(grep -c '/ratelimit' "$T/timing")" 2 "the 429 page was fetched twice"
gap=$(awk '$4 ~ /ratelimit/ { print $2, $3 }' "$T/timing" | sort -n | awk 'NR == 1 { e = $2 } NR == 2 { printf "%d", ($1 - e >= 2) }')
is "$gap" 1 "the second fetch came at least Retry-After (2 s) after the 429"
S=$(abx-ls -d "$D" -k snapshot --jsonl | jq -r 'select(.url | test("ratelimit")) | .id')
is "$(abx-ls -d "$D" "$S" | jq -r '"\(.status) \(.host_backoffs)"')" "sealed 1" "the page is sealed after one back-off"
is "$(jq -r .status "$(snapdir "$D" "$S")/headers/headers.json")" 200 "and archived as the server answered the second time"
early=$(awk '$4 ~ /ratelimit/ { print $3 }' "$T/timing" | sort -n | head -n 1)
others=$(awk -v t="$early" '$1 ~ /^localhost/ && $2 < t + 2 { n++ } END { print n + 0 }' "$T/timing")
ok "other hosts' pages ran during the pause ($others)" test "$others" -ge 1
ok "a good answer clears the host's back-off" test ! -e "$D/hosts/$key/pause"

# a host that keeps answering 429: sealed with the reason after HOST_BACKOFF_RETRIES
printf 'HOST_BACKOFF_RETRIES=1\nHOST_MAX_DELAY=1\n' >"$D/abx.conf"
C4=$(echo "$A/ratelimit?key=y&n=9&ra=1" | abx-add -d "$D" --plugins headers | jq -r .id)
expect_exit 0 "abx-tick runs a crawl whose host keeps answering 429" abx-tick -d "$D" --crawl "$C4"
S=$(abx-ls -d "$D" -k snapshot --jsonl | jq -r 'select(.url | test("key=y")) | .id')
is "$(abx-ls -d "$D" "$S" | jq -r .status)" sealed "sealed after one retry"
like "$(abx-ls -d "$D" "$S" | jq -r .notes)" "back off 2 times \\(HTTP 429, Retry-After: 1\\)" "its notes say why"

# a long pause: the tick does not wait for it; nothing is due meanwhile,
# and -n says when it will be
: >"$D/abx.conf"
C5=$(echo "$A/ratelimit?key=z&n=1&ra=60" | abx-add -d "$D" --plugins headers | jq -r .id)
expect_exit 0 "a tick meets a 429 with Retry-After: 60" abx-tick -d "$D" --crawl "$C5"
S=$(abx-ls -d "$D" -k snapshot --jsonl | jq -r 'select(.url | test("key=z")) | .id')
is "$(abx-ls -d "$D" "$S" | jq -r .status)" queued "the page is queued again, not sealed"
expect_exit 1 "the next tick finds nothing due" abx-tick -d "$D"
expect_exit 1 "abx-tick -n too" abx-tick -d "$D" -n
like "$(cat "$T/stderr")" "nothing is due now; the next, (Crawl|Snapshot) .*, is due at" "and says when it will be"
ok "the host's pause file says why" jqok 'select(.why == "HTTP 429, Retry-After: 60")' "$D/hosts/$key/pause"

# kill -9 of a tick that holds a host's only slot: the slot is free at
# once (its flock died with it), and another tick takes the crawl over
printf 'HOST_MAX_CONCURRENT=1\n' >"$D/abx.conf"
# (on localhost: 127.0.0.1 is still paused by the Retry-After: 60 above)
key=$(printf 'localhost%%3A%s' "$HTTPD_PORT")
C6=$(for i in 1 2 3; do echo "$B/slow?s=3&k=$i"; done | abx-add -d "$D" --plugins headers | jq -r .id)
abx-tick -d "$D" --crawl "$C6" 2>"$T/t6.err" &
kp=$!
running() { grep -q '"running"' "$D/hosts/$key/slot-0" 2>/dev/null; }
wait_for 10 running
ok "the first tick holds the host's slot" running
kill -9 "$kp" || diag "$(cat "$T/t6.err")"
wait "$kp" 2>/dev/null
ok "its flock died with it" flock -n "$D/hosts/$key/slot-0" true
# shellcheck disable=SC2016
unshare -u sh -c 'hostname abx-other-host && exec abx-tick -d "$1" --crawl "$2"' sh "$D" "$C6" >/dev/null 2>&1
is "$(abx-ls -d "$D" -k snapshot --jsonl | jq -r 'select(.url | test("k=")) | .status' | sort -u)" sealed \
	"another tick archived the crawl's pages"

# settings are checked
printf 'HOST_DELAY=soon\n' >"$D/abx.conf"
expect_exit 78 "a bad HOST_DELAY in abx.conf is refused with 78" abx-tick -d "$D"
like "$(cat "$T/stderr")" "HOST_DELAY=soon" "the message names the value"
done_testing
