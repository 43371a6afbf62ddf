#!/bin/sh
# Retention (DELETE_AFTER), with time driven by ABX_NOW: exactly the expired
# sealed crawls are removed (directory and journal gone, hidden from abx-ls,
# a tombstone with deleted_at left in crawls.jsonl); unexpired, unfinished
# and template crawls stay; a crawl's own DELETE_AFTER overrides abx.conf; a
# bad value is reported and ignored; at most 100 crawls go per pass.
. "$(dirname "$0")/lib/tap.sh"
mkdir -p "$T/plugins/mark"
printf '#!/bin/sh\necho '\''{"type":"ArchiveResult","status":"succeeded"}'\''\n' \
	>"$T/plugins/mark/on_Snapshot__10_mark.sh"
chmod +x "$T/plugins/mark/on_Snapshot__10_mark.sh"
ABX_PLUGINS_DIR=$T/plugins
export ABX_PLUGINS_DIR
D=$T/data
T0=2030-01-01T00:00:00Z      # when the old crawls are made and sealed
T1=2030-02-20T00:00:00Z      # when the young one is
NOW=2030-03-15T00:00:00Z     # 73 days after T0, 23 after T1

# add [ABX-ADD ARGS...]: queue a crawl at T0, print its id
add() { ABX_NOW=$T0 abx-add -d "$D" --plugins mark "$@" | jq -r .id; }
snaps() { abx-ls -d "$D" -k snapshot --jsonl | jq -r --arg c "$1" 'select(.crawl_id == $c) | .id'; }
listed() { [ -n "$(abx-ls -d "$D" --jsonl "$1" 2>/dev/null)" ]; }
gone() {   # crawl $1 was removed by retention
	! listed "$1" && [ ! -e "$D/crawls/$1" ] && [ -z "$(snaps "$1")" ] &&
		grep "\"id\":\"$1\"" "$D/crawls.jsonl" | tail -n 1 | jq -e '.deleted_at != null' >/dev/null
}
kept() { listed "$1" && [ -d "$D/crawls/$1" ] && ! gone "$1"; }
tick() { _t=$1; shift; ABX_NOW=$_t abx-tick -d "$D" "$@"; }

A1=$(add http://127.0.0.1:1/a1)
A2=$(add http://127.0.0.1:1/a2 http://127.0.0.1:1/a2b)
A3=$(add http://127.0.0.1:1/a3)
K=$(add --config DELETE_AFTER=0 http://127.0.0.1:1/keep-0)
L=$(add --config DELETE_AFTER=1y http://127.0.0.1:1/keep-1y)
S=$(add --config DELETE_AFTER=5d http://127.0.0.1:1/short)
P=$(add http://127.0.0.1:1/paused)
ABX_NOW=$T0 abx-ctl -d "$D" pause "$P"
Q=$(add http://127.0.0.1:1/queued)
QS=$(snaps "$Q")
# the queued crawl's snapshot is leased (a time lease) until after NOW, so
# no tick finishes it: it stays unfinished, and old
ABX_NOW=$T0 abx-claim -d "$D" -i "$QS" -l 7000000 >/dev/null
TPL=$(ABX_NOW=$T0 abx-add -d "$D" --plugins mark --schedule yearly http://127.0.0.1:1/tpl 2>/dev/null |
	jq -r .template_id)
tick $T0 2>"$T/t0.err"
# the young crawl: made at T1 and finished (cancelled: sealed) at once, with
# no tick at T1 that would already apply the crawls' own DELETE_AFTER
Y=$(ABX_NOW=$T1 abx-add -d "$D" --plugins mark http://127.0.0.1:1/young | jq -r .id)
ABX_NOW=$T1 abx-ctl -d "$D" cancel "$Y"
A1S=$(snaps "$A1")
for c in "$A1" "$A2" "$A3" "$K" "$L" "$S" "$Y"; do
	is "$(abx-ls -d "$D" --jsonl "$c" | jq -r .status)" sealed "crawl $c is sealed before retention"
done
is "$(abx-ls -d "$D" --jsonl "$P" | jq -r .status)" paused "the paused crawl is paused"
like "$(abx-ls -d "$D" --jsonl "$Q" | jq -r .status)" '^(queued|started)$' "the queued crawl is unfinished"
ok "the site index lists the old snapshots" grep -q "$A1S" "$D/index.jsonl"

# --- DELETE_AFTER=30d, 73 days on ------------------------------------------
echo DELETE_AFTER=30d >>"$D/abx.conf"
tick 2030-01-02T00:00:00Z -v 2>"$T/early.err"
rc=$?
ok "a tick with DELETE_AFTER set and nothing expired runs normally (exit $rc)" test "$rc" -le 1
ok "and says nothing of a removal" sh -c "! grep -q 'removed' '$T/early.err'"
ok "no sanitizer report" sh -c "! grep -Eq 'runtime error|Sanitizer' '$T/early.err'"
for c in "$A1" "$A2" "$A3" "$S"; do ok "not expired yet: $c stays" kept "$c"; done

tick $NOW -v 2>"$T/now.err"
is "$?" 0 "the tick that removes expired crawls exits 0"
like "$(cat "$T/now.err")" 'retention: 4 expired crawls removed' "it logs how many it removed (-v)"
for c in "$A1" "$A2" "$A3"; do ok "expired: crawl $c removed" gone "$c"; done
ok "a crawl's own shorter DELETE_AFTER=5d applies too" gone "$S"
ok "its directory and journal are gone" test ! -e "$D/crawls/$A2/snapshots.jsonl"
is "$(abx-ls -d "$D" -k snapshot --jsonl | jq -r --arg a "$A1" --arg b "$A2" \
	'select(.crawl_id == $a or .crawl_id == $b) | .id' | wc -l)" 0 "abx-ls lists none of their snapshots"
is "$(abx-ls -d "$D" --jsonl "$A1S" 2>/dev/null | wc -l)" 0 "nor one asked for by id"
ok "their snapshots are out of the site index" sh -c "! grep -q '$A1S' '$D/index.html'"
is "$(grep "\"id\":\"$A1S\"" "$D/index.jsonl" | tail -n 1 | jq -r '.deleted_at != null')" true \
	"index.jsonl says so in a last line of each with deleted_at"
tomb=$(grep "\"id\":\"$A1\"" "$D/crawls.jsonl" | tail -n 1)
is "$(printf '%s' "$tomb" | jq -r '.deleted_at | startswith("2030-03-15T")')" true \
	"crawls.jsonl keeps a tombstone with deleted_at"
like "$(printf '%s' "$tomb" | jq -r .notes)" 'DELETE_AFTER' "whose notes say why"
is "$(printf '%s' "$tomb" | jq -r .status)" sealed "and the status it had"
ok "the young crawl (23 days) stays" kept "$Y"
ok "a crawl with DELETE_AFTER=0 stays" kept "$K"
ok "a crawl with DELETE_AFTER=1y stays" kept "$L"
ok "the old paused crawl is never removed" kept "$P"
is "$(abx-ls -d "$D" --jsonl "$P" | jq -r .status)" paused "and stays paused"
ok "the old unfinished (queued) crawl is never removed" kept "$Q"
like "$(abx-ls -d "$D" --jsonl "$Q" | jq -r .status)" '^(queued|started)$' "and it is still unfinished"
ok "its snapshot is still there" listed "$QS"
if [ -n "$TPL" ] && [ "$TPL" != null ]; then
	ok "a schedule's template crawl is never removed" sh -c \
		"abx-ls -d '$D' --jsonl '$TPL' | jq -e '.deleted_at == null' >/dev/null"
else
	fail "a schedule's template crawl is never removed"; diag "abx-add --schedule printed no template_id"
fi
tick 2030-03-15T00:05:00Z -v 2>"$T/again.err"
ok "a second pass removes nothing more" sh -c "! grep -q 'expired crawls removed' '$T/again.err'"
ok "no sanitizer report" sh -c "! grep -Eq 'runtime error|Sanitizer' '$T/now.err' '$T/again.err' '$T/t0.err'"

# --- a bad DELETE_AFTER in abx.conf stops the tick (78), naming it ------------
B=$(add http://127.0.0.1:1/b)
tick $T0 2>/dev/null
for bad in soon 30m 10 -5d; do
	sed -i '/^DELETE_AFTER=/d' "$D/abx.conf"
	echo "DELETE_AFTER=$bad" >>"$D/abx.conf"
	tick $NOW 2>"$T/bad.err"
	rc=$?
	is "$rc" 78 "DELETE_AFTER=$bad: the tick refuses it (78)"
	like "$(cat "$T/bad.err")" "DELETE_AFTER=$bad" "DELETE_AFTER=$bad is named"
	ok "DELETE_AFTER=$bad removes nothing: the old crawl stays" kept "$B"
done
sed -i '/^DELETE_AFTER=/d' "$D/abx.conf"
C=$(ABX_NOW=$T0 abx-add -d "$D" --plugins mark --config DELETE_AFTER=bogus http://127.0.0.1:1/c 2>"$T/cadd.err" | jq -r .id)
if [ -n "$C" ]; then
	tick $T0 2>/dev/null
	tick $NOW 2>"$T/cbad.err"
	like "$(cat "$T/cadd.err" "$T/cbad.err")" "DELETE_AFTER.*bogus|bogus.*DELETE_AFTER" \
		"a crawl's bad DELETE_AFTER is reported"
	ok "and that crawl is not removed" kept "$C"
else
	pass "abx-add refuses a bad DELETE_AFTER in --config"
	pass "so nothing is stored"
fi

# --- DELETE_AFTER from the environment, and a crawl's own with no global ---
D3=$T/envdir
M=$(ABX_NOW=$T0 abx-add -d "$D3" --plugins mark --config DELETE_AFTER=10d http://127.0.0.1:1/m | jq -r .id)
N=$(ABX_NOW=$T0 abx-add -d "$D3" --plugins mark http://127.0.0.1:1/n | jq -r .id)
ABX_NOW=$T0 abx-tick -d "$D3"
ABX_NOW=$NOW abx-tick -d "$D3" 2>"$T/d3.err"
ok "with no global DELETE_AFTER, a crawl's own 10d still expires it" test ! -e "$D3/crawls/$M"
ok "and the other crawl stays" test -d "$D3/crawls/$N"
DELETE_AFTER=30d ABX_NOW=$NOW abx-tick -d "$D3" 2>>"$T/d3.err"
ok "DELETE_AFTER=30d in the environment removes it" test ! -e "$D3/crawls/$N"
is "$(abx-ls -d "$D3" -k crawl --jsonl | wc -l)" 0 "abx-ls lists no crawl"
ok "no sanitizer report" sh -c "! grep -Eq 'runtime error|Sanitizer' '$T/d3.err'"

# --- bounded batches: 105 expired crawls go as 100, then 5 -------------------
D2=$T/batch
i=0
while [ $i -lt 105 ]; do
	i=$((i + 1))
	echo "http://127.0.0.1:1/batch/$i" | ABX_NOW=$T0 abx-add -d "$D2" --plugins mark
done | jq -r .id >"$T/batch.ids"
is "$(wc -l <"$T/batch.ids")" 105 "105 crawls made"
# shellcheck disable=SC2046
ABX_NOW=$T0 abx-ctl -d "$D2" cancel $(cat "$T/batch.ids")
is "$(abx-ls -d "$D2" -k crawl -s sealed --jsonl | wc -l)" 105 "all cancelled: sealed, finished"
echo DELETE_AFTER=30d >>"$D2/abx.conf"
ABX_NOW=$NOW abx-tick -d "$D2" -v 2>"$T/b1.err"
is "$?" 0 "the first pass removes some (exit 0)"
like "$(cat "$T/b1.err")" 'retention: 100 expired crawls removed' "at most 100 in one pass"
is "$(abx-ls -d "$D2" -k crawl --jsonl | wc -l)" 5 "5 are left"
is "$(find "$D2/crawls" -mindepth 1 -maxdepth 1 -type d | wc -l)" 5 "5 directories are left"
ABX_NOW=$NOW abx-tick -d "$D2" -v 2>"$T/b2.err"
like "$(cat "$T/b2.err")" 'retention: 5 expired crawls removed' "the next pass removes the rest"
is "$(abx-ls -d "$D2" -k crawl --jsonl | wc -l)" 0 "none is left"
is "$(jq -r 'select(.deleted_at != null) | .id' "$D2/crawls.jsonl" | sort -u | wc -l)" 105 \
	"105 tombstones in crawls.jsonl"
ABX_NOW=$NOW abx-tick -d "$D2"
is "$?" 1 "a third pass has nothing to do"
done_testing
