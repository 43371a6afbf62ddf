/*
 * watch.c — what a crawl run learns while it runs, and its leases.
 *
 * Every half second the crawl's record is re-read: "paused" stops new
 * snapshots from starting (the running ones finish, and stay paused:
 * ended.c), a final status (abx-ctl cancel) also interrupts the running
 * workers (SIGTERM: abx-hook stops its hooks); each running snapshot's
 * record is read too, and one cancelled on its own is interrupted the
 * same way.  CRAWL_TIMEOUT is checked then (limits.c).  Every RENEW_US the
 * leases of the crawl and of its running snapshots are renewed for
 * LEASE_US more.  A failure to read the crawl breaks the run.
 */
#include <signal.h>

#include "base/err.h"
#include "store/claim.h"
#include "store/record.h"
#include "tick/crawlrun_int.h"

/* The crawl's record re-read: pause, cancel. */
static void
crawl_status(crawlrun_t *cr)
{
	tick_t *t = cr->t;
	rec_t c;
	unsigned nerr = t->s->nerr;
	/* read without the lock, as abx-ls reads (store.h): what it says
	 * is seen at the next look if not at this one */
	if (store_get(t->s, cr->cid, &c) < 0) {
		if (t->s->nerr != nerr) {
			tick_error(t, "crawl %s: unable to read its record", cr->cid);
			cr->broken = 1;
		}
		return;
	}
	int was = cr->cancelled, was_paused = cr->paused;
	cr->paused = rec_streq(&c, "status", "paused");
	cr->cancelled = record_is_final(&c);
	if (cr->cancelled && !was) {
		if (t->verbose)
			info("crawl %s cancelled: interrupting %d snapshots", cr->cid, cr->nw);
		pool_interrupt(cr);
	}
	if (cr->paused && !was_paused && t->verbose)
		info("crawl %s paused: %d running snapshot%s finish", cr->cid, cr->nw, cr->nw == 1 ? "" : "s");
	rec_free(&c);
}

/* A snapshot cancelled on its own: interrupt its hooks. */
static void
snapshot_cancels(crawlrun_t *cr)
{
	for (int i = 0; i < cr->nw; i++) {
		worker_t *w = &cr->w[i];
		rec_t r;
		if (w->signalled || store_get(cr->t->s, w->id, &r) < 0)
			continue;
		if (record_is_final(&r) && rec_isnull(&r, "retry_at")) {
			kill(w->pid, SIGTERM);
			w->signalled = 1;
		}
		rec_free(&r);
	}
}

void
watch(crawlrun_t *cr)
{
	int64_t now = clock_mono();
	if (now - cr->last_check >= 500000) {
		cr->last_check = now;
		crawl_status(cr);
		snapshot_cancels(cr);
		limits_check_time(cr);
	}
	if (now - cr->last_renew >= RENEW_US) {
		cr->last_renew = now;
		claim_renew(cr->t->s, cr->cid, LEASE_US);
		for (int i = 0; i < cr->nw; i++)
			claim_renew(cr->t->s, cr->w[i].id, LEASE_US);
	}
}
