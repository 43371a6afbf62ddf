/*
 * outlinks.h — a crawl's rules for what it discovers, and a finished
 * snapshot's outlinks queued by them: one code path for abx-tick (found.c,
 * when a worker ended well) and for a stage finished by hand (abx-seal of
 * a snapshot whose hooks ran under abx-claim: sealcmd.h), so that the
 * children are the same whichever finished the parent.
 *
 * The rules come from the crawl's record and the settings its run reads
 * (outlinks_conf: the built-in defaults, DIR/abx.conf, the environment,
 * the crawl's own config, a bad value of which is warned about, naming
 * the crawl, and ignored):
 *
 *   max_depth            the crawl's: no child deeper
 *   URL_ALLOWLIST, URL_DENYLIST, CRAWL_SCOPE (defined by the seeds),
 *   ALLOW_PRIVATE_NETWORKS  the filters (discover.h)
 *   CRAWL_MAX_URLS       no child once the crawl has that many snapshots
 *   seen                 the URLs the crawl has (its journal): each once
 *   tags                 the crawl's tags_str, which every child carries
 *                        before its own (abx(7) TAGS)
 *
 * The scope applies to what is discovered, not to the seeds: a seed is
 * checked with outlinks_seed_ok().  Robots.txt is not a rule of queueing:
 * the tick obeys it when it runs a snapshot, whoever queued it.
 *
 *   outlinks_conf()     the crawl's settings into c (conf_free it)
 *   outlinks_init()     the rules (no URL seen yet); free with
 *                       outlinks_free().  o must not move afterwards.
 *   outlinks_seen()     the URLs of the crawl's snapshots, from its
 *                       journal; -1 if it could not be read (s->errmsg):
 *                       queueing then would make URLs twice
 *   outlinks_queue()    stage the children of snapshot snap (discover.h);
 *                       the caller holds the store lock and commits; how
 *                       many were made
 *   outlinks_by_hand()  all of the above for snapshot snap of a crawl no
 *                       tick runs now, under the store lock, in one
 *                       commit: nothing when the crawl is paused, sealed
 *                       (cancelled) or stopped by a limit (its "limits"
 *                       field's stop_reason), as in a tick.  How many, or
 *                       -1 if the store failed (s->errmsg).
 */
#ifndef ABX_OUTLINKS_H
#define ABX_OUTLINKS_H

#include "base/config.h"
#include "net/scope.h"
#include "store/store.h"
#include "tick/discover.h"

typedef struct outlinks {
	urlfilter_t filter;      /* with the scope: for what is discovered */
	scope_t scope;
	urlset_t seen;
	int max_depth;
	long max_urls;           /* 0: no limit */
	char *tags;              /* the crawl's tags_str, "" for none */
} outlinks_t;

void outlinks_conf(conf_t *c, int dfd, const rec_t *crawl);
void outlinks_init(outlinks_t *o, const conf_t *c, const rec_t *crawl);
int outlinks_seen(outlinks_t *o, store_t *s, const char *crawl_id);
/* May seed URL url (canonical) be queued: new, past the filters but the
 * scope, within CRAWL_MAX_URLS? */
int outlinks_seed_ok(const outlinks_t *o, const char *url);
int outlinks_queue(outlinks_t *o, store_t *s, const rec_t *snap);
void outlinks_free(outlinks_t *o);
int outlinks_by_hand(store_t *s, const rec_t *snap);

#endif
