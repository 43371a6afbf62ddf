#!/bin/sh
# Locks a reader cannot hold hostage (abx(7) FILES): locks/ is 0700 (an
# older abx's 0755 is tightened by the next tool that takes the store lock),
# so that another user, even one the data directory is opened to, cannot
# open a lock file and flock it; readers take no lock, so a held store lock
# does not stop abx-ls; and a tool that waits for the store lock more than
# 3 seconds says so once on stderr, naming the lock file and its holder.
. "$(dirname "$0")/lib/tap.sh"
D=$T/data
abx-add -d "$D" http://127.0.0.1:1/a >/dev/null
is "$(stat -c %a "$D/locks")" 700 "locks/ is 0700"
chmod 755 "$D/locks"
chmod 644 "$D/locks/store.lock"
abx-add -d "$D" http://127.0.0.1:1/b >/dev/null
is "$(stat -c %a "$D/locks")" 700 "a locks/ left 0755 is 0700 after the next writer"

if command -v setpriv >/dev/null 2>&1 && [ "$(id -u)" -eq 0 ]; then
	chmod 755 "$T" "$D"    # the user opens the data directory to others
	chmod 644 "$D/locks/store.lock"
	ok "another user cannot open the store lock to hold it" \
		sh -c "! setpriv --reuid=nobody --regid=nogroup --clear-groups -- \
			flock -n '$D/locks/store.lock' true 2>/dev/null"
else
	pass "# SKIP another user: needs root and setpriv(1)"
fi

# the owner's own flock(1) holds the lock: readers go on, writers wait and say so
flock -o "$D/locks/store.lock" sleep 30 &    # -o: flock(1) alone holds it
holder=$!
wait_for 5 sh -c "grep -q FLOCK /proc/locks && ! flock -n '$D/locks/store.lock' true"
start=$(date +%s)
ok "abx-ls does not wait for a held store lock" sh -c "timeout 5 abx-ls -d '$D' >/dev/null"
ok "abx-ctl status does not wait for it either" sh -c "timeout 5 abx-ctl -d '$D' status >/dev/null"
abx-add -d "$D" http://127.0.0.1:1/c >"$T/add.out" 2>"$T/add.err" &
adder=$!
wait_for 10 grep -q "waiting for the lock" "$T/add.err"
lpid=$(sed -n 's/.*held by pid \([0-9]*\).*/\1/p' "$T/add.err")
like "$(cat "$T/add.err")" "abx-add: warning: waiting for the lock $D/locks/store.lock, held by pid [0-9]+" \
	"a writer that waits says so, naming the lock file and the holder's pid"
is "$lpid" "$holder" "... the pid of flock(1), which holds it"
ok "... after about 3 seconds" test $(($(date +%s) - start)) -ge 2
child=$(cat "/proc/$holder/task/$holder/children")
kill "$child" "$holder"
wait "$adder"
is "$?" 0 "the writer goes on once the lock is free"
is "$(grep -c "waiting for the lock" "$T/add.err")" 1 "... having said it once"
is "$(abx-ls -d "$D" -k snapshot --jsonl | jq -r .url | sort | tr '\n' ' ')" \
	"http://127.0.0.1:1/a http://127.0.0.1:1/b http://127.0.0.1:1/c " "its snapshot is queued"
done_testing
