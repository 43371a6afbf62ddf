/*
 * robotsgate.c — ROBOTS_TXT=obey as a crawl run applies it (the rules, and
 * the copy of each host's robots.txt kept under DIR/hosts/, are robots.h's).
 *
 * Each host's rules are read once a run, by the URL of the first snapshot
 * of that host the run looks at (its URL is noted when pace.c reads its
 * host).  A snapshot whose URL they disallow is sealed unrun, with
 * sealed_reason "robots_txt" and the reason in its notes; a robots.txt
 * that could not be read disallows everything (RFC 9309).  Rules that
 * cannot be had at all (their copy cannot be kept) refuse nothing, and
 * that is said on stderr.  A host's Crawl-delay, if longer than HOST_DELAY, is the
 * delay between its pages (pace.c).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/err.h"
#include "net/netzone.h"
#include "store/record.h"
#include "tick/crawlrun_int.h"

/* The robots.txt rules of a host, read once a run (robots.h); NULL if
 * they cannot be had (then nothing is refused). */
static const robots_t *
robots_of(crawlrun_t *cr, const char *key, const char *url)
{
	for (int i = 0; i < cr->nrob; i++)
		if (strcmp(cr->rob[i].key, key) == 0)
			return &cr->rob[i].r;
	robots_t r;
	unsigned zones = cr->ol.filter.zones ? zonepolicy_allowed(cr->ol.filter.zones) : NZ_ALL;
	if (robots_get(cr->t->s->dfd, key, url, &cr->conf, zones, &r) < 0) {
		warnsys("crawl %s: unable to keep the robots.txt of %s in %s/hosts", cr->cid, key, cr->t->s->dir);
		return NULL;
	}
	cr->rob = xrealloc(cr->rob, (cr->nrob + 1) * sizeof *cr->rob);
	snprintf(cr->rob[cr->nrob].key, sizeof cr->rob[cr->nrob].key, "%s", key);
	cr->rob[cr->nrob].r = r;
	return &cr->rob[cr->nrob++].r;
}

int
robotsgate_refuse(crawlrun_t *cr, const char *id, const char *key)
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
	crawlrun_unlock(cr, "unable to seal snapshot %s (robots.txt)", id);
	if (cr->t->verbose)
		info("snapshot %s: %s: robots.txt disallows it; sealed unrun", id, url);
	return 1;
}

int64_t
robotsgate_delay(const crawlrun_t *cr, const char *key)
{
	for (int i = 0; i < cr->nrob; i++)
		if (strcmp(cr->rob[i].key, key) == 0 && cr->rob[i].r.crawl_delay > cr->hp.delay_us)
			return cr->rob[i].r.crawl_delay;
	return cr->hp.delay_us;
}

void
robotsgate_note(crawlrun_t *cr, const char *id, const char *url)
{
	hostcache_put(&cr->urls, id, url);
}

void
robotsgate_free(crawlrun_t *cr)
{
	hostcache_free(&cr->urls);
	for (int i = 0; i < cr->nrob; i++)
		robots_free(&cr->rob[i].r);
	free(cr->rob);
	cr->rob = NULL;
	cr->nrob = 0;
}
