/*
 * gatepeer.c — who is at the other end of a gate's client socket
 * (gate_int.h): only the gate's own uid may use it, as a Unix socket in a
 * private directory would allow, for a TCP port on 127.0.0.1 that any
 * local user can reach.
 *
 * Linux: the client's socket is the one whose local address and port are
 * our peer's and whose remote ones are our own; its owner is the euid
 * that made it.  It is asked of the kernel by that address pair with
 * sock_diag(7) (NETLINK_SOCK_DIAG, one exact lookup, a few microseconds);
 * where that is not available, it is the line of /proc/net/tcp (or tcp6,
 * for a dual-stack client on ::ffff:127.0.0.1) with those addresses, in
 * any state but TIME_WAIT, and its uid column (a read of those files
 * lists every TCP socket of the network namespace: 1.5 ms of CPU with
 * 500 of them).  Not found (a client gone already, no /proc): -1, and the
 * gate refuses.
 *
 * Elsewhere there is no such table: every client is taken to be the
 * gate's own uid (gate_peer_uid() says so), and any local user who finds
 * the port can use the gate.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <unistd.h>

#include "net/gate_int.h"

#ifdef __linux__
#include <linux/inet_diag.h>
#include <linux/netlink.h>
#include <linux/sock_diag.h>

/* The uid of the TCP socket local -> remote, by sock_diag: 0, 1 if there
 * is no such socket, -1 if the kernel could not be asked. */
static int
diag(const struct sockaddr_in *local, const struct sockaddr_in *remote, uid_t *uid)
{
	struct {
		struct nlmsghdr h;
		struct inet_diag_req_v2 r;
	} q = {0};
	q.h.nlmsg_len = sizeof q;
	q.h.nlmsg_type = SOCK_DIAG_BY_FAMILY;
	q.h.nlmsg_flags = NLM_F_REQUEST;
	q.r.sdiag_family = AF_INET;
	q.r.sdiag_protocol = IPPROTO_TCP;
	q.r.idiag_states = ~0u & ~(1u << 6);   /* not TIME_WAIT */
	q.r.id.idiag_sport = local->sin_port;
	q.r.id.idiag_dport = remote->sin_port;
	q.r.id.idiag_src[0] = local->sin_addr.s_addr;
	q.r.id.idiag_dst[0] = remote->sin_addr.s_addr;
	q.r.id.idiag_cookie[0] = q.r.id.idiag_cookie[1] = INET_DIAG_NOCOOKIE;
	int fd = socket(AF_NETLINK, SOCK_DGRAM | SOCK_CLOEXEC, NETLINK_SOCK_DIAG);
	if (fd < 0)
		return -1;
	union {
		struct nlmsghdr h;
		char b[8192];
	} a;
	ssize_t n = -1;
	if (send(fd, &q, sizeof q, 0) == (ssize_t)sizeof q)
		while ((n = recv(fd, &a, sizeof a, 0)) < 0 && errno == EINTR)
			;
	close(fd);
	if (n < (ssize_t)sizeof a.h || !NLMSG_OK(&a.h, (size_t)n))
		return -1;
	if (a.h.nlmsg_type == SOCK_DIAG_BY_FAMILY && a.h.nlmsg_len >= NLMSG_LENGTH(sizeof(struct inet_diag_msg))) {
		*uid = ((struct inet_diag_msg *)NLMSG_DATA(&a.h))->idiag_uid;
		return 0;
	}
	if (a.h.nlmsg_type == NLMSG_ERROR && a.h.nlmsg_len >= NLMSG_LENGTH(sizeof(struct nlmsgerr)) &&
	    ((struct nlmsgerr *)NLMSG_DATA(&a.h))->error == -ENOENT)
		return 1;
	return -1;
}

/* Scan one table for local addr:lport, remote raddr:rport. */
static int
scan(const char *path, const char *laddr, unsigned lport, const char *raddr, unsigned rport, uid_t *uid)
{
	FILE *f = fopen(path, "re");
	if (!f)
		return -1;
	char line[512], la[40], ra[40];
	unsigned lp, rp, st, u;
	int found = -1;
	if (!fgets(line, sizeof line, f))   /* the column names */
		line[0] = 0;
	while (found < 0 && fgets(line, sizeof line, f)) {
		if (sscanf(line, "%*u: %39[0-9A-Fa-f]:%x %39[0-9A-Fa-f]:%x %x %*x:%*x %*x:%*x %*x %u",
		    la, &lp, ra, &rp, &st, &u) != 6)
			continue;
		if (lp == lport && rp == rport && st != 6 && strcasecmp(la, laddr) == 0 &&
		    strcasecmp(ra, raddr) == 0) {
			*uid = (uid_t)u;
			found = 0;
		}
	}
	fclose(f);
	return found;
}

int
gate_peer_uid(int cfd, uid_t *uid)
{
	struct sockaddr_in peer, me;
	socklen_t pl = sizeof peer, ml = sizeof me;
	if (getpeername(cfd, (struct sockaddr *)&peer, &pl) < 0 || getsockname(cfd, (struct sockaddr *)&me, &ml) < 0 ||
	    peer.sin_family != AF_INET || me.sin_family != AF_INET)
		return -1;
	/* the kernel prints each 32-bit word of an address as a number in
	 * host order, "%08X" */
	char l4[16], r4[16], l6[40], r6[40];
	unsigned ffff = htonl(0xffff);
	snprintf(l4, sizeof l4, "%08X", (unsigned)peer.sin_addr.s_addr);
	snprintf(r4, sizeof r4, "%08X", (unsigned)me.sin_addr.s_addr);
	snprintf(l6, sizeof l6, "0000000000000000%08X%08X", ffff, (unsigned)peer.sin_addr.s_addr);
	snprintf(r6, sizeof r6, "0000000000000000%08X%08X", ffff, (unsigned)me.sin_addr.s_addr);
	int d = diag(&peer, &me, uid);
	if (d >= 0)
		return d ? -1 : 0;
	unsigned lp = ntohs(peer.sin_port), rp = ntohs(me.sin_port);
	if (scan("/proc/net/tcp", l4, lp, r4, rp, uid) == 0)
		return 0;
	return scan("/proc/net/tcp6", l6, lp, r6, rp, uid);
}
#else
int
gate_peer_uid(int cfd, uid_t *uid)
{
	*uid = geteuid();
	return 0;
}
#endif
