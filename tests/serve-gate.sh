#!/bin/sh
# A serving worker keeps one egress gate process for its snapshots
# (gate.h "Kept"), and each snapshot still has a gate of its own: its
# own ports (the ports of the snapshot before are refused), its own
# refusals in its own results, and a gate that died is started again for
# the next snapshot.  The worker's death ends its gate.
. "$(dirname "$0")/lib/tap.sh"
. "$(dirname "$0")/lib/httpd.sh"
. "$(dirname "$0")/lib/tick-lib.sh"
httpd_start || exit 1

# the gw plugin: each run appends "RUN GATEPID PORT OLD OWN REFUSED" to
# $ABX_TEST_GW: its worker's kept gate (a child of its parent, abx-hook,
# run as abx-gate --kept), its gate's port, curl's exit through the port
# of the run before (7: refused), the HTTP status of a fetch through its
# own gate, and that of a fetch of 0.0.0.0 (403: refused) on a page whose
# URL has "refuse" in it.  The third run kills the gate with SIGKILL.
mkdir -p "$T/plugins/gw"
cat >"$T/plugins/gw/on_Snapshot__20_gw.sh" <<'EOF'
#!/bin/sh
run=$(( $(cat "$ABX_TEST_GW" 2>/dev/null | wc -l) + 1 ))
gate=-
for c in $(cat /proc/$PPID/task/*/children); do
	case $(tr '\0' ' ' <"/proc/$c/cmdline" 2>/dev/null) in
	*abx-gate\ --kept*) gate=$c ;;
	esac
done
port=${ABX_GATE#127.0.0.1:}
prev=$(tail -n 1 "$ABX_TEST_GW" 2>/dev/null | awk '{ print $3 }')
old=-
[ -n "$prev" ] && { curl -s -o /dev/null -x "http://127.0.0.1:$prev" "$ABX_TEST_BASE/site/"; old=$?; }
own=$(curl -s -o /dev/null -w '%{http_code}' -x "http://$ABX_GATE" "$ABX_TEST_BASE/site/")
refused=-
case "$*" in
*refuse*) refused=$(curl -s -o /dev/null -w '%{http_code}' -x "http://$ABX_GATE" "http://0.0.0.0:9/x") ;;
esac
echo "$run $gate $port $old $own $refused" >>"$ABX_TEST_GW"
[ "$run" = 3 ] && [ "$gate" != - ] && kill -9 "$gate"
echo '{"type":"ArchiveResult","status":"succeeded","output_str":"noted"}'
EOF
chmod +x "$T/plugins/gw/on_Snapshot__20_gw.sh"
ABX_PLUGINS_DIR=$T/plugins
ABX_TEST_BASE=$BASE
export ABX_PLUGINS_DIR ABX_TEST_BASE

for i in 1 2 3 4 5; do echo "$BASE/site/?p=$i"; done >"$T/urls"
echo "$BASE/site/?p=refuse" >>"$T/urls"
abx-add -d "$T/d" --plugins gw --config CRAWL_MAX_CONCURRENT_SNAPSHOTS=1 <"$T/urls" >/dev/null
ABX_TEST_GW=$T/gw abx-tick -d "$T/d" >"$T/tick.out" 2>"$T/tick.err"
is "$?" 0 "abx-tick exits 0"
is "$(nsnap "$T/d" sealed)" 6 "every page sealed"
is "$(wc -l <"$T/gw" | tr -d ' ')" 6 "the gw hook ran once a page"
col() { awk -v c="$1" '{ print $c }' "$T/gw"; }
is "$(col 2 | grep -c -- '^-$')" 0 "each run saw its worker's kept gate (abx-gate --kept)"
is "$(col 2 | sed -n 1,3p | sort -u | wc -l | tr -d ' ')" 1 "runs 1 to 3: one gate process"
is "$(col 2 | sed -n 4,6p | sort -u | wc -l | tr -d ' ')" 1 "runs 4 to 6: one gate process"
ok "the gate killed in run 3 was started again for run 4" test "$(col 2 | sed -n 4p)" != "$(col 2 | sed -n 3p)"
is "$(col 3 | sort -u | wc -l | tr -d ' ')" 6 "each snapshot had ports of its own"
is "$(col 4 | tr '\n' ' ')" "- 7 7 7 7 7 " "the port of the snapshot before was refused in each (curl exit 7)"
is "$(col 5 | sort -u)" 200 "each snapshot fetched its page through its own gate"
is "$(col 6 | grep -v -- '^-$')" 403 "the refusing page's fetch of 0.0.0.0 got 403"
n=0
for s in $(abx-ls -d "$T/d" -k snapshot --jsonl | jq -r .id); do
	if grep -q 'egress gate refused' "$(snapdir "$T/d" "$s")/index.jsonl"; then
		n=$((n + 1))
		u=$(abx-ls -d "$T/d" "$s" | jq -r .url)
	fi
done
is "$n" 1 "one snapshot's results tell of a refusal"
like "${u:-}" "p=refuse" "the refusing page's"
left=
for p in $(col 2 | sort -u); do
	[ -r "/proc/$p/cmdline" ] && tr '\0' ' ' <"/proc/$p/cmdline" | grep -q 'abx-gate --kept' && left="$left $p"
done
is "$left" "" "no kept gate is left after the tick"

# the worker killed mid-snapshot: its gate ends with it
mkdir -p "$T/plugins/hold"
cat >"$T/plugins/hold/on_Snapshot__20_hold.sh" <<'EOF'
#!/bin/sh
for c in $(cat /proc/$PPID/task/*/children); do
	case $(tr '\0' ' ' <"/proc/$c/cmdline" 2>/dev/null) in
	*abx-gate\ --kept*) echo "$PPID $c" >"$ABX_TEST_HOLD.tmp" && mv "$ABX_TEST_HOLD.tmp" "$ABX_TEST_HOLD" ;;
	esac
done
sleep 60
EOF
chmod +x "$T/plugins/hold/on_Snapshot__20_hold.sh"
abx-add -d "$T/k" --plugins hold "$BASE/site/?p=hold" >/dev/null
ABX_TEST_HOLD=$T/hold setsid abx-tick -d "$T/k" >/dev/null 2>&1 &
tick=$!
track_group "$tick"
end=$(( $(date +%s) + 60 ))
while [ ! -s "$T/hold" ] && [ "$(date +%s)" -lt "$end" ]; do sleep 0.1; done
read -r worker gate <"$T/hold" || { worker=; gate=; }
ok "the held snapshot's worker has a kept gate" test -n "$gate"
kill -9 "$worker" 2>/dev/null
end=$(( $(date +%s) + 10 ))
while [ -d "/proc/$gate" ] && grep -q 'abx-gate' "/proc/$gate/cmdline" 2>/dev/null &&
	[ "$(date +%s)" -lt "$end" ]; do sleep 0.1; done
ok "the worker's kill -9 ends its gate" sh -c "! grep -q abx-gate /proc/$gate/cmdline 2>/dev/null"
kill -9 "-$tick" 2>/dev/null

done_testing
