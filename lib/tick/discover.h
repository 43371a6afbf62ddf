/*
 * discover.h — recursion: outlinks become child snapshots, within the
 * crawl's filters and limits (as ArchiveBox's runner applies them).
 *
 * URL filters.  URL_ALLOWLIST and URL_DENYLIST hold patterns, one a line
 * (or a JSON list).  A pattern made only of [A-Za-z0-9_.*:-] is a domain
 * pattern: "*.example.com" matches subdomains only, "example.com" the host
 * and its subdomains, "host:port" that host and port exactly.  Any other
 * pattern is an extended regular expression searched in the whole URL
 * (POSIX ERE stands in for Python's re; an invalid one matches nothing).
 * Deny wins; with an allowlist a URL must match one of its entries.  The
 * default denylist is ArchiveBox's: static assets (.css .js fonts) are not
 * archived as pages.
 *
 * Discovery.  discover_children() reads every "<snapshot>/<plugin>/
 * urls.jsonl" (records with "url", optional "title" and "tags"), then the
 * "type":"Snapshot" records its hooks printed on stdout (<plugin>/
 * on_Snapshot__*.stdout.log up to 64 MiB, as abx-dl reads stdout); a
 * child's tags are the crawl's (tags), then its record's ("a,b" or a
 * list), as a set (tagset.h), not its parent's.  It drops the
 * URLs already in the crawl (seen), filtered out, or past CRAWL_MAX_URLS,
 * and stages a queued snapshot at depth+1 for each of the rest (the caller
 * holds the store lock and commits).  Children deeper than the crawl's
 * max_depth are never made.  A URL in a network zone the crawl may not
 * enter (urlfilter_zones) is staged sealed, never run, with notes "not
 * archived: <why>" (abx(7) SECURITY): seen, counted, and visible.
 */
#ifndef ABX_DISCOVER_H
#define ABX_DISCOVER_H

#include <regex.h>
#include "store/store.h"

#define DEFAULT_URL_DENYLIST "\\.(css|js|otf|ttf|woff|woff2|gstatic\\.com|googleapis\\.com/css)(\\?.*)?$"

typedef struct {
	char *pat;
	int domain;           /* a domain pattern, else a regex */
	regex_t re;
	int re_ok;
} upat_t;

typedef struct {
	upat_t *allow, *deny;
	size_t nallow, ndeny;
	const struct scope *scope;   /* the crawl's scope (scope.h), or NULL */
	struct zonepolicy *zones;   /* netzone.h; NULL: every zone */
} urlfilter_t;

void urlfilter_init(urlfilter_t *f, const char *allow, const char *deny);
/* The network zones the crawl's outlinks may enter (netzone.h): crawl is
 * the Crawl record (its seeds), allow ALLOW_PRIVATE_NETWORKS. */
void urlfilter_zones(urlfilter_t *f, const rec_t *crawl, const char *allow);
int urlfilter_pass(const urlfilter_t *f, const char *url);
void urlfilter_free(urlfilter_t *f);

/* A set of URLs (the crawl's snapshots), for deduplication. */
typedef struct {
	char **v;
	size_t n, cap;
} urlset_t;

int urlset_add(urlset_t *u, const char *url);     /* 1 if new */
int urlset_has(const urlset_t *u, const char *url);
void urlset_free(urlset_t *u);

/* Stage the children of a finished snapshot; returns how many. */
int discover_children(store_t *s, const rec_t *snap, int max_depth, const urlfilter_t *f,
    urlset_t *seen, long max_urls, const char *tags);

#endif
