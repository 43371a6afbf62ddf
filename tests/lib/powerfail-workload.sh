#!/bin/sh
# powerfail-workload.sh — the workload tests/powerloss.sh cuts off at a
# random instant with a simulated power loss.
#
#   powerfail-workload.sh DATADIR ACKS BASE INIT
#
# Runs under the power-loss shim (tests/lib/powerfail.c), in a fresh data
# directory: abx-add of a few crawls of the test site (plugin "pf"), a
# time-leased claim and its release, a pause, a cancel, abx-tick crawling,
# a resume, a lock-leased claim, abx-tick again.  INIT=1: DATADIR exists
# (crawl A was queued before the baseline); else the first abx-add makes
# it.  $PF is the powerfail tool, $ABX_POWERFAIL_SHADOW the shadow.
#
# What a tool acknowledged (it exited 0) is appended to ACKS, outside the
# data directory, through `powerfail ack`, which writes only while the
# power is on: "TAG<TAB>DETAIL" lines, where TAG is
#   add       DETAIL is the Crawl record abx-add printed
#   claim     the Snapshot record abx-claim printed (a time lease)
#   release   the snapshot id whose lease abx-claim --release gave back
#   pausing   (before) / pause: abx-ctl pause of crawl C, DETAIL its id
#   cancel    abx-ctl cancel of crawl E, DETAIL its id
#   resuming  (before) / resume: abx-ctl resume of crawl C
#   tick      abx-tick's exit status; claimcmd: abx-claim CMD's
#   end       the end of the workload
# Intent lines (pausing, resuming) are written before the tool runs, so
# that the checker knows an unacknowledged change may have been made.
D=$1 ACKS=$2 BASE=$3 INIT=$4
S=$ABX_POWERFAIL_SHADOW
ack() { "$PF" ack "$S" "$ACKS" "$1"; }
say() { printf '%s\n' "$2" | ack "$1"; }
add() {
	out=$(abx-add -d "$D" --plugins pf "$@") && printf '%s\n' "$out" | ack add
	printf '%s\n' "$out" | sed -n 's/.*"type":"Crawl","id":"\([^"]*\)".*/\1/p' | head -n 1
}

[ "$INIT" = 1 ] || add --depth 1 "$BASE/site/" >/dev/null
add --depth 0 "$BASE/site/page1.html" "$BASE/site/page2.html" >/dev/null
if rec=$(abx-claim -d "$D" -k snapshot -l 0.1); then
	printf '%s\n' "$rec" | ack claim
	id=$(printf '%s\n' "$rec" | sed -n 's/^{"type":"Snapshot","id":"\([^"]*\)".*/\1/p')
	abx-claim -d "$D" --release "$id" && say release "$id"
fi
C=$(add --depth 1 "$BASE/site/page3.html")
if [ -n "$C" ]; then
	say pausing "$C"
	abx-ctl -d "$D" pause "$C" && say pause "$C"
fi
E=$(add --depth 0 --tag cancelme "$BASE/missing")
[ -n "$E" ] && abx-ctl -d "$D" cancel "$E" && say cancel "$E"
abx-tick -d "$D" >/dev/null
say tick "$?"
if [ -n "$C" ]; then
	say resuming "$C"
	abx-ctl -d "$D" resume "$C" && say resume "$C"
fi
abx-claim -d "$D" -k snapshot true
say claimcmd "$?"
abx-tick -d "$D" >/dev/null
say tick "$?"
say end ""
