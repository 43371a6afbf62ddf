/* archived.c — abx-add's URLs that are archived already: see archived.h. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/err.h"
#include "base/fs.h"
#include "ctl/archived.h"

typedef struct {
	char id[ID_LEN + 1];
	size_t url;                  /* its URL's index in the list */
} cand_t;

/* Did one of the hooks of sealed snapshot id of crawl cid succeed (its
 * index.jsonl, written at its seal, says so)? */
static int
any_succeeded(store_t *s, const char *cid, const char *id)
{
	char rel[128];
	buf_t b = {0};
	snprintf(rel, sizeof rel, "crawls/%s/%s/index.jsonl", cid, id);
	int yes = 0;
	if (fs_read(s->dfd, rel, &b) == 0)
		for (const char *q = b.p, *end = b.p + b.len; !yes && q < end;) {
			const char *nl = memchr(q, '\n', end - q);
			size_t n = nl ? (size_t)(nl - q) : (size_t)(end - q);
			rec_t r;
			if (memmem(q, n, "\"succeeded\"", 11) && rec_parse(&r, q, n) == 0) {
				yes = rec_streq(&r, "type", "ArchiveResult") && rec_streq(&r, "status", "succeeded");
				rec_free(&r);
			}
			q += n + 1;
		}
	buf_free(&b);
	return yes;
}

/* Is snapshot id archived now: sealed "archived", a hook of it succeeded,
 * it and its crawl kept? */
static int
is_archived(store_t *s, const char *id, const char *url, char *when, size_t n)
{
	rec_t r, c;
	if (store_get(s, id, &r) < 0)
		return 0;
	int yes = rec_streq(&r, "type", "Snapshot") && rec_streq(&r, "status", "sealed") &&
	          rec_streq(&r, "sealed_reason", "archived") && rec_isnull(&r, "deleted_at") &&
	          rec_streq(&r, "url", url);
	char *cid = rec_str(&r, "crawl_id");
	if (yes)
		yes = id_valid(cid) && any_succeeded(s, cid, id);
	if (yes) {
		yes = store_get(s, cid, &c) == 0;
		if (yes) {
			yes = rec_isnull(&c, "deleted_at");
			rec_free(&c);
		}
	}
	if (yes) {
		char *at = rec_str(&r, "downloaded_at");
		snprintf(when, n, "crawl %s, %s", cid, at ? at : "?");
		free(at);
	}
	free(cid);
	rec_free(&r);
	return yes;
}

/* The list's URLs in order, for bsearch: each an index into l->v. */
typedef struct {
	const urllist_t *l;
	size_t *by_url;
} urlindex_t;

static int
by_url(const void *a, const void *b, void *arg)
{
	const urllist_t *l = arg;
	return strcmp(l->v[*(const size_t *)a].url, l->v[*(const size_t *)b].url);
}

/* The list's index of url, or -1. */
static long
url_index(const urlindex_t *x, const char *url)
{
	size_t lo = 0, hi = x->l->n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int c = strcmp(url, x->l->v[x->by_url[mid]].url);
		if (c == 0)
			return (long)x->by_url[mid];
		if (c < 0)
			hi = mid;
		else
			lo = mid + 1;
	}
	return -1;
}

/* Every whole line of index.jsonl naming one of the URLs, in file order
 * (read a line at a time: the file has a line per seal ever made). */
static size_t
candidates(FILE *f, const urlindex_t *x, cand_t **out)
{
	size_t n = 0, cap = 0, lcap = 0;
	char *line = NULL;
	ssize_t len;
	while ((len = getline(&line, &lcap, f)) > 0) {
		rec_t r;
		if (line[len - 1] != '\n' || rec_parse(&r, line, (size_t)len - 1) < 0)
			continue;   /* a torn last line is not a seal */
		char *url = rec_str(&r, "url"), *id = rec_str(&r, "id");
		long i = url && id && id_valid(id) ? url_index(x, url) : -1;
		if (i >= 0) {
			if (n == cap)
				*out = xrealloc(*out, (cap = cap ? cap * 2 : 16) * sizeof **out);
			memcpy((*out)[n].id, id, ID_LEN + 1);
			(*out)[n++].url = (size_t)i;
		}
		free(url), free(id);
		rec_free(&r);
	}
	free(line);
	return n;
}

int
archived_drop(store_t *s, urllist_t *l)
{
	int fd = fs_open(s->dfd, "index.jsonl", O_RDONLY, 0);
	FILE *f = fd >= 0 ? fdopen(fd, "r") : NULL;
	if (!f) {
		/* a hint: without it every URL is queued, as before --again was */
		if (errno != ENOENT)
			warnsys("unable to read %s/index.jsonl (the site index); URLs archived already are "
			    "queued again", s->dir);
		if (fd >= 0)
			close(fd);
		return 0;
	}
	urlindex_t x = {l, xcalloc(l->n ? l->n : 1, sizeof(size_t))};
	for (size_t i = 0; i < l->n; i++)
		x.by_url[i] = i;
	qsort_r(x.by_url, l->n, sizeof(size_t), by_url, l);
	cand_t *c = NULL;
	size_t nc = candidates(f, &x, &c);
	if (ferror(f))
		warnsys("unable to read all of %s/index.jsonl (the site index); some URLs archived already "
		    "may be queued again", s->dir);
	fclose(f);
	free(x.by_url);
	char *drop = xcalloc(l->n ? l->n : 1, 1), when[128];
	for (size_t k = nc; k-- > 0;) {   /* newest first */
		size_t i = c[k].url;
		if (drop[i] || !is_archived(s, c[k].id, l->v[i].url, when, sizeof when))
			continue;
		drop[i] = 1;
		info("%s is archived already, as snapshot %s (%s); not queued (--again queues it)",
		    l->v[i].url, c[k].id, when);
	}
	free(c);
	size_t kept = 0;
	for (size_t i = 0; i < l->n; i++) {
		if (drop[i]) {
			free(l->v[i].url), free(l->v[i].title), free(l->v[i].tags);
			continue;
		}
		l->v[kept++] = l->v[i];
	}
	int dropped = (int)(l->n - kept);
	l->n = kept;
	free(drop);
	return dropped;
}
