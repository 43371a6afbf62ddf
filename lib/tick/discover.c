/* discover.c — see discover.h. */
#include <ctype.h>
#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/config.h"
#include "tick/discover.h"
#include "base/err.h"
#include "base/fs.h"
#include "net/netzone.h"
#include "store/record.h"
#include "net/scope.h"
#include "net/url.h"
#include "tick/tagset.h"

static int
is_domain_pattern(const char *p)
{
	if (!*p)
		return 0;
	for (; *p; p++)
		if (!isalnum((unsigned char)*p) && !strchr("_.*:-", *p))
			return 0;
	return 1;
}

static void
add_pat(upat_t **v, size_t *n, const char *p)
{
	for (size_t i = 0; i < *n; i++)
		if (strcmp((*v)[i].pat, p) == 0)
			return;
	*v = xrealloc(*v, (*n + 1) * sizeof(upat_t));
	upat_t *u = &(*v)[(*n)++];
	memset(u, 0, sizeof *u);
	u->pat = xstrdup(p);
	u->domain = is_domain_pattern(p);
	if (!u->domain)
		u->re_ok = regcomp(&u->re, p, REG_EXTENDED | REG_NOSUB) == 0;
}

static void
load_pats(upat_t **v, size_t *n, const char *text)
{
	if (!text)
		return;
	while (*text == ' ')
		text++;
	if (text[0] == '[') {
		/* a JSON list */
		rec_t tmp = {0};
		buf_t b = {0};
		buf_adds(&b, "{\"l\":");
		buf_adds(&b, text);
		buf_addc(&b, '}');
		if (rec_parse(&tmp, b.p, b.len) == 0) {
			const char *raw = rec_raw(&tmp, "l");
			/* walk the strings of the list */
			const char *p = raw + 1;
			while ((p = strchr(p, '"'))) {
				const char *q = p + 1;
				while (*q && *q != '"')
					q += *q == '\\' ? 2 : 1;
				buf_t s = {0};
				json_unescape(p + 1, q - p - 1, &s);
				if (s.len)
					add_pat(v, n, buf_cstr(&s));
				buf_free(&s);
				p = *q ? q + 1 : q;
			}
			rec_free(&tmp);
			buf_free(&b);
			return;
		}
		buf_free(&b);
	}
	char *dup = xstrdup(text), *save = NULL;
	for (char *l = strtok_r(dup, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
		while (*l == ' ' || *l == '\t')
			l++;
		size_t len = strlen(l);
		while (len && (l[len - 1] == ' ' || l[len - 1] == '\r'))
			l[--len] = 0;
		if (*l)
			add_pat(v, n, l);
	}
	free(dup);
}

void
urlfilter_init(urlfilter_t *f, const char *allow, const char *deny)
{
	memset(f, 0, sizeof *f);
	load_pats(&f->allow, &f->nallow, allow);
	load_pats(&f->deny, &f->ndeny, deny ? deny : DEFAULT_URL_DENYLIST);
}

static int
domain_match(const char *pat, const char *url)
{
	/* the canonical host (url.h); "host:port" matches the port in use,
	 * the scheme's default too (the canonical URL leaves it out) */
	char host[512] = "";
	url_t u;
	if (url_parse(url, NULL, &u, NULL) == 0) {
		if (strchr(pat, ':'))
			snprintf(host, sizeof host, "%s:%d", u.host,
			    u.port >= 0 ? u.port : strcmp(u.scheme, "https") == 0 ? 443 : 80);
		else
			snprintf(host, sizeof host, "%s", u.host);
		url_free(&u);
	}
	if (strchr(pat, ':'))
		return strcasecmp(pat, host) == 0;
	size_t hl = strlen(host), pl;
	if (strncmp(pat, "*.", 2) == 0) {
		pat += 2;
		pl = strlen(pat);
		return hl > pl && host[hl - pl - 1] == '.' && strcasecmp(host + hl - pl, pat) == 0;
	}
	pl = strlen(pat);
	if (strcasecmp(host, pat) == 0)
		return 1;
	return hl > pl && host[hl - pl - 1] == '.' && strcasecmp(host + hl - pl, pat) == 0;
}

static int
matches(const upat_t *u, const char *url)
{
	if (u->domain)
		return domain_match(u->pat, url);
	return u->re_ok && regexec(&u->re, url, 0, NULL, 0) == 0;
}

int
urlfilter_pass(const urlfilter_t *f, const char *url)
{
	if (f->scope && !scope_allows(f->scope, url))
		return 0;
	for (size_t i = 0; i < f->ndeny; i++)
		if (matches(&f->deny[i], url))
			return 0;
	if (f->nallow == 0)
		return 1;
	for (size_t i = 0; i < f->nallow; i++)
		if (matches(&f->allow[i], url))
			return 1;
	return 0;
}

static void
free_pats(upat_t *v, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		if (v[i].re_ok)
			regfree(&v[i].re);
		free(v[i].pat);
	}
	free(v);
}

void
urlfilter_zones(urlfilter_t *f, const rec_t *crawl, const char *allow)
{
	char *seeds = rec_str(crawl, "urls");
	zonepolicy_free(f->zones);
	f->zones = zonepolicy_new(seeds, allow);
	free(seeds);
}

void
urlfilter_free(urlfilter_t *f)
{
	zonepolicy_free(f->zones);
	free_pats(f->allow, f->nallow);
	free_pats(f->deny, f->ndeny);
	memset(f, 0, sizeof *f);
}

static uint64_t
hash_url(const char *s)
{
	uint64_t h = 1469598103934665603ull;
	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ull;
	return h;
}

static char **
slot(const urlset_t *u, const char *url)
{
	size_t i = hash_url(url) & (u->cap - 1);
	while (u->v[i] && strcmp(u->v[i], url) != 0)
		i = (i + 1) & (u->cap - 1);
	return &u->v[i];
}

int
urlset_has(const urlset_t *u, const char *url)
{
	return u->cap && *slot(u, url) != NULL;
}

int
urlset_add(urlset_t *u, const char *url)
{
	if ((u->n + 1) * 2 > u->cap) {
		urlset_t nu = {0};
		nu.cap = u->cap ? u->cap * 2 : 256;
		nu.v = xcalloc(nu.cap, sizeof(char *));
		for (size_t i = 0; i < u->cap; i++)
			if (u->v[i])
				*slot(&nu, u->v[i]) = u->v[i];
		free(u->v);
		u->v = nu.v;
		u->cap = nu.cap;
	}
	char **p = slot(u, url);
	if (*p)
		return 0;
	*p = xstrdup(url);
	u->n++;
	return 1;
}

void
urlset_free(urlset_t *u)
{
	for (size_t i = 0; i < u->cap; i++)
		free(u->v[i]);
	free(u->v);
	memset(u, 0, sizeof *u);
}

typedef struct {
	store_t *s;
	const rec_t *snap;
	const urlfilter_t *f;
	urlset_t *seen;
	long max_urls;
	int depth, made;
	char *crawl_id, *snap_id;
	const char *tags;
} discctx_t;

static void
consider(discctx_t *d, rec_t *r)
{
	char *raw = rec_str(r, "url");
	if (!raw)
		return;
	/* ArchiveBox's sanitising: cut at quotes; then the canonical form
	 * (url.h), which dedupes, filters and is stored */
	raw[strcspn(raw, "\"'<>")] = 0;
	char *url = url_canon(raw, NULL, NULL);
	free(raw);
	if (!url || urlset_has(d->seen, url) || !urlfilter_pass(d->f, url) ||
	    (d->max_urls > 0 && (long)d->seen->n >= d->max_urls)) {
		free(url);
		return;
	}
	char *title = rec_str(r, "title");
	buf_t t = {0};   /* the crawl's tags, then the record's (tagset.h) */
	tagset_add(&t, d->tags);
	tagset_add_field(&t, r, "tags");
	rec_t child;
	if (title && strlen(title) > 512)
		title[512] = 0;
	record_snapshot(&child, clock_now(), d->crawl_id, url, d->depth, d->snap_id, title, buf_cstr(&t));
	const char *refused = zonepolicy_refuse(d->f->zones, url);
	if (refused) {
		char *why = xasprintf("not archived: %s", refused);
		record_status(&child, "sealed", -1);
		rec_set_str(&child, "sealed_reason", "network_zone");
		rec_set_str(&child, "notes", why);
		free(why);
	}
	store_put_new(d->s, &child);
	rec_free(&child);
	urlset_add(d->seen, url);
	d->made += !refused;
	buf_free(&t);
	free(url), free(title);
}

static void
read_urls_file(discctx_t *d, int dfd, const char *rel, int only_snapshots)
{
	buf_t b = {0};
	if (fs_read(dfd, rel, &b) < 0)
		return;
	char *q = b.p, *end = b.p + b.len;
	while (q < end) {
		char *nl = memchr(q, '\n', end - q);
		size_t n = nl ? (size_t)(nl - q) : (size_t)(end - q);
		rec_t r;
		/* a log's other lines (results, logging) are not parsed */
		if (n && (!only_snapshots || memmem(q, n, "\"Snapshot\"", 10)) && rec_parse(&r, q, n) == 0) {
			if (!only_snapshots || rec_streq(&r, "type", "Snapshot"))
				consider(d, &r);
			rec_free(&r);
		}
		q += n + 1;
	}
	buf_free(&b);
}

static int
name_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

#define STDOUT_LOG_MAX (64LL << 20)

/* The Snapshot records a plugin's hooks printed on stdout (their logs,
 * on_Snapshot__*.stdout.log), in hook-name order: abx-dl makes them
 * discovered snapshots as urls.jsonl lines are. */
static void
read_stdout_logs(discctx_t *d, int dfd, const char *pdir)
{
	int fd = fs_opendir(dfd, pdir);
	DIR *dh = fd >= 0 ? fdopendir(fd) : NULL;
	if (!dh) {
		if (fd >= 0)
			close(fd);
		return;
	}
	char **v = NULL;
	size_t n = 0;
	for (struct dirent *e; (e = readdir(dh));) {
		size_t l = strlen(e->d_name);
		if (strncmp(e->d_name, "on_Snapshot__", 13) == 0 && l > 11 &&
		    strcmp(e->d_name + l - 11, ".stdout.log") == 0 && name_valid(e->d_name)) {
			v = xrealloc(v, (n + 1) * sizeof *v);
			v[n++] = xstrdup(e->d_name);
		}
	}
	closedir(dh);
	if (n)
		qsort(v, n, sizeof *v, name_cmp);
	for (size_t i = 0; i < n; i++) {
		char rel[768];
		struct stat st;
		snprintf(rel, sizeof rel, "%s/%s", pdir, v[i]);
		/* a hook that dumped a page on stdout printed no records worth
		 * reading 64 MiB for */
		if (fstatat(dfd, rel, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISREG(st.st_mode) &&
		    st.st_size <= STDOUT_LOG_MAX)
			read_urls_file(d, dfd, rel, 1);
		free(v[i]);
	}
	free(v);
}

int
discover_children(store_t *s, const rec_t *snap, int max_depth, const urlfilter_t *f, urlset_t *seen,
    long max_urls, const char *tags)
{
	int depth = rec_int(snap, "depth", 0) + 1;
	if (depth > max_depth)
		return 0;
	char dir[256];
	char *cid = rec_str(snap, "crawl_id"), *sid = rec_str(snap, "id");
	if (!id_valid(cid) || !id_valid(sid)) {
		free(cid), free(sid);
		return 0;
	}
	snprintf(dir, sizeof dir, "crawls/%s/%s", cid, sid);
	discctx_t d = {s, snap, f, seen, max_urls, depth, 0, cid, sid, tags};
	int fd = fs_opendir(s->dfd, dir);
	DIR *dh = fd >= 0 ? fdopendir(fd) : NULL;
	if (dh) {
		char **names = NULL;
		size_t nn = 0;
		struct dirent *e;
		while ((e = readdir(dh)))
			if (name_valid(e->d_name)) {
				names = xrealloc(names, (nn + 1) * sizeof(char *));
				names[nn++] = xstrdup(e->d_name);
			}
		closedir(dh);
		/* plugin order is name order: deterministic children */
		for (size_t i = 1; i < nn; i++)
			for (size_t j = i; j > 0 && strcmp(names[j - 1], names[j]) > 0; j--) {
				char *t = names[j];
				names[j] = names[j - 1];
				names[j - 1] = t;
			}
		for (size_t i = 0; i < nn; i++) {
			char rel[512];
			snprintf(rel, sizeof rel, "%s/%s/urls.jsonl", dir, names[i]);
			read_urls_file(&d, s->dfd, rel, 0);
			snprintf(rel, sizeof rel, "%s/%s", dir, names[i]);
			read_stdout_logs(&d, s->dfd, rel);
			free(names[i]);
		}
		free(names);
	} else if (fd >= 0) {
		close(fd);
	}
	free(cid), free(sid);
	return d.made;
}
