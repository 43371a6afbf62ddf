#!/bin/sh
# abx-claim -n COUNT: a group commit of up to COUNT claims, each exactly once.
. "$(dirname "$0")/lib/tap.sh"
D=$T/data
i=0
while [ $i -lt 10 ]; do echo "http://127.0.0.1:1/$i"; i=$((i + 1)); done | abx-add -d "$D" >/dev/null
abx-claim -d "$D" -n 4 >"$T/a"
is "$(wc -l <"$T/a" | tr -d ' ')" 4 "-n 4 claims four"
is "$(jq -r .url "$T/a" | tr '\n' ' ')" "http://127.0.0.1:1/0 http://127.0.0.1:1/1 http://127.0.0.1:1/2 http://127.0.0.1:1/3 " \
	"the oldest first, in order"
is "$(jq -r .status "$T/a" | sort -u)" started "each one started"
abx-claim -d "$D" -n 4 >"$T/b"
abx-claim -d "$D" -n 4 >"$T/c"
is "$(cat "$T/a" "$T/b" "$T/c" | jq -r .id | sort -u | wc -l | tr -d ' ')" 10 "all ten claimed once"
expect_exit 1 "then nothing is due" abx-claim -d "$D" -n 4
expect_exit 64 "-n with CMD is a usage error" abx-claim -d "$D" -n 2 true
expect_exit 64 "-n 0 is a usage error" abx-claim -d "$D" -n 0

# two batch claimers racing over 300 items
D2=$T/race
i=0
while [ $i -lt 300 ]; do echo "http://127.0.0.1:1/r$i"; i=$((i + 1)); done | ABX_SYNC=0 abx-add -d "$D2" >/dev/null
for w in 1 2; do
	(while abx-claim -d "$D2" -n 7 -l 3600 >>"$T/claims.$w"; do :; done) &
done
wait
is "$(cat "$T"/claims.* | jq -r .id | sort | uniq -d | wc -l | tr -d ' ')" 0 "no item claimed twice"
is "$(cat "$T"/claims.* | jq -r .id | sort -u | wc -l | tr -d ' ')" 300 "every item claimed"
done_testing
