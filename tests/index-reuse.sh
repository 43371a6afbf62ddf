#!/bin/sh
# index-reuse.sh — an index written in another boot (another host's, on a
# filesystem both mount; or this host's before a reboot) is used when
# every line of it is whole, and rebuilt from the journals only when it is
# not (store.h).  Shown on one filesystem: a copy of a data directory
# opened with another boot id ($ABX_TEST_BOOT_ID) is what a second host
# sees.  Whether the index was rebuilt is told by its header, which names
# the boot of the process that wrote it.
. "$(dirname "$0")/lib/tap.sh"
ABX_SYNC=0
export ABX_SYNC
A=$T/a
abx-add -d "$A" http://127.0.0.1:1/1 http://127.0.0.1:1/2 http://127.0.0.1:1/3 \
	http://127.0.0.1:1/4 http://127.0.0.1:1/5 >/dev/null ||
	{ echo "Bail out! abx-add failed"; exit 1; }
S1=$(ABX_TEST_BOOT_ID=boot-a abx-claim -d "$A" -k snapshot -l 600 | jq -r .id)
boot() { head -n 1 "$1/index/active.jsonl" | jq -r .boot_id; }
queued() { abx-ls -d "$1" -k snapshot -s queued --jsonl | jq -r .url | sort; }
want=$(queued "$A")
ABX_TEST_BOOT_ID=boot-a abx-ls -d "$A" -k snapshot >/dev/null   # its index names boot-a
abx-ctl -d "$A" repair >/dev/null 2>&1
ABX_TEST_BOOT_ID=boot-a abx-claim -d "$A" -k snapshot -i "$S1" -l 600 >/dev/null 2>&1
# the index now names boot-a: rewrite it so (the repair above ran in this boot)
ABX_TEST_BOOT_ID=boot-a abx-ctl -d "$A" repair >/dev/null 2>&1
is "$(boot "$A")" boot-a "the index names the boot that wrote it"

# 1. a whole index of another boot is used as it is
cp -a "$A" "$T/b"
ino=$(stat -c %i "$T/b/index/active.jsonl")
S2=$(ABX_TEST_BOOT_ID=boot-b abx-claim -d "$T/b" -k snapshot -l 600 | jq -r .id)
is "$(boot "$T/b")" boot-a "another boot's whole index is used, not rebuilt"
is "$(stat -c %i "$T/b/index/active.jsonl")" "$ino" "... the same file"
ok "... and the claim took a queued snapshot, not the claimed one" \
	sh -c "[ -n '$S2' ] && [ '$S2' != '$S1' ]"
is "$(abx-ls -d "$T/b" "$S2" | jq -r .status)" started "... which is started now"
cp -a "$A" "$T/r" && rm "$T/r/index/active.jsonl"
is "$(ABX_TEST_BOOT_ID=boot-b queued "$T/b" | wc -l | tr -d ' ')" 3 \
	"the reused index lists the three snapshots still queued"
is "$(queued "$T/r")" "$want" "a rebuilt index lists the four queued before the claim"

# 2. a tail it lost (a crash before its last lines reached the disk): used,
# and the journal lines it does not know are replayed
cp -a "$A" "$T/c"
IDX=$T/c/index/active.jsonl
lines=$(wc -l <"$IDX")
head -n $((lines - 2)) "$IDX" >"$T/cut" && cat "$T/cut" >"$IDX"
S3=$(ABX_TEST_BOOT_ID=boot-c abx-claim -d "$T/c" -k snapshot -l 600 | jq -r .id)
is "$(boot "$T/c")" boot-a "an index of another boot that lost its tail is used"
ok "... the journal's lines it lost are replayed: the claimed snapshot is not claimed again" \
	sh -c "[ -n '$S3' ] && [ '$S3' != '$S1' ]"

# 3. zeros where a block was lost: rebuilt
cp -a "$A" "$T/d"
IDX=$T/d/index/active.jsonl
dd if=/dev/zero of="$IDX" bs=1 seek=200 count=100 conv=notrunc 2>/dev/null
S4=$(ABX_TEST_BOOT_ID=boot-d abx-claim -d "$T/d" -k snapshot -l 600 | jq -r .id)
is "$(boot "$T/d")" boot-d "an index of another boot with zero bytes in it is rebuilt"
ok "... and the claim is right" sh -c "[ -n '$S4' ] && [ '$S4' != '$S1' ]"

# 4. a block of other bytes (a filesystem that exposed another file's old
# data after the crash) where lines were: rebuilt
cp -a "$A" "$T/e"
IDX=$T/e/index/active.jsonl
printf '%100s' '' | tr ' ' x | dd of="$IDX" bs=1 seek=200 conv=notrunc 2>/dev/null
S5=$(ABX_TEST_BOOT_ID=boot-e abx-claim -d "$T/e" -k snapshot -l 600 | jq -r .id)
is "$(boot "$T/e")" boot-e "an index of another boot with a line that does not parse is rebuilt"
ok "... and the claim is right" sh -c "[ -n '$S5' ] && [ '$S5' != '$S1' ]"

# 5. a reader (no lock) uses another boot's whole index too, and writes nothing
cp -a "$A" "$T/f"
sum=$(cksum <"$T/f/index/active.jsonl")
is "$(ABX_TEST_BOOT_ID=boot-f queued "$T/f")" "$(queued "$T/r" | grep -v "$(abx-ls -d "$A" "$S1" | jq -r .url)")" \
	"a reader lists what the journals say from another boot's index"
is "$(cksum <"$T/f/index/active.jsonl")" "$sum" "... and leaves the file as it was"

# 6. a journal that lost a tail the index knew of (a power loss that kept
# the index's lines and not the journal's): rebuilt, never trusted
cp -a "$A" "$T/g"
set -- "$T"/g/crawls/*/snapshots.jsonl
J=$1
lines=$(wc -l <"$J")
head -n $((lines - 1)) "$J" >"$T/jcut" && cat "$T/jcut" >"$J"
S6=$(ABX_TEST_BOOT_ID=boot-g abx-claim -d "$T/g" -k snapshot -l 600 | jq -r .id)
is "$(boot "$T/g")" boot-g "an index of another boot that knows more of a journal than it holds is rebuilt"
ok "... and the claim took a snapshot the journal has" sh -c "grep -q '\"id\":\"$S6\"' '$J'"
done_testing
