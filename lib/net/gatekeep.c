/*
 * gatekeep.c — a kept gate (gate.h "Kept"): one abx-gate process that a
 * serving worker tells each snapshot's rules, instead of one process a
 * snapshot.
 *
 * The worker's side, gate_start_kept():
 * 1. With pacing, the data directory is checked as gate_start checks it.
 *    n fresh listeners on 127.0.0.1 and a fresh memfd for the refusal log
 *    are made, as gate_start makes them: the ports, and so what a client
 *    of an earlier snapshot still knows, are the snapshot's own.
 * 2. If no kept gate runs, `abx-gate --kept --parent PID` is spawned
 *    beside the running program with env, its control socket (one end of
 *    a SOCK_SEQPACKET socketpair) as its fd 3 and nothing else of ours
 *    open but stderr.
 * 3. One message on the control socket: "begin", the allowed zones (a
 *    number, the mask), the page ("" for none), the pacing's number (0
 *    for none), its wait and its data directory, NUL-separated, with the
 *    listeners and then the log as SCM_RIGHTS; the answer is one message,
 *    "ERRNO\tWHY" ("0\t" when the gate took it).  A kept gate that does
 *    not take it (it died: EPIPE, end of file, no answer in
 *    GATE_KEPT_WAIT seconds) is killed, reaped, and started once more for
 *    this snapshot.
 * 4. The parent closes its copies of the listeners; g holds the gate's
 *    pid, the ports and the log, read by gate_refusals as a one-shot
 *    gate's.
 * gate_stop() of a kept g (gate_end_kept): "end" on the control socket,
 * and the answer waited for: the gate has then closed the snapshot's
 * listeners (a client of it is refused, as after a one-shot gate's end)
 * and dropped its connections.  A gate that does not answer is killed and
 * reaped; the next snapshot starts another.
 *
 * The gate's side, gate_serve_kept() (abx-gate --kept): SIGPIPE ignored,
 * PR_SET_PDEATHSIG SIGKILL and the parent checked, as gate_serve_fds.
 * Then poll the control socket and the current snapshot's listeners.  A
 * message ends the current snapshot first (gate_ctx_drop: its
 * connections cut, nothing more relayed or logged for it; its listeners
 * closed; its threads end and the last frees it), then "begin" makes the
 * next one's context (gate_ctx_new; with pacing, gate_pace_open of its
 * directory: a failure is the answer's errno and why, and the snapshot
 * has no gate).  The answer is sent after that.  End of file on the
 * control socket (the worker closed it or died) returns 0: abx-gate
 * exits.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "base/alloc.h"
#include "base/buf.h"
#include "base/spawn.h"
#include "base/toolspawn.h"
#include "net/gate_int.h"

#define GATE_KEPT_WAIT 30        /* s the worker waits for the gate's answer */
#define MSG_MAX 131072            /* a message: the page's URL is most of it */

static pid_t kept_pid;           /* the worker's kept gate, or 0 */
static int kept_ctl = -1;        /* its control socket */

/* ------------------------------------------------------------ the worker's side */

static void
kept_kill(void)
{
	if (kept_pid > 0) {
		kill(kept_pid, SIGKILL);
		while (waitpid(kept_pid, NULL, 0) < 0 && errno == EINTR)
			;
	}
	if (kept_ctl >= 0)
		close(kept_ctl);
	kept_pid = 0;
	kept_ctl = -1;
}

static int
kept_spawn(char *const *env)
{
	int sv[2];
	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) < 0)
		return -1;
	char parent[32];
	snprintf(parent, sizeof parent, "%ld", (long)getpid());
	char *prog = tool_path("abx-gate");
	char *argv[] = {prog, "--kept", "--parent", parent, NULL};
	spawn_t sp;
	spawn_init(&sp, prog, argv, env);
	sp.fd[1] = SPAWN_NULL;
	sp.fd[3] = sv[1];
	sp.nfd = 4;
	pid_t pid;
	int e = spawn(&sp, &pid);
	free(prog);
	close(sv[1]);
	if (e) {
		close(sv[0]);
		errno = e;
		return -1;
	}
	struct timeval tv = {GATE_KEPT_WAIT, 0};
	setsockopt(sv[0], SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
	kept_pid = pid;
	kept_ctl = sv[0];
	return 0;
}

/* Send msg (len bytes) with nfd descriptors and read the answer: 0 if the
 * gate took it; an errno and its why (in why, static) if it refused; -2
 * if the gate did not answer (dead or stuck). */
static int
kept_say(const char *msg, size_t len, const int *fds, int nfd, int *err, char *why, size_t whylen)
{
	union {
		struct cmsghdr h;
		char b[CMSG_SPACE(sizeof(int) * (GATE_MAX_LISTENERS + 1))];
	} c;
	memset(&c, 0, sizeof c);
	struct iovec iov = {(void *)msg, len};
	struct msghdr m = {.msg_iov = &iov, .msg_iovlen = 1};
	if (nfd > 0) {
		m.msg_control = c.b;
		m.msg_controllen = CMSG_SPACE(sizeof(int) * (size_t)nfd);
		struct cmsghdr *h = CMSG_FIRSTHDR(&m);
		h->cmsg_level = SOL_SOCKET;
		h->cmsg_type = SCM_RIGHTS;
		h->cmsg_len = CMSG_LEN(sizeof(int) * (size_t)nfd);
		memcpy(CMSG_DATA(h), fds, sizeof(int) * (size_t)nfd);
	}
	ssize_t k;
	while ((k = sendmsg(kept_ctl, &m, MSG_NOSIGNAL)) < 0 && errno == EINTR)
		;
	if (k < 0)
		return -2;
	char ans[512];
	while ((k = recv(kept_ctl, ans, sizeof ans - 1, 0)) < 0 && errno == EINTR)
		;
	if (k <= 0)
		return -2;
	ans[k] = 0;
	char *tab = strchr(ans, '\t');
	*err = atoi(ans);
	snprintf(why, whylen, "%s", tab ? tab + 1 : "");
	return *err ? -1 : 0;
}

int
gate_start_kept(gate_t *g, int n, unsigned allow, const char *page, const gate_pace_t *pace, char *const *env,
    const char **why)
{
	static char whybuf[400];
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
	int *fd = xcalloc((size_t)n + 1, sizeof *fd), made = 0, e = 0;
	g->port = xcalloc((size_t)n, sizeof *g->port);
	while (made < n && (fd[made] = gate_listener(&g->port[made])) >= 0)
		made++;
	if (made == n && (g->logfd = memfd_create("abx-gate-refusals", MFD_CLOEXEC)) >= 0) {
		fd[n] = g->logfd;
		buf_t m = {0};
		buf_addf(&m, "begin%c%u%c%s%c%d%c%d%c%s", 0, allow, 0, page ? page : "", 0, pace ? pace->max : 0, 0,
		    pace ? pace->wait : 0, 0, pace ? pace->dir : "");
		int rc = -2;
		for (int tries = 0; tries < 2 && rc == -2; tries++) {
			if (kept_ctl < 0 && kept_spawn(env) < 0) {
				e = errno;
				break;
			}
			rc = kept_say(m.p, m.len, fd, n + 1, &e, whybuf, sizeof whybuf);
			if (rc == -2) {
				kept_kill();   /* dead or stuck: another, once */
				e = EPIPE;
			}
		}
		buf_free(&m);
		if (rc == -1 && *whybuf)
			*why = whybuf;
		if (rc == 0)
			e = 0;
	} else {
		e = errno;
	}
	for (int i = 0; i < made; i++)
		close(fd[i]);
	free(fd);
	if (e) {
		if (g->logfd >= 0)
			close(g->logfd);
		free(g->port);
		memset(g, 0, sizeof *g);
		g->logfd = -1;
		errno = e;
		return -1;
	}
	g->pid = kept_pid;
	g->n = n;
	g->kept = 1;
	return 0;
}

void
gate_end_kept(gate_t *g)
{
	int err;
	char why[16];
	if (g->pid > 0 && g->pid == kept_pid && kept_ctl >= 0 &&
	    kept_say("end", 3, NULL, 0, &err, why, sizeof why) == -2)
		kept_kill();
}

/* ------------------------------------------------------------ the gate's side */

static void
answer(int ctl, int err, const char *why)
{
	char b[512];
	int k = snprintf(b, sizeof b, "%d\t%s", err, why ? why : "");
	if (send(ctl, b, (size_t)(k < (int)sizeof b ? k : (int)sizeof b - 1), MSG_NOSIGNAL) < 0)
		(void)0;   /* the worker is gone: the next recv says so */
}

/* The snapshot's rules from a "begin" message's fields; its context, or
 * NULL with the answer sent. */
static gate_ctx_t *
begin(int ctl, char **f, int nf, int logfd)
{
	if (nf < 6) {
		answer(ctl, EINVAL, "a begin message with fewer than 6 fields");
		return NULL;
	}
	gate_pace_t pace = {atoi(f[3]), f[5], atoi(f[4])};
	const char *why = "";
	int pfd = -1;
	if (pace.max > 0 && (pfd = gate_pace_open(pace.dir, pace.max, &why)) < 0) {
		answer(ctl, errno, why);
		return NULL;
	}
	gate_ctx_t *g = gate_ctx_new((unsigned)strtoul(f[1], NULL, 10), *f[2] ? f[2] : NULL, logfd, pfd,
	    pace.max > 0 ? &pace : NULL);
	if (!g) {
		answer(ctl, errno, "");
		if (pfd >= 0)
			close(pfd);
		return NULL;
	}
	return g;
}

int
gate_serve_kept(int ctl, pid_t parent)
{
	signal(SIGPIPE, SIG_IGN);
	if (prctl(PR_SET_PDEATHSIG, SIGKILL) < 0)
		return -1;
	if (parent > 0 && getppid() != parent) {
		errno = ESRCH;   /* its parent died before the prctl */
		return -1;
	}
	char *msg = xmalloc(MSG_MAX + 1);
	struct pollfd p[GATE_MAX_LISTENERS + 1];
	int nl = 0;
	gate_ctx_t *cur = NULL;
	p[0] = (struct pollfd){ctl, POLLIN, 0};
	for (;;) {
		if (cur)
			gate_wait_slot(cur);
		if (poll(p, (nfds_t)nl + 1, -1) < 0) {
			if (errno != EINTR)
				nanosleep(&(struct timespec){0, 50 * 1000 * 1000}, NULL);
			continue;
		}
		for (int i = 0; i < nl; i++)
			if (p[1 + i].revents & POLLIN)
				gate_take_client(cur, p[1 + i].fd, i);
		if (!p[0].revents)
			continue;
		union {
			struct cmsghdr h;
			char b[CMSG_SPACE(sizeof(int) * (GATE_MAX_LISTENERS + 1))];
		} c;
		struct iovec iov = {msg, MSG_MAX};
		struct msghdr m = {.msg_iov = &iov, .msg_iovlen = 1, .msg_control = c.b, .msg_controllen = sizeof c.b};
		ssize_t k = recvmsg(ctl, &m, MSG_CMSG_CLOEXEC);
		if (k < 0 && (errno == EINTR || errno == EAGAIN))
			continue;
		/* the snapshot before ends first, whatever the message */
		if (cur) {
			gate_ctx_drop(cur);
			gate_ctx_unref(cur);
			cur = NULL;
		}
		for (int i = 0; i < nl; i++)
			close(p[1 + i].fd);
		nl = 0;
		if (k <= 0)
			break;   /* the worker closed it, or died */
		int fds[GATE_MAX_LISTENERS + 1], nfd = 0;
		for (struct cmsghdr *h = CMSG_FIRSTHDR(&m); h; h = CMSG_NXTHDR(&m, h))
			if (h->cmsg_level == SOL_SOCKET && h->cmsg_type == SCM_RIGHTS) {
				int got = (int)((h->cmsg_len - CMSG_LEN(0)) / sizeof(int));
				for (int i = 0; i < got && nfd < GATE_MAX_LISTENERS + 1; i++)
					memcpy(&fds[nfd++], CMSG_DATA(h) + (size_t)i * sizeof(int), sizeof(int));
			}
		msg[k] = 0;
		char *f[8];
		int nf = 0;
		for (char *s = msg; s <= msg + k && nf < 8; s += strlen(s) + 1)
			f[nf++] = s;
		if (strcmp(f[0], "begin") == 0 && nfd >= 2 && !(m.msg_flags & (MSG_TRUNC | MSG_CTRUNC)) &&
		    (cur = begin(ctl, f, nf, fds[nfd - 1])) != NULL) {
			for (int i = 0; i < nfd - 1; i++) {
				p[1 + i] = (struct pollfd){fds[i], POLLIN, 0};
				fcntl(fds[i], F_SETFL, fcntl(fds[i], F_GETFL) | O_NONBLOCK);
			}
			nl = nfd - 1;
			answer(ctl, 0, "");
			continue;
		}
		if (strcmp(f[0], "begin") == 0 && !cur && nfd >= 2 && !(m.msg_flags & (MSG_TRUNC | MSG_CTRUNC))) {
			for (int i = 0; i < nfd; i++)   /* begin() answered why */
				close(fds[i]);
			continue;
		}
		for (int i = 0; i < nfd; i++)
			close(fds[i]);
		if (strcmp(f[0], "end") == 0)
			answer(ctl, 0, "");
		else
			answer(ctl, EINVAL, "not a message a kept gate knows (begin with listeners and a log, or end)");
	}
	free(msg);
	return 0;
}
