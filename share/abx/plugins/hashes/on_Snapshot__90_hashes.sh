#!/bin/sh
# on_Snapshot__90_hashes — SHA-256 of the snapshot's output files, as hashes.json.
#
#   on_Snapshot__90_hashes.sh --url=URL      (cwd = $SNAP_DIR/hashes/)
#
# 1. Wait (at most 80% of HASHES_TIMEOUT in all) for hooks still writing a
#    plugin dir: a running wget hook holds an exclusive flock on its dir.
# 2. Hash every regular file in the plugin dirs of $SNAP_DIR: not the files
#    at its top (index.jsonl and the like), not our own dir, not hidden
#    files or dirs, not the runner's hook logs, pid and argv files
#    (*.log, *.pid, on_*.sh).
# 3. hashes.json = {"<path relative to SNAP_DIR>":"<sha256 hex>",...},
#    sorted by path; "succeeded", output_str "hashes.json (N files)".
#    Names that are not UTF-8 get U+FFFD in the JSON (jq's rule).
# shellcheck source-path=SCRIPTDIR source=../_lib/hook.sh
. "$(dirname "$0")/../_lib/hook.sh"

hook_init HASHES "$@"
[ -n "${SNAP_DIR:-}" ] && [ -d "$SNAP_DIR" ] || hook_done failed "SNAP_DIR is not a directory"
own=$(basename "$(pwd)")
hook_tmpdir

cd "$SNAP_DIR" || hook_done failed "cannot enter $SNAP_DIR"
for d in */; do
	[ -d "$d" ] && [ "$d" != "$own/" ] && set -- "$@" "$d"
done
shift "$(($# - $(printf '%s\n' "$@" | grep -c '/$')))" 2>/dev/null || true
