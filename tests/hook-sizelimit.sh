#!/bin/sh
# abx-hook: SNAPSHOT_MAX_SIZE, and the part of the crawl's CRAWL_MAX_SIZE
# the tick passes in ABX_SIZE_BUDGET, are watched while hooks run (every
# 2 s): a hook that keeps writing is stopped long before its timeout.
. "$(dirname "$0")/lib/tap.sh"
. "$(dirname "$0")/lib/hook-lib.sh"
r() { jq -r "select(.type==\"ArchiveResult\" and .hook_name==\"$1\") | $2" "$T/out"; }

# 1 MB every 0.2 s for 60 s: 300 MB if nothing stops it
mkhook fill on_Snapshot__10_fill.sh <<'EOF'
#!/bin/sh
env >env.txt
i=0
while [ $i -lt 300 ]; do
	head -c 1048576 /dev/zero >>fill.bin
	sleep 0.2
	i=$((i + 1))
done
EOF
mkhook after on_Snapshot__20_after.sh <<'EOF'
#!/bin/sh
touch ran
EOF

plan 13
t0=$(date +%s.%N)
SNAPSHOT_MAX_SIZE=3MB abx-hook -d "$D" "$S" >"$T/out"
e=$(elapsed "$t0")
ok "a hook writing past SNAPSHOT_MAX_SIZE=3MB is stopped within a few seconds" lt "$e" 6
size=$(stat -c %s "$SD/fill/fill.bin")
ok "having written two seconds' worth ($size bytes), not 300 MB" lt "$size" 20000000
is "$(r on_Snapshot__10_fill '.status + ": " + .notes')" "failed: stopped: SNAPSHOT_MAX_SIZE 3MB exceeded" \
	"it is recorded failed, with the limit in its notes"
is "$(r on_Snapshot__10_fill .process.exit_code)" -1 "its exit code is -1, as at a timeout"
is "$(r on_Snapshot__20_after '.status + ": " + .notes')" \
	"skipped: not run: the snapshot reached SNAPSHOT_MAX_SIZE" "the next hook is not run"
ok "and did nothing" test ! -e "$SD/after/ran"

# what the tick has left of the crawl's CRAWL_MAX_SIZE: ABX_SIZE_BUDGET
rm -rf "$SD/fill" "$SD/after"
t0=$(date +%s.%N)
ABX_SIZE_BUDGET=2mb abx-hook -d "$D" "$S" >"$T/out"
ok "ABX_SIZE_BUDGET=2mb stops the hook too" lt "$(elapsed "$t0")" 6
is "$(r on_Snapshot__10_fill '.status + ": " + .notes')" \
	"failed: stopped: CRAWL_MAX_SIZE exceeded (2097152 bytes were left for this snapshot)" \
	"with the crawl's limit in its notes"
is "$(grep -c '^ABX_SIZE_BUDGET=' "$SD/fill/env.txt")" 0 "hooks do not see ABX_SIZE_BUDGET"
rm -rf "$SD/fill" "$SD/after"
SNAPSHOT_MAX_SIZE=1gb ABX_SIZE_BUDGET=2mb abx-hook -d "$D" "$S" >"$T/out"
like "$(r on_Snapshot__10_fill .notes)" "^stopped: CRAWL_MAX_SIZE" "the smaller of the two limits applies"
expect_exit 65 "ABX_SIZE_BUDGET that is not a size" env ABX_SIZE_BUDGET=lots abx-hook -d "$D" "$S"
like "$(cat "$T/stderr")" "ABX_SIZE_BUDGET=lots: not a size" "says so"

# without a limit nothing is measured, and the hook runs to its end
rm -rf "$T/plugins/fill"
expect_exit 0 "no limit: hooks run" abx-hook -d "$D" "$S"
done_testing
