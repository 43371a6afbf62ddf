#!/bin/sh
# index-active.sh — index/active.jsonl lists the items that can still
# become due, and, once an item is sealed, no row of it: a user who reads
# the file (abx(7) FILES) does not find a "started" row of a snapshot the
# journals say is sealed.  The file is append-only between compactions: a
# transaction that seals an item compacts it once it holds more dead lines
# than live ones (store.h), so that rows of sealed items do not stay.
. "$(dirname "$0")/lib/tap.sh"
D=$T/d
ABX_SYNC=0
export ABX_SYNC
IDX=$D/index/active.jsonl

abx-add -d "$D" http://127.0.0.1:1/a http://127.0.0.1:1/b http://127.0.0.1:1/c >/dev/null ||
	{ echo "Bail out! abx-add failed"; exit 1; }
C=$(abx-ls -d "$D" -k crawl --jsonl | jq -r .id)

# rows of an id in the index that are not its tombstone
rows() { jq -c --arg id "$1" 'select(.id == $id and (.gone | not))' "$IDX"; }

S1=$(abx-claim -d "$D" -k snapshot -l 60 | jq -r .id)
S2=$(abx-claim -d "$D" -k snapshot -l 60 | jq -r .id)
like "$(rows "$S1")" '"status":"started"' "a claimed snapshot has a started row in the index"

expect_exit 0 "abx-seal seals the first snapshot" abx-seal -d "$D" "$S1"
is "$(abx-ls -d "$D" "$S1" | jq -r .status)" sealed "... the journal says sealed"
is "$(rows "$S1")" "" "... and the index has no row of it"
like "$(rows "$S2")" '"status":"started"' "the other claimed snapshot keeps its started row"

expect_exit 0 "abx-seal seals the second snapshot" abx-seal -d "$D" "$S2"
is "$(rows "$S2")" "" "... and the index has no row of it either"

# what is left: the crawl and its queued snapshot, each as the journal says
S3=$(abx-ls -d "$D" -k snapshot -s queued --jsonl | jq -r .id)
is "$(rows "$S3" | jq -r .status)" queued "the queued snapshot is in the index, queued"
is "$(rows "$C" | jq -r .status)" "$(abx-ls -d "$D" "$C" | jq -r .status)" \
	"the crawl's row says what its journal says"
is "$(jq -r 'select(.id) | .id' "$IDX" | sort -u | wc -l | tr -d ' ')" 2 \
	"the index names two items: the crawl and the queued snapshot"
is "$(abx-claim -d "$D" -k snapshot -l 60 | jq -r .id)" "$S3" "the queued snapshot is still claimed next"

# a snapshot sealed by hand while others are live: every sealed snapshot's
# rows are gone, however the index got there
expect_exit 0 "abx-seal seals the third snapshot" abx-seal -d "$D" "$S3"
for s in "$S1" "$S2" "$S3"; do
	is "$(rows "$s")" "" "sealed snapshot $s: no row in the index"
done
done_testing
