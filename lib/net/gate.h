/*
 * gate.h — the egress gate: every connection a hook makes to the network
 * goes through it, and it is checked by the address it goes to
 * (abx(7) SECURITY, abx-gate(1)).
 *
 * The gate is a forward HTTP proxy on 127.0.0.1, for plain HTTP (a request
 * in absolute form, "GET http://host:port/path HTTP/1.1") and CONNECT
 * (TLS stays end to end: no interception).  For each request it resolves
 * the host itself (a literal is taken as it is; a name is resolved once a
 * gate and the answer kept for its lifetime), classifies every address
 * (netzone.h), keeps those in the allowed zones, and connects only to one
 * of the addresses it checked: no second resolution, so redirects,
 * requisites, other spellings of an address, names that resolve to
 * loopback and names whose answer changes (rebinding) are all covered by
 * construction.  A request none of whose addresses is allowed is answered
 * "403 Forbidden" with a header "X-Abx-Gate: refused zone=<zone>" and a
 * one-line text/plain body naming the URL, the address and its zone; it
 * is logged (below).  A name that does not resolve, or an address that
 * cannot be connected to, gets "502 Bad Gateway" with the cause.
 *
 * Plain HTTP: the request line is rewritten to origin form, Proxy-*
 * headers are dropped and "Connection: close" is sent (one request a
 * connection; the client is answered with the server's bytes as they
 * come; its response head gets "Connection: close" too).  Only the owner
 * of the gate's uid may use it: on Linux, a client whose socket (asked of
 * sock_diag(7), else found in /proc/net/tcp{,6}) belongs to another uid,
 * or cannot be found, is refused (403, "X-Abx-Gate: refused uid"; not
 * logged); elsewhere any local user who finds the port can use it.  A request head over 64 KiB gets 431, a
 * request in origin form (to the gate itself) 400, a scheme other than
 * http 501.
 *
 * Listeners.  A gate listens on n ports, one a client (abx-hook gives each
 * hook its own), so that a refusal is told to the hook that asked.
 *
 * The page.  page is the snapshot's URL (or NULL).  A plain-HTTP 3xx
 * answer to a URL of the page's chain adds its Location to the chain; a
 * refusal of a URL in the chain (or of a CONNECT to the host:port of an
 * https URL in it) is the page's own fetch being refused ("page":true).
 * Redirects inside TLS are not seen: an https page's chain is its URL.
 *
 * Pacing (gatepace.c).  Given a data directory and a number (abx-hook
 * gives HOST_MAX_CONCURRENT), a host gets at most that many connections at
 * once from every gate on the data directory together: a connection takes
 * one of the host's slot lock files under DIR/locks/conn/ (flock: a dead
 * gate frees its slots) before the gate connects, and gives it back when
 * the server's socket is closed.  One that finds none free waits up to
 * pace->wait seconds (GATE_PACE_WAIT by default); an idle CONNECT tunnel
 * holding a slot of a host someone waits for is closed after
 * GATE_PACE_IDLE quiet seconds (gate_int.h), so that a kept-alive
 * connection does not starve the next hook.  A connection that waited in
 * vain is answered "503 Service Unavailable" with "X-Abx-Gate: paced
 * host=KEY max=N" and logged (below).
 *
 * The log.  Each refusal is one JSON line appended to a memfd before the
 * 403 is sent (so a client that saw the 403 and exited has its line in the
 * log):
 *   {"listener":I,"url":"http://h/p" or "h:443","host":"h",
 *    "address":"127.0.0.1","zone":"loopback","page":false}
 * and so is each connection pacing gave up on, before its 503:
 *   {"listener":I,"url":..,"host":"h","paced":N,"page":false}
 *
 * The process.  gate_start() checks the data directory, makes the
 * listeners (at most GATE_MAX_LISTENERS), then spawns abx-gate --serve beside the running
 * program (spawn.h: posix_spawn, whose cost does not grow with the
 * caller's memory; a fork would make every page the caller then writes a
 * copy-on-write fault, which cost abx-hook 13 ms of CPU a phase) with the
 * listeners as its fds 3.. and the log after them, and nothing else of
 * the caller's (its lease is not among them).  The gate dies with its
 * parent (PR_SET_PDEATHSIG, and a check of getppid(): gate_serve_fds),
 * ignores SIGPIPE, and serves each client connection in a thread of its
 * own (blocking I/O, idle timeout GATE_IDLE seconds, at most
 * GATE_MAX_CLIENTS at once).  SIGTERM ends it (its default action: the
 * gate has nothing to flush).  gate_stop() sends SIGTERM and reaps it.
 * The gate writes nothing to stdout; abx-gate's own errors (it cannot
 * start) go to the caller's stderr.
 *
 * Kept (gatekeep.c).  A serving worker runs snapshot after snapshot, one
 * at a time, and keeps one gate process for them: gate_start_kept()
 * starts it once (abx-gate --kept, a control socket as its fd 3; it dies
 * with the worker as a one-shot gate does) and at each snapshot gives it
 * that snapshot's fresh listeners and log and tells it the snapshot's
 * zones, page and pacing; the gate then drops every connection of the
 * snapshot before (cut, nothing more relayed or logged for it) and serves the
 * new one with a context of its own: a fresh name cache, page chain and
 * pacing directory, as a new gate would have.  gate_stop() of such a
 * snapshot ends it the same way and leaves the process up.  A kept gate
 * that died is started again at the next snapshot.
 *
 * Cost: on the 2-CPU test machine, under heavy load, about 0.9 ms of the
 * gate's CPU a request (bench/gate.sh), nearly all of it in the kernel
 * (a thread, two connections, a sock_diag lookup, the copies).
 *
 * The files: gate.c (the loop), gatereq.c (heads), gateconn.c (resolve,
 * check, connect, answer, log), gatepace.c (connections a host),
 * gatepeer.c (the client's uid), gatestart.c (the process, and
 * bin/abx-gate.c's --serve), gatekeep.c (a kept gate, and --kept);
 * gate_int.h is what they share.
 */
#ifndef ABX_GATE_H
#define ABX_GATE_H

#include <sys/types.h>

#define GATE_IDLE 120
#define GATE_MAX_CLIENTS 256
#define GATE_MAX_LISTENERS 128   /* SPAWN_NFD - 4: what abx-gate can be given */
#define GATE_PACE_WAIT 60        /* s a connection waits for a slot of its host */

/* Pacing: at most max connections a host at once (HOST_MAX_CONCURRENT, 1
 * to HOSTPACE_SLOTS_MAX), counted in dir's locks/ with every other gate
 * on it; a connection waits up to wait seconds (0: GATE_PACE_WAIT). */
typedef struct {
	int max;
	const char *dir;
	int wait;
} gate_pace_t;

typedef struct {
	pid_t pid;        /* the gate process, or 0 */
	int n;            /* listeners */
	int *port;        /* port[i]: listener i's port on 127.0.0.1 */
	int logfd;        /* the refusal log (memfd), or -1 */
	off_t logoff;     /* how far gate_refusals() has read */
	int kept;         /* a snapshot of the kept gate (gate_start_kept) */
} gate_t;

/* A refusal: a zone's (address and zone set, paced 0), or pacing's
 * (paced: the connections a host, address and zone ""). */
typedef struct {
	int listener;
	const char *url, *host, *address, *zone;
	int page;
	int paced;
} gate_refusal_t;

/* Start a gate with n (>= 1) listeners that lets through the zones in
 * allow (a mask of 1 << netzone_t, zonepolicy_allowed(); NZ_PUBLIC is
 * always added), pacing its connections if pace is not NULL.  0, or -1
 * with errno set (nothing left open); a data directory that cannot be
 * used is -1 with *why saying so (else *why is ""). */
int gate_start(gate_t *g, int n, unsigned allow, const char *page, const gate_pace_t *pace, const char **why);
/* Call fn for each refusal logged since the last call; the strings are
 * valid during the call.  The number of refusals read, or -1 (errno
 * set). */
int gate_refusals(gate_t *g, void (*fn)(void *ctx, const gate_refusal_t *r), void *ctx);
/* abx-gate --serve N: serve listeners on fds 3 .. 3+N-1, the log on fd
 * 3+N, as gate_start's child; dies with parent (PR_SET_PDEATHSIG).
 * Returns only if it could not start: -1, errno set, *why saying what of
 * the pacing's data directory if that is the cause. */
int gate_serve_fds(int n, unsigned allow, const char *page, pid_t parent, const gate_pace_t *pace,
    const char **why);
/* SIGTERM the gate, reap it, close and free everything; g is zeroed.  Of
 * a kept gate's snapshot: the snapshot ends (its listeners closed, its
 * connections dropped), the gate stays up. */
void gate_stop(gate_t *g);
/* Like gate_start, on this process's kept gate (Kept, above): started
 * first with the environment env if none runs (or it died), then told
 * this snapshot's rules; g is this snapshot's. */
int gate_start_kept(gate_t *g, int n, unsigned allow, const char *page, const gate_pace_t *pace, char *const *env,
    const char **why);
/* abx-gate --kept: serve the snapshots told on the control socket ctl
 * (gatekeep.c), as gate_start_kept's child; dies with parent.  0 at the
 * end of ctl; -1 with errno set if it could not start. */
int gate_serve_kept(int ctl, pid_t parent);

/* The gate's loop, for gate_start's child: serve the n listening sockets
 * lfd[] until a signal ends the process (SIGTERM at its default action);
 * refusals to logfd; paced by pace in pacefd (gate_pace_open's
 * DIR/locks/conn) unless it is -1.  It returns only if it could not
 * start: -1, errno set. */
int gate_serve(const int *lfd, int n, unsigned allow, const char *page, int logfd, int pacefd,
    const gate_pace_t *pace);

#endif
