# shellcheck shell=sh
# mountns.sh — sourced first by a test that mounts a filesystem of its own
# (a small tmpfs: a full disk): runs the test again in a private mount
# namespace, as root or as a user namespace's root, or skips it where
# neither is allowed.  $0 is the test; nothing of tap.sh is loaded yet.
if [ -z "${ABX_MOUNTNS:-}" ]; then
	ABX_MOUNTNS=1
	export ABX_MOUNTNS
	if unshare -m --propagation private true 2>/dev/null; then
		exec unshare -m --propagation private sh "$0"
	elif unshare -r -m true 2>/dev/null; then
		exec unshare -r -m sh "$0"
	fi
	echo "1..0 # SKIP no mount namespace here (unshare -m and unshare -rm both refused)"
	exit 0
fi
