/*
 * found.c — a snapshot's outlinks become its crawl's children: once its
 * worker ended well and its size is counted, the links its hooks found are
 * queued as snapshots one level deeper (outlinks.h, the code abx-seal runs
 * for a stage finished by hand: up to the crawl's max_depth, through the
 * URL filters and the crawl's scope, each URL once, CRAWL_MAX_URLS at
 * most, tagged with the crawl's tags), in one commit.  Nothing is discovered once a
 * limit stopped the crawl, while it is paused or cancelled, or after the
 * store failed in the run, nor for a page at the crawl's max_depth (not
 * even the lock is taken); a commit that fails breaks the run (the
 * snapshot then runs again later: ended.c).
 */
#include <stddef.h>

#include "base/err.h"
#include "tick/crawlrun_int.h"

void
found_outlinks(crawlrun_t *cr, worker_t *w, rec_t *r)
{
	tick_t *t = cr->t;
	if (cr->stop_reason[0] || cr->paused || cr->cancelled || cr->broken)
		return;
	/* a page at the crawl's depth has no children to queue: no lock (a
	 * transaction of nothing is still round trips on a network
	 * filesystem, at every such page) */
	if (rec_int(r, "depth", 0) + 1 > cr->ol.max_depth)
		return;
	store_lock(t->s);
	int made = outlinks_queue(&cr->ol, t->s, r);
	if (crawlrun_unlock(cr, "unable to queue the outlinks of snapshot %s", w->id) < 0)
		made = 0;
	t->discovered += made;
	if (t->verbose && made)
		info("snapshot %s: %d new outlinks queued", w->id, made);
}
