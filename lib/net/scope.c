/*
 * scope.c — see scope.h.
 */
#include <arpa/inet.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "base/err.h"
#include "base/json.h"
#include "net/scope.h"
#include "net/url.h"

static const char *const names[] = {"any", "page", "prefix", "host", "domain"};
const char scope_names[] = "any, page, prefix, host, domain";

int
scope_parse(const char *s)
{
	for (int i = 0; s && i < (int)(sizeof names / sizeof names[0]); i++)
		if (strcasecmp(s, names[i]) == 0)
			return i;
	return -1;
}

int
conf_parse_scope(const char *s, long long *out)
{
	int t = scope_parse(s);
	*out = t;
	return t < 0 ? -1 : 0;
}

/* host[:port] without the port (an IPv6 literal keeps its brackets). */
static void
strip_port(char *h)
{
	char *c = h[0] == '[' ? strchr(h, ']') : h;
	if (c && (c = strchr(c, ':')))
		*c = 0;
}

/* The registrable domain of a URL's host (url_registrable_domain(): the
 * Public Suffix List); an IP literal or a public suffix is its own.  Into
 * out. */
static void
domain_of(const char *url, char *out, size_t n)
{
	char h[512];
	url_host(url, h, sizeof h);
	strip_port(h);
	unsigned char a[16];
	if (h[0] == '[' || inet_pton(AF_INET, h, a) == 1 || url_registrable_domain(h, out, n) < 0)
		snprintf(out, n, "%s", h);
}

static char *
key_of(int type, const char *url)
{
	char k[4096];
	if (type == SCOPE_PREFIX) {
		/* scheme://host/path up to its last "/", no query */
		const char *p = strstr(url, "://");
		size_t len = strcspn(url, "?#");
		const char *path = p ? strchr(p + 3, '/') : NULL;
		if (!path || (size_t)(path - url) >= len)
			snprintf(k, sizeof k, "%.*s/", (int)len, url);
		else {
			const char *last = path;
			for (const char *q = path; q < url + len; q++)
				if (*q == '/')
					last = q;
			snprintf(k, sizeof k, "%.*s", (int)(last + 1 - url), url);
		}
	} else if (type == SCOPE_HOST) {
		url_host(url, k, sizeof k);
	} else {
		domain_of(url, k, sizeof k);
	}
	return xstrdup(k);
}

void
scope_init(scope_t *sc, int type, const char *seeds)
{
	memset(sc, 0, sizeof *sc);
	sc->type = type < 0 ? SCOPE_ANY : type;
	if (sc->type == SCOPE_ANY || sc->type == SCOPE_PAGE || !seeds)
		return;
	char *dup = xstrdup(seeds), *save = NULL;
	for (char *u = strtok_r(dup, "\n", &save); u; u = strtok_r(NULL, "\n", &save)) {
		while (*u == ' ' || *u == '\t' || *u == '\r')
			u++;
		if (!*u || *u == '#')
			continue;
		/* a seed as abx-add stored it: a URL a line, or a JSONL record
		 * with "url"; compared in canonical form, as discovered URLs are */
		char *raw = NULL;
		rec_t r;
		if (*u == '{') {
			if (rec_parse(&r, u, strlen(u)) < 0)
				continue;
			raw = rec_str(&r, "url");
			rec_free(&r);
		} else {
			raw = xstrdup(u);
		}
		const char *why;
		char *canon = raw ? url_canon(raw, NULL, &why) : NULL;
		free(raw);
		if (!canon)
			continue;
		sc->v = xrealloc(sc->v, (sc->n + 1) * sizeof *sc->v);
		sc->v[sc->n++] = key_of(sc->type, canon);
		free(canon);
	}
	free(dup);
}

int
scope_allows(const scope_t *sc, const char *url)
{
	if (!sc || sc->type == SCOPE_ANY)
		return 1;
	if (sc->type == SCOPE_PAGE)
		return 0;
	char *k = sc->type == SCOPE_PREFIX ? NULL : key_of(sc->type, url);
	int ok = 0;
	for (int i = 0; i < sc->n && !ok; i++)
		ok = sc->type == SCOPE_PREFIX ? strncmp(url, sc->v[i], strlen(sc->v[i])) == 0 :
		                                strcmp(k, sc->v[i]) == 0;
	free(k);
	return ok;
}

void
scope_free(scope_t *sc)
{
	for (int i = 0; i < sc->n; i++)
		free(sc->v[i]);
	free(sc->v);
	memset(sc, 0, sizeof *sc);
}
