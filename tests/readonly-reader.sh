#!/bin/sh
# Readers need no write access (abx-ls(1), abx-ctl(1)): abx-ls, abx-ctl
# status, config and version take no lock and open nothing for writing, so
# they work on a data directory mounted read-only (a bind mount in a
# private mount namespace) and, as another user, on one they can only
# read; an index from another boot (stale) is replayed in memory, not
# rebuilt, and a torn last line of a journal is left out, not cut.
. "$(dirname "$0")/lib/mountns.sh"
. "$(dirname "$0")/lib/tap.sh"
D=$T/data
P=$T/plugins
mkdir -p "$P/ok"
cat >"$P/ok/on_Snapshot__10_ok.sh" <<'H'
#!/bin/sh
echo '{"type":"ArchiveResult","status":"succeeded","output_str":"fine"}'
H
chmod +x "$P/ok/on_Snapshot__10_ok.sh"
ABX_PLUGINS_DIR=$P
export ABX_PLUGINS_DIR
abx-add -d "$D" --plugins ok http://127.0.0.1:1/a http://127.0.0.1:1/b >/dev/null
abx-tick -d "$D" >/dev/null 2>&1
abx-add -d "$D" --plugins ok http://127.0.0.1:1/queued >/dev/null
ls_rw=$(abx-ls -d "$D" --jsonl | jq -c 'del(.modified_at)' | sort)
status_rw=$(abx-ctl -d "$D" status --jsonl 2>&1 | jq -c 'del(.now?)' | sort)
config_rw=$(abx-ctl -d "$D" config 2>&1)

RO=$T/ro
mkdir -p "$RO"
if ! mount --bind "$D" "$RO" 2>/dev/null || ! mount -o remount,bind,ro "$RO" 2>/dev/null; then
	echo "1..0 # SKIP cannot make a read-only bind mount here"
	exit 0
fi
ok "the mount is read-only" sh -c "! touch '$RO/x' 2>/dev/null"
ls_ro=$(abx-ls -d "$RO" --jsonl 2>"$T/err" | jq -c 'del(.modified_at)' | sort)
is "$ls_ro" "$ls_rw" "abx-ls on a read-only data directory lists what it lists read-write"
is "$(cat "$T/err")" "" "... and says nothing on stderr"
expect_exit 0 "abx-ls (table) on a read-only data directory" abx-ls -d "$RO"
st=$(abx-ctl -d "$RO" status --jsonl 2>&1 | jq -c 'del(.now?)' | sort)
is "$st" "$status_rw" "abx-ctl status on a read-only data directory"
is "$(abx-ctl -d "$RO" config 2>&1)" "$config_rw" "abx-ctl config on a read-only data directory"
expect_exit 0 "abx-ctl version on a read-only data directory" abx-ctl -d "$RO" version
expect_exit 0 "abx-ls -s queued (the active index) on a read-only data directory" \
	abx-ls -d "$RO" -k snapshot -s queued
is "$(abx-ls -d "$RO" -k snapshot -s queued --jsonl | jq -r .url)" "http://127.0.0.1:1/queued" \
	"... which finds the queued snapshot"

# an index of another boot: a reader replays the journals in memory
umount "$RO"
ABX_TEST_BOOT_ID=another-boot
export ABX_TEST_BOOT_ID
mount --bind "$D" "$RO" && mount -o remount,bind,ro "$RO"
is "$(abx-ls -d "$RO" -k snapshot -s queued --jsonl 2>&1 | jq -r .url)" "http://127.0.0.1:1/queued" \
	"an index from another boot: the queued snapshot found from the journals"
is "$(abx-ls -d "$RO" --jsonl 2>/dev/null | jq -c 'del(.modified_at)' | sort)" "$ls_rw" \
	"... and everything listed as before"
unset ABX_TEST_BOOT_ID

# a torn last line (a writer mid-write): left out by a reader, not cut
umount "$RO"
C=$(abx-ls -d "$D" -k crawl --jsonl | jq -r 'select(.status=="queued") | .id' | head -1)
J=$D/crawls/$C/snapshots.jsonl
size=$(stat -c %s "$J")
printf '{"type":"Snapshot","id":"0000' >>"$J"
mount --bind "$D" "$RO" && mount -o remount,bind,ro "$RO"
is "$(abx-ls -d "$RO" --jsonl 2>/dev/null | jq -c 'del(.modified_at)' | sort)" "$ls_rw" \
	"a torn last line is left out"
umount "$RO"
is "$(stat -c %s "$J")" "$((size + 29))" "... and left where it is"
truncate -s "$size" "$J"

# another user who may read (not write) the data directory
if command -v setpriv >/dev/null 2>&1 && [ "$(id -u)" -eq 0 ]; then
	chmod 755 "$T"
	chmod -R go+rX "$D" "$P"
	as_nobody() { setpriv --reuid=nobody --regid=nogroup --clear-groups -- "$@"; }
	out=$(as_nobody env HOME=/nonexistent PATH="$PATH" ABX_PLUGINS_DIR="$P" abx-ls -d "$D" --jsonl 2>"$T/err" |
		jq -c 'del(.modified_at)' | sort)
	is "$out" "$ls_rw" "abx-ls as another user who can only read"
	is "$(cat "$T/err")" "" "... with nothing on stderr"
	expect_exit 0 "abx-ctl status as another user" as_nobody env HOME=/nonexistent PATH="$PATH" \
		abx-ctl -d "$D" status
	expect_exit 0 "abx-ctl config as another user" as_nobody env HOME=/nonexistent PATH="$PATH" \
		ABX_PLUGINS_DIR="$P" abx-ctl -d "$D" config
else
	pass "# SKIP another user: needs root and setpriv(1)"
fi
done_testing
