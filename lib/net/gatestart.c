/*
 * gatestart.c — gate_start(), gate_refusals(), gate_stop() (gate.h).
 *
 * gate_start:
 * 1. With pacing, its data directory is checked (gate_pace_open: DIR/locks
 *    the user's own, locks/conn made), so that a bad one fails here, with
 *    the reason, not in the gate.
 *    n listening sockets on 127.0.0.1, port 0 (the kernel picks), and a
 *    memfd for the refusal log, all close-on-exec (the caller's hooks do
 *    not inherit them).
 * 2. abx-gate --serve N --parent PID --allow ZONES [--page URL]
 *    [--pace MAX --data DIR --pace-wait S], found
 *    beside the running program (toolspawn.h), spawned (spawn.h: every
 *    signal at its default, in our process group, nothing of ours open
 *    but stderr) with the listeners as its fds 3 .. 3+N-1 and the log as
 *    3+N.  There gate_serve_fds(): SIGPIPE ignored (a client gone is an
 *    error of a write), PR_SET_PDEATHSIG SIGKILL, then a check that its
 *    parent is still the one that spawned it (it may have died before
 *    the prctl), the data directory checked again and opened, then
 *    gate_serve(), which only a signal ends.
 * 3. The parent closes its copies of the listeners: it keeps the log and
 *    the gate's pid.
 * gate_refusals() reads the log from where it stopped (pread: the gate
 * appends with write(2) on the same open file, whose offset only it
 * moves), whole lines only.  gate_stop() sends SIGTERM and reaps the gate
 * (the default action of SIGTERM ends it at once: every refusal was
 * logged before its 403 was sent); of a kept gate's snapshot it ends the
 * snapshot only (gatekeep.c).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
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
#include "base/spawn.h"
#include "base/toolspawn.h"
#include "net/gate_int.h"
#include "net/netzone.h"

int
gate_listener(int *port)
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

/* The zones of allow (besides public) as --allow reads them. */
static void
allow_text(unsigned allow, char *out, size_t n)
{
	size_t len = 0;
	out[0] = 0;
	for (int z = 0; z < NZ_COUNT; z++)
		if (z != NZ_PUBLIC && (allow & (1u << z)) && len + 20 < n)
			len += (size_t)snprintf(out + len, n - len, "%s%s", len ? "," : "", netzone_name((netzone_t)z));
	if (!len)
		snprintf(out, n, "false");
}

int
gate_start(gate_t *g, int n, unsigned allow, const char *page, const gate_pace_t *pace, const char **why)
{
	memset(g, 0, sizeof *g);
	g->logfd = -1;
	*why = "";
	if (n < 1 || n > GATE_MAX_LISTENERS) {
		errno = EINVAL;
		return -1;
	}
	if (pace) {
		int pfd = gate_pace_open(pace->dir, pace->max, why);
		if (pfd < 0)
			return -1;
		close(pfd);
	}
	int *lfd = xcalloc((size_t)n, sizeof *lfd), made = 0, e = 0;
	g->port = xcalloc((size_t)n, sizeof *g->port);
	while (made < n && (lfd[made] = gate_listener(&g->port[made])) >= 0)
		made++;
	if (made == n)
		g->logfd = memfd_create("abx-gate-refusals", MFD_CLOEXEC);
	pid_t pid = -1;
	if (g->logfd >= 0) {
		char zones[256], nl[16], parent[32], max[16], wait[16];
		allow_text(allow, zones, sizeof zones);
		snprintf(nl, sizeof nl, "%d", n);
		snprintf(parent, sizeof parent, "%ld", (long)getpid());
		char *prog = tool_path("abx-gate");
		char *argv[16] = {prog, "--serve", nl, "--parent", parent, "--allow", zones};
		int a = 7;
		if (pace) {
			snprintf(max, sizeof max, "%d", pace->max);
			snprintf(wait, sizeof wait, "%d", pace->wait > 0 ? pace->wait : GATE_PACE_WAIT);
			argv[a++] = "--pace", argv[a++] = max, argv[a++] = "--data", argv[a++] = (char *)pace->dir;
			argv[a++] = "--pace-wait", argv[a++] = wait;
		}
		if (page)
			argv[a++] = "--page", argv[a++] = (char *)page;
		argv[a] = NULL;
		spawn_t sp;
		spawn_init(&sp, prog, argv, environ);
		sp.fd[1] = SPAWN_NULL;
		for (int i = 0; i < n; i++)
			sp.fd[3 + i] = lfd[i];
		sp.fd[3 + n] = g->logfd;
		sp.nfd = 4 + n;
		e = spawn(&sp, &pid);
		if (e)
			pid = -1;
		free(prog);
	} else {
		e = errno;
	}
	for (int i = 0; i < made; i++)
		close(lfd[i]);
	free(lfd);
	if (pid < 0) {
		if (g->logfd >= 0)
			close(g->logfd);
		free(g->port);
		memset(g, 0, sizeof *g);
		errno = e ? e : EMFILE;
		return -1;
	}
	g->pid = pid;
	g->n = n;
	return 0;
}

int
gate_serve_fds(int n, unsigned allow, const char *page, pid_t parent, const gate_pace_t *pace, const char **why)
{
	*why = "";
	if (n < 1 || n > GATE_MAX_LISTENERS) {
		errno = EINVAL;
		return -1;
	}
	signal(SIGPIPE, SIG_IGN);
	if (prctl(PR_SET_PDEATHSIG, SIGKILL) < 0)
		return -1;
	if (parent > 0 && getppid() != parent) {
		errno = ESRCH;   /* its parent died before the prctl */
		return -1;
	}
	int pfd = pace ? gate_pace_open(pace->dir, pace->max, why) : -1;
	if (pace && pfd < 0)
		return -1;
	int *lfd = xcalloc((size_t)n, sizeof *lfd);
	for (int i = 0; i < n; i++)
		lfd[i] = 3 + i;
	int rc = gate_serve(lfd, n, allow, page, 3 + n, pfd, pace);
	free(lfd);
	return rc;
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
	                    addr ? addr : "", zone ? zone : "", page && strcmp(page, "true") == 0,
	                    (int)rec_int(&rec, "paced", 0)};
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
	if (g->kept)
		gate_end_kept(g);
	else if (g->pid > 0) {
		kill(g->pid, SIGTERM);
		while (waitpid(g->pid, NULL, 0) < 0 && errno == EINTR)
			;
	}
	if (g->logfd >= 0 && g->pid > 0)
		close(g->logfd);
	free(g->port);
	memset(g, 0, sizeof *g);
}
