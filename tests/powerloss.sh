#!/bin/sh
# Power loss at random points (issue 15).  A workload
# (tests/lib/powerfail-workload.sh: abx-add of four crawls of the local
# test site, a time-leased abx-claim and its release, abx-ctl pause,
# cancel and resume, two abx-tick passes crawling with the "pf" plugin)
# runs under the power-loss model of tests/lib/powerfail.c, which keeps
# only what was synced: every byte and every directory entry not synced is
# dropped (a syncfs saves every file: ext4 and xfs; tests/powerloss-fuse.sh
# runs this test with a syncfs that saves nothing, as on FUSE).  At a random instant the power goes off (the model's shadow is
# frozen, then kill -9 of every process of the workload, hooks included),
# the post-power-loss image is restored into a new directory and
# recovered by the tools alone, after a reboot (a new boot id): abx-ctl
# resume of a crawl the workload left paused, then abx-tick until it has
# nothing to do (exit 1), never abx-ctl repair.  What the workload's tools
# acknowledged (exit 0 and what they printed) is recorded outside the data
# directory while the power is on.  The data directory is, by turns,
# initialised before the baseline (crawl A queued), an empty directory, or
# absent (made by the workload's first abx-add).
#
# One TAP line per check, each over every crash point; the findings (crash
# point, record, file) follow a failed one as diagnostics:
#   acked-crawl     every crawl abx-add printed is in crawls.jsonl and
#                   abx-ls lists it (the data directory and its abx.conf
#                   are there)
#   acked-record    the claim abx-claim printed, an acknowledged release,
#                   pause, resume and cancel are in the journals
#   due-queue       before recovery, the due queue (abx-ls -k KIND -s
#                   STATUS, from the active index) holds exactly the active
#                   items of the journals
#   recovery        abx-ctl resume exits 0, abx-tick 0, 1 or 2 (work done,
#                   hooks failed: the workload's missing page), and abx-tick
#                   reaches "nothing to do"
#   finished        every crawl and snapshot is sealed after recovery, and
#                   every URL of every acknowledged crawl has its snapshot
#   output-files    every file a succeeded ArchiveResult names has the size
#                   it records
#   duplicate       no two snapshots for one (crawl, url)
#   jsonl           every line of every journal and index JSONL is valid
#   snapshot-index  a sealed snapshot has its index.jsonl, index.json and
#                   index.html
#   site-index      the site index.jsonl lists every sealed snapshot
# (tests/lib/powerfail-check.py has the details.)
#
#   ABX_POWERLOSS_POINTS=N   crash points (default 50; the first runs the
#                            workload to its end, which times it: the delays
#                            of the others are drawn from 0 to that time)
#   ABX_POWERLOSS_SEED=N     the seed of the random delays (printed)
#   ABX_POWERLOSS_KEEP=DIR   copy the crash points that failed into DIR
#                            (workload, shadow, restored image, findings)
#   ABX_POWERLOSS_CACHE=keep a crash that keeps the page cache instead
#                            (kill -9 alone, nothing dropped): a check of
#                            the checks, since abx is meant to survive it
#
# The boot id: the workload runs with ABX_TEST_BOOT_ID set to one id, and
# each crash point's recovery with a new one; abx is to read
# ABX_TEST_BOOT_ID, when it is set, instead of
# /proc/sys/kernel/random/boot_id, so that the recovery sees a reboot.
. "$(dirname "$0")/lib/tap.sh"
. "$(dirname "$0")/lib/httpd.sh"
. "$(dirname "$0")/lib/powerfail-lib.sh"
for c in cc python3 curl; do
	command -v $c >/dev/null 2>&1 || { echo "1..0 # SKIP $c is not installed"; exit 0; }
done
pf_build || exit 0
httpd_start || exit 1
POINTS=${ABX_POWERLOSS_POINTS:-50}
SEED=${ABX_POWERLOSS_SEED:-$(od -An -N2 -tu2 /dev/urandom | tr -d ' ')}
KEEP=${ABX_POWERLOSS_KEEP:-}
if [ "${ABX_POWERLOSS_CACHE:-}" = keep ]; then
	POWERFAIL_KEEP_CACHE=1
	export POWERFAIL_KEEP_CACHE
fi
# the interpreter itself, not a wrapper (pyenv's shim costs 0.1 s a run)
PY=$(python3 -c 'import sys; print(sys.executable)')
CHECK="$PY $TOP/tests/lib/powerfail-check.py"
WORKLOAD=$TOP/tests/lib/powerfail-workload.sh
CHECKS="acked-crawl acked-record due-queue recovery finished output-files duplicate jsonl snapshot-index site-index"
t_start=$(date +%s)

pf_plugin

uuid() { cat /proc/sys/kernel/random/uuid; }
BOOT_A=$(uuid)
mkdir -p "$T/viol"

# violation CHECK POINT DETAIL
violation() { printf '%s: %s\n' "$2" "$3" >>"$T/viol/$1"; }

# crash_point I DELAY_MS INIT: INIT 1, the data directory holds crawl A
# (queued by abx-add before the baseline); 0, it is an empty directory;
# 2, it does not exist (the workload's first abx-add makes both)
crash_point() {
	cp_i=$1 cp_delay=$2 cp_init=$3
	P=$T/p$cp_i
	R=$P/root
	X=$P/img/abx
	mkdir -p "$R"
	[ "$cp_init" = 0 ] && mkdir "$R/abx"
	: >"$P/acks"
	if [ "$cp_init" = 1 ]; then
		ABX_TEST_BOOT_ID=$BOOT_A abx-add -d "$R/abx" --plugins pf --depth 1 "$BASE/site/" >"$P/init" ||
			violation recovery "$cp_i" "the first abx-add failed"
		sed 's/^/add	/' "$P/init" >>"$P/acks"
	fi
	"$PF" snapshot "$R" "$P/shadow"
	ABX_TEST_BOOT_ID=$BOOT_A pf_preload "$R" "$P/shadow" \
		"$PF" run "$P/shadow" "$cp_delay" sh "$WORKLOAD" "$R/abx" "$P/acks" "$BASE" "$cp_init" \
		>"$P/run" 2>"$P/workload.err"
	cp_t_off=$(date +%s%N)
	# "off_ms=N cmd=running|exited:S killed=K"
	cp_off=$(sed -n 's/^off_ms=\([0-9]*\) .*/\1/p' "$P/run")
	[ "$cp_i" = 0 ] && echo "$cp_off" >"$T/dur"
	case $(cat "$P/run") in
	*cmd=running*) cp_state="workload running" ;;
	*) cp_state="workload ended" ;;
	esac
	cp_where="point $cp_i (init $cp_init, power off at $cp_off ms, $cp_state)"
	if ! "$PF" restore "$P/shadow" "$P/img" 2>"$P/restore.err"; then
		violation recovery "$cp_where" "powerfail restore failed: $(head -c 300 "$P/restore.err")"
		return
	fi

	# recovery: after a reboot, with the tools alone
	ABX_TEST_BOOT_ID=$(uuid)
	export ABX_TEST_BOOT_ID
	if [ -f "$X/abx.conf" ]; then
		$CHECK pre "$X" "$P/acks" >"$P/pre"
		awk -F '\t' '$1 == "R" { print $2 }' "$P/pre" >"$P/resume"
		while read -r cp_id; do
			abx-ctl -d "$X" resume "$cp_id" 2>>"$P/recovery.err" ||
				violation recovery "$cp_where" "abx-ctl resume $cp_id exits $?: $(tail -n 3 "$P/recovery.err")"
		done <"$P/resume"
		# the time lease abx-claim took in the workload (0.1 s) has
		# expired: the clock has run on at least that long since
		cp_wait=$(awk -v t="$cp_t_off" -v n="$(date +%s%N)" 'BEGIN { w = 0.15 - (n - t) / 1e9; print (w > 0) ? w : 0 }')
		sleep "$cp_wait"
		# abx-tick until it has nothing to do (exit 1)
		cp_n=0
		while [ "$cp_n" -lt 10 ]; do
			cp_n=$((cp_n + 1))
			timeout 60 abx-tick -d "$X" >/dev/null 2>>"$P/recovery.err"
			cp_rc=$?
			case $cp_rc in
			0 | 2) ;;
			1) break ;;
			*)
				violation recovery "$cp_where" "abx-tick run $cp_n exits $cp_rc: $(tail -n 3 "$P/recovery.err" | tr '\n' ' ')"
				break
				;;
			esac
		done
		[ "$cp_rc" = 0 ] || [ "$cp_rc" = 2 ] && violation recovery "$cp_where" "abx-tick still did work after 10 runs"
		$CHECK post "$X" "$P/acks" >"$P/post"
	else
		$CHECK pre "$X" "$P/acks" >"$P/pre"
		: >"$P/post"
	fi
	unset ABX_TEST_BOOT_ID
	awk -F '\t' -v w="$cp_where" -v dir="$T/viol" '
		$1 == "V" { print w ": " $3 >>(dir "/" $2) }
		$1 == "S" { print $2, $3 >>(dir "/.stats") }' "$P/pre" "$P/post"
	grep -c '^add' "$P/acks" | sed 's/^/acks_add /' >>"$T/viol/.stats"
	grep -q '^end' "$P/acks" && echo "completed 1" >>"$T/viol/.stats"
	if [ -n "$KEEP" ] && grep -q "^point $cp_i " "$T"/viol/* 2>/dev/null; then
		mkdir -p "$KEEP" && cp -a "$P" "$KEEP/p$cp_i"
	fi
	rm -rf "$P"
}

# point 0 runs the workload to its end: how long it takes sets the range
# of the random delays of the others
crash_point 0 600000 1
dur=$(cat "$T/dur")
diag "seed $SEED, $POINTS crash points; the whole workload takes $dur ms, the delays are drawn from 0..$dur ms"
awk -v n="$POINTS" -v seed="$SEED" 'BEGIN { srand(seed); for (i = 1; i < n; i++) print i, rand(), (i % 4 == 1) ? 0 : (i % 4 == 3) ? 2 : 1 }' \
	>"$T/points"
while read -r i r init; do
	delay=$(awk -v r="$r" -v d="$dur" 'BEGIN { printf "%d", r * d }')
	crash_point "$i" "$delay" "$init"
done <"$T/points"

# the results
st() { awk -v k="$1" '$1 == k { s += $2 } END { print s + 0 }' "$T/viol/.stats"; }
diag "$(st completed) of $POINTS workloads ran to their end before the power loss;" \
	"acknowledged: $(st acks_add) abx-add crawls, $(st acked_changes) claims and ctl changes;" \
	"after recovery: $(st snapshots) snapshots, $(st sealed) sealed, $(st snapshots_with_files) with" \
	"$(st output_files) recorded output files; $(($(date +%s) - t_start)) s"
for c in $CHECKS; do
	if [ -s "$T/viol/$c" ]; then
		npts=$(sed 's/ (init.*//' "$T/viol/$c" | sort -u | wc -l | tr -d ' ')
		fail "$c: $(wc -l <"$T/viol/$c" | tr -d ' ') findings at $npts of $POINTS crash points"
		# two findings of each crash point, 16 at most
		awk '{ p = $2 } n[p]++ < 2 && shown++ < 16 { print "#   " $0 }' "$T/viol/$c"
		[ "$(wc -l <"$T/viol/$c")" -gt 16 ] && diag "  ... (ABX_POWERLOSS_KEEP=DIR keeps the failing points)"
	else
		pass "$c: no finding at $POINTS crash points"
	fi
done
done_testing
