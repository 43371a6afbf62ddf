/*
 * seed.c — where a crawl run starts from: the URLs of the snapshots the
 * crawl already has (read from its journal into cr->seen, so that nothing
 * is queued twice), and, for a crawl without snapshots, its depth-0
 * snapshots from its "urls" field: one a line, a URL or a JSON object
 * {"url", "title"}; blank lines and lines starting with "#" skipped; each
 * URL in its canonical form (url.h), kept if the URL filters pass it
 * (URL_ALLOWLIST, URL_DENYLIST, private networks) and CRAWL_MAX_URLS is not
 * reached.  The seeds define the crawl's scope (CRAWL_SCOPE): it applies
 * to what is discovered from here on, not to them.
 *
 * A journal that cannot be read breaks the run (seeding then would queue
 * its URLs twice); one whose first snapshots cannot be committed leaves
 * cr->seen empty.
 */
#include <stdlib.h>
#include <string.h>

#include "base/err.h"
#include "net/url.h"
#include "store/record.h"
#include "tick/crawlrun_int.h"

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

/* The URL and title of a line of the crawl's urls (either may be NULL). */
static void
parse_line(const char *l, char **url, char **title)
{
	*url = *title = NULL;
	if (*l == '{') {
		rec_t r;
		if (rec_parse(&r, l, strlen(l)) == 0) {
			*url = rec_str(&r, "url");
			*title = rec_str(&r, "title");
			rec_free(&r);
		}
	} else {
		*url = xstrdup(l);
	}
	if (*url) {   /* the canonical form (url.h), or none */
		char *canon = url_canon(*url, NULL, NULL);
		free(*url);
		*url = canon;
	}
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
		char *url, *title;
		parse_line(l, &url, &title);
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
	if (crawlrun_unlock(cr, "unable to queue its first snapshots") < 0)
		urlset_free(&cr->seen), memset(&cr->seen, 0, sizeof cr->seen);
	free(urls), free(tags);
}

void
seed_run(crawlrun_t *cr, const rec_t *crawl)
{
	store_t *s = cr->t->s;
	char j[128];
	store_crawl_journal(cr->cid, j, sizeof j);
	unsigned nerr = s->nerr;
	store_each(s, j, "\"Snapshot\"", collect_url, cr);
	if (s->nerr != nerr)
		crawlrun_broke(cr);   /* unreadable: seeding now would queue its URLs twice */
	else if (cr->seen.n == 0)
		seed_snapshots(cr, crawl);
	cr->filter.scope = &cr->scope;   /* for what is discovered; the seeds define it */
}
