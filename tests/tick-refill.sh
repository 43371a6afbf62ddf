#!/bin/sh
# A tick's refill takes the due snapshots in order (depth, then the order
# they were queued) and gives a slot that a waiting host cannot use to a
# snapshot of another host, however far down the queue it is: it sorts
# only the first few due snapshots (4 per free slot, plus 16) and the rest
# only when hosts that wait make it look further (tick/pool.c, base/topk.h).
# Here 26 pages of one host (the first takes 2 s, the others 0.05 s) come
# before 6 pages of another, with 2 slots and one request at a time per
# host.  With 2 free slots the refill sorts 24, so the other host's pages
# are found in the part sorted late: the first must start while the first
# host's first page still runs, and both hosts' pages must be fetched in
# the order they were queued.  The server records each request's host,
# start and end (tests/httpd.py --timing).
# shellcheck source-path=SCRIPTDIR source=lib/tap.sh
. "$(dirname "$0")/lib/tap.sh"
# shellcheck source-path=SCRIPTDIR source=lib/httpd.sh
. "$(dirname "$0")/lib/httpd.sh"
plan 6
httpd_start --timing "$T/timing" || exit 1
D=$T/data
A="http://127.0.0.1:$HTTPD_PORT"
B="http://localhost:$HTTPD_PORT"

# the first page takes 2 s, so that the overlap does not hang on how fast
# two workers start on a loaded machine
C=$( (echo "$A/slow?s=2&a=1"; i=2; while [ "$i" -le 26 ]; do echo "$A/slow?s=0.05&a=$i"; i=$((i + 1)); done
	for i in 1 2 3 4 5 6; do echo "$B/slow?s=0.05&b=$i"; done) |
	abx-add -d "$D" --depth 0 --plugins headers --config CRAWL_MAX_CONCURRENT_SNAPSHOTS=2 \
		--config HOST_MAX_CONCURRENT=1 | jq -r .id)
ok "a crawl of 32 pages queued" test -n "$C"
expect_exit 0 "abx-tick runs it" abx-tick -d "$D" --crawl "$C"
is "$(grep -c '/slow' "$T/timing")" 32 "each page fetched once"

# the first request of 127.0.0.1 and the first of localhost overlap
a1_end=$(awk '$1 ~ /^127\.0\.0\.1:/ && $4 ~ /a=1$/ { print $3 }' "$T/timing")
b_start=$(awk '$1 ~ /^localhost:/ && $4 ~ /b=1$/ { print $2 }' "$T/timing")
ok "the other host's first page, 27th in the queue, started while the first host's first page ran" \
	awk -v s="${b_start:-x}" -v e="${a1_end:-0}" 'BEGIN { exit !(s != "x" && s < e) }'
order=$(awk '$1 ~ /^127\.0\.0\.1:/ { print $2, $4 }' "$T/timing" | sort -n | sed 's/.*a=//' | tr '\n' ' ')
is "$order" "1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23 24 25 26 " \
	"the first host's pages were fetched in the order they were queued"
order=$(awk '$1 ~ /^localhost:/ { print $2, $4 }' "$T/timing" | sort -n | sed 's/.*b=//' | tr '\n' ' ')
is "$order" "1 2 3 4 5 6 " "and the other host's, taken from the part of the queue sorted late, too"
