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
case $0 in */*) _d=${0%/*} ;; *) _d=. ;; esac
. "$_d/../_lib/hook.sh"

hook_init HASHES "$@"
if [ -z "${SNAP_DIR:-}" ] || [ ! -d "$SNAP_DIR" ]; then
	hook_done failed "SNAP_DIR is not a directory"
fi
out=$(pwd)
own=$(basename "$out")
hook_tmpdir

cd "$SNAP_DIR" || hook_done failed "cannot enter $SNAP_DIR"
set --
for d in */; do
	[ -d "$d" ] && [ "$d" != "$own/" ] && set -- "$@" "$d"
done
[ $# -gt 0 ] && wait_for_dirs "$@"

find . -mindepth 2 ! -path "./$own/*" ! -path '*/.*' -type f \
	! -name '*.log' ! -name '*.pid' ! -name 'on_*.sh' -print0 |
	sort -z | xargs -0 -r sha256sum -z -- >"$tmp/sums" ||
	hook_done failed "sha256sum failed"
# one jq: the number of files on the first line, then hashes.json
jq -Rs 'split("\u0000") | map(select(length > 66) | {key: (.[66:] | ltrimstr("./")), value: .[0:64]})
	| from_entries | length, .' "$tmp/sums" >"$tmp/out" || hook_done failed "cannot build hashes.json"
{ read -r n && cat >"$tmp/hashes.json"; } <"$tmp/out" || hook_done failed "cannot build hashes.json"
mv "$tmp/hashes.json" "$out/hashes.json" || hook_done failed "cannot write hashes.json"
hook_done succeeded "hashes.json ($n files)"
