/*
 * crawlrun.c — see crawlrun.h: one crawl run, from its settings to its
 * seal.  This file is the run's frame (settings, setup, the loop, cleanup,
 * the seal); each concern of the loop is a file of its own (crawlrun_int.h
 * lists them).
 *
 * The run's settings are the crawl's (outlinks_conf: built-in defaults,
 * abx.conf, the environment, its own config), the ones abx-seal reads to
 * queue the outlinks of a stage finished by hand.
 *
 * The loop, each turn:
 *   1. watch (watch.c): the crawl's record, the snapshots' cancels, the
 *      timeout, the leases;
 *   2. every SYNC_US the filesystem is synced: what the workers and we
 *      wrote since (claims, results, seals, children) becomes durable at
 *      most that much later; an OS crash in between costs that work again,
 *      never a user's change.  A failed sync breaks the run: nothing more
 *      of it is sealed (it runs again);
 *   3. a limit reached: the crawl's queued snapshots are sealed unrun;
 *   4. if the run may start work, the slots are refilled (pool.c);
 *   5. nothing runs: wait for what is due soon, or end (pace.c);
 *   6. the display drawn; the workers reaped for up to 250 ms; signals
 *      forwarded to them.
 * The store is "lazy" while the run lasts (claims, results, seals and
 * children are synced on the clock above, not each on its own), and
 * synced once more before the crawl's own record says anything of the
 * run.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/err.h"
#include "hook/heartbeat.h"
#include "pack/pack.h"
#include "seal/seal.h"
#include "store/claim.h"
#include "store/lease.h"
#include "tick/crawlrun_int.h"
#include "tick/progress.h"

int
crawlrun_unlock(crawlrun_t *cr, const char *fmt, ...)
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

void
crawlrun_broke(crawlrun_t *cr)
{
	tick_error(cr->t, "crawl %s", cr->cid);
	cr->broken = 1;
}

int
crawlrun_may_start(const crawlrun_t *cr)
{
	return !*cr->t->signals && !cr->paused && !cr->cancelled && !cr->stop_reason[0] && !cr->broken;
}

/* What the settings say of the run: slots, limits, discovery, pacing. */
static void
apply_conf(crawlrun_t *cr, const rec_t *crawl)
{
	long long n;
	const char *v = conf_get(&cr->conf, "WORKER_MAX_SNAPSHOTS");
	cr->max_served = v && conf_parse_count(v, &n) == 0 ? (n > 1000000 ? 1000000 : (int)n) : 100;
	v = conf_get(&cr->conf, "CRAWL_MAX_CONCURRENT_SNAPSHOTS");
	cr->slots = v && conf_parse_count(v, &n) == 0 ? (n > MAX_SLOTS ? MAX_SLOTS : (int)n) : 4;
	if (cr->slots < 1)
		cr->slots = 1;
	limits_conf(cr);
	outlinks_init(&cr->ol, &cr->conf, crawl);
	hostpace_conf(&cr->conf, &cr->hp);
	long long obey = 0;
	conf_parse_robots(conf_get(&cr->conf, "ROBOTS_TXT"), &obey);
	cr->robots = (int)obey;
}

static crawlrun_t *
open_run(tick_t *t, const rec_t *crawl, int cfd)
{
	crawlrun_t *cr = xcalloc(1, sizeof *cr);
	cr->t = t;
	cr->cfd = cfd;
	char *cid = rec_str(crawl, "id");
	memcpy(cr->cid, cid, ID_LEN + 1);
	free(cid);
	outlinks_conf(&cr->conf, t->s->dfd, crawl);   /* abx.conf, the environment, its own */
	apply_conf(cr, crawl);
	return cr;
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

/* One turn of the loop (see above); 0 when the run is over. */
static int
turn(crawlrun_t *cr)
{
	tick_t *t = cr->t;
	watch(cr);
	if (clock_mono() - cr->last_sync >= SYNC_US) {
		if (store_syncfs(t->s) < 0)
			crawlrun_broke(cr);
		cr->last_sync = clock_mono();
	}
	if (cr->stop_reason[0] && !*t->signals)
		limits_seal_queued(cr);
	if (crawlrun_may_start(cr))
		pool_refill(cr);
	if (cr->nw == 0)
		return pace_wait(cr);
	progress_draw(t, cr->w, cr->nw, &cr->drawn, 0);
	pool_reap(cr, 250);
	if (t->verbose)
		progress_clear(t, &cr->drawn);   /* -v logs below it, not into it */
	pool_forward_signals(cr);
	return 1;
}

/* The crawl sealed or requeued (and packed), or put back on a signal or
 * a failure of the store. */
static void
conclude(crawlrun_t *cr)
{
	tick_t *t = cr->t;
	store_t *s = t->s;
	if (*t->signals || cr->broken) {
		if (claim_release(s, cr->cid, 0) < 0)
			tick_error(t, "unable to release crawl %s", cr->cid);
		if (t->verbose)
			info("crawl %s %s (%s)", cr->cid, cr->paused ? "stays paused" : "requeued",
			    cr->broken ? "the store failed" : "interrupted by a signal");
		return;
	}
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

static void
close_run(crawlrun_t *cr)
{
	outlinks_free(&cr->ol);
	hostcache_free(&cr->hosts);
	hostslots_free(&cr->hostdirs);
	robotsgate_free(cr);
	conf_free(&cr->conf);
	free(cr);
}

int
crawl_run(tick_t *t, rec_t *crawl, int cfd)
{
	crawlrun_t *cr = open_run(t, crawl, cfd);
	int was_lazy = t->s->lazy;
	t->s->lazy = 1;   /* claims, results, seals, children: synced on a clock */
	limits_load(cr, crawl);
	t->crawls++;
	if (t->verbose)
		info("crawl %s started (max_depth %d, %d slots)", cr->cid, cr->ol.max_depth, cr->slots);
	int setup = family_has_hooks(cr, "CrawlSetup"), cleanup = family_has_hooks(cr, "CrawlCleanup");
	heartbeat_t hb;   /* the crawl is live (heartbeat.h) from its setup to its cleanup */
	char crel[64];
	snprintf(crel, sizeof crel, "crawls/%s", cr->cid);
	heartbeat_start(&hb, t->s->dfd, crel, cr->cid, conf_get(&cr->conf, "ABX_RUNTIME"));
	if (setup)
		worker_phase(t, "CrawlSetup", cr->cid, cfd);
	seed_run(cr, crawl);
	for (cr->last_sync = clock_mono(); turn(cr);)
		;
	progress_draw(t, cr->w, cr->nw, &cr->drawn, 1);
	pool_close(cr);
	if (cr->stop_reason[0])
		limits_seal_queued(cr);
	if (!*t->signals && (cleanup || setup))   /* it also stops the daemons CrawlSetup left */
		worker_phase(t, "CrawlCleanup", cr->cid, cfd);
	heartbeat_stop(&hb);
	if (store_syncfs(t->s) < 0)   /* durable before the crawl's record says anything of it */
		crawlrun_broke(cr);
	t->s->lazy = was_lazy;
	conclude(cr);
	lease_drop(cfd);
	int broken = cr->broken;
	close_run(cr);
	return broken ? -1 : 0;
}
