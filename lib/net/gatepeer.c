/*
 * gatepeer.c — who is at the other end of a gate's client socket
 * (gate_int.h): only the gate's own uid may use it, as a Unix socket in a
 * private directory would allow, for a TCP port on 127.0.0.1 that any
 * local user can reach.
 *
 * Linux: the client's socket is the line of /proc/net/tcp (or tcp6, for a
 * dual-stack client on ::ffff:127.0.0.1) whose local address and port are
 * our peer's and whose remote ones are our own, in any state but
 * TIME_WAIT; its uid column is the owner (the euid that made the socket).
 * Not found (no /proc, a client gone already): -1, and the gate refuses.
 * The cost is one read of those files a connection, which list every TCP
 * socket of the network namespace.
 *
 * Elsewhere there is no such table: every client is taken to be the
 * gate's own uid (gate_peer_uid() says so), and any local user who finds
 * the port can use the gate.
 */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <unistd.h>

#include "net/gate_int.h"

#ifdef __linux__
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
