#!/bin/sh
# Every durable claim on a GlusterFS volume reaches the brick as an fsync
# (issue 29): the volume's FUSE client sends nothing to the brick at a
# syncfs, so abx, which finds the mount per-file by itself (fstatfs: FUSE),
# fdatasyncs the journal.  `gluster volume profile` counts the FSYNC
# operations at the brick over 10 claims, each its own abx-claim: at least
# 10; and, for comparison, abx told to trust syncfs there
# (ABX_DURABILITY=syncfs, as before issue 29): none.  Then a seal of a
# snapshot with files reaches the brick as an fsync of each of them.
. "$(dirname "$0")/lib/tap.sh"
. "$(dirname "$0")/lib/gluster-rig.sh"
command -v jq >/dev/null 2>&1 || { echo "1..0 # SKIP jq is not installed"; exit 0; }
rig_start coherent
plan 5
D=$M1/data
i=0
while [ $i -lt 30 ]; do echo "http://127.0.0.1:1/p/$i"; i=$((i + 1)); done |
	abx-add -d "$D" >/dev/null
ok "abx-add on the volume" test -s "$D/crawls.jsonl"
rig_gluster volume profile "$RIG_VOL" start >/dev/null

# brick_ops FOP: FOP's calls at the brick since the last call (the
# cumulative line of "info incremental" counts since the one before)
brick_ops() {
	rig_gluster volume profile "$RIG_VOL" info incremental 2>/dev/null |
		awk -v f="$1" '$NF == f { n += $(NF - 1) } END { print n + 0 }'
}
claims() {
	i=0
	while [ $i -lt 10 ]; do
		abx-claim -d "$D" -k snapshot -l 600 >/dev/null || return 1
		i=$((i + 1))
	done
}
brick_ops FSYNC >/dev/null
claims
rc=$?
n_auto=$(brick_ops FSYNC)
ABX_DURABILITY=syncfs claims
n_syncfs=$(brick_ops FSYNC)
is "$rc" 0 "10 claims on the volume"
ok "each reaches the brick as an fsync: $n_auto FSYNC for 10 claims (auto: the mount is FUSE)" \
	test "$n_auto" -ge 10
ok "where abx trusted syncfs (ABX_DURABILITY=syncfs) none did: $n_syncfs FSYNC for 10 claims" \
	test "$n_syncfs" -lt 10

# a seal: the snapshot's files and their directories reach the brick
S=$(abx-claim -d "$D" -k snapshot -l 600 | jq -r .id)
C=$(abx-ls -d "$D" "$S" | jq -r .crawl_id)
mkdir -p "$D/crawls/$C/$S/p/sub"
for f in a b c sub/d; do echo x >"$D/crawls/$C/$S/p/$f"; done
brick_ops FSYNC >/dev/null
abx-seal -d "$D" "$S" >/dev/null 2>"$T/seal.err"
n_seal=$(brick_ops FSYNC)
ok "a seal of a snapshot with 4 files reaches the brick as $n_seal FSYNC (files, index files, journal)" \
	test "$n_seal" -ge 5
done_testing
