#!/bin/sh
# The cost of a tool follows the work it touches, not the archive: with
# 2,000 finished crawls in the data directory (made by bench/gencrawls.py
# from one crawl the tools made, and checked by `abx-ctl repair` finding
# nothing to change), counted with strace (-f -e trace=%file), never timed:
#   - abx-add of one crawl and the abx-tick pass that runs it open, stat or
#     read no file of a finished crawl (no path under crawls/<finished>/);
#   - abx-ls of one finished crawl or snapshot by id, and abx-ctl retry of
#     a finished snapshot, touch that crawl alone (through the location
#     hints in index/loc/);
#   - the active index holds active items only: after the pass it is a
#     header and a few lines, not a history (the issue saw 497 KB);
#   - retention with a global DELETE_AFTER that nothing has reached reads
#     no finished crawl either (it stops at the first crawl not due).
. "$(dirname "$0")/lib/tap.sh"
N=${ABX_TEST_SCALE_N:-2000}
command -v strace >/dev/null 2>&1 || { echo "1..0 # SKIP strace is not installed"; exit 0; }
strace -f -o /dev/null true 2>/dev/null || { echo "1..0 # SKIP strace cannot trace here"; exit 0; }
mkdir -p "$T/plugins/noop"
printf '#!/bin/sh\nexit 0\n' >"$T/plugins/noop/on_Snapshot__10_noop.sh"
chmod +x "$T/plugins/noop/on_Snapshot__10_noop.sh"
ABX_PLUGINS_DIR=$T/plugins
export ABX_PLUGINS_DIR

# -- one finished crawl made by the tools, copied N times
printf 'http://127.0.0.1:9/a\nhttp://127.0.0.1:9/b\n' | abx-add -d "$T/tpl" --plugins noop >/dev/null
abx-tick -d "$T/tpl" 2>"$T/tpl.err"
abx-ctl -d "$T/tpl" repair >/dev/null
is "$(abx-ls -d "$T/tpl" -k crawl --jsonl | jq -r .status)" sealed "the template crawl is finished"
python3 "$TOP/bench/gencrawls.py" "$T/tpl" "$T/d" "$N"
D=$T/d
ls "$D/crawls" >"$T/finished"
is "$(wc -l <"$T/finished" | tr -d ' ')" "$N" "$N finished crawls generated"
is "$(abx-ctl -d "$D" repair | jq -c 'del(.type)')" \
	'{"active":0,"torn":0,"requeued":0,"leases_dropped":0,"compacted":0,"tmp_swept":0,"locks_removed":0}' \
	"abx-ctl repair finds nothing to change in them"
is "$(abx-ls -d "$D" -k snapshot --jsonl | jq -r .status | sort | uniq -c | tr -s ' ')" " $((N * 2)) sealed" \
	"abx-ls lists their $((N * 2)) sealed snapshots"
abx-seal -d "$D" --index 2>"$T/seal.err"
# and history made by the tools: 40 crawls run to their seal, 10 a pass
i=0
while [ $i -lt 40 ]; do
	abx-add -d "$D" --plugins noop http://127.0.0.1:9/h$i >/dev/null
	i=$((i + 1))
	[ $((i % 10)) -eq 0 ] && abx-tick -d "$D" 2>>"$T/hist.err"
done
ls "$D/crawls" >"$T/finished"
is "$(abx-ls -d "$D" -k crawl --jsonl | jq -r .status | sort | uniq -c | tr -s ' ')" " $((N + 40)) sealed" \
	"and 40 more crawls run to their seal by abx-tick"

# trace FILE CMD...: CMD under strace, its file calls into FILE (LeakSanitizer
# cannot run under ptrace: the traced runs skip the leak check, and only it)
trace() {
	_f=$1
	shift
	ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" strace -f -e trace=%file -o "$_f" "$@"
}
# touched FILE: the paths under crawls/ of finished crawls that FILE names
touched() { grep -o 'crawls/[0-9a-f-]\{36\}' "$1" | sort -u | sed 's|^crawls/||' | grep -Fx -f "$T/finished"; }

# -- abx-add
trace "$T/add.trace" abx-add -d "$D" --plugins noop \
	http://127.0.0.1:9/new-a http://127.0.0.1:9/new-b >"$T/new.json" 2>"$T/add.err"
C=$(jq -r .id "$T/new.json")
ok "abx-add queues the new crawl" test -n "$C"
ok "the trace of abx-add is a trace (it names crawls.jsonl)" grep -q '"crawls.jsonl"' "$T/add.trace"
is "$(touched "$T/add.trace" | wc -l | tr -d ' ')" 0 "abx-add opens and stats no file of a finished crawl"
touched "$T/add.trace" | head -n 3 | while read -r x; do diag "abx-add touched crawls/$x"; done

# -- the pass, with a global DELETE_AFTER nothing has reached
echo DELETE_AFTER=30d >>"$D/abx.conf"
trace "$T/tick.trace" abx-tick -d "$D" 2>"$T/tick.err"
is "$(abx-ls -d "$D" --jsonl "$C" | jq -r .status)" sealed "the pass ran the new crawl to its seal"
ok "the trace of the pass names the new crawl's journal" grep -q "crawls/$C/snapshots.jsonl" "$T/tick.trace"
is "$(touched "$T/tick.trace" | wc -l | tr -d ' ')" 0 \
	"the pass opens, stats and reads no file of the $N finished crawls (retention included)"
touched "$T/tick.trace" | head -n 3 | while read -r x; do diag "the pass touched crawls/$x"; done
lines=$(wc -l <"$D/index/active.jsonl" | tr -d ' ')
ok "the active index is compacted as items finish ($lines lines, $(wc -c <"$D/index/active.jsonl") bytes)" \
	test "$lines" -le 66
ok "no sanitizer report" sh -c "! grep -Eq 'runtime error|Sanitizer' '$T/tick.err' '$T/add.err' '$T/tpl.err' '$T/hist.err'"

# -- a second pass, with nothing to do, touches no crawl at all
trace "$T/idle.trace" abx-tick -d "$D" 2>>"$T/tick.err"
ok "an idle pass opens no file under crawls/ (its finished crawl included)" \
	sh -c "! grep -q '\"crawls/[0-9a-f]' '$T/idle.trace'"

# -- abx-ls of one finished crawl, by id
F=$(sed -n 1000p "$T/finished")
[ -n "$F" ] || F=$(head -n 1 "$T/finished")
trace "$T/ls.trace" abx-ls -d "$D" --jsonl "$F" >"$T/ls.out" 2>"$T/ls.err"
is "$(jq -r .id "$T/ls.out")" "$F" "abx-ls ID prints a finished crawl"
is "$(touched "$T/ls.trace" | tr '\n' ' ')" "" "and touches no crawl's files (its location hint is in index/loc/)"

# -- abx-ls and abx-ctl of one finished snapshot, by id
FS=$(grep -h "\"crawl_id\":\"$F\"" "$D"/index/loc/*.jsonl | head -n 1 | jq -r .id)
trace "$T/lss.trace" abx-ls -d "$D" --jsonl "$FS" >"$T/lss.out" 2>"$T/ls.err"
is "$(jq -r '"\(.id) \(.crawl_id)"' "$T/lss.out")" "$FS $F" "abx-ls ID prints a finished snapshot"
is "$(touched "$T/lss.trace" | tr '\n' ' ')" "$F " "and touches its crawl alone (through index/loc/)"
trace "$T/ctl.trace" abx-ctl -d "$D" retry "$FS" >/dev/null 2>"$T/ctl.err"
is "$(abx-ls -d "$D" --jsonl "$FS" | jq -r .status)" queued "abx-ctl retry queues it again"
is "$(touched "$T/ctl.trace" | tr '\n' ' ')" "$F " "and touches its crawl alone"
ok "no sanitizer report" sh -c "! grep -Eq 'runtime error|Sanitizer' '$T/ls.err' '$T/ctl.err'"
done_testing
