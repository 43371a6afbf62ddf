/* outlinks.c — a crawl's discovery rules, and outlinks queued by them: see outlinks.h. */
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "base/err.h"
#include "tick/outlinks.h"
#include "tick/settings.h"

extern char **environ;

void
outlinks_conf(conf_t *c, int dfd, const rec_t *crawl)
{
	conf_builtins(c);
	conf_load_file(c, dfd, "abx.conf");
	conf_load_environ(c, environ);
	const char *cfg = rec_raw(crawl, "config");
	buf_t why = {0};
	if (cfg && settings_check_json(cfg, CONF_CRAWL, &why)) {
		char *cid = rec_str(crawl, "id");
		warnx_("crawl %s: %s; bad values are ignored", cid ? cid : "?", why.p);
		free(cid);
	}
	buf_free(&why);
	if (cfg)
		conf_load_json(c, cfg, CONF_CRAWL);
}

void
outlinks_init(outlinks_t *o, const conf_t *c, const rec_t *crawl)
{
	memset(o, 0, sizeof *o);
	o->max_depth = rec_int(crawl, "max_depth", 0);
	long long n;
	const char *v = conf_get(c, "CRAWL_MAX_URLS");
	o->max_urls = v && conf_parse_count(v, &n) == 0 && n <= LONG_MAX ? (long)n : 0;
	urlfilter_init(&o->filter, conf_get(c, "URL_ALLOWLIST"), conf_get(c, "URL_DENYLIST"));
	char *seeds = rec_str(crawl, "urls");
	scope_init(&o->scope, scope_parse(conf_get(c, "CRAWL_SCOPE")), seeds);
	free(seeds);
	o->filter.scope = &o->scope;
	urlfilter_zones(&o->filter, crawl, conf_get(c, "ALLOW_PRIVATE_NETWORKS"));
	o->tags = rec_str(crawl, "tags_str");
	if (!o->tags)
		o->tags = xstrdup("");
}

typedef struct {
	outlinks_t *o;
	const char *cid;
} seenctx_t;

static int
collect_url(rec_t *r, void *arg)
{
	seenctx_t *c = arg;
	if (rec_streq(r, "type", "Snapshot") && rec_streq(r, "crawl_id", c->cid)) {
		char *u = rec_str(r, "url");
		if (u)
			urlset_add(&c->o->seen, u);
		free(u);
	}
	return 0;
}

int
outlinks_seen(outlinks_t *o, store_t *s, const char *crawl_id)
{
	char j[128];
	store_crawl_journal(crawl_id, j, sizeof j);
	unsigned nerr = s->nerr;
	seenctx_t c = {o, crawl_id};
	store_each(s, j, "\"Snapshot\"", collect_url, &c);
	return s->nerr != nerr ? -1 : 0;
}

int
outlinks_seed_ok(const outlinks_t *o, const char *url)
{
	urlfilter_t seeds = o->filter;   /* the seeds define the scope: not held to it */
	seeds.scope = NULL;
	return !urlset_has(&o->seen, url) && urlfilter_pass(&seeds, url) &&
	       (o->max_urls <= 0 || (long)o->seen.n < o->max_urls);
}

int
outlinks_queue(outlinks_t *o, store_t *s, const rec_t *snap)
{
	return discover_children(s, snap, o->max_depth, &o->filter, &o->seen, o->max_urls, o->tags);
}

void
outlinks_free(outlinks_t *o)
{
	urlset_free(&o->seen);
	urlfilter_free(&o->filter);
	scope_free(&o->scope);
	free(o->tags);
	memset(o, 0, sizeof *o);
}

/* Has a limit stopped the crawl (its "limits" field, limits.c)? */
static int
stopped_by_limit(const rec_t *crawl)
{
	const char *l = rec_raw(crawl, "limits");
	rec_t lr;
	int stopped = 0;
	if (l && l[0] == '{' && rec_parse(&lr, l, strlen(l)) == 0) {
		char *sr = rec_str(&lr, "stop_reason");
		stopped = sr && *sr;
		free(sr);
		rec_free(&lr);
	}
	return stopped;
}

int
outlinks_by_hand(store_t *s, const rec_t *snap)
{
	char *cid = rec_str(snap, "crawl_id");
	rec_t crawl;
	int made = 0;
	if (!id_valid(cid)) {
		free(cid);
		return 0;
	}
	if (store_lock(s) < 0) {
		free(cid);
		return -1;
	}
	if (store_get(s, cid, &crawl) < 0) {
		free(cid);
		return store_unlock(s) < 0 || store_failed(s) ? -1 : 0;
	}
	if (rec_streq(&crawl, "type", "Crawl") && !rec_streq(&crawl, "status", "paused") &&
	    !record_is_final(&crawl) && !stopped_by_limit(&crawl) &&
	    rec_int(snap, "depth", 0) < rec_int(&crawl, "max_depth", 0)) {
		conf_t c = {0};
		outlinks_t o;
		outlinks_conf(&c, s->dfd, &crawl);
		outlinks_init(&o, &c, &crawl);
		made = outlinks_seen(&o, s, cid) == 0 ? outlinks_queue(&o, s, snap) : -1;
		outlinks_free(&o);
		conf_free(&c);
	}
	rec_free(&crawl);
	free(cid);
	if (store_unlock(s) < 0)
		return -1;
	return made;   /* -1: the journal was unreadable (s->errmsg) */
}
