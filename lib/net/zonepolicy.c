/*
 * zonepolicy.c — the zones a crawl may enter (netzone.h "Policy"): apart
 * from netzone.c, which classifies addresses and hosts, so that a hook
 * that only classifies (the wget hook) does not link the URL parser.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "base/buf.h"
#include "base/err.h"
#include "net/netzone.h"
#include "store/record.h"
#include "net/url.h"

/* ------------------------------------------------------------ policy */

#define CACHE_SLOTS 512

struct zonepolicy {
	unsigned allow;        /* ALLOW_PRIVATE_NETWORKS, then | the seeds' */
	char *seeds;           /* classified on first need, then NULL */
	struct {
		char *host;
		unsigned mask;
	} cache[CACHE_SLOTS];
	char why[512];
};

zonepolicy_t *
zonepolicy_new(const char *seeds, const char *allow)
{
	zonepolicy_t *p = xcalloc(1, sizeof *p);
	if (!allow || netzone_parse_allow(allow, &p->allow) < 0)
		p->allow = 0;
	p->allow |= 1u << NZ_PUBLIC;
	p->seeds = seeds ? xstrdup(seeds) : NULL;
	return p;
}

void
zonepolicy_free(zonepolicy_t *p)
{
	if (!p)
		return;
	for (size_t i = 0; i < CACHE_SLOTS; i++)
		free(p->cache[i].host);
	free(p->seeds);
	free(p);
}

/* The host of url as netzone_host() wants it: no port, lower case.  A
 * backslash ends the authority, as it does for a browser in an http(s)
 * URL: "http://127.0.0.1\@example.com/" goes to 127.0.0.1. */
static void
host_of(const char *url, char *out, size_t n)
{
	const char *a = strstr(url, "://");
	size_t end = a ? (size_t)(a + 3 - url) + strcspn(a + 3, "/?#\\") : 0;
	char *cut = a && url[end] == '\\' ? xstrndup(url, end) : NULL;
	url_host(cut ? cut : url, out, n);
	free(cut);
	if (out[0] == '[') {
		char *e = strchr(out, ']');
		if (e)
			e[1] = 0;
	} else {
		out[strcspn(out, ":")] = 0;
	}
}

/* The zones of host, looked up once a policy (a direct-mapped cache). */
static unsigned
cached_zones(zonepolicy_t *p, const char *host)
{
	uint32_t h = 2166136261u;
	for (const char *s = host; *s; s++)
		h = (h ^ (unsigned char)*s) * 16777619u;
	size_t i = h % CACHE_SLOTS;
	if (p->cache[i].host && strcmp(p->cache[i].host, host) == 0)
		return p->cache[i].mask;
	unsigned m = netzone_host(host, 1);
	free(p->cache[i].host);
	p->cache[i].host = xstrdup(host);
	p->cache[i].mask = m;
	return m;
}

char *
zonepolicy_seed_url(const char *l)
{
	l += strspn(l, " \t");
	char *url = NULL;
	if (*l == '{') {
		rec_t r;
		if (rec_parse(&r, l, strlen(l)) == 0) {
			url = rec_str(&r, "url");
			rec_free(&r);
		}
	} else if (*l && *l != '#') {
		url = xstrdup(l);
	}
	if (url && url_check(url)) {
		free(url);
		url = NULL;
	}
	return url;
}

static void
add_seed_zones(zonepolicy_t *p)
{
	char *save = NULL, host[512];
	for (char *l = strtok_r(p->seeds, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
		char *url = zonepolicy_seed_url(l);
		if (url && strncasecmp(url, "file:", 5) == 0) {
			p->allow |= 1u << NZ_FILE;
		} else if (url) {
			host_of(url, host, sizeof host);
			p->allow |= cached_zones(p, host);
		}
		free(url);
	}
	free(p->seeds);
	p->seeds = NULL;
}

const char *
zonepolicy_refuse(zonepolicy_t *p, const char *url)
{
	char host[512];
	if (!p || (p->allow & NZ_ALL) == NZ_ALL)
		return NULL;
	unsigned m;
	if (strncasecmp(url, "file:", 5) == 0) {
		snprintf(host, sizeof host, "%s", "a file: URL");
		m = 1u << NZ_FILE;
	} else {
		host_of(url, host, sizeof host);
		m = cached_zones(p, host);
	}
	if (!m || (m & ~p->allow) == 0)
		return NULL;
	if (p->seeds) {
		add_seed_zones(p);
		if ((m & ~p->allow) == 0)
			return NULL;
	}
	unsigned bad = m & ~p->allow;
	netzone_t z = 0;
	while (!(bad & (1u << z)))
		z++;
	snprintf(p->why, sizeof p->why, "%.255s is in the %s network zone and the crawl's seeds are not "
	    "(ALLOW_PRIVATE_NETWORKS)", host, netzone_name(z));
	return p->why;
}

unsigned
zonepolicy_allowed(zonepolicy_t *p)
{
	if (!p)
		return NZ_ALL;
	/* every zone allowed already (ALLOW_PRIVATE_NETWORKS=true): the seeds'
	 * hosts are not looked up */
	if (p->seeds && (p->allow & NZ_ALL) != NZ_ALL)
		add_seed_zones(p);
	return p->allow & NZ_ALL;
}
