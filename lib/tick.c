/*
 * tick.c — see tick.h.  Sections: workers (spawn, reap, progress), the
 * crawl run (setup, refill, finish, limits, cleanup), the pass.
 */
#include <errno.h>
#include <limits.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "binary.h"
#include "cli.h"
#include "plugin.h"
#include "claim.h"
#include "config.h"
#include "discover.h"
#include "err.h"
#include "exitcodes.h"
#include "fs.h"
#include "lease.h"
#include "record.h"
#include "schedule.h"
#include "seal.h"
#include "tick.h"
#include "toolspawn.h"
#include "url.h"

extern char **environ;

#define LEASE_US (60 * 1000000LL)
#define RENEW_US (10 * 1000000LL)
#define SYNC_US (250 * 1000LL)
#define MAX_SLOTS 64

typedef struct {
	pid_t pid;
	int pidfd, lease_fd, outfd;
	char id[ID_LEN + 1];
	char url[160];
	int depth;
	int64_t started;
	buf_t out;
	char hook[96];
	int hooks, failed;
	int signalled;           /* signals forwarded to it */
	int first_run;           /* no results before: seal from recs */
	rec_t *recs;             /* Process and ArchiveResult records it printed */
	size_t nrecs;
} worker_t;

typedef struct {
	tick_t *t;
	char cid[ID_LEN + 1];
	int cfd;
	conf_t conf;
	urlfilter_t filter;
	urlset_t seen;
	int slots, max_depth;
	long max_urls;
	long long max_size, total_size;
	long timeout;
	int64_t started_at;
	char stop_reason[32];
	int paused, cancelled;
	int broken;              /* the store failed: no new work, then released */
	worker_t w[MAX_SLOTS];
	int nw;
	int drawn;               /* progress lines on screen */
	int64_t last_renew, last_check, last_draw;
} crawlrun_t;

void
tick_init(tick_t *t, store_t *s)
{
	memset(t, 0, sizeof *t);
	t->s = s;
	t->tick_lock_fd = -1;
	t->started_us = clock_mono();
}

void
tick_free(tick_t *t)
{
	tick_forget_plugins(t);
	free(t->hook_prog);
	t->hook_prog = NULL;
}

/* Report a failure of the store (what we were doing: s->errmsg) and count
 * it; the pass goes on with other work. */
static void __attribute__((format(printf, 2, 3)))
tick_error(tick_t *t, const char *fmt, ...)
{
	char what[256];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(what, sizeof what, fmt, ap);
	va_end(ap);
	errorx("%s: %s", what, t->s->errmsg[0] ? t->s->errmsg : "unknown error");
	if (t->errors++ == 0)
		t->err = t->s->err ? t->s->err : EX_IOERR_;
}

/* The active entries of a type, the index refreshed under the lock. */
static size_t
active_now(tick_t *t, const char *type, ient_t **v)
{
	store_t *s = t->s;
	if (store_lock(s) < 0) {
		tick_error(t, "unable to read the queue");
		*v = NULL;
		return 0;
	}
	size_t n = store_active(s, type, v);
	store_unlock(s);
	return n;
}

/* ------------------------------------------------------------ workers */

/*
 * Start a worker: the toolkit's abx-hook, exec'd (toolspawn.h) with
 * stdin /dev/null, stdout a pipe to us (the records it prints), our
 * stderr, and the item's lease as fd 3 — nothing else of ours.  It runs
 * one phase for id exactly as `abx-hook --family F ID` typed by hand does.
 * Its commits are left for us to sync ($ABX_SYNC=parent: the tick syncs
 * the filesystem on its clock, store.h), and it stops when we die
 * ($ABX_PARENT_PID).  Returns the pid, or -1 (reported) if it did not start.
 */
static pid_t
spawn(tick_t *t, const char *family, const char *id, const char *plugins, int lease_fd,
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
	char *env[6], bud[64];
	int ne = 0;
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

/* Read what a worker printed: result records tell its progress. */
static void
worker_read(worker_t *w)
{
	char chunk[8192];
	ssize_t n;
	while (w->outfd >= 0 && (n = read(w->outfd, chunk, sizeof chunk)) > 0)
		buf_add(&w->out, chunk, n);
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
		if (rec_streq(&r, "type", "ArchiveResult")) {
			char *h = rec_str(&r, "hook_name");
			snprintf(w->hook, sizeof w->hook, "%s", h ? h : "");
			free(h);
			w->hooks++;
			w->failed += rec_streq(&r, "status", "failed");
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

/* Run one phase (CrawlSetup / CrawlCleanup) to its end. */
static int
run_phase(tick_t *t, const char *family, const char *cid, int cfd)
{
	int outfd, status = 0, sent = 0;
	pid_t pid = spawn(t, family, cid, NULL, cfd, 0, &outfd);
	if (pid < 0)
		return EX_SOFT_;
	worker_t w = {.outfd = outfd};
	int pidfd = syscall(SYS_pidfd_open, pid, 0), hup = 0;
	while (waitpid(pid, &status, WNOHANG) == 0) {
		if (*t->signals > sent && sent < 2) {
			kill(pid, sent == 0 ? SIGTERM : SIGINT);
			sent++;
		}
		/* wait on the pipe until it closes, then on the child itself:
		 * a closed pipe polls ready at once and would spin */
		struct pollfd p[2] = {{hup ? -1 : outfd, POLLIN, 0}, {pidfd, POLLIN, 0}};
		int r = poll(p, 2, 200);
		if (r > 0 && (p[0].revents & (POLLHUP | POLLERR)))
			hup = 1;
		worker_read(&w);
	}
	if (pidfd >= 0)
		close(pidfd);
	worker_read(&w);
	close(outfd);
	buf_free(&w.out);
	fcntl(cfd, F_SETFD, FD_CLOEXEC);
	if (t->verbose && w.hooks)
		info("crawl %s: %s hooks: %d run, %d failed", cid, family, w.hooks, w.failed);
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

/* ----------------------------------------------------------- progress */

static void
draw(crawlrun_t *cr, int final)
{
	tick_t *t = cr->t;
	if (!t->tty)
		return;
	buf_t b = {0};
	if (cr->drawn)
		buf_addf(&b, "\033[%dA", cr->drawn);
	int64_t now = clock_mono();
	const char *dim = t->color ? "\033[2m" : "", *bold = t->color ? "\033[1m" : "",
	           *off = t->color ? "\033[0m" : "";
	int lines = 0;
	for (int i = 0; i < cr->nw && !final; i++) {
		worker_t *w = &cr->w[i];
		buf_addf(&b, "\033[2K  %s%5.1fs%s  d%d  %-60.60s  %s%s%s\n", bold,
		    (now - w->started) / 1e6, off, w->depth, w->url, dim, w->hook[0] ? w->hook : "starting",
		    off);
		lines++;
	}
	for (int i = lines; i < cr->drawn; i++)
		buf_adds(&b, "\033[2K\n");
	if (cr->drawn > lines)
		buf_addf(&b, "\033[%dA", cr->drawn - lines);
	cr->drawn = lines;
	ssize_t wr = write(1, b.p, b.len);
	(void)wr;
	buf_free(&b);
}

/* ---------------------------------------------------------- crawl run */

/* Unlock; a failed transaction is reported (what, with s->errmsg) and
 * stops the crawl run from starting more work.  0 or -1. */
static int __attribute__((format(printf, 2, 3)))
run_unlock(crawlrun_t *cr, const char *fmt, ...)
{
	if (store_unlock(cr->t->s) == 0)
		return 0;
	char what[256];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(what, sizeof what, fmt, ap);
	va_end(ap);
	tick_error(cr->t, "crawl %s: %s", cr->cid, what);
	cr->broken = 1;
	return -1;
}

static void
save_limits(crawlrun_t *cr)
{
	store_t *s = cr->t->s;
	store_lock(s);
	rec_t c;
	if (store_get(s, cr->cid, &c) == 0) {
		buf_t b = {0};
		char iso[ISO_LEN + 1];
		clock_iso(cr->started_at, iso);
		buf_addf(&b, "{\"started_at\":\"%s\",\"total_size\":%lld,\"stop_reason\":\"%s\"}", iso,
		    cr->total_size, cr->stop_reason);
		rec_set_raw(&c, "limits", b.p);
		store_put(s, &c);
		buf_free(&b);
		rec_free(&c);
	}
	run_unlock(cr, "unable to save its limits");
}

static void
load_limits(crawlrun_t *cr, const rec_t *crawl)
{
	const char *l = rec_raw(crawl, "limits");
	rec_t lr;
	cr->started_at = -1;
	if (l && l[0] == '{' && rec_parse(&lr, l, strlen(l)) == 0) {
		cr->started_at = rec_time(&lr, "started_at");
		cr->total_size = rec_int(&lr, "total_size", 0);
		char *sr = rec_str(&lr, "stop_reason");
		snprintf(cr->stop_reason, sizeof cr->stop_reason, "%s", sr ? sr : "");
		free(sr);
		rec_free(&lr);
	}
	/* a raised or removed limit clears its stale stop reason */
	if ((!strcmp(cr->stop_reason, "crawl_max_size") && (!cr->max_size || cr->total_size < cr->max_size)) ||
	    (!strcmp(cr->stop_reason, "crawl_timeout") &&
	        (!cr->timeout || clock_now() - cr->started_at < (int64_t)cr->timeout * 1000000)))
		cr->stop_reason[0] = 0;
	if (cr->started_at < 0) {
		cr->started_at = clock_now();
		save_limits(cr);
	}
}

/* Seal the crawl's queued snapshots unrun: a limit stopped the crawl. */
static void
seal_queued(crawlrun_t *cr)
{
	store_t *s = cr->t->s;
	store_lock(s);
	ient_t *v;
	size_t n = store_active(s, "Snapshot", &v);
	for (size_t i = 0; i < n; i++) {
		if (strcmp(v[i].crawl_id, cr->cid) || strcmp(v[i].status, "queued"))
			continue;
		rec_t r;
		if (store_get(s, v[i].id, &r) < 0)
			continue;
		record_status(&r, "sealed", -1);
		buf_t b = {0};
		buf_addf(&b, "not archived: %s reached", cr->stop_reason);
		rec_set_str(&r, "notes", b.p);
		buf_free(&b);
		store_put(s, &r);
		rec_free(&r);
	}
	free(v);
	run_unlock(cr, "unable to seal its queued snapshots (%s)", cr->stop_reason);
}

static int
collect_url(rec_t *r, void *arg)
{
	crawlrun_t *cr = arg;
	if (rec_streq(r, "type", "Snapshot") && rec_streq(r, "crawl_id", cr->cid)) {
		char *u = rec_str(r, "url");
		if (u)
			urlset_add(&cr->seen, u);
		free(u);
	}
	return 0;
}

/* A crawl without snapshots gets its depth-0 ones from its urls. */
static void
seed_snapshots(crawlrun_t *cr, const rec_t *crawl)
{
	char *urls = rec_str(crawl, "urls"), *tags = rec_str(crawl, "tags_str");
	if (!urls)
		return;
	store_t *s = cr->t->s;
	store_lock(s);
	char *save = NULL;
	for (char *l = strtok_r(urls, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
		while (*l == ' ')
			l++;
		if (!*l || *l == '#')
			continue;
		char *url = NULL, *title = NULL;
		if (*l == '{') {
			rec_t r;
			if (rec_parse(&r, l, strlen(l)) == 0) {
				url = rec_str(&r, "url");
				title = rec_str(&r, "title");
				rec_free(&r);
			}
		} else {
			url = xstrdup(l);
		}
		if (url && url_check(url)) {
			free(url);
			url = NULL;
		}
		if (url && !urlset_has(&cr->seen, url) && urlfilter_pass(&cr->filter, url) &&
		    (cr->max_urls <= 0 || (long)cr->seen.n < cr->max_urls)) {
			rec_t snap;
			record_snapshot(&snap, clock_now(), cr->cid, url, 0, NULL, title, tags);
			store_put(s, &snap);
			rec_free(&snap);
			urlset_add(&cr->seen, url);
		}
		free(url), free(title);
	}
	if (run_unlock(cr, "unable to queue its first snapshots") < 0)
		urlset_free(&cr->seen), memset(&cr->seen, 0, sizeof cr->seen);
	free(urls), free(tags);
}

/* Put a snapshot back in the queue, due after `after` µs. */
static void
requeue_at(tick_t *t, const char *id, const char *why, int64_t after)
{
	store_lock(t->s);
	rec_t r;
	if (store_get(t->s, id, &r) == 0) {
		if (!record_is_final(&r) && !rec_streq(&r, "status", "paused")) {
			record_status(&r, "queued", clock_now() + after);
			rec_set_null(&r, "lease");
			store_put(t->s, &r);
			t->requeued++;
			if (t->verbose)
				info("snapshot %s requeued (%s)", id, why);
		}
		rec_free(&r);
	}
	if (store_unlock(t->s) < 0)
		tick_error(t, "unable to requeue snapshot %s", id);
}

static void
requeue(tick_t *t, const char *id, const char *why)
{
	requeue_at(t, id, why, 0);
}

/* Due again in a minute: what failed may have cleared by then. */
static void
requeue_later(tick_t *t, const char *id, const char *why)
{
	requeue_at(t, id, why, 60 * 1000000LL);
}

/* A worker failed (exit not 0 or 1): back off, seal after three. */
static void
worker_failed(crawlrun_t *cr, worker_t *w, int code, long fails)
{
	tick_t *t = cr->t;
	store_t *s = t->s;
	t->failed_workers++;
	errorx("snapshot %s: abx-hook exited %d (failure %ld of 3)", w->id, code, fails);
	store_lock(s);
	rec_t cur;
	if (store_get(s, w->id, &cur) == 0) {
		rec_set_int(&cur, "num_uses_failed", fails);
		rec_set_null(&cur, "lease");
		int64_t back = 60LL * 1000000 << (fails < 10 ? fails - 1 : 9);
		record_status(&cur, fails >= 3 ? "sealed" : "queued", fails >= 3 ? -1 : clock_now() + back);
		if (fails >= 3)
			rec_set_str(&cur, "notes", "abx-hook failed three times; sealed");
		store_put(s, &cur);
		rec_free(&cur);
	}
	run_unlock(cr, "unable to record the failure of snapshot %s", w->id);
}

/* A worker's snapshot ran: count its size, discover, seal. */
static void
worker_done(crawlrun_t *cr, worker_t *w, rec_t *r)
{
	tick_t *t = cr->t;
	store_t *s = t->s;
	char dir[256];
	seal_dir_of(r, dir, sizeof dir);
	long long size = fs_du(s->dfd, dir);   /* counted once: limit and seal */
	cr->total_size += size;
	if (cr->max_size > 0 && cr->total_size >= cr->max_size && !cr->stop_reason[0])
		snprintf(cr->stop_reason, sizeof cr->stop_reason, "crawl_max_size");
	if (cr->max_size > 0)
		save_limits(cr);
	if (!cr->stop_reason[0] && !cr->paused && !cr->cancelled && !cr->broken) {
		store_lock(s);
		int made = discover_children(s, r, cr->max_depth, &cr->filter, &cr->seen, cr->max_urls);
		if (run_unlock(cr, "unable to queue the outlinks of snapshot %s", w->id) < 0)
			made = 0;
		t->discovered += made;
		if (t->verbose && made)
			info("snapshot %s: %d new outlinks queued", w->id, made);
	}
	if (cr->broken) {
		/* the outlinks may be missing: run it again later */
		requeue_later(t, w->id, "the store failed");
		return;
	}
	int rc = seal_snapshot_with(s, w->id, NULL, w->first_run ? w->recs : NULL, w->nrecs, size);
	if (rc == SEAL_OK) {
		t->snapshots++;
		t->failed_hooks += w->failed;
		if (t->verbose)
			info("snapshot %s sealed: %s (%d hooks, %d failed)", w->id, w->url, w->hooks, w->failed);
	} else if (rc == SEAL_ERR) {
		tick_error(t, "unable to seal snapshot %s", w->id);
		cr->broken = 1;
	}
}

/* A worker ended: count, discover, seal (or requeue on a signal). */
static void
finish(crawlrun_t *cr, worker_t *w, int status)
{
	tick_t *t = cr->t;
	store_t *s = t->s;
	int code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
	rec_t r;
	unsigned nerr = s->nerr;
	if (*t->signals) {
		requeue(t, w->id, "interrupted by a signal");
	} else if (store_get(s, w->id, &r) == 0) {
		const char *lease = rec_raw(&r, "lease");
		int ours = lease && lease[0] == '{';
		if (!ours && !record_is_final(&r) && !rec_streq(&r, "status", "paused")) {
			/* requeued meanwhile (abx-ctl retry): its new run is due;
			 * sealing now would throw that away */
			if (t->verbose)
				info("snapshot %s was requeued while it ran; left queued", w->id);
		} else if (rec_streq(&r, "status", "paused")) {
			/* ArchiveBox: the work is redone after resume */
			if (claim_release(s, w->id, 0) < 0)
				tick_error(t, "unable to release paused snapshot %s", w->id);
		} else if (record_is_final(&r) && rec_isnull(&r, "retry_at")) {
			/* cancelled meanwhile: it stays sealed, with index files
			 * for what its hooks recorded */
			if (seal_snapshot(s, w->id, NULL) == SEAL_ERR)
				tick_error(t, "unable to write the index files of snapshot %s", w->id);
			if (t->verbose)
				info("snapshot %s was cancelled", w->id);
		} else if (code == EX_TEMPFAIL_) {
			/* abx-hook could not start it now (the processes of a
			 * dead run would not die, its lease was busy): put it
			 * back, not counted as the page's failure */
			if (t->verbose)
				info("snapshot %s: abx-hook exited 75 (busy); it runs again later", w->id);
			requeue_later(t, w->id, "abx-hook was busy");
		} else if (code == EX_CANTCREAT_ || code == EX_IOERR_) {
			/* the store failed under the worker (a full disk): not
			 * the page's fault, so no failure is counted; it runs
			 * again later, and no new work starts meanwhile */
			errorx("snapshot %s: abx-hook exited %d (it could not write its records); "
			       "it runs again later", w->id, code);
			cr->broken = 1;
			if (t->errors++ == 0)
				t->err = code;
			requeue_later(t, w->id, "its worker could not write");
		} else if (code != 0 && code != 1) {
			worker_failed(cr, w, code, rec_int(&r, "num_uses_failed", 0) + 1);
		} else {
			worker_done(cr, w, &r);
		}
		rec_free(&r);
	} else if (s->nerr != nerr) {
		tick_error(t, "unable to read snapshot %s", w->id);
	}
	lease_drop(w->lease_fd);
	if (w->pidfd >= 0)
		close(w->pidfd);
	if (w->outfd >= 0)
		close(w->outfd);
	buf_free(&w->out);
	for (size_t i = 0; i < w->nrecs; i++)
		rec_free(&w->recs[i]);
	free(w->recs);
	w->recs = NULL;
	w->nrecs = 0;
}

typedef struct {
	char id[ID_LEN + 1];
	int depth;
	int64_t created;
} cand_t;

static int
cand_cmp(const void *a, const void *b)
{
	const cand_t *x = a, *y = b;
	if (x->depth != y->depth)
		return x->depth - y->depth;
	if (x->created != y->created)
		return x->created < y->created ? -1 : 1;
	return strcmp(x->id, y->id);
}

static int
running(const crawlrun_t *cr, const char *id)
{
	for (int i = 0; i < cr->nw; i++)
		if (strcmp(cr->w[i].id, id) == 0)
			return 1;
	return 0;
}

/* Start workers on due snapshots until the slots are full; returns the
 * number of due snapshots left waiting (0: none due). */
static int
refill(crawlrun_t *cr)
{
	tick_t *t = cr->t;
	store_t *s = t->s;
	ient_t *v;
	size_t n = active_now(t, "Snapshot", &v);
	int64_t now = clock_now();
	cand_t *c = xmalloc(sizeof(cand_t) * (n + 1));
	size_t nc = 0;
	for (size_t i = 0; i < n; i++) {
		ient_t *e = &v[i];
		if (!store_entry_due(e, "Snapshot", cr->cid, now))
			continue;
		if (running(cr, e->id))
			continue;
		memcpy(c[nc].id, e->id, ID_LEN + 1);
		c[nc].depth = e->depth;
		c[nc].created = e->created_at;
		nc++;
	}
	free(v);
	qsort(c, nc, sizeof(cand_t), cand_cmp);
	int free_slots = cr->slots - cr->nw;
	if (free_slots <= 0 || nc == 0 || *t->signals || cr->paused || cr->cancelled || cr->broken) {
		free(c);
		return (int)nc;
	}
	/* claim the free slots' worth in one durable commit */
	char (*ids)[ID_LEN + 1] = xmalloc(sizeof *ids * nc);
	for (size_t k = 0; k < nc; k++)
		memcpy(ids[k], c[k].id, ID_LEN + 1);
	rec_t got_r[MAX_SLOTS];
	int got_fd[MAX_SLOTS];
	claim_opts_t o = {LEASE_US, 1, 0};
	int got = claim_ids(s, ids, nc, &o, free_slots, got_r, got_fd);
	free(ids);
	if (got < 0) {
		tick_error(t, "crawl %s: unable to claim its snapshots", cr->cid);
		cr->broken = 1;
		got = 0;
	}
	for (int g = 0; g < got; g++) {
		rec_t r = got_r[g];
		int fd = got_fd[g];
		char *rid = rec_str(&r, "id");
		worker_t *w = &cr->w[cr->nw];
		memset(w, 0, sizeof *w);
		memcpy(w->id, rid, ID_LEN + 1);
		free(rid);
		char *url = rec_str(&r, "url"), *plugins = rec_str(&r, "retry_plugins");
		snprintf(w->url, sizeof w->url, "%s", url ? url : "");
		w->depth = rec_int(&r, "depth", 0);
		const char *hr = rec_raw(&r, "has_results");
		w->first_run = !(hr && strcmp(hr, "true") == 0);
		w->lease_fd = fd;
		w->started = clock_mono();
		long long left = cr->max_size > 0 ? cr->max_size - cr->total_size : 0;
		w->pid = spawn(t, "Snapshot", w->id, plugins, fd, left > 0 ? left : 0, &w->outfd);
		if (w->pid < 0) {
			/* put it back: due again after a pause, not at once */
			lease_drop(fd);
			requeue_later(t, w->id, "its worker did not start");
			free(url), free(plugins);
			rec_free(&r);
			continue;
		}
		w->pidfd = syscall(SYS_pidfd_open, w->pid, 0);
		cr->nw++;
		if (t->verbose)
			info("snapshot %s started: %s (depth %d)", w->id, w->url, w->depth);
		free(url), free(plugins);
		rec_free(&r);
	}
	int left = (int)nc - got;
	free(c);
	return left;
}

/* Re-read the crawl: pause, cancel.  Renew leases every 10 s. */
static void
watch(crawlrun_t *cr)
{
	tick_t *t = cr->t;
	int64_t now = clock_mono();
	if (now - cr->last_check >= 500000) {
		cr->last_check = now;
		rec_t c;
		int found = store_lock(t->s) == 0 && store_get(t->s, cr->cid, &c) == 0;
		if (run_unlock(cr, "unable to read its record") < 0 && found) {
			rec_free(&c);
			found = 0;
		}
		if (found) {
			int was = cr->cancelled;
			cr->paused = rec_streq(&c, "status", "paused");
			cr->cancelled = record_is_final(&c);
			if (cr->cancelled && !was) {
				if (t->verbose)
					info("crawl %s cancelled: interrupting %d snapshots", cr->cid, cr->nw);
				for (int i = 0; i < cr->nw; i++)
					if (!cr->w[i].signalled) {
						kill(cr->w[i].pid, SIGTERM);
						cr->w[i].signalled = 1;
					}
			}
			if (cr->paused && t->verbose && cr->nw)
				info("crawl %s paused: %d running snapshots finish", cr->cid, cr->nw);
			rec_free(&c);
		}
		/* a snapshot cancelled on its own: interrupt its hooks */
		for (int i = 0; i < cr->nw; i++) {
			rec_t r;
			if (cr->w[i].signalled || store_get(t->s, cr->w[i].id, &r) < 0)
				continue;
			if (record_is_final(&r) && rec_isnull(&r, "retry_at")) {
				kill(cr->w[i].pid, SIGTERM);
				cr->w[i].signalled = 1;
			}
			rec_free(&r);
		}
		if (cr->timeout > 0 && !cr->stop_reason[0] &&
		    clock_now() - cr->started_at >= (int64_t)cr->timeout * 1000000) {
			snprintf(cr->stop_reason, sizeof cr->stop_reason, "crawl_timeout");
			save_limits(cr);
			if (t->verbose)
				info("crawl %s: CRAWL_TIMEOUT reached", cr->cid);
		}
	}
	if (now - cr->last_renew >= RENEW_US) {
		cr->last_renew = now;
		claim_renew(t->s, cr->cid, LEASE_US);
		for (int i = 0; i < cr->nw; i++)
			claim_renew(t->s, cr->w[i].id, LEASE_US);
	}
}

static void
reap(crawlrun_t *cr, int timeout_ms)
{
	struct pollfd p[2 * MAX_SLOTS];
	int np = 0;
	for (int i = 0; i < cr->nw; i++) {
		if (cr->w[i].pidfd >= 0)
			p[np++] = (struct pollfd){cr->w[i].pidfd, POLLIN, 0};
		if (cr->w[i].outfd >= 0)
			p[np++] = (struct pollfd){cr->w[i].outfd, POLLIN, 0};
	}
	if (np)
		poll(p, np, timeout_ms);
	for (int i = 0; i < cr->nw;) {
		worker_t *w = &cr->w[i];
		worker_read(w);
		int status;
		if (waitpid(w->pid, &status, WNOHANG) == w->pid) {
			worker_read(w);
			finish(cr, w, status);
			cr->w[i] = cr->w[--cr->nw];
		} else {
			i++;
		}
	}
}

/* The plugins, discovered once and kept for a minute: a daemon sees a
 * plugin installed meanwhile within that time (or at SIGHUP). */
static void
discover_plugins(tick_t *t)
{
	int64_t now = clock_mono();
	if (t->have_ps && now - t->ps_at < 60 * 1000000LL)
		return;
	if (t->have_ps)
		plugins_free(&t->ps);
	t->have_ps = 0;
	char real[PATH_MAX];
	if (!realpath(t->s->dir, real))
		return;
	char **path = plugins_path(real);
	plugins_discover(&t->ps, path);
	for (char **d = path; *d; d++)
		free(*d);
	free(path);
	t->have_ps = 1;
	t->ps_at = now;
}

void
tick_forget_plugins(tick_t *t)
{
	if (t->have_ps)
		plugins_free(&t->ps);
	t->have_ps = 0;
}

/* Does any plugin selected for this crawl have hooks of this family?
 * (Most have no CrawlSetup or CrawlCleanup hook: no worker is forked.) */
static int
family_has_hooks(crawlrun_t *cr, const char *family)
{
	tick_t *t = cr->t;
	discover_plugins(t);
	if (!t->have_ps)
		return 1;
	const char *missing = NULL;
	size_t n = 1;
	if (plugins_select(&t->ps, &cr->conf, NULL, &missing) == 0) {
		hook_t **hs = NULL;
		n = plugins_hooks(&t->ps, family, &hs);
		free(hs);
	}
	return n > 0;
}

/* Run a claimed crawl to its end (cfd: its lease, dropped here).  0, or -1
 * if the store failed on the way (reported; the crawl is put back). */
static int
run_crawl(tick_t *t, rec_t *crawl, int cfd)
{
	crawlrun_t *cr = xcalloc(1, sizeof *cr);
	store_t *s = t->s;
	cr->t = t;
	cr->cfd = cfd;
	char *cid = rec_str(crawl, "id");
	memcpy(cr->cid, cid, ID_LEN + 1);
	free(cid);
	conf_builtins(&cr->conf);
	conf_load_file(&cr->conf, s->dfd, "abx.conf");
	conf_load_environ(&cr->conf, environ);
	const char *cfg = rec_raw(crawl, "config");
	buf_t why = {0};
	if (cfg && conf_check_json(cfg, CONF_CRAWL, &why))
		warnx_("crawl %s: %s; bad values are ignored", cr->cid, why.p);
	buf_free(&why);
	if (cfg)
		conf_load_json(&cr->conf, cfg, CONF_CRAWL);
	long long n;
	const char *v = conf_get(&cr->conf, "CRAWL_MAX_CONCURRENT_SNAPSHOTS");
	cr->slots = v && conf_parse_count(v, &n) == 0 ? (n > MAX_SLOTS ? MAX_SLOTS : (int)n) : 4;
	if (cr->slots < 1)
		cr->slots = 1;
	v = conf_get(&cr->conf, "CRAWL_MAX_URLS");
	cr->max_urls = v && conf_parse_count(v, &n) == 0 && n <= LONG_MAX ? (long)n : 0;
	cr->max_size = parse_size(conf_get(&cr->conf, "CRAWL_MAX_SIZE"));
	cr->timeout = conf_seconds(conf_get(&cr->conf, "CRAWL_TIMEOUT"), 0);
	cr->max_depth = rec_int(crawl, "max_depth", 0);
	urlfilter_init(&cr->filter, conf_get(&cr->conf, "URL_ALLOWLIST"), conf_get(&cr->conf, "URL_DENYLIST"));
	int was_lazy = s->lazy;
	s->lazy = 1;   /* claims, results, seals, children: synced on a clock */
	load_limits(cr, crawl);
	t->crawls++;
	if (t->verbose)
		info("crawl %s started (max_depth %d, %d slots)", cr->cid, cr->max_depth, cr->slots);

	int setup = family_has_hooks(cr, "CrawlSetup"), cleanup = family_has_hooks(cr, "CrawlCleanup");
	if (setup)
		run_phase(t, "CrawlSetup", cr->cid, cfd);
	char j[128];
	store_crawl_journal(cr->cid, j, sizeof j);
	unsigned nerr = s->nerr;
	store_each(s, j, "\"Snapshot\"", collect_url, cr);
	if (s->nerr != nerr) {
		/* unreadable: seeding now would queue its URLs twice */
		tick_error(t, "crawl %s", cr->cid);
		cr->broken = 1;
	} else if (cr->seen.n == 0) {
		seed_snapshots(cr, crawl);
	}

	int64_t last_sync = clock_mono();
	for (;;) {
		watch(cr);
		/* group commit on a clock: what the workers and we wrote since
		 * the last sync (claims, results, seals, children) becomes
		 * durable at most SYNC_US later; an OS crash in between costs
		 * that work again, never a user's change */
		if (clock_mono() - last_sync >= SYNC_US) {
			if (store_syncfs(s) < 0)
				tick_error(t, "crawl %s", cr->cid);
			last_sync = clock_mono();
		}
		if (cr->stop_reason[0] && !*t->signals)
			seal_queued(cr);
		if (!*t->signals && !cr->paused && !cr->cancelled && !cr->stop_reason[0] && !cr->broken)
			refill(cr);
		if (cr->nw == 0)
			break;
		draw(cr, 0);
		reap(cr, 250);
		/* forward each signal once: abx-hook takes a second one as
		 * "kill the hooks now", so a repeat would cut their grace */
		for (int i = 0; i < cr->nw; i++)
			while (cr->w[i].signalled < *t->signals && cr->w[i].signalled < 2) {
				kill(cr->w[i].pid, cr->w[i].signalled ? SIGINT : SIGTERM);
				cr->w[i].signalled++;
			}
	}
	draw(cr, 1);
	if (cr->stop_reason[0])
		seal_queued(cr);
	/* CrawlCleanup also stops the daemons CrawlSetup left running */
	if (!*t->signals && (cleanup || setup))
		run_phase(t, "CrawlCleanup", cr->cid, cfd);
	/* what we and the workers wrote (outputs, index files, records):
	 * durable before the crawl's own record says anything of it */
	if (store_syncfs(s) < 0) {
		tick_error(t, "crawl %s", cr->cid);
		cr->broken = 1;
	}
	s->lazy = was_lazy;
	if (*t->signals || cr->broken) {
		if (claim_release(s, cr->cid, 0) < 0)
			tick_error(t, "unable to release crawl %s", cr->cid);
		if (t->verbose)
			info("crawl %s requeued (%s)", cr->cid, cr->broken ? "the store failed" : "interrupted by a signal");
	} else {
		int rc = seal_crawl(s, cr->cid, NULL);
		if (rc == SEAL_ERR)
			tick_error(t, "unable to seal crawl %s", cr->cid);
		else if (t->verbose)
			info("crawl %s %s", cr->cid, rc == SEAL_OK ? "sealed" : "requeued until its next snapshot is due");
		cr->broken = rc == SEAL_ERR;
	}
	lease_drop(cfd);
	int broken = cr->broken;
	urlset_free(&cr->seen);
	urlfilter_free(&cr->filter);
	conf_free(&cr->conf);
	free(cr);
	return broken ? -1 : 0;
}

/* ----------------------------------------------------------- the pass */

static int
resolve_due_binaries(tick_t *t)
{
	store_t *s = t->s;
	ient_t *v;
	size_t n = active_now(t, "Binary", &v);
	int64_t now = clock_now();
	int did = 0;
	for (size_t i = 0; i < n && !*t->signals; i++) {
		if (v[i].retry_at < 0 || v[i].retry_at > now)
			continue;
		rec_t r;
		if (store_get(s, v[i].id, &r) < 0)
			continue;
		binreq_t req = {0};
		req.name = rec_str(&r, "name");
		req.binproviders = rec_str(&r, "binproviders");
		if (!req.binproviders)
			req.binproviders = xstrdup("env");
		if (req.name) {
			binres_t res = {0};
			binary_resolve(s, &req, getenv("PATH"), NULL, NULL, &res);
			if (res.changed) {
				store_lock(s);
				binary_commit(s, &res);
				if (store_unlock(s) < 0)
					tick_error(t, "unable to record binary %s", req.name);
				else
					did = 1;
			}
			if (t->verbose)
				info("binary %s: %s", req.name, res.ok ? res.abspath : res.why);
			binres_free(&res);
		}
		free(req.name), free(req.binproviders);
		rec_free(&r);
	}
	free(v);
	return did;
}

/* Crawls passed over for the rest of a pass: busy, or the store failed
 * on them (each is tried once a pass, never spun on). */
typedef struct {
	char id[64][ID_LEN + 1];
	size_t n;
} skiplist_t;

static int
skipped(const skiplist_t *k, const char *id)
{
	for (size_t i = 0; i < k->n; i++)
		if (!strcmp(k->id[i], id))
			return 1;
	return 0;
}

static void
skip_add(skiplist_t *k, const char *id)
{
	if (k->n < 64 && !skipped(k, id))
		memcpy(k->id[k->n++], id, ID_LEN + 1);
}

/* Run a claimed crawl; one that failed is not claimed again this pass. */
static void
run_claimed(tick_t *t, rec_t *c, int fd, skiplist_t *skip)
{
	char *id = rec_str(c, "id");
	if (run_crawl(t, c, fd) < 0 && id_valid(id))
		skip_add(skip, id);
	free(id);
	rec_free(c);
}

/* A due snapshot whose crawl is not due: claim that crawl and run it. */
static int
due_orphan(tick_t *t, skiplist_t *skip)
{
	store_t *s = t->s;
	ient_t *v;
	size_t n = active_now(t, "Snapshot", &v);
	int64_t now = clock_now();
	int did = 0;
	for (size_t i = 0; i < n && !did; i++) {
		ient_t *e = &v[i];
		if (!store_entry_due(e, "Snapshot", t->only_crawl, now))
			continue;
		if (skipped(skip, e->crawl_id) || lease_busy(s, e->id))
			continue;
		claim_opts_t o = {LEASE_US, 1, 1};
		rec_t c;
		int fd;
		int rc = claim_id(s, e->crawl_id, &o, &c, &fd);
		if (rc == CLAIM_OK) {
			run_claimed(t, &c, fd, skip);
			did = 1;
		} else {
			if (rc == CLAIM_ERROR)
				tick_error(t, "unable to claim crawl %s", e->crawl_id);
			skip_add(skip, e->crawl_id);
		}
	}
	free(v);
	return did;
}

int
tick_pass(tick_t *t)
{
	store_t *s = t->s;
	int did = 0;
	int sealed_before = t->snapshots, crawls_before = t->crawls, errors_before = t->errors;
	skiplist_t skip = {.n = 0};
	while (!*t->signals) {
		if (!t->only_crawl && schedule_enqueue_due(s, t->verbose) > 0)
			did = 1;
		claim_opts_t o = {LEASE_US, 1, 0};
		rec_t c;
		int fd;
		/* a tick's claim need not be synced: its lease is the flock it
		 * holds, which no crash outlives; the run syncs on its clock */
		int lazy = s->lazy;
		s->lazy = s->durable;
		int rc = t->only_crawl ? (skipped(&skip, t->only_crawl) ? CLAIM_NONE
		                                                        : claim_id(s, t->only_crawl, &o, &c, &fd))
		                       : claim_next_except(s, "Crawl", NULL, skip.id, skip.n, &o, &c, &fd);
		s->lazy = lazy;
		if (rc == CLAIM_ERROR) {
			tick_error(t, "unable to claim a crawl");
			break;
		}
		if (rc == CLAIM_OK) {
			run_claimed(t, &c, fd, &skip);
			did = 1;
			if (t->only_crawl && !due_orphan(t, &skip))
				break;
			continue;
		}
		if (due_orphan(t, &skip)) {
			did = 1;
			continue;
		}
		if (!t->only_crawl && resolve_due_binaries(t)) {
			did = 1;
			continue;
		}
		break;
	}
	if (t->snapshots != sealed_before || t->crawls != crawls_before)
		seal_site_index(s);
	if (*t->signals)
		return 2;
	if (t->errors != errors_before)
		return 3;
	return did ? 0 : 1;
}

int
tick_dry(tick_t *t)
{
	store_t *s = t->s;
	ient_t *v;
	size_t n = active_now(t, NULL, &v);
	int64_t now = clock_now();
	int due = 0;
	for (size_t i = 0; i < n; i++) {
		ient_t *e = &v[i];
		int is_due = e->retry_at != INT64_MAX && strcmp(e->status, "paused") &&
		             (e->retry_at <= now || (e->lease && !lease_busy(s, e->id)));
		if (!is_due || !strcmp(e->type, "CrawlSchedule"))
			continue;
		if (t->only_crawl && strcmp(e->id, t->only_crawl) && strcmp(e->crawl_id, t->only_crawl))
			continue;
		rec_t r;
		if (store_get(s, e->id, &r) == 0) {
			buf_t b = {0};
			rec_line(&r, &b);
			buf_addc(&b, '\n');
			fwrite(b.p, 1, b.len, stdout);
			buf_free(&b);
			rec_free(&r);
			due++;
		}
	}
	free(v);
	due += schedule_list_due(s, stdout);
	return due ? 0 : 1;
}
