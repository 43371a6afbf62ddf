/*
 * gate_int.h — what the egress gate's files share (gate.h says what the
 * gate does):
 *
 *   gate.c       gate_serve(): the accept loop, a thread a client, the relay
 *   gatereq.c    the request head: read, parse, rewrite to origin form; the
 *                response head: rewritten, its Location added to the page
 *                chain
 *   gateconn.c   resolve (once a gate), classify, connect to a checked
 *                address; the 403, 502 and other answers; the refusal log
 *   gatepeer.c   the uid owning a client's socket
 *   gatepace.c   the connections a host: slot lock files under the data
 *                directory's locks/conn/, the wait for one, the 503
 *   gatestart.c  gate_start(), gate_refusals(), gate_stop()
 *   gatekeep.c   a kept gate: the worker's side (gate_start_kept) and the
 *                gate's (gate_serve_kept), over its control socket
 *
 * One gate_ctx_t a snapshot (a one-shot gate has one), shared by its
 * threads: what is written after it is made (the log, the page chain,
 * the name cache, the pacing's host directories, the connections it
 * serves) is under its mutex.  It is counted: the loop that accepts for
 * it holds one reference, each client thread one; the last to let go
 * frees it and closes its log and pacing directory.  Dropped (a kept
 * gate's next snapshot began), its connections are cut (gate.c), nothing
 * more is logged, and a connection opened meanwhile is closed at once.
 */
#ifndef ABX_GATE_INT_H
#define ABX_GATE_INT_H

#include <pthread.h>
#include <stddef.h>
#include <sys/types.h>

#include "base/buf.h"
#include "net/gate.h"

#define GATE_HEAD_MAX 65536      /* a longer request head gets 431 */
#define GATE_CONNECT_SECS 15     /* to connect to one address */
#define GATE_ADDRS 16            /* addresses kept of one name */
#define GATE_CHAIN_MAX 64        /* URLs of the page's redirect chain */
#define GATE_NAME_SLOTS 256      /* buckets of the name cache */
#define GATE_PACE_IDLE 2         /* s a tunnel is quiet before it yields its slot */

typedef struct {
	int family;                  /* AF_INET or AF_INET6 */
	unsigned char a[16];         /* network order; IPv4 in a[0..3] */
} gate_addr_t;

typedef struct gate_name gate_name_t;   /* a cached answer (gateconn.c) */
typedef struct gate_pacehost gate_pacehost_t;   /* a host's directory (gatepace.c) */

typedef struct {
	unsigned allow;              /* zones let through (1 << netzone_t) */
	int logfd;
	uid_t uid;                   /* the clients' uid: the gate's own */
	pthread_mutex_t lock;        /* the log, the chain, the name cache */
	char *chain[GATE_CHAIN_MAX]; /* canonical URLs (url_canon) */
	int nchain;
	gate_name_t *names[GATE_NAME_SLOTS];
	pthread_mutex_t slots;       /* active, under GATE_MAX_CLIENTS */
	pthread_cond_t freed;
	int active;
	int pace_max;                /* connections a host (HOST_MAX_CONCURRENT); 0: none */
	int pace_wait;               /* s a connection waits for one */
	int pace_dfd;                /* DIR/locks/conn, or -1 */
	gate_pacehost_t *pace_hosts;
	int refs;                    /* under lock: the loop's and its threads' */
	int dropped;                 /* under lock: its snapshot has ended */
	int *live;                   /* under lock: the sockets it serves (a server's as ~fd: gate.c) */
	int nlive, caplive;
} gate_ctx_t;

/* A connection's pacing slot (gatepace.c). */
typedef struct {
	int fd;                      /* the slot-K file it holds locked, or -1 */
	int waitfd;                  /* its host's wait file, or -1 */
} gate_slot_t;

/* A request, as gate_req_parse() reads it: pointers into the caller's copy
 * of the head (NUL-terminated in place). */
typedef struct {
	int connect;                 /* CONNECT host:port */
	char *target;                /* as the client wrote it */
	char host[256];              /* lower case; an IPv6 literal in brackets */
	int port;
	buf_t out;                   /* plain HTTP: the head to send the server */
	const char *why;             /* why a 4xx/5xx */
} gate_req_t;

/* gate.c */
/* A context for one gate's (or one kept snapshot's) rules, with one
 * reference (the caller's): NULL with errno set if it cannot be made.
 * logfd and pacefd are its own from then on (closed when it is freed). */
gate_ctx_t *gate_ctx_new(unsigned allow, const char *page, int logfd, int pacefd, const gate_pace_t *pace);
/* Let go of a reference; the last frees it. */
void gate_ctx_unref(gate_ctx_t *g);
/* Drop it: every connection it serves is cut (a client's shut down both
 * ways, a server's reset: gate.c), and no more is logged, opened or
 * relayed for it. */
void gate_ctx_drop(gate_ctx_t *g);
/* Accept a client on lfd (listener number listener) for g: a thread
 * serves it (holding a reference to g). */
void gate_take_client(gate_ctx_t *g, int lfd, int listener);
/* Wait while g serves GATE_MAX_CLIENTS clients. */
void gate_wait_slot(gate_ctx_t *g);
/* Count fd among g's connections (0), or -1 if g is dropped (fd is
 * then not counted, and the caller closes it); forget it before closing
 * it. */
int gate_live_add(gate_ctx_t *g, int fd);
void gate_live_del(gate_ctx_t *g, int fd);
/* gatestart.c: a listening socket on 127.0.0.1 (close-on-exec), its
 * port in *port; or -1, errno set. */
int gate_listener(int *port);
/* gatekeep.c: gate_stop()'s part for a kept gate's snapshot. */
void gate_end_kept(gate_t *g);
/* gateconn.c, gatepace.c, gatereq.c: what a context holds, freed */
void gate_names_free(gate_ctx_t *g);
void gate_pace_free(gate_ctx_t *g);
void gate_chain_free(gate_ctx_t *g);

/* gatereq.c */
/* Read a request head into in (bytes after it may follow in the buffer):
 * its length in *headlen and 0; 431 if longer than GATE_HEAD_MAX; -1 if
 * the client went away or was idle. */
int gate_read_head(int fd, buf_t *in, size_t *headlen);
/* Parse head (NUL-terminated, modified in place): 0, or the status to
 * answer (400, 501) with r->why. */
int gate_req_parse(char *head, gate_req_t *r);
void gate_req_free(gate_req_t *r);

/* The server's response head, rewritten on its way to the client: the
 * server's Connection and Keep-Alive dropped, "Connection: close" sent;
 * a 3xx's Location kept.  X-Abx-Gate is dropped from every head (an
 * interim one's too): it marks the gate's own answers (hookcurl.h). */
typedef struct {
	int raw;                     /* past the head (or no head to parse) */
	buf_t acc;                   /* the head so far */
	char *location;              /* a 3xx's Location, malloc'd */
} gate_resp_t;
/* Feed n bytes from the server; what goes to the client is appended to
 * out. */
void gate_resp_feed(gate_resp_t *s, const char *p, size_t n, buf_t *out);
/* At the server's EOF: what is still held back, to out. */
void gate_resp_end(gate_resp_t *s, buf_t *out);
void gate_resp_free(gate_resp_t *s);

/* The page chain: is this request the page's own fetch?  A Location
 * answered to one adds it. */
int gate_chain_has(gate_ctx_t *g, const gate_req_t *r);
void gate_chain_add(gate_ctx_t *g, const char *base, const char *location);
void gate_chain_init(gate_ctx_t *g, const char *page);

/* gateconn.c */
/* Resolve r's host, keep its allowed addresses, take a pacing slot of
 * the host (into *slot) and connect to one: the server's socket; or -1
 * once the client has been answered (403 logged, 400, 502, 503 logged)
 * or has gone, and no slot is held. */
int gate_open(gate_ctx_t *g, int cfd, int listener, const gate_req_t *r, gate_slot_t *slot);
/* Append one line to the refusal log (one write(2) under the lock). */
void gate_log(gate_ctx_t *g, const buf_t *line);
/* A whole answer: status line, text/plain body and Connection: close;
 * hdr is an extra header line (without CRLF) or NULL. */
void gate_answer(int fd, int status, const char *hdr, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
int gate_send_all(int fd, const char *p, size_t n);
void gate_timeouts(int fd);

/* gatepace.c */
/* The pacing key of a request's host (hostpace_key of its URL): 0, or -1
 * if it has none. */
int gate_pace_key(const char *host, int port, int connect, char *out, size_t n);
/* Check and open DIR/locks/conn (made if needed) for max (1 ..
 * HOSTPACE_SLOTS_MAX) connections a host: its fd, or -1 with errno and
 * *why. */
int gate_pace_open(const char *dir, int max, const char **why);
/* Take a slot of r's host into *s, waiting if none is free: 0 (s->fd is
 * -1 if the host is not paced: no pacing, or its state cannot be used);
 * -1 if the client was answered (400, 503) or went away meanwhile. */
int gate_pace_take(gate_ctx_t *g, int cfd, int listener, const gate_req_t *r, gate_slot_t *s);
/* Does another connection wait for a slot of s's host? */
int gate_pace_wanted(const gate_slot_t *s);
void gate_pace_release(gate_slot_t *s);

/* gatepeer.c */
/* The uid owning the other end of cfd (a client on 127.0.0.1): 0, or -1
 * if it cannot be told. */
int gate_peer_uid(int cfd, uid_t *uid);

#endif
