/* worker.c — see worker.h. */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/err.h"
#include "base/hookrun.h"
#include "base/exitcodes.h"
#include "store/lease.h"
#include "store/record.h"
#include "hook/results.h"
#include "tick/tick.h"
#include "base/toolspawn.h"
#include "tick/worker.h"


/*
 * Start a worker: the toolkit's abx-hook, exec'd (toolspawn.h) with
 * stdin /dev/null, stdout a pipe to us (the records it prints), our
 * stderr, and the item's lease as fd 3 — nothing else of ours.  It runs
 * one phase for id exactly as `abx-hook --family F ID` typed by hand does.
 * Its commits are left for us to sync ($ABX_SYNC=parent: the tick syncs
 * the filesystem on its clock, store.h), it stops when we die
 * ($ABX_PARENT_PID), and it is told where its records are, so that it
 * need not load the active index ($ABX_HINT, from ours: store.h, Lean
 * mode).  Returns the pid, or -1 (reported) if it did not start.
 */
pid_t
worker_spawn(tick_t *t, const char *family, const char *id, const char *plugins, int lease_fd,
    long long budget, int *outfd)
{
	int p[2];
	if (pipe2(p, O_CLOEXEC) < 0) {
		warnsys("unable to start a worker for %s: pipe", id);
		return -1;
	}
	if (!t->hook_prog)
		t->hook_prog = tool_path("abx-hook");
	char *argv[12];
	int n = 0;
	argv[n++] = "abx-hook";
	argv[n++] = "-d";
	argv[n++] = t->s->dir;
	argv[n++] = "--family";
	argv[n++] = (char *)family;
	if (plugins && *plugins) {
		argv[n++] = "--plugins";
		argv[n++] = (char *)plugins;
	}
	if (t->verbose)
		argv[n++] = "-v";
	argv[n++] = (char *)id;
	argv[n] = NULL;
	char ppid[48];
	snprintf(ppid, sizeof ppid, "ABX_PARENT_PID=%ld", (long)getpid());
	char *env[7], bud[64];
	int ne = 0;
	/* where its records are, from our index: it need not load it
	 * (store.h: Lean mode) */
	buf_t hint = {0};
	buf_adds(&hint, "ABX_HINT=");
	if (store_hint(t->s, id, &hint) == 0)
		env[ne++] = hint.p;
	if (budget > 0) {
		/* what is left of CRAWL_MAX_SIZE: abx-hook stops a hook that
		 * writes past it while it runs (abx-hook(1)) */
		snprintf(bud, sizeof bud, "ABX_SIZE_BUDGET=%lld", budget);
		env[ne++] = bud;
	}
	env[ne++] = t->s->durable ? "ABX_SYNC=parent" : "ABX_SYNC=0";
	env[ne++] = ppid;
	if (t->tty)
		env[ne++] = "ABX_PROGRESS_FD=1";   /* "start HOOK" lines */
	env[ne] = NULL;
	fflush(stdout);
	pid_t pid;
	int rc = tool_spawn(t->hook_prog, argv, env, p[1], lease_fd, id, &pid);
	buf_free(&hint);
	close(p[1]);
	if (rc) {
		errno = rc;
		warnsys("unable to start %s for %s", t->hook_prog, id);
		close(p[0]);
		return -1;
	}
	fcntl(p[0], F_SETFL, O_NONBLOCK);
	*outfd = p[0];
	return pid;
}

int
worker_serve_spawn(tick_t *t, server_t *sv)
{
	int p[2], sk[2];
	memset(sv, 0, sizeof *sv);
	sv->pidfd = sv->sock = sv->outfd = -1;
	if (pipe2(p, O_CLOEXEC) < 0) {
		warnsys("unable to start a serving worker: pipe");
		return -1;
	}
	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sk) < 0) {
		warnsys("unable to start a serving worker: socketpair");
		close(p[0]), close(p[1]);
		return -1;
	}
	if (!t->hook_prog)
		t->hook_prog = tool_path("abx-hook");
	char *argv[] = {"abx-hook", "-d", t->s->dir, "--serve", t->verbose ? "-v" : NULL, NULL};
	char ppid[48];
	snprintf(ppid, sizeof ppid, "ABX_PARENT_PID=%ld", (long)getpid());
	char *env[] = {t->s->durable ? "ABX_SYNC=parent" : "ABX_SYNC=0", ppid,
	    t->tty ? "ABX_PROGRESS_FD=1" : NULL, NULL};
	fflush(stdout);
	int rc = tool_spawn_in(t->hook_prog, argv, env, sk[1], p[1], -1, NULL, &sv->pid);
	close(p[1]);
	close(sk[1]);
	if (rc) {
		errno = rc;
		warnsys("unable to start %s --serve", t->hook_prog);
		close(p[0]), close(sk[0]);
		return -1;
	}
	fcntl(p[0], F_SETFL, O_NONBLOCK);
	sv->outfd = p[0];
	sv->sock = sk[0];
	sv->pidfd = proc_pidfd(sv->pid);
	return 0;
}

int
worker_serve_send(tick_t *t, server_t *sv, const char *id, const char *plugins, int lease_fd,
    long long budget)
{
	buf_t m = {0}, hint = {0};
	if (store_hint(t->s, id, &hint) != 0)
		hint.len = 0;
	buf_addf(&m, "%s\t%s\t%lld\t%s", id, plugins ? plugins : "", budget > 0 ? budget : 0, buf_cstr(&hint));
	union {
		struct cmsghdr h;
		char b[CMSG_SPACE(sizeof(int))];
	} c;
	memset(&c, 0, sizeof c);
	struct iovec iov = {m.p, m.len};
	struct msghdr msg = {.msg_iov = &iov, .msg_iovlen = 1, .msg_control = c.b, .msg_controllen = sizeof c.b};
	struct cmsghdr *h = CMSG_FIRSTHDR(&msg);
	h->cmsg_level = SOL_SOCKET;
	h->cmsg_type = SCM_RIGHTS;
	h->cmsg_len = CMSG_LEN(sizeof(int));
	memcpy(CMSG_DATA(h), &lease_fd, sizeof(int));
	ssize_t n;
	while ((n = sendmsg(sv->sock, &msg, MSG_NOSIGNAL | MSG_DONTWAIT)) < 0 && errno == EINTR)
		;
	int err = errno;
	buf_free(&m), buf_free(&hint);
	if (n < 0 && err != EPIPE && err != ECONNRESET) {
		errno = err;
		warnsys("unable to give snapshot %s to serving worker %ld", id, (long)sv->pid);
	}
	if (n < 0)
		return -1;
	sv->served++;
	return 0;
}

server_t
worker_detach(worker_t *w)
{
	server_t sv = {w->pid, w->pidfd, w->sock, w->outfd, w->served};
	w->pidfd = w->sock = w->outfd = -1;
	w->serving = 0;
	return sv;
}

void
worker_serve_stop(server_t *sv)
{
	if (sv->sock >= 0)
		close(sv->sock);
	if (sv->outfd >= 0)
		close(sv->outfd);
	sv->sock = sv->outfd = -1;
	int status;
	for (int i = 0; sv->pid > 0 && waitpid(sv->pid, &status, WNOHANG) == 0; i++) {
		if (i == 500)
			kill(sv->pid, SIGKILL);
		struct pollfd p = {sv->pidfd, POLLIN, 0};
		poll(&p, sv->pidfd >= 0, 10);
	}
	if (sv->pidfd >= 0)
		close(sv->pidfd);
	sv->pidfd = -1;
	sv->pid = 0;
}

/* A failed result: the first one's plugin and reason, the others' plugins. */
static void
note_failure(worker_t *w, const rec_t *r)
{
	char *pl = rec_str(r, "plugin");
	if (w->failed++ == 0) {
		snprintf(w->fail_plugin, sizeof w->fail_plugin, "%s", pl ? pl : "?");
		char *notes = rec_str(r, "notes");
		result_reason_line(notes, &w->fail_why);
		free(notes);
	} else if (pl && strcmp(pl, w->fail_plugin)) {
		/* each plugin once: look for ", NAME," in ", a, b," */
		buf_t all = {0}, key = {0};
		buf_addf(&all, ", %s,", buf_cstr(&w->fail_more));
		buf_addf(&key, ", %s,", pl);
		if (!strstr(all.p, key.p)) {
			if (w->fail_more.len)
				buf_adds(&w->fail_more, ", ");
			buf_adds(&w->fail_more, pl);
		}
		buf_free(&all), buf_free(&key);
	}
	free(pl);
}

void
worker_report_failures(tick_t *t, const worker_t *w, const char *what)
{
	if (!w->failed)
		return;
	t->failed_hooks += w->failed;
	t->failed_items++;
	buf_t more = {0};
	if (w->fail_more.len)
		buf_addf(&more, " (also failed: %s)", w->fail_more.p);
	const char *why = w->fail_why.len ? w->fail_why.p : "";
	errorx("%s: %s failed%s%s%s", what, w->fail_plugin, *why ? ": " : "", why, more.len ? more.p : "");
	buf_free(&more);
}

/* Read what a worker printed: result records tell its progress. */
void
worker_read(worker_t *w)
{
	char chunk[8192];
	ssize_t n = -1;
	while (w->outfd >= 0 && (n = read(w->outfd, chunk, sizeof chunk)) > 0)
		buf_add(&w->out, chunk, n);
	if (w->outfd >= 0 && n == 0) {
		/* end of file: the worker closed its stdout; polling it again
		 * would return at once, every time */
		close(w->outfd);
		w->outfd = -1;
	}
	if (w->out.len == 0)
		return;
	char *q = w->out.p, *end = w->out.p + w->out.len;
	for (char *nl; q < end && (nl = memchr(q, '\n', end - q)); q = nl + 1) {
		rec_t r;
		if (nl - q > 6 && memcmp(q, "start ", 6) == 0) {
			snprintf(w->hook, sizeof w->hook, "%.*s", (int)(nl - q - 6), q + 6);
			continue;
		}
		if (rec_parse(&r, q, nl - q) < 0)
			continue;
		if (w->serving && rec_streq(&r, "type", "PhaseEnd")) {
			/* the snapshot's end: nothing of it follows */
			w->exit_code = (int)rec_int(&r, "exit", EX_SOFT_);
			w->size = rec_int(&r, "size", -1);
			w->done = 1;
			rec_free(&r);
			q = nl + 1;
			break;
		}
		if (rec_streq(&r, "type", "ArchiveResult")) {
			char *h = rec_str(&r, "hook_name");
			snprintf(w->hook, sizeof w->hook, "%s", h ? h : "");
			free(h);
			w->hooks++;
			if (rec_streq(&r, "status", "failed"))
				note_failure(w, &r);
		}
		if (w->first_run && (rec_streq(&r, "type", "ArchiveResult") || rec_streq(&r, "type", "Process"))) {
			w->recs = xrealloc(w->recs, (w->nrecs + 1) * sizeof(rec_t));
			w->recs[w->nrecs++] = r;
			continue;
		}
		rec_free(&r);
	}
	size_t left = end - q;
	memmove(w->out.p, q, left);
	w->out.len = left;
}

int
worker_phase(tick_t *t, const char *family, const char *cid, int cfd)
{
	int outfd, status = 0, sent = 0;
	pid_t pid = worker_spawn(t, family, cid, NULL, cfd, 0, &outfd);
	if (pid < 0)
		return EX_SOFT_;
	worker_t w = {.outfd = outfd};
	int pidfd = proc_pidfd(pid);
	pid_t got;
	while ((got = waitpid(pid, &status, WNOHANG)) == 0 || (got < 0 && errno == EINTR)) {
		if (*t->signals > sent && sent < 2) {
			kill(pid, sent == 0 ? SIGTERM : SIGINT);
			sent++;
		}
		/* wait on the pipe until it closes (worker_read closes it at
		 * end of file: a closed pipe would poll ready at once), then
		 * on the child itself */
		struct pollfd p[2] = {{w.outfd, POLLIN, 0}, {pidfd, POLLIN, 0}};
		poll(p, 2, 200);
		worker_read(&w);
	}
	if (pidfd >= 0)
		close(pidfd);
	worker_read(&w);
	if (w.outfd >= 0)
		close(w.outfd);
	buf_free(&w.out);
	if (got < 0) {
		warnsys("unable to wait for the %s worker of crawl %s", family, cid);
		buf_free(&w.fail_why);
		buf_free(&w.fail_more);
		return EX_SOFT_;
	}
	fcntl(cfd, F_SETFD, FD_CLOEXEC);
	if (t->verbose && w.hooks)
		info("crawl %s: %s hooks: %d run, %d failed", cid, family, w.hooks, w.failed);
	if (!*t->signals) {
		char what[ID_LEN + 32];
		snprintf(what, sizeof what, "crawl %s: %s", cid, family);
		worker_report_failures(t, &w, what);
	}
	buf_free(&w.fail_why);
	buf_free(&w.fail_more);
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}


void
worker_release(worker_t *w)
{
	lease_drop(w->lease_fd);
	if (w->serving && w->sock >= 0)
		close(w->sock);
	if (w->pidfd >= 0)
		close(w->pidfd);
	if (w->outfd >= 0)
		close(w->outfd);
	buf_free(&w->out);
	buf_free(&w->fail_why);
	buf_free(&w->fail_more);
	for (size_t i = 0; i < w->nrecs; i++)
		rec_free(&w->recs[i]);
	free(w->recs);
	w->recs = NULL;
	w->nrecs = 0;
}
