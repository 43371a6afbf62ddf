#!/bin/sh
# Leases die with their holder: kill -9 of the holder's process group makes
# the item claimable at once; killing only abx-claim leaves CMD holding it.
. "$(dirname "$0")/lib/tap.sh"
plan 13
D=$T/data
abx-add -d "$D" http://127.0.0.1:1/a >/dev/null
ID=$(abx-ls -d "$D" -k snapshot | jq -r .id)

setsid abx-claim -d "$D" -i "$ID" sleep 100 &
pg=$!
ok "lease is taken" wait_for 5 abx-claim -d "$D" --test "$ID"
expect_exit 75 "a second claim of a held ID exits 75" abx-claim -d "$D" -i "$ID"
expect_exit 1 "the held item is not handed out as due" abx-claim -d "$D" -k snapshot
ok "cat locks/ID shows the holder" grep -q '"flock":true' "$D/locks/$ID"
kill -9 "-$pg"
wait "$pg" 2>/dev/null
ok "holder group gone" wait_for 5 sh -c "! pgrep -g $pg >/dev/null"
expect_exit 0 "claimable again at once after kill -9" abx-claim -d "$D" -i "$ID" -l 1
abx-claim -d "$D" --release "$ID"

# kill only abx-claim: CMD (sleep) still holds the flock
abx-claim -d "$D" -i "$ID" sleep 100 &
cpid=$!
ok "lease taken again" wait_for 5 abx-claim -d "$D" --test "$ID"
spid=$(pgrep -P "$cpid" sleep)
kill -9 "$cpid"
wait "$cpid" 2>/dev/null
expect_exit 0 "with abx-claim killed, CMD still holds the lease" abx-claim -d "$D" --test "$ID"
expect_exit 75 "and nobody else can claim it" abx-claim -d "$D" -i "$ID"
kill -9 "$spid"
ok "when CMD dies the lease frees" wait_for 5 sh -c "! abx-claim -d '$D' --test '$ID'"
expect_exit 0 "and the item is claimable" abx-claim -d "$D" -i "$ID" -l 1
abx-claim -d "$D" --release "$ID"

# abx-claim CMD: exit status and environment
# shellcheck disable=SC2016
abx-claim -d "$D" -i "$ID" sh -c 'echo "$ABX_KIND $ABX_ID $ABX_DIR"; exit 7' >"$T/env"
is "$?" 7 "abx-claim exits with CMD's status"
is "$(cat "$T/env")" "snapshot $ID $D" "CMD sees ABX_KIND, ABX_ID, ABX_DIR"
done_testing
