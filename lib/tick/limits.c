/*
 * limits.c — a crawl run's limits (ArchiveBox's, counted here for real):
 *
 *   CRAWL_MAX_URLS   caps the snapshots made (seed.c, found.c: read by
 *                    outlinks.h, the rules of discovery);
 *   CRAWL_MAX_SIZE   the bytes of every sealed snapshot's directory, summed
 *                    as each is sealed (ended.c); abx-hook is handed what
 *                    is left ($ABX_SIZE_BUDGET) and stops its hooks past it;
 *   CRAWL_TIMEOUT    seconds since the crawl's first run.
 *
 * The size and time limits stop the crawl: no more discovery, no new
 * snapshot started, and its queued snapshots are sealed unrun with the
 * reason ("crawl_max_size", "crawl_timeout") in their notes and
 * sealed_reason.  The crawl's record keeps what a later run needs in its
 * "limits" field: {"started_at", "total_size", "stop_reason"}.  A limit
 * raised or removed since clears its stale stop reason; one lowered below
 * what was counted stops the crawl at once.
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/err.h"
#include "store/record.h"
#include "tick/crawlrun_int.h"

void
limits_conf(crawlrun_t *cr)
{
	cr->max_size = parse_size(conf_get(&cr->conf, "CRAWL_MAX_SIZE"));
	cr->timeout = conf_seconds(conf_get(&cr->conf, "CRAWL_TIMEOUT"), 0);
}

static void
save(crawlrun_t *cr)
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
	crawlrun_unlock(cr, "unable to save its limits");
}

static int
timed_out(const crawlrun_t *cr)
{
	return cr->timeout > 0 && clock_now() - cr->started_at >= (int64_t)cr->timeout * 1000000;
}

void
limits_load(crawlrun_t *cr, const rec_t *crawl)
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
	    (!strcmp(cr->stop_reason, "crawl_timeout") && !timed_out(cr)))
		cr->stop_reason[0] = 0;
	if (cr->max_size > 0 && cr->total_size >= cr->max_size && !cr->stop_reason[0])
		snprintf(cr->stop_reason, sizeof cr->stop_reason, "crawl_max_size");   /* lowered */
	if (cr->started_at < 0) {
		cr->started_at = clock_now();
		save(cr);
	}
}

void
limits_count(crawlrun_t *cr, long long size)
{
	cr->total_size += size;
	if (cr->max_size > 0 && cr->total_size >= cr->max_size && !cr->stop_reason[0])
		snprintf(cr->stop_reason, sizeof cr->stop_reason, "crawl_max_size");
	if (cr->max_size > 0)
		save(cr);
}

void
limits_check_time(crawlrun_t *cr)
{
	if (cr->stop_reason[0] || !timed_out(cr))
		return;
	snprintf(cr->stop_reason, sizeof cr->stop_reason, "crawl_timeout");
	save(cr);
	if (cr->t->verbose)
		info("crawl %s: CRAWL_TIMEOUT reached", cr->cid);
}

long long
limits_budget(const crawlrun_t *cr)
{
	long long left = cr->max_size > 0 ? cr->max_size - cr->total_size : 0;
	return left > 0 ? left : 0;
}

void
limits_seal_queued(crawlrun_t *cr)
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
	crawlrun_unlock(cr, "unable to seal its queued snapshots (%s)", cr->stop_reason);
}
