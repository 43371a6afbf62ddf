#!/bin/sh
# store-xhost-index.sh — an index written by another boot (another host
# on a shared filesystem, or this host before a reboot) is reused when its
# chain of marks checks, not rebuilt (lib/store/index.c): two boot ids
# ($ABX_TEST_BOOT_ID) alternating on one data directory keep one index
# file, only appended to; one with a hole (bytes zeroed, or cut out), or
# whose lines no mark vouches for (an older abx's), is rebuilt; an older
# whole version of it is caught up from the journals, the crawl added
# since included.  Every state is checked against the journals' truth: a
# copy of the data directory without its index, which abx-ls replays.
# shellcheck source-path=SCRIPTDIR source=lib/tap.sh
. "$(dirname "$0")/lib/tap.sh"
ABX_SYNC=0
export ABX_SYNC
D=$T/d
I=$D/index/active.jsonl
as() { _b=$1; shift; ABX_TEST_BOOT_ID=$_b "$@"; }
ino() { stat -c %i "$I"; }
hdr() { head -n 1 "$I" | jq -r .boot_id; }
# what abx-ls says (records active or not), and what the journals say
view() { as "$1" abx-ls -d "$2" -k "$3" --jsonl | jq -r '[.id, .status] | @tsv' | sort; }
truth() {
	rm -rf "$T/truth"
	cp -a "$D" "$T/truth"
	rm -f "$T/truth/index/active.jsonl"
	view boot-t "$T/truth" "$1"
}
# the index's own say: the last line of each id, without the gone ones
live() { jq -r 'select(.id) | [.id, (.type // ""), (.status // ""), (.gone // 0)] | @tsv' "$I" |
	awk -F '\t' '{ t[$1] = $2; s[$1] = $3; g[$1] = $4 }
		END { for (i in s) if (g[i] == 0 && t[i] == "Snapshot") print i "\t" s[i] }' | sort; }
active_truth() { view boot-t "$T/truth" snapshot | awk -F '\t' '$2 == "queued" || $2 == "started"'; }
same() {   # DESC BOOT
	is "$(view "$2" "$D" snapshot)" "$(truth snapshot)" "$1: snapshots as the journals say"
	is "$(view "$2" "$D" crawl)" "$(truth crawl)" "$1: crawls as the journals say"
}

as boot-a abx-add -d "$D" http://127.0.0.1:1/a0 >/dev/null || { echo "Bail out! abx-add failed"; exit 1; }
is "$(hdr)" boot-a "the index names the boot that made it"
I0=$(ino)
grew=yes
cp "$I" "$T/prev"
for k in 1 2 3 4 5 6; do
	b=boot-b
	[ $((k % 2)) -eq 0 ] && b=boot-a
	as $b abx-add -d "$D" "http://127.0.0.1:1/$b-$k" >/dev/null || fail "abx-add $k"
	as $b abx-claim -d "$D" -k snapshot -l 600 >/dev/null || fail "abx-claim $k"
	# appended to, never rewritten: the file read before is its start
	cmp -s "$T/prev" "$I" 2>/dev/null || cmp -n "$(stat -c %s "$T/prev")" "$T/prev" "$I" >/dev/null || grew=no
	cp "$I" "$T/prev"
done
is "$(ino)" "$I0" "two boots alternating on the lock, six times each way: one index file (no rebuild)"
is "$grew" yes "... only appended to"
is "$(hdr)" boot-a "... which still names the boot that made it"
is "$(grep -c '"type":"Index"' "$I")" 7 "... with a boot line at each change of writer"
same "after the alternation, read by boot-a" boot-a
same "... read by boot-b" boot-b
same "... read by a third boot" boot-c
is "$(ino)" "$I0" "readers of other boots write nothing"
truth snapshot >/dev/null
is "$(live)" "$(active_truth)" "the index file's last line of each snapshot is what the journals say"

# A hole in another boot's index: a range of it zeroed (a power loss that
# kept the file's size but not all of its data), then lines cut out of it.
# Either is found by the first mark after it, and the index is rebuilt.
hole() {   # DESC BOOT
	is "$(view "$2" "$D" snapshot)" "$(truth snapshot)" "$1: a reader sees the journals' truth"
	I1=$(ino)
	as "$2" abx-claim -d "$D" -k snapshot -l 600 >/dev/null
	is "$(hdr)" "$2" "$1: the lock holder rebuilt the index"
	ok "... a new file" test "$(ino)" != "$I1"
	same "$1, rebuilt" "$2"
	truth snapshot >/dev/null
	is "$(live)" "$(active_truth)" "$1: the rebuilt index file says what the journals say"
}
as boot-b abx-add -d "$D" http://127.0.0.1:1/h1 http://127.0.0.1:1/h2 >/dev/null
as boot-b abx-add -d "$D" http://127.0.0.1:1/h3 >/dev/null
cp "$I" "$T/whole"
size=$(stat -c %s "$I")
dd if=/dev/zero of="$I" bs=1 seek=$((size / 2)) count=200 conv=notrunc 2>/dev/null
hole "200 bytes zeroed in the middle" boot-c
as boot-c abx-add -d "$D" http://127.0.0.1:1/h4 >/dev/null
n=$(wc -l <"$I")
sed -n "1,$((n / 2 - 1))p; $((n / 2 + 2)),\$p" "$I" >"$T/cut"
cat "$T/cut" >"$I"
hole "two lines cut out of the middle" boot-d

# An older whole version of another boot's index (a compaction's rename
# lost): it checks, it is reused, and what the journals gained since is
# replayed, the crawl added since (a journal it does not name) included.
as boot-d abx-add -d "$D" http://127.0.0.1:1/o1 >/dev/null
cp "$I" "$T/old"
as boot-d abx-add -d "$D" --depth 0 http://127.0.0.1:1/o2 http://127.0.0.1:1/o3 >/dev/null
as boot-d abx-claim -d "$D" -k snapshot -l 600 >/dev/null
cat "$T/old" >"$I"
I1=$(ino)
same "an older version of boot-d's index read by boot-e" boot-e
like "$(as boot-e abx-ls -d "$D" -k snapshot -s queued --jsonl | jq -r .url)" "127.0.0.1:1/o3" \
	"... the crawl added since has its snapshots listed"
as boot-e abx-claim -d "$D" -k snapshot -l 600 >/dev/null
is "$(ino)" "$I1" "... the lock holder reused it (one file)"
same "... caught up under the lock" boot-e
truth snapshot >/dev/null
is "$(live)" "$(active_truth)" "... its file then says what the journals say"

# An index of an older abx: no marks.  Another boot rebuilds it; its own
# boot goes on with it, as before.
as boot-e abx-ctl -d "$D" repair >/dev/null 2>&1
is "$(hdr)" boot-e "repair rebuilds the index"
sed 's/,"h":"[0-9a-f]*"}$/}/' "$I" >"$T/nomarks"
ok "the marks taken off" test "$(grep -c '"h":' "$T/nomarks")" -eq 0
cat "$T/nomarks" >"$I"
I1=$(ino)
hb=boot-e
as "$hb" abx-add -d "$D" http://127.0.0.1:1/m1 >/dev/null
is "$(ino)" "$I1" "an unmarked index of this boot is appended to"
same "... and read right" "$hb"
cat "$T/nomarks" >"$I"
as boot-f abx-claim -d "$D" -k snapshot -l 600 >/dev/null
is "$(hdr)" boot-f "an unmarked index of another boot is rebuilt"
same "... and read right" boot-f

# Lines after the last mark (a lean worker's, or an older abx's) are not
# vouched for: another boot's lock holder does not append after them, it
# rewrites the index from what the marks vouched for.
as boot-f abx-add -d "$D" http://127.0.0.1:1/t1 >/dev/null
grep '"type":"Snapshot"' "$I" | tail -n 1 >"$T/line"
cat "$T/line" >>"$I"
I1=$(ino)
same "an unvouched tail read by boot-g" boot-g
as boot-g abx-claim -d "$D" -k snapshot -l 600 >/dev/null
is "$(hdr)" boot-g "... the lock holder rewrote the index"
same "... and read right" boot-g
ok "... no warning from a reader of the new file" sh -c "ABX_TEST_BOOT_ID=boot-f abx-ls -d '$D' >/dev/null 2>'$T/err' && ! test -s '$T/err'"
done_testing
