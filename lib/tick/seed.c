/*
 * seed.c — where a crawl run starts from: the URLs of the snapshots the
 * crawl already has (read from its journal into cr->ol.seen, so that
 * nothing is queued twice: outlinks_seen), and, for a crawl without
 * snapshots (a schedule's copy, one added by hand), its depth-0 snapshots
 * from its "urls" field: one a line, a URL or a JSON object {"url",
 * "title", "tags"}; blank lines and lines starting with "#" skipped; each
 * URL in its canonical form (url.h), kept if the URL filters pass it
 * (URL_ALLOWLIST, URL_DENYLIST, private networks) and CRAWL_MAX_URLS is not
 * reached (outlinks_seed_ok); each tagged with the crawl's tags, then its
 * line's (tagset.h).  The seeds define the crawl's scope (CRAWL_SCOPE): it
 * applies to what is discovered, not to them.
 *
 * A journal that cannot be read breaks the run (seeding then would queue
 * its URLs twice); one whose first snapshots cannot be committed leaves
 * cr->ol.seen empty.
 */
#include <stdlib.h>
#include <string.h>

#include "base/err.h"
#include "net/url.h"
#include "store/record.h"
#include "tick/crawlrun_int.h"
#include "tick/tagset.h"

/* The URL, title and tags of a line of the crawl's urls (url and title
 * may be NULL; the line's tags are added to tags). */
static void
parse_line(const char *l, char **url, char **title, buf_t *tags)
{
	*url = *title = NULL;
	if (*l == '{') {
		rec_t r;
		if (rec_parse(&r, l, strlen(l)) == 0) {
			*url = rec_str(&r, "url");
			*title = rec_str(&r, "title");
			tagset_add_field(tags, &r, "tags");
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
	char *urls = rec_str(crawl, "urls");
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
		buf_t tags = {0};
		tagset_add(&tags, cr->ol.tags);
		parse_line(l, &url, &title, &tags);
		if (url && outlinks_seed_ok(&cr->ol, url)) {
			rec_t snap;
			record_snapshot(&snap, clock_now(), cr->cid, url, 0, NULL, title, buf_cstr(&tags));
			store_put_new(s, &snap);
			rec_free(&snap);
			urlset_add(&cr->ol.seen, url);
		}
		free(url), free(title);
		buf_free(&tags);
	}
	if (crawlrun_unlock(cr, "unable to queue its first snapshots") < 0)
		urlset_free(&cr->ol.seen);
	free(urls);
}

void
seed_run(crawlrun_t *cr, const rec_t *crawl)
{
	if (outlinks_seen(&cr->ol, cr->t->s, cr->cid) < 0)
		crawlrun_broke(cr);   /* unreadable: seeding now would queue its URLs twice */
	else if (cr->ol.seen.n == 0)
		seed_snapshots(cr, crawl);
}
