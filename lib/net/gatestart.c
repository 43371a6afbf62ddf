/*
 * gatestart.c — gate_start(), gate_refusals(), gate_stop() (gate.h).
 *
 * gate_start:
 * 1. n listening sockets on 127.0.0.1, port 0 (the kernel picks), and a
 *    memfd for the refusal log, all close-on-exec (the caller's hooks do
 *    not inherit them).
 * 2. fork().  The child: every signal back to its default action and none
 *    blocked, SIGPIPE ignored (a client gone is an error of a write);
 *    PR_SET_PDEATHSIG SIGKILL, then a check that the parent is still the
 *    one that forked it (it may have died before the prctl); every
 *    descriptor closed but the listeners and the log (close_range(2): the
 *    caller's lease and stdin, stdout, stderr among them); then
 *    gate_serve(), which only a signal ends.  The caller should have one
 *    thread when it calls gate_start (the child runs this library's code,
 *    with no exec: a lock held by another thread at the fork would stay
 *    held in it).
 * 3. The parent closes its copies of the listeners: it keeps the log and
 *    the gate's pid.
 * gate_refusals() reads the log from where it stopped (pread: the gate
 * appends with write(2) on the same open file, whose offset only it
 * moves), whole lines only.  gate_stop() sends SIGTERM and reaps the gate
 * (the default action of SIGTERM ends it at once: every refusal was
 * logged before its 403 was sent).
 *
 * The gate child is the one place in lib/ that calls _exit: it never
 * returns into the caller's code (tests/lib/layers.py allows this file).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/alloc.h"
#include "base/buf.h"
#include "base/exitcodes.h"
#include "base/json.h"
#include "net/gate_int.h"

static int
listener(int *port)
{
	struct sockaddr_in a = {0};
	socklen_t len = sizeof a;
	a.sin_family = AF_INET;
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -1;
	if (bind(fd, (struct sockaddr *)&a, sizeof a) < 0 || listen(fd, 128) < 0 ||
	    getsockname(fd, (struct sockaddr *)&a, &len) < 0) {
		int e = errno;
		close(fd);
		errno = e;
		return -1;
	}
	*port = ntohs(a.sin_port);
	return fd;
}

static int
cmp_int(const void *a, const void *b)
{
	return *(const int *)a - *(const int *)b;
}

/* Close every descriptor but the n in keep[] (sorted here). */
static void
close_all_but(int *keep, int n)
{
	qsort(keep, (size_t)n, sizeof *keep, cmp_int);
	unsigned lo = 0;
	for (int i = 0; i <= n; i++) {
		unsigned hi = i < n ? (unsigned)keep[i] : ~0u;
		if (hi > lo && close_range(lo, hi - 1, 0) < 0)
			for (unsigned fd = lo; fd < hi && fd < 65536; fd++)
				close((int)fd);
		lo = i < n ? (unsigned)keep[i] + 1 : lo;
	}
}

static void __attribute__((noreturn))
gate_child(int *lfd, int n, unsigned allow, const char *page, int logfd, pid_t parent)
{
	struct sigaction dfl = {0};
	dfl.sa_handler = SIG_DFL;
	for (int sig = 1; sig < NSIG; sig++)
		if (sig != SIGKILL && sig != SIGSTOP)
			sigaction(sig, &dfl, NULL);
	sigset_t none;
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	signal(SIGPIPE, SIG_IGN);
	if (prctl(PR_SET_PDEATHSIG, SIGKILL) < 0 || getppid() != parent)
		_exit(EX_SOFT_);
	int *keep = xcalloc((size_t)n + 1, sizeof *keep);
	memcpy(keep, lfd, (size_t)n * sizeof *keep);
	keep[n] = logfd;
	close_all_but(keep, n + 1);
	free(keep);
	gate_serve(lfd, n, allow, page, logfd);
	_exit(EX_SOFT_);
}

int
gate_start(gate_t *g, int n, unsigned allow, const char *page)
{
	memset(g, 0, sizeof *g);
	g->logfd = -1;
	if (n < 1) {
		errno = EINVAL;
		return -1;
	}
	int *lfd = xcalloc((size_t)n, sizeof *lfd), made = 0, e = 0;
	g->port = xcalloc((size_t)n, sizeof *g->port);
	while (made < n && (lfd[made] = listener(&g->port[made])) >= 0)
		made++;
	if (made == n)
		g->logfd = memfd_create("abx-gate-refusals", MFD_CLOEXEC);
	pid_t parent = getpid(), pid = g->logfd >= 0 ? fork() : -1;
	if (pid == 0)
		gate_child(lfd, n, allow, page, g->logfd, parent);
	e = errno;
	for (int i = 0; i < made; i++)
		close(lfd[i]);
	free(lfd);
	if (pid < 0) {
		if (g->logfd >= 0)
			close(g->logfd);
		free(g->port);
		memset(g, 0, sizeof *g);
		errno = e;
		return -1;
	}
	g->pid = pid;
	g->n = n;
	return 0;
}

static void
one_line(const char *s, size_t len, void (*fn)(void *, const gate_refusal_t *), void *ctx)
{
	rec_t rec;
	if (rec_parse(&rec, s, len) < 0)
		return;
	char *url = rec_str(&rec, "url"), *host = rec_str(&rec, "host");
	char *addr = rec_str(&rec, "address"), *zone = rec_str(&rec, "zone");
	const char *page = rec_raw(&rec, "page");
	gate_refusal_t r = {(int)rec_int(&rec, "listener", -1), url ? url : "", host ? host : "",
	                    addr ? addr : "", zone ? zone : "", page && strcmp(page, "true") == 0};
	fn(ctx, &r);
	free(url);
	free(host);
	free(addr);
	free(zone);
	rec_free(&rec);
}

int
gate_refusals(gate_t *g, void (*fn)(void *ctx, const gate_refusal_t *r), void *ctx)
{
	if (g->logfd < 0 || g->pid <= 0) {
		errno = EBADF;
		return -1;
	}
	buf_t b = {0};
	for (;;) {
		buf_grow(&b, 65536);
		ssize_t k = pread(g->logfd, b.p + b.len, 65536, g->logoff + (off_t)b.len);
		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0) {
			buf_free(&b);
			return -1;
		}
		if (k == 0)
			break;
		b.len += (size_t)k;
	}
	int count = 0;
	size_t at = 0;
	for (char *nl; b.len && (nl = memchr(b.p + at, '\n', b.len - at)) != NULL; at = (size_t)(nl - b.p) + 1) {
		one_line(b.p + at, (size_t)(nl - b.p) - at, fn, ctx);
		count++;
	}
	g->logoff += (off_t)at;
	buf_free(&b);
	return count;
}

void
gate_stop(gate_t *g)
{
	if (g->pid > 0) {
		kill(g->pid, SIGTERM);
		while (waitpid(g->pid, NULL, 0) < 0 && errno == EINTR)
			;
	}
	if (g->logfd >= 0 && g->pid > 0)
		close(g->logfd);
	free(g->port);
	memset(g, 0, sizeof *g);
}
