/*
 * ended.c — what becomes of a snapshot whose worker (abx-hook) ended, by
 * what its record says now and how the worker exited, in this order:
 *
 *   a signal reached the tick   queued again, due now (never sealed half
 *                               done);
 *   requeued meanwhile          (abx-ctl retry: its lease is gone) left
 *                               queued: sealing now would throw its new
 *                               run away;
 *   paused meanwhile            its claim released: the work is redone
 *                               after resume (ArchiveBox);
 *   cancelled meanwhile         it stays sealed, with index files for what
 *                               its hooks recorded;
 *   exit 75 (busy)              abx-hook could not start it now (the
 *                               processes of a dead run would not die, its
 *                               lease was busy): queued again in a minute,
 *                               not counted as the page's failure;
 *   exit 73 or 74               the store failed under the worker (a full
 *                               disk): queued again in a minute, no
 *                               failure counted, the run broken (no new
 *                               work) and the pass's error set;
 *   another exit but 0 or 1     a worker failure: queued again after
 *                               1, 2, 4... minutes, sealed after three;
 *   exit 0 or 1                 it ran: a 429 or 503 backs its host off
 *                               (backoff.c); else its size counted
 *                               (limits.c), its outlinks queued (found.c),
 *                               its failed hooks said in one line, and it
 *                               is sealed (seal.h) from the records the
 *                               worker printed if it is its first run.
 *
 * Then its host's pacing slot is given back (pace.c; one that ran gives it
 * back before its seal, once a 429 or 503 has paused the host) and the
 * worker let go.
 */
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "base/err.h"
#include "base/exitcodes.h"
#include "base/fs.h"
#include "seal/seal.h"
#include "store/claim.h"
#include "store/record.h"
#include "tick/crawlrun_int.h"

void
ended_requeue(tick_t *t, const char *id, const char *why, int64_t after)
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

/* Due again in a minute: what failed may have cleared by then. */
static void
requeue_later(tick_t *t, const char *id, const char *why)
{
	ended_requeue(t, id, why, 60 * 1000000LL);
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
	crawlrun_unlock(cr, "unable to record the failure of snapshot %s", w->id);
}

/* A worker's snapshot ran: count its size, discover, seal. */
static void
ran(crawlrun_t *cr, worker_t *w, rec_t *r)
{
	tick_t *t = cr->t;
	store_t *s = t->s;
	char dir[256];
	seal_dir_of(r, dir, sizeof dir);
	if (backoff(cr, w, r, dir))
		return;   /* queued again for after its host's pause */
	/* its fetches are over: the host's slot is given back before the
	 * seal, which on a network filesystem takes a while that another
	 * tick may use for the host */
	pace_release(cr, w);
	/* counted once: limit and seal (a serving worker walked it) */
	long long size = w->size >= 0 ? w->size : fs_du(s->dfd, dir);
	limits_count(cr, size);
	found_outlinks(cr, w, r);
	if (cr->broken) {
		/* the outlinks may be missing: run it again later */
		requeue_later(t, w->id, "the store failed");
		return;
	}
	/* trouble is said without -v: a line a snapshot whose hooks failed */
	char *url = rec_str(r, "url");
	worker_report_failures(t, w, url ? url : w->url);
	free(url);
	/* the host's slot it gave back, and its outlinks, go to the next
	 * page before the seal, which on a network filesystem takes longer
	 * than a page's fetch: the new worker fetches meanwhile (it joins
	 * cr->w after this one, whose entry stays valid) */
	cr->refill_at = 0;
	if (!*t->signals && crawlrun_may_start(cr))
		pool_refill(cr);
	/* every result is this worker's, which synced their trees before it
	 * said it was done (exit 0 or 1): the seal need not (store.h) */
	if (w->first_run)
		store_trees_durable(s, w->id);
	int rc = w->first_run ? seal_snapshot_ahead(s, w->id, r, NULL, w->recs, w->nrecs, size)
	                      : seal_snapshot_with(s, w->id, NULL, NULL, 0, size);
	if (rc == SEAL_OK) {
		t->snapshots++;
		if (t->verbose)
			info("snapshot %s sealed: %s (%d hooks, %d failed)", w->id, w->url, w->hooks, w->failed);
	} else if (rc == SEAL_ERR) {
		tick_error(t, "unable to seal snapshot %s", w->id);
		cr->broken = 1;
	}
}

/* The store failed under the worker (exit 73, 74). */
static void
could_not_write(crawlrun_t *cr, worker_t *w, int code)
{
	tick_t *t = cr->t;
	errorx("snapshot %s: abx-hook exited %d (it could not write its records); it runs again later", w->id,
	    code);
	cr->broken = 1;
	if (t->errors++ == 0)
		t->err = code;
	requeue_later(t, w->id, "its worker could not write");
}

/* Judge snapshot r by its record and the worker's exit code. */
static void
judge(crawlrun_t *cr, worker_t *w, rec_t *r, int code)
{
	tick_t *t = cr->t;
	const char *lease = rec_raw(r, "lease");
	int ours = lease && lease[0] == '{';
	if (!ours && !record_is_final(r) && !rec_streq(r, "status", "paused")) {
		if (t->verbose)
			info("snapshot %s was requeued while it ran; left queued", w->id);
	} else if (rec_streq(r, "status", "paused")) {
		if (claim_release(t->s, w->id, 0) < 0)
			tick_error(t, "unable to release paused snapshot %s", w->id);
	} else if (record_is_final(r) && rec_isnull(r, "retry_at")) {
		if (seal_snapshot(t->s, w->id, NULL) == SEAL_ERR)
			tick_error(t, "unable to write the index files of snapshot %s", w->id);
		if (t->verbose)
			info("snapshot %s was cancelled", w->id);
	} else if (code == EX_TEMPFAIL_) {
		if (t->verbose)
			info("snapshot %s: abx-hook exited 75 (busy); it runs again later", w->id);
		requeue_later(t, w->id, "abx-hook was busy");
	} else if (code == EX_CANTCREAT_ || code == EX_IOERR_) {
		could_not_write(cr, w, code);
	} else if (code != 0 && code != 1) {
		worker_failed(cr, w, code, rec_int(r, "num_uses_failed", 0) + 1);
	} else {
		ran(cr, w, r);
	}
}

void
ended(crawlrun_t *cr, worker_t *w, int status)
{
	tick_t *t = cr->t;
	store_t *s = t->s;
	int code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
	rec_t r;
	unsigned nerr = s->nerr;
	if (*t->signals) {
		ended_requeue(t, w->id, "interrupted by a signal", 0);
	} else if (store_get(s, w->id, &r) == 0) {
		judge(cr, w, &r, code);
		rec_free(&r);
	} else if (s->nerr != nerr) {
		tick_error(t, "unable to read snapshot %s", w->id);
	}
	pace_release(cr, w);   /* if ran() has not */
	worker_release(w);
	cr->refill_at = 0;     /* a slot is free, outlinks may be queued */
}
