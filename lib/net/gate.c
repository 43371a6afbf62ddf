/*
 * gate.c — gate_serve(): the egress gate's loop (gate.h, gate_int.h).
 *
 * 1. Wait for a client on any listener (poll), while fewer than
 *    GATE_MAX_CLIENTS are served; accept it; a detached thread serves it.
 * 2. The thread: the client's uid must be the gate's (gatepeer.c), else
 *    403 "X-Abx-Gate: refused uid".  Read the request head (gatereq.c),
 *    open the server's socket (gateconn.c: the checks, and the answer when
 *    there is none).  CONNECT: "200 Connection established", then bytes
 *    both ways.  Plain HTTP: the rewritten head and what followed it, then
 *    bytes both ways, the response head rewritten on its way back and a
 *    3xx's Location added to the page chain before the client sees it.
 * 3. The relay: poll() on both sockets; what one sends is written to the
 *    other (blocking, SO_SNDTIMEO); at one side's end of file the other
 *    gets shutdown(SHUT_WR); it ends when both have ended, at an error, or
 *    after GATE_IDLE seconds with nothing from either side.  A CONNECT
 *    tunnel that holds a pacing slot (gatepace.c) looks every second: if
 *    the server spoke last (or nobody has), it has been quiet
 *    GATE_PACE_IDLE seconds and another connection waits for its host, it
 *    ends (an idle kept-alive connection, closed as a server closes one).
 * 4. The server's socket is closed and the pacing slot given back; the
 *    client's socket is half-closed and drained for a second before it
 *    is closed, so that an answer is not lost to a reset when the client
 *    was still sending (a refused POST).
 * A kept gate's snapshot that ends (gate_ctx_drop) cuts what its threads
 * serve: a client's socket is shut down both ways (its thread wakes, and
 * nothing more is read from it or sent to it); a server's is reset at
 * once (connect(2) to AF_UNSPEC: an RST, never the FIN of a client that
 * has finished, since half a request followed by a FIN is a whole request
 * to a lenient server; and a relay blocked sending to a server that
 * stopped reading wakes with ECONNRESET, tests/serve-gate-stall.sh), and
 * the relay and the request's head send nothing more to it once the
 * snapshot is dropped.  A server's socket is counted among the
 * context's sockets as ~fd, a client's as fd, so that the drop tells
 * them apart.
 * The gate writes nothing to stdout or stderr (gate_start closes them):
 * what it has to say goes to the client or to the log.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "base/alloc.h"
#include "base/clock.h"
#include "net/gate_int.h"
#include "net/hostpace.h"
#include "net/netzone.h"

#define RELAY_BUF 65536

typedef struct {
	gate_ctx_t *g;
	int fd, listener;
} client_t;

/* A quiet poll of a relay: go on (0) or end it (1)?  last[0], last[1]:
 * when the client, the server last sent (ms; 0: never); since: when the
 * relay began. */
static int
quiet(const gate_slot_t *slot, const gate_req_t *r, const int64_t *last, int64_t since)
{
	int64_t now = (clock_mono() / 1000), spoke = last[0] > last[1] ? last[0] : last[1];
	if (spoke < since)
		spoke = since;
	if (now - spoke >= GATE_IDLE * 1000)
		return 1;
	return r->connect && last[0] <= last[1] && now - spoke >= GATE_PACE_IDLE * 1000 && gate_pace_wanted(slot);
}

/* Has g's snapshot ended (gate_ctx_drop)? */
static int
dropped(gate_ctx_t *g)
{
	pthread_mutex_lock(&g->lock);
	int d = g->dropped;
	pthread_mutex_unlock(&g->lock);
	return d;
}

static void
relay(gate_ctx_t *g, int cfd, int sfd, const gate_req_t *r, const gate_slot_t *slot)
{
	char *buf = xmalloc(RELAY_BUF);
	gate_resp_t rs = {.raw = r->connect};
	buf_t out = {0};
	int eof[2] = {0, 0}, chained = 0;
	/* a paced tunnel looks every second whether it should yield */
	int step = slot->fd >= 0 && r->connect ? 1000 : GATE_IDLE * 1000;
	int64_t since = (clock_mono() / 1000), last[2] = {0, 0};
	while (!eof[0] || !eof[1]) {
		struct pollfd p[2] = {{eof[0] ? -1 : cfd, POLLIN, 0}, {eof[1] ? -1 : sfd, POLLIN, 0}};
		int k = poll(p, 2, step);
		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0 || (k == 0 && (step == GATE_IDLE * 1000 || quiet(slot, r, last, since))))
			break;
		for (int i = 0; i < 2; i++) {
			if (!p[i].revents)
				continue;
			last[i] = (clock_mono() / 1000);
			int from = i ? sfd : cfd, to = i ? cfd : sfd;
			ssize_t n = recv(from, buf, RELAY_BUF, 0);
			if (n < 0 && (errno == EINTR || errno == EAGAIN))
				continue;
			if (n < 0 || dropped(g))
				goto done;   /* nothing more after its snapshot's end */
			buf_reset(&out);
			if (n == 0) {
				eof[i] = 1;
				if (i == 1)
					gate_resp_end(&rs, &out);
			} else if (i == 1 && !rs.raw) {
				gate_resp_feed(&rs, buf, (size_t)n, &out);
				if (rs.location && !chained) {
					chained = 1;
					if (gate_chain_has(g, r))
						gate_chain_add(g, r->target, rs.location);
				}
			} else if (gate_send_all(to, buf, (size_t)n) < 0) {
				goto done;
			}
			if (out.len && gate_send_all(to, out.p, out.len) < 0)
				goto done;
			if (n == 0)
				shutdown(to, SHUT_WR);
		}
	}
done:
	gate_resp_free(&rs);
	buf_free(&out);
	free(buf);
}

static void
close_gently(int fd)
{
	struct timeval tv = {1, 0};
	char b[4096];
	shutdown(fd, SHUT_WR);
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
	for (int i = 0; i < 256 && recv(fd, b, sizeof b, 0) > 0; i++)
		;
	close(fd);
}

static void
serve(gate_ctx_t *g, int cfd, int listener)
{
	uid_t uid;
	if (gate_peer_uid(cfd, &uid) < 0) {
		gate_answer(cfd, 403, "X-Abx-Gate: refused uid", "abx-gate refused a client it cannot tell the "
		    "user of (not in /proc/net/tcp): only uid %u may use this gate", (unsigned)g->uid);
		return;
	}
	if (uid != g->uid) {
		gate_answer(cfd, 403, "X-Abx-Gate: refused uid", "abx-gate refused a client of uid %u: only uid %u "
		    "may use this gate", (unsigned)uid, (unsigned)g->uid);
		return;
	}
	buf_t in = {0};
	size_t hl = 0;
	gate_req_t r = {0};
	int rc = gate_read_head(cfd, &in, &hl);
	char *head = rc == 0 ? xstrndup(in.p, hl) : NULL;
	if (rc == 431)
		gate_answer(cfd, 431, "X-Abx-Gate: error", "abx-gate: a request head longer than %d bytes", GATE_HEAD_MAX);
	else if (rc == 0 && (rc = gate_req_parse(head, &r)) != 0)
		gate_answer(cfd, rc, "X-Abx-Gate: error", "abx-gate: %s", r.why);
	gate_slot_t slot;
	int sfd = rc == 0 ? gate_open(g, cfd, listener, &r, &slot) : -1;
	if (sfd >= 0 && gate_live_add(g, ~sfd) < 0) {
		close(sfd);   /* its snapshot ended meanwhile (gate_ctx_drop) */
		gate_pace_release(&slot);
		sfd = -1;
	}
	if (sfd >= 0) {
		static const char ok[] = "HTTP/1.1 200 Connection established\r\n\r\n";
		buf_add(&r.out, in.p + hl, in.len - hl);   /* what the client sent after the head */
		if ((!r.connect || gate_send_all(cfd, ok, sizeof ok - 1) == 0) && !dropped(g) &&
		    gate_send_all(sfd, r.out.p, r.out.len) == 0)
			relay(g, cfd, sfd, &r, &slot);
		gate_live_del(g, ~sfd);
		close(sfd);
		gate_pace_release(&slot);
	}
	gate_req_free(&r);
	free(head);
	buf_free(&in);
}

static void *
client_thread(void *arg)
{
	client_t *c = arg;
	gate_ctx_t *g = c->g;
	if (gate_live_add(g, c->fd) == 0) {
		serve(g, c->fd, c->listener);
		gate_live_del(g, c->fd);
		close_gently(c->fd);
	} else {
		close(c->fd);
	}
	free(c);
	pthread_mutex_lock(&g->slots);
	g->active--;
	pthread_cond_signal(&g->freed);
	pthread_mutex_unlock(&g->slots);
	gate_ctx_unref(g);
	return NULL;
}

int
gate_live_add(gate_ctx_t *g, int fd)
{
	pthread_mutex_lock(&g->lock);
	int rc = -1;
	if (!g->dropped) {
		if (g->nlive == g->caplive) {
			g->caplive = g->caplive ? 2 * g->caplive : 16;
			g->live = xrealloc(g->live, (size_t)g->caplive * sizeof *g->live);
		}
		g->live[g->nlive++] = fd;
		rc = 0;
	}
	pthread_mutex_unlock(&g->lock);
	return rc;
}

void
gate_live_del(gate_ctx_t *g, int fd)
{
	pthread_mutex_lock(&g->lock);
	for (int i = 0; i < g->nlive; i++)
		if (g->live[i] == fd) {
			g->live[i] = g->live[--g->nlive];
			break;
		}
	pthread_mutex_unlock(&g->lock);
}

void
gate_ctx_drop(gate_ctx_t *g)
{
	pthread_mutex_lock(&g->lock);
	g->dropped = 1;
	/* a socket is forgotten before it is closed, under this lock: no
	 * number here is another's yet */
	for (int i = 0; i < g->nlive; i++) {
		int fd = g->live[i];
		if (fd >= 0) {
			shutdown(fd, SHUT_RDWR);   /* a client's */
			continue;
		}
		/* a server's: reset now (a TCP socket connected to AF_UNSPEC is
		 * disconnected with an RST, and a thread blocked sending to a
		 * server that stopped reading wakes with an error); where that
		 * fails, its close resets it and nothing more is read */
		struct sockaddr none = {.sa_family = AF_UNSPEC};
		struct linger rst = {1, 0};
		setsockopt(~fd, SOL_SOCKET, SO_LINGER, &rst, sizeof rst);
		if (connect(~fd, &none, sizeof none) < 0)
			shutdown(~fd, SHUT_RD);
	}
	pthread_mutex_unlock(&g->lock);
}

void
gate_wait_slot(gate_ctx_t *g)
{
	pthread_mutex_lock(&g->slots);
	while (g->active >= GATE_MAX_CLIENTS)
		pthread_cond_wait(&g->freed, &g->slots);
	pthread_mutex_unlock(&g->slots);
}

void
gate_take_client(gate_ctx_t *g, int lfd, int listener)
{
	int fd = accept4(lfd, NULL, NULL, SOCK_CLOEXEC);
	if (fd < 0) {
		if (errno == EMFILE || errno == ENFILE || errno == ENOBUFS || errno == ENOMEM)
			nanosleep(&(struct timespec){0, 50 * 1000 * 1000}, NULL);
		return;
	}
	gate_timeouts(fd);
	client_t *c = xmalloc(sizeof *c);
	*c = (client_t){g, fd, listener};
	pthread_t t;
	pthread_attr_t attr;
	pthread_mutex_lock(&g->slots);
	g->active++;
	pthread_mutex_unlock(&g->slots);
	pthread_mutex_lock(&g->lock);
	g->refs++;
	pthread_mutex_unlock(&g->lock);
	int rc = pthread_attr_init(&attr);
	if (!rc && (rc = pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED)) == 0 &&
	    (rc = pthread_attr_setstacksize(&attr, 2 << 20)) == 0)
		rc = pthread_create(&t, &attr, client_thread, c);
	pthread_attr_destroy(&attr);
	if (rc != 0) {
		close(fd);
		free(c);
		pthread_mutex_lock(&g->slots);
		g->active--;
		pthread_mutex_unlock(&g->slots);
		gate_ctx_unref(g);
	}
}

gate_ctx_t *
gate_ctx_new(unsigned allow, const char *page, int logfd, int pacefd, const gate_pace_t *pace)
{
	if (pacefd >= 0 && (!pace || pace->max < 1 || pace->max > HOSTPACE_SLOTS_MAX)) {
		errno = EINVAL;
		return NULL;
	}
	gate_ctx_t *g = xcalloc(1, sizeof *g);
	g->allow = (allow | 1u << NZ_PUBLIC) & NZ_ALL;
	g->logfd = logfd;
	g->uid = geteuid();
	g->pace_dfd = pacefd;
	g->pace_max = pacefd >= 0 ? pace->max : 0;
	g->pace_wait = pacefd >= 0 && pace->wait > 0 ? pace->wait : GATE_PACE_WAIT;
	g->refs = 1;
	int rc = pthread_mutex_init(&g->lock, NULL);
	if (!rc && (rc = pthread_mutex_init(&g->slots, NULL)) != 0)
		pthread_mutex_destroy(&g->lock);
	if (!rc && (rc = pthread_cond_init(&g->freed, NULL)) != 0)
		pthread_mutex_destroy(&g->lock), pthread_mutex_destroy(&g->slots);
	if (rc) {
		free(g);
		errno = rc;
		return NULL;
	}
	gate_chain_init(g, page);
	return g;
}

void
gate_ctx_unref(gate_ctx_t *g)
{
	pthread_mutex_lock(&g->lock);
	int last = --g->refs == 0;
	pthread_mutex_unlock(&g->lock);
	if (!last)
		return;
	gate_names_free(g);
	gate_pace_free(g);
	gate_chain_free(g);
	if (g->logfd >= 0)
		close(g->logfd);
	if (g->pace_dfd >= 0)
		close(g->pace_dfd);
	pthread_mutex_destroy(&g->lock);
	pthread_mutex_destroy(&g->slots);
	pthread_cond_destroy(&g->freed);
	free(g->live);
	free(g);
}

int
gate_serve(const int *lfd, int n, unsigned allow, const char *page, int logfd, int pacefd, const gate_pace_t *pace)
{
	if (n < 1) {
		errno = EINVAL;
		return -1;
	}
	gate_ctx_t *g = gate_ctx_new(allow, page, logfd, pacefd, pace);
	if (!g)
		return -1;
	struct pollfd *p = xcalloc((size_t)n, sizeof *p);
	for (int i = 0; i < n; i++) {
		p[i] = (struct pollfd){lfd[i], POLLIN, 0};
		fcntl(lfd[i], F_SETFL, fcntl(lfd[i], F_GETFL) | O_NONBLOCK);
	}
	/* until a signal ends the process (gate.h) */
	for (;;) {
		gate_wait_slot(g);
		if (poll(p, (nfds_t)n, -1) < 0) {
			if (errno != EINTR)
				nanosleep(&(struct timespec){0, 50 * 1000 * 1000}, NULL);
			continue;
		}
		for (int i = 0; i < n; i++)
			if (p[i].revents & POLLIN)
				gate_take_client(g, lfd[i], i);
	}
}
