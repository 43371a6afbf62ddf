#!/bin/sh
# claim.sh — the claim benchmarks: a durable claim with 100k sealed
# snapshots against none, and against ArchiveBox's SQLite claim (see the
# top of bench/claim.c); then the group-committed claim abx-tick makes
# (bench/claimgroup.c).  Both are built by make bench; arguments are
# passed on to bench/claim (claim -h lists them).
dir=$(dirname "$0")
for b in claim claimgroup; do
	if [ ! -x "$dir/$b" ]; then
		echo "claim: error: $dir/$b is not built (run make bench)" >&2
		exit 69
	fi
done
"$dir/claim" "$@" || exit $?
exec "$dir/claimgroup"
