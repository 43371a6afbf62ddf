#!/bin/sh
# A torn last line is cut off, and never more: when the repair cannot read
# back to the last newline (a read that fails), the journal is left as it
# is and the tool says why; it never takes the failure for "no newline"
# and cuts the whole journal.
. "$(dirname "$0")/lib/tap.sh"
SO=$T/shortread.so
if ! cc -shared -fPIC -O1 -Wall -Wextra -o "$SO" "$TOP/tests/lib/shortread.c" -ldl 2>"$T/cc.err"; then
	echo "1..0 # SKIP cannot build the shim: $(head -c 200 "$T/cc.err")"
	exit 0
fi
D=$T/data
abx-add -d "$D" http://127.0.0.1:9/one >/dev/null
abx-add -d "$D" http://127.0.0.1:9/two >/dev/null
printf '{"type":"Crawl","id":"01a2' >>"$D/crawls.jsonl"   # a writer died mid-line
size=$(wc -c <"$D/crawls.jsonl")
ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0" LD_PRELOAD=$SO \
	ABX_SHORTREAD=/crawls.jsonl abx-add -d "$D" http://127.0.0.1:9/three >"$T/out" 2>"$T/err"
rc=$?
ok "abx-add fails when it cannot read the journal back (exit $rc)" test "$rc" -eq 74
like "$(cat "$T/err")" "crawls.jsonl.*Input/output error" "naming the journal and the cause"
is "$(wc -c <"$D/crawls.jsonl" | tr -d ' ')" "$size" "the journal is left whole, torn line and all"
is "$(cat "$T/out")" "" "and nothing was queued"
abx-add -d "$D" http://127.0.0.1:9/three >/dev/null 2>"$T/err2"
is "$?" 0 "with reads that work, the next writer repairs it"
like "$(cat "$T/err2")" "torn last line" "saying it cut the torn line"
is "$(jq -r .urls "$D/crawls.jsonl" | tr -d '\n')" \
	"http://127.0.0.1:9/onehttp://127.0.0.1:9/twohttp://127.0.0.1:9/three" \
	"the journal keeps every committed line: only the torn one went"
is "$(cat "$D/crawls.jsonl.torn")" '{"type":"Crawl","id":"01a2' "the fragment is kept in crawls.jsonl.torn"
done_testing
