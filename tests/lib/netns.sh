# netns.sh — make and remove the two network namespaces of an egress test
# (an archiving host and the public internet); source it after tap.sh.
# Needs root and ip(8) (iproute2); Linux.
# shellcheck shell=sh
#
#   . "$(dirname "$0")/lib/netns.sh"
#   trap 'netns_remove; cleanup' EXIT      # cleanup: tap.sh's
#   netns_make "$$" || { echo "1..0 # SKIP $NETNS_WHY"; exit 0; }
#   netns_a CMD...    run CMD in the archiving host's namespace
#   netns_b CMD...    run CMD in the public internet's namespace
#   netns_remove      end every process in both, remove them (again: no-op)
#
# netns_make TAG makes, with names that end in TAG (the test's $$, so that
# tests side by side never share one):
#
#   NETNS_A (abx-egress-a-TAG), the archiving host: lo up, with also the
#     private address $NETNS_PRIVATE (10.77.0.1) and the IPv4-compatible
#     IPv6 address $NETNS_COMPAT (::7f00:1, which some parsers read as
#     127.0.0.1) on lo; a veth to B at $NETNS_A_ADDR (198.51.100.2/24);
#     the default route via B.  /etc/netns/NETNS_A/resolv.conf names
#     $NETNS_DNS as the only name server (ip netns exec mounts it over
#     /etc/resolv.conf for what runs in A).
#   NETNS_B (abx-egress-b-TAG), the public internet: lo up, with the public
#     site's address $NETNS_PUBLIC (192.0.2.10) and the name server's
#     $NETNS_DNS (203.0.113.53) on it; its veth end at $NETNS_B_ADDR
#     (198.51.100.1/24).  It forwards nothing.
#
# Every address outside A's own loopback and private ones is from the
# TEST-NET ranges (RFC 5737), inside the namespaces only: nothing is
# routed to or from the machine's own network.  A has no IPv6 route but
# its loopback.
#
# netns_make returns 1, with the reason in $NETNS_WHY, where a step
# fails (not root, no ip(8), namespaces or veth not permitted); what it
# made by then is removed by netns_remove.  netns_remove ends the
# processes still in either namespace (TERM, then KILL after 2 s: they
# are the test's own, in namespaces only it made), deletes both (their
# veth goes with them) and /etc/netns/NETNS_A, and /etc/netns if
# netns_make made it and it is empty.

NETNS_A='' NETNS_B=''
NETNS_A_ADDR=198.51.100.2 NETNS_B_ADDR=198.51.100.1
NETNS_PUBLIC=192.0.2.10 NETNS_DNS=203.0.113.53
NETNS_PRIVATE=10.77.0.1 NETNS_COMPAT=::7f00:1
_nn_etc='' _nn_made_etc=''

netns_a() { ip netns exec "$NETNS_A" "$@"; }
netns_b() { ip netns exec "$NETNS_B" "$@"; }

# _nn STEP CMD...: run CMD; on failure say which step in $NETNS_WHY
_nn() {
	_nn_step=$1
	shift
	if ! _nn_out=$("$@" 2>&1); then
		NETNS_WHY="$_nn_step failed: $* ($(printf '%s' "$_nn_out" | head -c 200))"
		return 1
	fi
}

netns_make() {
	NETNS_WHY=
	if [ "$(id -u)" -ne 0 ]; then NETNS_WHY="network namespaces need root"; return 1; fi
	command -v ip >/dev/null 2>&1 || { NETNS_WHY="no ip(8) (iproute2)"; return 1; }
	_nn_a=abx-egress-a-$1 _nn_b=abx-egress-b-$1
	_nn "making namespace A" ip netns add "$_nn_a" || return 1
	NETNS_A=$_nn_a
	_nn "making namespace B" ip netns add "$_nn_b" || return 1
	NETNS_B=$_nn_b
	_nn "making the veth" ip link add "ega$1" netns "$NETNS_A" type veth peer name "egb$1" netns "$NETNS_B" ||
		return 1
	_nn "A: lo up" ip -n "$NETNS_A" link set lo up &&
		_nn "A: private address" ip -n "$NETNS_A" addr add "$NETNS_PRIVATE/32" dev lo &&
		_nn "A: IPv4-compatible address" ip -n "$NETNS_A" -6 addr add "$NETNS_COMPAT/128" dev lo &&
		_nn "A: veth address" ip -n "$NETNS_A" addr add "$NETNS_A_ADDR/24" dev "ega$1" &&
		_nn "A: veth up" ip -n "$NETNS_A" link set "ega$1" up &&
		_nn "B: lo up" ip -n "$NETNS_B" link set lo up &&
		_nn "B: public address" ip -n "$NETNS_B" addr add "$NETNS_PUBLIC/32" dev lo &&
		_nn "B: name server address" ip -n "$NETNS_B" addr add "$NETNS_DNS/32" dev lo &&
		_nn "B: veth address" ip -n "$NETNS_B" addr add "$NETNS_B_ADDR/24" dev "egb$1" &&
		_nn "B: veth up" ip -n "$NETNS_B" link set "egb$1" up &&
		_nn "A: default route" ip -n "$NETNS_A" route add default via "$NETNS_B_ADDR" || return 1
	[ -d /etc/netns ] || _nn_made_etc=1
	_nn_etc=/etc/netns/$NETNS_A
	_nn "making $_nn_etc" mkdir -p "$_nn_etc" || return 1
	if ! printf 'nameserver %s\noptions timeout:2 attempts:2\n' "$NETNS_DNS" >"$_nn_etc/resolv.conf"; then
		# shellcheck disable=SC2034  # the caller's to read
		NETNS_WHY="cannot write $_nn_etc/resolv.conf"
		return 1
	fi
}

# _nn_end NS: end the processes in NS (TERM, then KILL after 2 s)
_nn_end() {
	_nn_p=$(ip netns pids "$1" 2>/dev/null)
	[ -n "$_nn_p" ] || return 0
	# shellcheck disable=SC2086  # one pid a word
	kill -TERM $_nn_p 2>/dev/null
	_nn_i=0
	while [ $_nn_i -lt 40 ] && [ -n "$(ip netns pids "$1" 2>/dev/null)" ]; do
		sleep 0.05
		_nn_i=$((_nn_i + 1))
	done
	_nn_p=$(ip netns pids "$1" 2>/dev/null)
	# shellcheck disable=SC2086
	[ -z "$_nn_p" ] || kill -KILL $_nn_p 2>/dev/null
}

netns_remove() {
	for _nn_ns in "$NETNS_A" "$NETNS_B"; do
		[ -n "$_nn_ns" ] || continue
		_nn_end "$_nn_ns"
		ip netns del "$_nn_ns" 2>/dev/null
	done
	NETNS_A='' NETNS_B=''
	if [ -n "$_nn_etc" ]; then
		rm -rf "$_nn_etc"
		[ -z "$_nn_made_etc" ] || rmdir /etc/netns 2>/dev/null
		_nn_etc='' _nn_made_etc=''
	fi
	return 0
}
