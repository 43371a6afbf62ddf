#!/bin/sh
# The wget hook on a full disk: a real tmpfs (in a private mount namespace)
# too small for the page.  The hook still prints its result, "failed" with
# wget's own words (No space left on device), exits 1, and leaves its
# directory's lock free; on a disk with room the same page succeeds.
# shellcheck source-path=SCRIPTDIR source=lib/mountns.sh
. "$(dirname "$0")/lib/mountns.sh"
# shellcheck source-path=SCRIPTDIR source=lib/tap.sh
. "$(dirname "$0")/lib/tap.sh"
# shellcheck source-path=SCRIPTDIR source=lib/httpd.sh
. "$(dirname "$0")/lib/httpd.sh"

M=$T/disk
mkdir -p "$M" "$T/root"
if ! mount -t tmpfs -o size=64k tmpfs "$M" 2>"$T/mount.err"; then
	echo "1..0 # SKIP cannot mount a tmpfs: $(cat "$T/mount.err")"
	exit 0
fi
trap 'umount -l "$M" 2>/dev/null; cleanup' EXIT
# a 256 KB page: more than the disk holds
{
	echo '<!doctype html><html><head><title>big</title></head><body><pre>'
	i=0
	while [ "$i" -lt 4096 ]; do
		echo 'abcdefghijklmnopqrstuvwxyz0123456789abcdefghijklmnopqrstuvwxyz'
		i=$((i + 1))
	done
	echo '</pre></body></html>'
} >"$T/root/big.html"
httpd_start --root "$T/root" || exit 1
WH=$SHARE/abx/plugins/wget/on_Snapshot__06_wget.finite.bg.bin
plan 5

mkdir -p "$M/s/wget"
(cd "$M/s/wget" && exec env TIMEOUT=30 WGET_SAVE_WARC=false "$WH" --url="$BASE/big.html" \
	>"$T/out" 2>"$T/err")
is "$?/$(jq -r .status "$T/out")" "1/failed" "a page that does not fit: the hook fails, and says so"
like "$(jq -r .error "$T/out")" "No space left on device" "in wget's words"
free() { flock -n "$M/s/wget" true; }
ok "its directory's lock is free" free

mkdir -p "$T/s/wget"
(cd "$T/s/wget" && exec env TIMEOUT=30 WGET_SAVE_WARC=false "$WH" --url="$BASE/big.html" \
	>"$T/out" 2>"$T/err")
is "$?/$(jq -r .status "$T/out")" "0/succeeded" "the same page on a disk with room: succeeded"
ok "and saved whole" cmp -s "$T/root/big.html" "$T/s/wget/127.0.0.1+$HTTPD_PORT/big.html"
