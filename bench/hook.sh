#!/bin/sh
# hook.sh — the hook benchmark: what abx-hook adds per hook over spawning
# the same no-op hook directly (see the top of bench/hook.c).  bench/hook
# and bin/abx-hook are built by make bench; arguments are passed on.
bin=$(dirname "$0")/hook
if [ ! -x "$bin" ]; then
	echo "hook: error: $bin is not built (run make bench)" >&2
	exit 69
fi
exec "$bin" "$@"
