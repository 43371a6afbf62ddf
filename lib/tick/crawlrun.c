/*
 * crawlrun.c — one crawl run of abx-tick (tick.h step 2): CrawlSetup,
 * snapshots from the crawl's URLs if it has none, then its due snapshots
 * run by workers (worker.h) up to CRAWL_MAX_CONCURRENT_SNAPSHOTS at once,
 * refilled in (depth, created_at) order; each ended worker's snapshot is
 * counted, its outlinks queued (discover.h) and sealed; the crawl's record
 * re-read every half second (pause, cancel, CRAWL_TIMEOUT), leases renewed
 * every 10 s, the filesystem synced every 250 ms (the group commit of the
 * workers' and our own commits); CrawlCleanup; then the crawl sealed or
 * requeued (seal_crawl).  A failure of the store stops new work in the
 * run; the crawl is then put back (crawl_run returns -1).  A snapshot
 * whose hooks failed is said in one line on stderr when its worker ends
 * (worker_report_failures), below the display, which is cleared first.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "store/claim.h"
#include "base/config.h"
#include "tick/settings.h"
#include "tick/discover.h"
#include "base/err.h"
#include "base/hookrun.h"
#include "net/hostpace.h"
#include "store/queue.h"
#include "base/exitcodes.h"
#include "base/fs.h"
#include "hook/heartbeat.h"
#include "store/lease.h"
#include "hook/plugin.h"
#include "tick/progress.h"
#include "store/record.h"
#include "net/robots.h"
#include "net/scope.h"
#include "seal/seal.h"
#include "tick/tick_int.h"
#include "base/topk.h"
#include "net/url.h"
#include "tick/worker.h"

extern char **environ;

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
	hostpace_t hp;           /* host pacing (hostpace.h) */
	hostcache_t hosts;       /* snapshot id -> host key */
	scope_t scope;
	int host_blocked;        /* due snapshots the last refill left to their hosts */
	int64_t host_until;      /* the earliest a blocked host frees (0: unknown) */
	int host_warned;
	int64_t next_due;        /* the earliest future retry_at of its queued snapshots */
	int robots;              /* ROBOTS_TXT=obey */
	hostcache_t urls;        /* snapshot id -> URL (robots.txt is read by URL) */
	struct hostrobots {
		char key[200];
		robots_t r;
	} *rob;
	int nrob;
} crawlrun_t;

#define INLINE_WAIT_US (10 * 1000000LL)   /* waited for in the run, not requeued */


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
	if (cr->max_size > 0 && cr->total_size >= cr->max_size && !cr->stop_reason[0])
		snprintf(cr->stop_reason, sizeof cr->stop_reason, "crawl_max_size");   /* lowered */
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
		rec_set_null(&r, "lease");   /* final: nobody holds it */
		rec_set_str(&r, "sealed_reason", cr->stop_reason);
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
		if (url) {   /* the canonical form (url.h), or none */
			char *canon = url_canon(url, NULL, NULL);
			free(url);
			url = canon;
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
		if (fails >= 3) {
			rec_set_str(&cur, "notes", "abx-hook failed three times; sealed");
			rec_set_str(&cur, "sealed_reason", "worker_failed");
		}
		store_put(s, &cur);
		rec_free(&cur);
	}
	run_unlock(cr, "unable to record the failure of snapshot %s", w->id);
}

/*
 * Did the server ask us to back off?  The page's status as the headers
 * hook recorded it (DIR/<snapshot>/headers/headers.json: "status", and a
 * "retry-after" header, abx's and ArchiveBox's forms): on 429 or 503 the
 * host is paused for its Retry-After (capped by HOST_MAX_DELAY), else
 * exponentially (max(HOST_DELAY, 1 s) doubled for each consecutive one,
 * capped); the snapshot is queued again for after the pause, up to
 * HOST_BACKOFF_RETRIES times, then sealed with the reason in its notes.
 * 1 if it was queued again.
 */
static int
host_backoff(crawlrun_t *cr, worker_t *w, const rec_t *snap, const char *dir)
{
	tick_t *t = cr->t;
	store_t *s = t->s;
	char rel[512];
	buf_t b = {0};
	rec_t h;
	snprintf(rel, sizeof rel, "%s/headers/headers.json", dir);
	if (!w->host_key[0] || fs_read(s->dfd, rel, &b) < 0 || rec_parse(&h, b.p, b.len) < 0) {
		buf_free(&b);
		return 0;
	}
	buf_free(&b);
	long long code = rec_int(&h, "status", rec_int(&h, "status_code", 0));
	if (code != 429 && code != 503) {
		rec_free(&h);
		hostpace_calm(s->dfd, w->host_key);
		return 0;
	}
	char *ra = rec_str(&h, "retry-after");
	if (!ra)
		ra = rec_str(&h, "Retry-After");
	if (!ra) {
		rec_t hs;
		const char *raw = rec_raw(&h, "headers");
		if (raw && rec_parse(&hs, raw, strlen(raw)) == 0) {
			ra = rec_str(&hs, "retry-after");
			if (!ra)
				ra = rec_str(&hs, "Retry-After");
			rec_free(&hs);
		}
	}
	rec_free(&h);
	int64_t now = clock_now(), until = hostpace_retry_after(ra, now);
	char why[160];
	snprintf(why, sizeof why, "HTTP %lld%s%s", code, ra ? ", Retry-After: " : "", ra ? ra : "");
	free(ra);
	int backoffs = 0;
	if (until < 0) {
		/* no usable Retry-After: double the wait each time */
		int prior = hostpace_backoffs(s->dfd, w->host_key);
		int64_t base = cr->hp.delay_us > 1000000 ? cr->hp.delay_us : 1000000;
		until = now + (base << (prior < 20 ? prior : 20));
	}
	if (until > now + cr->hp.max_delay_us)
		until = now + cr->hp.max_delay_us;
	if (hostpace_pause(s->dfd, w->host_key, until, why, &backoffs) < 0)
		warnsys("unable to pause host %s", w->host_key);
	long n = rec_int(snap, "host_backoffs", 0) + 1;
	int again = n <= cr->hp.backoff_retries;
	store_lock(s);
	rec_t cur;
	if (store_get(s, w->id, &cur) == 0) {
		rec_set_int(&cur, "host_backoffs", n);
		if (again) {
			record_status(&cur, "queued", until);
			rec_set_null(&cur, "lease");
		} else {
			char note[256];
			snprintf(note, sizeof note, "the server asked to back off %ld times (%s); archived as it answered",
			    n, why);
			rec_set_str(&cur, "notes", note);
		}
		store_put(s, &cur);
		rec_free(&cur);
	}
	run_unlock(cr, "unable to requeue snapshot %s", w->id);
	if (again) {
		t->requeued++;
		char iso[ISO_LEN + 1];
		clock_iso(until, iso);
		info("snapshot %s: %s answered %s; host paused, the page runs again at %s", w->id, w->url, why, iso);
	}
	return again;
}

/* A worker's snapshot ran: count its size, discover, seal. */
static void
worker_done(crawlrun_t *cr, worker_t *w, rec_t *r)
{
	tick_t *t = cr->t;
	store_t *s = t->s;
	char dir[256];
	seal_dir_of(r, dir, sizeof dir);
	if (host_backoff(cr, w, r, dir))
		return;   /* queued again for after its host's pause */
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
	/* trouble is said without -v: a line a snapshot whose hooks failed */
	char *url = rec_str(r, "url");
	worker_report_failures(t, w, url ? url : w->url);
	free(url);
	int rc = seal_snapshot_with(s, w->id, NULL, w->first_run ? w->recs : NULL, w->nrecs, size);
	if (rc == SEAL_OK) {
		t->snapshots++;
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
	hostpace_t hp = cr->hp;
	for (int i = 0; i < cr->nrob && w->host_fd >= 0; i++)
		if (strcmp(cr->rob[i].key, w->host_key) == 0 && cr->rob[i].r.crawl_delay > hp.delay_us)
			hp.delay_us = cr->rob[i].r.crawl_delay;   /* robots.txt's Crawl-delay */
	hostpace_give(w->host_fd, &hp, w->host_started, clock_now());
	w->host_fd = -1;
	worker_release(w);
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

/* A host slot taken for a candidate, until its worker starts. */
typedef struct {
	char id[ID_LEN + 1];
	char key[200];
	int fd;
} pick_t;

/* The host key of snapshot id (its record read once a run); NULL if it
 * has no host (then it is not paced). */
static const char *
host_of(crawlrun_t *cr, const char *id)
{
	const char *k = hostcache_get(&cr->hosts, id);
	if (k)
		return *k ? k : NULL;
	rec_t r;
	char key[200] = "";
	if (store_get(cr->t->s, id, &r) == 0) {
		char *url = rec_str(&r, "url");
		if (!url || hostpace_key(url, key, sizeof key) < 0)
			key[0] = 0;
		if (url && cr->robots)
			hostcache_put(&cr->urls, id, url);
		free(url);
		rec_free(&r);
	}
	hostcache_put(&cr->hosts, id, key);
	return key[0] ? hostcache_get(&cr->hosts, id) : NULL;
}

/* The robots.txt rules of a host, read once a run (robots.h); NULL if
 * they cannot be had (then nothing is refused). */
static const robots_t *
robots_of(crawlrun_t *cr, const char *key, const char *url)
{
	for (int i = 0; i < cr->nrob; i++)
		if (strcmp(cr->rob[i].key, key) == 0)
			return &cr->rob[i].r;
	robots_t r;
	if (robots_get(cr->t->s->dfd, cr->t->s->dir, key, url, &cr->conf, &r) < 0) {
		warnsys("crawl %s: unable to keep the robots.txt of %s in %s/hosts", cr->cid, key, cr->t->s->dir);
		return NULL;
	}
	cr->rob = xrealloc(cr->rob, (cr->nrob + 1) * sizeof *cr->rob);
	snprintf(cr->rob[cr->nrob].key, sizeof cr->rob[cr->nrob].key, "%s", key);
	cr->rob[cr->nrob].r = r;
	return &cr->rob[cr->nrob++].r;
}

/* ROBOTS_TXT=obey and the host's robots.txt disallows the snapshot's URL:
 * sealed unrun, with the reason.  1 if so. */
static int
robots_refuse(crawlrun_t *cr, const char *id, const char *key)
{
	const char *url = hostcache_get(&cr->urls, id);
	const robots_t *rb = url ? robots_of(cr, key, url) : NULL;
	if (!rb || robots_allows(rb, url))
		return 0;
	store_t *s = cr->t->s;
	store_lock(s);
	rec_t r;
	if (store_get(s, id, &r) == 0) {
		if (rec_streq(&r, "status", "queued")) {
			record_status(&r, "sealed", -1);
			rec_set_str(&r, "sealed_reason", "robots_txt");
			rec_set_str(&r, "notes", rb->disallow_all ?
			    "not archived: ROBOTS_TXT=obey and the host's robots.txt could not be read (RFC 9309: "
			    "complete disallow)" : "not archived: ROBOTS_TXT=obey and the host's robots.txt disallows it");
			store_put(s, &r);
		}
		rec_free(&r);
	}
	run_unlock(cr, "unable to seal snapshot %s (robots.txt)", id);
	if (cr->t->verbose)
		info("snapshot %s: %s: robots.txt disallows it; sealed unrun", id, url);
	return 1;
}

/*
 * Choose up to `want` candidates (in cand_cmp order) whose host has a free
 * pacing slot, taking the slots; their ids into ids, the slots into pk.
 * The first *sorted of c are in order (topk_sort); the rest are sorted
 * only if the choice gets to them.
 * A host found waiting is not tried again in this call; the earliest time
 * one frees goes to cr->host_until, the candidates left to them are
 * counted in cr->host_blocked.  A host whose state cannot be used is not
 * paced (said once a run).
 */
static size_t
pace_pick(crawlrun_t *cr, cand_t *c, size_t nc, size_t *sorted, char (*ids)[ID_LEN + 1], pick_t *pk,
    int want)
{
	size_t n = 0;
	char (*waiting)[200] = NULL;
	size_t nwait = 0;
	int64_t now = clock_now();
	for (size_t i = 0; i < nc && (int)n < want; i++) {
		if (i == *sorted) {
			/* past the sorted front (topk_sort): the rest in order */
			qsort(c + i, nc - i, sizeof *c, cand_cmp);
			*sorted = nc;
		}
		const char *key = host_of(cr, c[i].id);
		int fd = -1;
		if (key && cr->robots && robots_refuse(cr, c[i].id, key))
			continue;
		if (key) {
			int blocked = 0;
			for (size_t k = 0; k < nwait && !blocked; k++)
				blocked = strcmp(waiting[k], key) == 0;
			if (blocked) {
				cr->host_blocked++;
				continue;
			}
			int64_t until;
			fd = hostpace_take(cr->t->s->dfd, key, &cr->hp, c[i].id, now, &until);
			if (fd < 0 && errno == EAGAIN) {
				waiting = xrealloc(waiting, (nwait + 1) * sizeof *waiting);
				snprintf(waiting[nwait++], sizeof *waiting, "%s", key);
				if (until && (!cr->host_until || until < cr->host_until))
					cr->host_until = until;
				cr->host_blocked++;
				continue;
			}
			if (fd < 0 && !cr->host_warned++)
				warnsys("crawl %s: host %s is not paced: unable to use %s/hosts/%s", cr->cid, key,
				    cr->t->s->dir, key);
		}
		memcpy(ids[n], c[i].id, ID_LEN + 1);
		memcpy(pk[n].id, c[i].id, ID_LEN + 1);
		snprintf(pk[n].key, sizeof pk[n].key, "%s", key ? key : "");
		pk[n].fd = fd;
		n++;
	}
	free(waiting);
	return n;
}

/* Hand the slot picked for w's snapshot to w. */
static void
pick_give(pick_t *pk, size_t n, worker_t *w)
{
	w->host_fd = -1;
	w->host_started = clock_now();
	for (size_t k = 0; k < n; k++)
		if (strcmp(pk[k].id, w->id) == 0) {
			w->host_fd = pk[k].fd;
			snprintf(w->host_key, sizeof w->host_key, "%s", pk[k].key);
			pk[k].fd = -1;
			return;
		}
}

/* Start workers on due snapshots until the slots are full; returns the
 * number of due snapshots left waiting (0: none due). */
static int
refill(crawlrun_t *cr)
{
	tick_t *t = cr->t;
	store_t *s = t->s;
	ient_t *v;
	size_t n = tick_active(t, "Snapshot", 0, &v);
	int64_t now = clock_now();
	cand_t *c = xmalloc(sizeof(cand_t) * (n + 1));
	size_t nc = 0;
	cr->next_due = 0;
	for (size_t i = 0; i < n; i++) {
		ient_t *e = &v[i];
		if (!queue_entry_due(e, "Snapshot", cr->cid, now)) {
			if (strcmp(e->crawl_id, cr->cid) == 0 && strcmp(e->status, "queued") == 0 &&
			    e->retry_at > now && e->retry_at != INT64_MAX && (!cr->next_due || e->retry_at < cr->next_due))
				cr->next_due = e->retry_at;
			continue;
		}
		if (running(cr, e->id))
			continue;
		memcpy(c[nc].id, e->id, ID_LEN + 1);
		c[nc].depth = e->depth;
		c[nc].created = e->created_at;
		nc++;
	}
	free(v);
	int free_slots = cr->slots - cr->nw;
	cr->host_blocked = 0;
	cr->host_until = 0;
	if (free_slots <= 0 || nc == 0 || *t->signals || cr->paused || cr->cancelled || cr->broken) {
		free(c);
		return (int)nc;
	}
	/* each candidate's host must have a free pacing slot: take them in
	 * order until the free slots are filled (slots of a waiting host go
	 * to other hosts' snapshots).  Only the first few are sorted unless
	 * hosts that wait make pace_pick go further: the queue may hold tens
	 * of thousands, and this runs at every snapshot's end */
	size_t sorted = topk_sort(c, nc, 4 * (size_t)free_slots + 16, sizeof *c, cand_cmp);
	char (*ids)[ID_LEN + 1] = xmalloc(sizeof *ids * nc);
	pick_t *pk = xcalloc(free_slots, sizeof *pk);
	size_t nids = pace_pick(cr, c, nc, &sorted, ids, pk, free_slots);
	/* claim them in one durable commit */
	rec_t got_r[MAX_SLOTS];
	int got_fd[MAX_SLOTS];
	claim_opts_t o = {LEASE_US, 1, 0};
	int got = nids ? claim_ids(s, ids, nids, &o, free_slots, got_r, got_fd) : 0;
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
		pick_give(pk, nids, w);
		char *url = rec_str(&r, "url"), *plugins = rec_str(&r, "retry_plugins");
		snprintf(w->url, sizeof w->url, "%s", url ? url : "");
		w->depth = rec_int(&r, "depth", 0);
		const char *hr = rec_raw(&r, "has_results");
		w->first_run = !(hr && strcmp(hr, "true") == 0);
		w->lease_fd = fd;
		w->started = clock_mono();
		long long left = cr->max_size > 0 ? cr->max_size - cr->total_size : 0;
		w->pid = worker_spawn(t, "Snapshot", w->id, plugins, fd, left > 0 ? left : 0, &w->outfd);
		if (w->pid < 0) {
			/* put it back: due again after a pause, not at once */
			hostpace_drop(w->host_fd);
			w->host_fd = -1;
			lease_drop(fd);
			requeue_later(t, w->id, "its worker did not start");
			free(url), free(plugins);
			rec_free(&r);
			continue;
		}
		w->pidfd = proc_pidfd(w->pid);
		cr->nw++;
		if (t->verbose)
			info("snapshot %s started: %s (depth %d)", w->id, w->url, w->depth);
		free(url), free(plugins);
		rec_free(&r);
	}
	/* slots taken for snapshots that were not claimed after all */
	for (size_t k = 0; k < nids; k++)
		if (pk[k].fd >= 0)
			hostpace_drop(pk[k].fd);
	free(pk);
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
			int was = cr->cancelled, was_paused = cr->paused;
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
			if (cr->paused && !was_paused && t->verbose)
				info("crawl %s paused: %d running snapshot%s finish", cr->cid, cr->nw,
				    cr->nw == 1 ? "" : "s");
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
			/* what finish prints goes below the display, not into it */
			progress_clear(cr->t, &cr->drawn);
			finish(cr, w, status);
			cr->w[i] = cr->w[--cr->nw];
		} else {
			i++;
		}
	}
}

/* Does any plugin selected for this crawl have hooks of this family?
 * (Most have no CrawlSetup or CrawlCleanup hook: no worker is forked.) */
static int
family_has_hooks(crawlrun_t *cr, const char *family)
{
	tick_t *t = cr->t;
	tick_discover_plugins(t);
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

/* The run's due snapshots all wait on their hosts, longer than is worth
 * waiting for here: due again at `until`. */
static void
defer_blocked(crawlrun_t *cr, int64_t until)
{
	tick_t *t = cr->t;
	store_t *s = t->s;
	ient_t *v;
	size_t n = tick_active(t, "Snapshot", 0, &v);
	int64_t now = clock_now();
	if (store_lock(s) < 0) {
		free(v);
		run_unlock(cr, "unable to defer the snapshots of crawl %s", cr->cid);
		return;
	}
	int moved = 0;
	for (size_t i = 0; i < n; i++) {
		rec_t r;
		if (!queue_entry_due(&v[i], "Snapshot", cr->cid, now) || store_get(s, v[i].id, &r) < 0)
			continue;
		if (!record_is_final(&r) && !rec_streq(&r, "status", "paused") && rec_isnull(&r, "lease")) {
			record_status(&r, "queued", until);
			store_put(s, &r);
			moved++;
		}
		rec_free(&r);
	}
	free(v);
	run_unlock(cr, "unable to defer the snapshots of crawl %s", cr->cid);
	if (t->verbose && moved) {
		char iso[ISO_LEN + 1];
		clock_iso(until, iso);
		info("crawl %s: %d snapshots wait for their hosts until %s", cr->cid, moved, iso);
	}
}

/*
 * Nothing runs: is something of the crawl due soon enough to wait for in
 * this run?  Due snapshots waiting on their hosts (a slot held elsewhere:
 * looked at again every half second; a host's delay or pause), or a
 * snapshot due within INLINE_WAIT_US (one queued again after a 429).
 * Sleeps up to half a second and returns 1; 0 ends the run.  Due
 * snapshots whose hosts wait longer are queued again for the moment the
 * first of those hosts frees (one write each, once a wait), so that the
 * crawl is not due meanwhile: a pass, a one-shot tick and the daemon's
 * clock see when it will be.
 */
static int
wait_inline(crawlrun_t *cr)
{
	tick_t *t = cr->t;
	if (*t->signals || cr->paused || cr->cancelled || cr->stop_reason[0] || cr->broken)
		return 0;
	int64_t now = clock_now(), until = 0;
	if (cr->host_blocked)
		until = cr->host_until ? cr->host_until : now + 500000;
	else if (cr->next_due && cr->next_due - now <= INLINE_WAIT_US)
		until = cr->next_due;
	if (!until)
		return 0;
	if (until - now > INLINE_WAIT_US) {
		defer_blocked(cr, until);
		return 0;
	}
	int ms = until <= now ? 1 : (until - now) / 1000 + 1;
	if (ms > 500)
		ms = 500;
	poll(NULL, 0, ms);
	return 1;
}

int
crawl_run(tick_t *t, rec_t *crawl, int cfd)
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
	if (cfg && settings_check_json(cfg, CONF_CRAWL, &why))
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
	hostpace_conf(&cr->conf, &cr->hp);
	long long obey = 0;
	conf_parse_robots(conf_get(&cr->conf, "ROBOTS_TXT"), &obey);
	cr->robots = (int)obey;
	char *seeds = rec_str(crawl, "urls");
	scope_init(&cr->scope, scope_parse(conf_get(&cr->conf, "CRAWL_SCOPE")), seeds);
	free(seeds);
	urlfilter_zones(&cr->filter, crawl, conf_get(&cr->conf, "ALLOW_PRIVATE_NETWORKS"));
	int was_lazy = s->lazy;
	s->lazy = 1;   /* claims, results, seals, children: synced on a clock */
	load_limits(cr, crawl);
	t->crawls++;
	if (t->verbose)
		info("crawl %s started (max_depth %d, %d slots)", cr->cid, cr->max_depth, cr->slots);

	int setup = family_has_hooks(cr, "CrawlSetup"), cleanup = family_has_hooks(cr, "CrawlCleanup");
	/* the crawl is live (heartbeat.h) from its setup to its cleanup */
	heartbeat_t hb;
	char crel[64];
	snprintf(crel, sizeof crel, "crawls/%s", cr->cid);
	heartbeat_start(&hb, s->dfd, crel, cr->cid, conf_get(&cr->conf, "ABX_RUNTIME"));
	if (setup)
		worker_phase(t, "CrawlSetup", cr->cid, cfd);
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
	cr->filter.scope = &cr->scope;   /* for what is discovered; the seeds define it */

	int64_t last_sync = clock_mono();
	for (;;) {
		watch(cr);
		/* group commit on a clock: what the workers and we wrote since
		 * the last sync (claims, results, seals, children) becomes
		 * durable at most SYNC_US later; an OS crash in between costs
		 * that work again, never a user's change */
		if (clock_mono() - last_sync >= SYNC_US) {
			if (store_syncfs(s) < 0) {
				/* what the workers wrote may not be on disk: seal
				 * nothing of this run (it runs again) */
				tick_error(t, "crawl %s", cr->cid);
				cr->broken = 1;
			}
			last_sync = clock_mono();
		}
		if (cr->stop_reason[0] && !*t->signals)
			seal_queued(cr);
		if (!*t->signals && !cr->paused && !cr->cancelled && !cr->stop_reason[0] && !cr->broken)
			refill(cr);
		if (cr->nw == 0 && !wait_inline(cr))
			break;
		if (cr->nw == 0)
			continue;
		progress_draw(t, cr->w, cr->nw, &cr->drawn, 0);
		reap(cr, 250);
		if (t->verbose)
			progress_clear(t, &cr->drawn);   /* -v logs below it, not into it */
		/* forward each signal once: abx-hook takes a second one as
		 * "kill the hooks now", so a repeat would cut their grace */
		for (int i = 0; i < cr->nw; i++)
			while (cr->w[i].signalled < *t->signals && cr->w[i].signalled < 2) {
				kill(cr->w[i].pid, cr->w[i].signalled ? SIGINT : SIGTERM);
				cr->w[i].signalled++;
			}
	}
	progress_draw(t, cr->w, cr->nw, &cr->drawn, 1);
	if (cr->stop_reason[0])
		seal_queued(cr);
	/* CrawlCleanup also stops the daemons CrawlSetup left running */
	if (!*t->signals && (cleanup || setup))
		worker_phase(t, "CrawlCleanup", cr->cid, cfd);
	heartbeat_stop(&hb);
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
			info("crawl %s %s (%s)", cr->cid, cr->paused ? "stays paused" : "requeued",
			    cr->broken ? "the store failed" : "interrupted by a signal");
	} else {
		int rc = seal_crawl(s, cr->cid, NULL);
		if (rc == SEAL_ERR)
			tick_error(t, "unable to seal crawl %s", cr->cid);
		else if (t->verbose)
			info("crawl %s %s", cr->cid, rc == SEAL_OK ? "sealed" : rc == SEAL_PAUSED ? "stays paused"
			                                           : "requeued until its next snapshot is due");
		cr->broken = rc == SEAL_ERR;
		/* PACK_ON_SEAL: the sealed crawl packed beside the data (pack.c) */
		if (rc == SEAL_OK && pack_on_seal(s, cr->cid, conf_get(&cr->conf, "PACK_ON_SEAL")) < 0)
			tick_error(t, "crawl %s sealed, not packed", cr->cid);
	}
	lease_drop(cfd);
	int broken = cr->broken;
	urlset_free(&cr->seen);
	urlfilter_free(&cr->filter);
	scope_free(&cr->scope);
	hostcache_free(&cr->hosts);
	hostcache_free(&cr->urls);
	for (int i = 0; i < cr->nrob; i++)
		robots_free(&cr->rob[i].r);
	free(cr->rob);
	conf_free(&cr->conf);
	free(cr);
	return broken ? -1 : 0;
}

