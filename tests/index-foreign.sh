#!/bin/sh
# index-foreign.sh — an index that names another boot is reused only as
# far as its chain of marks checks (lib/store/index.c, refresh): after a
# power loss the index may be an older whole version of itself (it is
# never synced), which names only the journals of its day, and the crawl
# added since must be found all the same.  Shown without a power loss:
# a copy of a data directory given the index of an earlier moment, opened
# with another boot id ($ABX_TEST_BOOT_ID), as a host after a reboot.
# shellcheck source-path=SCRIPTDIR source=lib/tap.sh
. "$(dirname "$0")/lib/tap.sh"
ABX_SYNC=0
export ABX_SYNC
A=$T/a
abx-add -d "$A" http://127.0.0.1:1/a1 >/dev/null || { echo "Bail out! abx-add failed"; exit 1; }
ABX_TEST_BOOT_ID=boot-a abx-ctl -d "$A" repair >/dev/null 2>&1
boot() { head -n 1 "$1/index/active.jsonl" | jq -r .boot_id; }
is "$(boot "$A")" boot-a "the index names the boot that wrote it"
cp "$A/index/active.jsonl" "$T/old-index"
# a second crawl, with a journal of its own, after the index was written
abx-add -d "$A" http://127.0.0.1:1/b1 >/dev/null
cp -a "$A" "$T/b"
cp "$T/old-index" "$T/b/index/active.jsonl"
queued() { ABX_TEST_BOOT_ID=$2 abx-ls -d "$1" -k snapshot -s queued --jsonl | jq -r .url | sort | tr '\n' ' '; }
is "$(queued "$T/b" boot-b)" "http://127.0.0.1:1/a1 http://127.0.0.1:1/b1 " \
	"a reader given another boot's older index lists the crawl added since"
S=$(ABX_TEST_BOOT_ID=boot-b abx-claim -d "$T/b" -k snapshot -l 600 | jq -r .url)
S2=$(ABX_TEST_BOOT_ID=boot-b abx-claim -d "$T/b" -k snapshot -l 600 | jq -r .url)
is "$(printf '%s\n%s\n' "$S" "$S2" | sort | tr '\n' ' ')" "http://127.0.0.1:1/a1 http://127.0.0.1:1/b1 " \
	"the claims take both crawls' snapshots"
is "$(boot "$T/b")" boot-a "... the older index was reused, not rebuilt"
is "$(grep -c '"boot_id":"boot-b"' "$T/b/index/active.jsonl")" 1 "... and appended to after a boot line of this boot"
done_testing
