#!/bin/sh
# claim-chain.sh — what the index's chain of marks (lib/store/index.c)
# costs a claim, and what reusing another boot's index saves: abx-claim
# processes of two builds, OLD (before the chain) and NEW, each on its
# own data directory made by itself with the same N queued snapshots,
# durable (ABX_SYNC unset), in rounds that alternate which build goes
# first.  Each round times K claims of each build; a figure is the
# median over R rounds of a round's mean, a ratio the median of the
# per-round ratios NEW/OLD.  Cases:
#   own      every claim in the boot that made the index (the fast path);
#   alt      two boot ids alternating claim by claim (two hosts sharing
#            the directory): OLD rebuilds the index at each claim, NEW
#            checks the other boot's lines.
# Usage: claim-chain.sh OLD-BINDIR NEW-BINDIR [N [K [R]]]
[ $# -ge 2 ] || { echo "usage: claim-chain.sh OLD-BINDIR NEW-BINDIR [N [K [R]]]" >&2; exit 64; }
OLD=$1 NEW=$2 N=${3:-5000} K=${4:-20} R=${5:-9}
W=$(mktemp -d "${TMPDIR:-/tmp}/claim-chain.XXXXXX") || exit 1
trap 'rm -rf "$W"' EXIT INT TERM
echo "# filesystem of $W: $(stat -f -c %T "$W"), N=$N K=$K R=$R"
now() { date +%s%N; }
i=0
while [ $i -lt "$N" ]; do echo "http://127.0.0.1:1/p$i"; i=$((i + 1)); done >"$W/urls"
for b in old new; do
	bin=$OLD
	[ $b = new ] && bin=$NEW
	ABX_TEST_BOOT_ID=boot-a ABX_SYNC=0 "$bin/abx-add" -d "$W/$b" <"$W/urls" >/dev/null || exit 1
	cp -a "$W/$b" "$W/$b-alt"
done
claims() {   # BIN DIR ALT
	_k=0
	while [ $_k -lt "$K" ]; do
		_boot=boot-a
		[ "$3" = alt ] && [ $((_k % 2)) -eq 1 ] && _boot=boot-b
		ABX_TEST_BOOT_ID=$_boot "$1/abx-claim" -d "$2" -k snapshot -l 3600 >/dev/null || exit 1
		_k=$((_k + 1))
	done
}
round() {   # CASE DIR-SUFFIX ALT  -> prints old-us new-us
	if [ $((r % 2)) -eq 0 ]; then
		t0=$(now); claims "$OLD" "$W/old$2" "$3"; t1=$(now); claims "$NEW" "$W/new$2" "$3"; t2=$(now)
		echo "$(( (t1 - t0) / 1000 / K )) $(( (t2 - t1) / 1000 / K ))"
	else
		t0=$(now); claims "$NEW" "$W/new$2" "$3"; t1=$(now); claims "$OLD" "$W/old$2" "$3"; t2=$(now)
		echo "$(( (t2 - t1) / 1000 / K )) $(( (t1 - t0) / 1000 / K ))"
	fi
}
med() { sort -n | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
for c in own alt; do
	sfx=""
	[ $c = alt ] && sfx=-alt
	r=0
	: >"$W/$c"
	while [ $r -lt "$R" ]; do
		round $c "$sfx" $c >>"$W/$c"
		r=$((r + 1))
	done
	o=$(cut -d' ' -f1 "$W/$c" | med) n=$(cut -d' ' -f2 "$W/$c" | med)
	ratio=$(awk '{ printf "%.3f\n", $2 / $1 }' "$W/$c" | med)
	lo=$(awk '{ printf "%.3f\n", $2 / $1 }' "$W/$c" | sort -n | head -n 1)
	hi=$(awk '{ printf "%.3f\n", $2 / $1 }' "$W/$c" | sort -n | tail -n 1)
	echo "$c: a claim OLD ${o} us, NEW ${n} us; NEW/OLD median ${ratio} (per-round ${lo}..${hi})"
done
