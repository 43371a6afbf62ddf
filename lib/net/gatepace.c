/*
 * gatepace.c — the egress gate's connections per host (gate.h "Pacing"):
 * at most HOST_MAX_CONCURRENT connections to one host open at once, from
 * every gate on a data directory together (every slot's and tick's, on
 * every machine whose flock(2) the filesystem shares).
 *
 * The state, in DIR/locks/conn/<key>/ (key: hostpace_key() of the URL
 * "http://host:port/", or "https://host:port/" for a CONNECT to a port
 * other than 80: the tick's key for the same host, so the host, ":port"
 * if it is not the scheme's default, every byte outside [a-z0-9.-]
 * written %XX), directories 0700, files 0600, each opened without
 * following a symlink:
 *
 *   slot-K  K = 0 .. max-1, empty.  A connection to the host is open only
 *           while its gate thread holds an flock (LOCK_EX) on one: taken
 *           before the gate's connect(2), given back after the close(2)
 *           of the server's socket.  A gate that dies, even by SIGKILL,
 *           frees its slots (the kernel drops its locks).  `lslocks`
 *           names the holders.
 *   wait    a connection waiting for a slot holds an OFD read lock on it
 *           (fcntl F_OFD_SETLK, F_RDLCK); whether anyone waits is asked
 *           with F_OFD_GETLK, which takes nothing.
 *
 * gate_pace_take():
 *  1. If nobody waits for the host, try each slot (LOCK_NB): the first
 *     free one is the connection's.  If someone waits, a newcomer queues
 *     behind it rather than take a slot that has just freed (wget's next
 *     request would otherwise always beat a hook that waits).
 *  2. Else wait: the read lock, then every PACE_STEP_MS the slots again,
 *     until one is taken, or the client's end is shut (poll POLLRDHUP: it
 *     gave up; nothing is answered), or the wait's seconds have passed.
 *  3. Gave up: the line {"listener":I,"url":..,"host":..,"paced":MAX,
 *     "page":B} is logged, then the client is answered 503 with
 *     "X-Abx-Gate: paced host=KEY max=MAX" and a sentence.  Nothing is
 *     fetched.
 * A waiter is not served in the order it came; every waiter polls, and
 * is bounded by the wait.
 *
 * The holder's side (gate.c): a CONNECT tunnel holding a slot, whose last
 * bytes came from the server (or that has carried none) and that has
 * been quiet GATE_PACE_IDLE seconds, is closed when someone waits for its
 * host (gate_pace_wanted): a browser's or wget's idle kept-alive
 * connection does not starve the next hook; a tunnel whose client spoke
 * last may be waiting for an answer, and keeps its slot.
 *
 * If the state cannot be used (a directory that cannot be made, a slot
 * file that cannot be opened), the connection goes on unpaced, as the
 * tick's pacing does: politeness never stops the archive.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "base/alloc.h"
#include "base/clock.h"
#include "base/buf.h"
#include "base/fs.h"
#include "net/gate_int.h"
#include "net/hostpace.h"

#define PACE_STEP_MS 20

struct gate_pacehost {
	gate_pacehost_t *next;
	char *key;
	int fd;                      /* DIR/locks/conn/<key>/ */
};

int
gate_pace_key(const char *host, int port, int connect, char *out, size_t n)
{
	char url[320];
	const char *scheme = connect && port != 80 ? "https" : "http";
	if (snprintf(url, sizeof url, "%s://%s:%d/", scheme, host, port) >= (int)sizeof url)
		return -1;
	return hostpace_key(url, out, n);
}

int
gate_pace_open(const char *dir, int max, const char **why)
{
	*why = "";
	if (max < 1 || max > HOSTPACE_SLOTS_MAX) {
		*why = "the number of connections a host is not from 1 to 64";
		errno = EINVAL;
		return -1;
	}
	if (!dir || !*dir) {
		*why = "no data directory";
		errno = EINVAL;
		return -1;
	}
	int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd < 0) {
		*why = "cannot open the data directory";
		return -1;
	}
	int lfd = fs_opendir(dfd, "locks");
	int e = errno;
	close(dfd);
	if (lfd < 0) {
		*why = e == ENOENT ? "no locks/ in it: not a data directory" : "cannot open its locks/";
		errno = e;
		return -1;
	}
	struct stat st;
	if (fstat(lfd, &st) < 0 || st.st_uid != geteuid() || (st.st_mode & 022)) {
		*why = "its locks/ is another user's, or others may write in it";
		close(lfd);
		errno = EPERM;
		return -1;
	}
	if (mkdirat(lfd, "conn", 0700) < 0 && errno != EEXIST) {
		e = errno;
		*why = "cannot make locks/conn";
		close(lfd);
		errno = e;
		return -1;
	}
	int cfd = openat(lfd, "conn", O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	e = errno;
	close(lfd);
	if (cfd < 0) {
		*why = "cannot open locks/conn (a symlink?)";
		errno = e;
	}
	return cfd;
}

/* The directory of key (made if needed; kept for the gate's life), or
 * -1. */
void
gate_pace_free(gate_ctx_t *g)
{
	for (gate_pacehost_t *h = g->pace_hosts, *next; h; h = next) {
		next = h->next;
		close(h->fd);
		free(h->key);
		free(h);
	}
	g->pace_hosts = NULL;
}

static int
host_dir(gate_ctx_t *g, const char *key)
{
	pthread_mutex_lock(&g->lock);
	gate_pacehost_t *h = g->pace_hosts;
	while (h && strcmp(h->key, key) != 0)
		h = h->next;
	if (!h) {
		int fd = openat(g->pace_dfd, key, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (fd < 0 && errno == ENOENT && mkdirat(g->pace_dfd, key, 0700) == 0)
			fd = openat(g->pace_dfd, key, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (fd >= 0) {
			h = xcalloc(1, sizeof *h);
			h->key = xstrdup(key);
			h->fd = fd;
			h->next = g->pace_hosts;
			g->pace_hosts = h;
		}
	}
	pthread_mutex_unlock(&g->lock);
	return h ? h->fd : -1;
}

/* Does another connection hold a read lock on the wait file wfd? */
static int
waiting(int wfd)
{
	struct flock fl = {.l_type = F_WRLCK, .l_whence = SEEK_SET};
	return wfd >= 0 && fcntl(wfd, F_OFD_GETLK, &fl) == 0 && fl.l_type != F_UNLCK;
}

static void
wait_lock(int wfd, short type)
{
	struct flock fl = {.l_type = type, .l_whence = SEEK_SET};
	if (wfd >= 0)
		while (fcntl(wfd, F_OFD_SETLKW, &fl) < 0 && errno == EINTR)
			;
}

/* The first free slot of fd[0..n): its index, or -1. */
static int
try_slots(const int *fd, int n)
{
	for (int k = 0; k < n; k++)
		if (flock(fd[k], LOCK_EX | LOCK_NB) == 0)
			return k;
	return -1;
}

/* Wait for one of fd[0..n): its index; -1 at the deadline, -2 if the
 * client's end was shut meanwhile. */
static int
wait_slot(const int *fd, int n, int cfd, int64_t deadline)
{
	for (;;) {
		struct pollfd p = {cfd, POLLRDHUP, 0};
		int k = poll(&p, 1, PACE_STEP_MS);
		if (k > 0)
			return -2;
		if ((k = try_slots(fd, n)) >= 0)
			return k;
		if ((clock_mono() / 1000) >= deadline)
			return -1;
	}
}

static void
give_up(gate_ctx_t *g, int cfd, int listener, const gate_req_t *r, const char *key)
{
	buf_t l = {0};
	buf_addf(&l, "{\"listener\":%d,\"url\":", listener);
	buf_json_strz(&l, r->target);
	buf_adds(&l, ",\"host\":");
	buf_json_strz(&l, r->host);
	buf_addf(&l, ",\"paced\":%d,\"page\":%s}\n", g->pace_max, gate_chain_has(g, r) ? "true" : "false");
	gate_log(g, &l);
	buf_free(&l);
	char hdr[300];
	snprintf(hdr, sizeof hdr, "X-Abx-Gate: paced host=%s max=%d", key, g->pace_max);
	gate_answer(cfd, 503, hdr, "abx-gate gave up on %s after waiting %d s for a connection to %s port %d: "
	    "it had HOST_MAX_CONCURRENT=%d connections open from abx's fetchers (this crawl's and any other on "
	    "the data directory) all that time", r->target, g->pace_wait, r->host, r->port, g->pace_max);
}

int
gate_pace_take(gate_ctx_t *g, int cfd, int listener, const gate_req_t *r, gate_slot_t *s)
{
	s->fd = s->waitfd = -1;
	if (g->pace_max < 1)
		return 0;
	char key[200];
	if (gate_pace_key(r->host, r->port, r->connect, key, sizeof key) < 0) {
		gate_answer(cfd, 400, "X-Abx-Gate: error", "abx-gate: %s: host %s: not a host a URL can have",
		    r->target, r->host);
		return -1;
	}
	int hfd = host_dir(g, key), fd[HOSTPACE_SLOTS_MAX], n = 0, got = -1;
	if (hfd < 0)
		return 0;   /* unpaced (above) */
	s->waitfd = openat(hfd, "wait", O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
	int queued = waiting(s->waitfd);
	for (; n < g->pace_max; n++) {
		char name[24];   /* "slot-" and any int */
		snprintf(name, sizeof name, "slot-%d", n);
		if ((fd[n] = openat(hfd, name, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600)) < 0)
			break;
		if (!queued && flock(fd[n], LOCK_EX | LOCK_NB) == 0) {
			got = n++;
			break;
		}
	}
	if (got < 0 && n == g->pace_max) {
		wait_lock(s->waitfd, F_RDLCK);
		got = wait_slot(fd, n, cfd, (clock_mono() / 1000) + (int64_t)g->pace_wait * 1000);
		wait_lock(s->waitfd, F_UNLCK);
		if (got == -1)
			give_up(g, cfd, listener, r, key);
	} else if (got < 0) {
		got = -3;   /* a slot file that cannot be opened: unpaced */
	}
	for (int k = 0; k < n; k++)
		if (k != got)
			close(fd[k]);
	if (got >= 0)
		s->fd = fd[got];
	if (got == -1 || got == -2) {
		gate_pace_release(s);
		return -1;
	}
	return 0;
}

int
gate_pace_wanted(const gate_slot_t *s)
{
	return s->fd >= 0 && waiting(s->waitfd);
}

void
gate_pace_release(gate_slot_t *s)
{
	if (s->fd >= 0)
		close(s->fd);   /* the flock goes with it */
	if (s->waitfd >= 0)
		close(s->waitfd);
	s->fd = s->waitfd = -1;
}
