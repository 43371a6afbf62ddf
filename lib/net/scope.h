/*
 * scope.h — a crawl's scope: which discovered URLs it may follow
 * (Browsertrix's scope types; the crawl's seed URLs define it).
 *
 *   any      every URL (ArchiveBox's behaviour, and the default: a depth-1
 *            crawl of a page archives what it links to, wherever it is)
 *   page     the seeds only: nothing discovered is queued
 *   prefix   URLs that start with a seed up to the last "/" of its path
 *            (http://h/docs/a.html gives http://h/docs/)
 *   host     the host[:port] of a seed, exactly
 *   domain   the registrable domain of a seed (the Public Suffix List,
 *            through libpsl: a.example.co.uk and b.example.co.uk are one
 *            domain, example.co.uk and other.co.uk are not); an IP
 *            address is its own domain
 *
 * Hosts compare as url_host() gives them (lowercased, port kept).  The
 * scope is the setting CRAWL_SCOPE (abx-add --scope), applied with
 * URL_ALLOWLIST and URL_DENYLIST when outlinks are discovered: a URL must
 * pass both.  scope_parse() returns the type or -1 for a bad name;
 * scope_init() keeps what the seeds (one URL a line) define.
 */
#ifndef ABX_SCOPE_H
#define ABX_SCOPE_H

enum { SCOPE_ANY, SCOPE_PAGE, SCOPE_PREFIX, SCOPE_HOST, SCOPE_DOMAIN };

typedef struct scope {
	int type;
	char **v;          /* per seed: its prefix, host or domain */
	int n;
} scope_t;

int scope_parse(const char *name);
/* The names, for messages: "any, page, prefix, host, domain". */
extern const char scope_names[];
void scope_init(scope_t *sc, int type, const char *seeds);
int scope_allows(const scope_t *sc, const char *url);
void scope_free(scope_t *sc);
int conf_parse_scope(const char *s, long long *out);

#endif
