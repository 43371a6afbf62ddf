#!/bin/sh
# claim.sh — the claim benchmark: a durable claim with 100k sealed
# snapshots against none, and against ArchiveBox's SQLite claim (see the
# top of bench/claim.c).  bench/claim is built by make bench; arguments are
# passed on (claim -h lists them).
bin=$(dirname "$0")/claim
if [ ! -x "$bin" ]; then
	echo "claim: error: $bin is not built (run make bench)" >&2
	exit 69
fi
exec "$bin" "$@"
