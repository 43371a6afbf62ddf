#!/bin/sh
# CRAWL_MAX_SIZE is enforced while a hook runs, not only when it exits:
# abx-tick hands each worker what is left of the crawl's budget
# ($ABX_SIZE_BUDGET), and abx-hook stops a hook that writes past it
# within seconds, recording why; the crawl then stops on its limit.
. "$(dirname "$0")/lib/tap.sh"
. "$(dirname "$0")/lib/tick-lib.sh"

mkdir -p "$T/plugins/grow"
cat >"$T/plugins/grow/on_Snapshot__10_grow.sh" <<'EOF'
#!/bin/sh
# 1 MB every 0.2 s for up to 30 s: a download that would fill the disk
i=0
while [ $i -lt 150 ]; do
	dd if=/dev/zero of=big.$i bs=1024k count=1 2>/dev/null
	sleep 0.2
	i=$((i + 1))
done
echo '{"type":"ArchiveResult","status":"succeeded","output_str":"grew"}'
EOF
chmod +x "$T/plugins/grow/on_Snapshot__10_grow.sh"
ABX_PLUGINS_DIR=$T/plugins
export ABX_PLUGINS_DIR
D=$T/data
C=$(abx-add -d "$D" --plugins grow --config CRAWL_MAX_SIZE=3mb http://127.0.0.1:9/a http://127.0.0.1:9/b |
	jq -r .id)
t0=$(date +%s)
timeout 60 abx-tick -d "$D" 2>"$T/tick.err"
rc=$?
secs=$(($(date +%s) - t0))
is "$rc" 2 "abx-tick ends (exit 2: the hook stopped at the budget failed)"
ok "within seconds of the budget being spent, not at the hooks' end ($secs s)" test "$secs" -lt 25
S=$(abx-ls -d "$D" -k snapshot --jsonl | jq -r 'select(.url | test("/a$")) | .id')
R=$(jq -c "select(.type == \"ArchiveResult\" and .snapshot_id == \"$S\")" "$D/crawls/$C/snapshots.jsonl" | tail -1)
is "$(echo "$R" | jq -r .status)" failed "the hook that wrote past the budget is recorded failed"
like "$(echo "$R" | jq -r .notes)" "CRAWL_MAX_SIZE.*exceeded" "with the reason"
used=$(du -sm "$D/crawls/$C" | cut -f1)
ok "the crawl's directory stayed near its budget ($used MB for 3 MB, a hook stopped within its grace)" \
	test "$used" -lt 40
is "$(abx-ls -d "$D" "$C" | jq -r .limits.stop_reason)" crawl_max_size "the crawl stopped on its limit"
is "$(abx-ls -d "$D" "$C" | jq -r .status)" sealed "and is sealed"
done_testing
