/* urllist.c — the URLs of one crawl, read as abx-add takes them: see urllist.h. */
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

#include "base/err.h"
#include "base/json.h"
#include "ctl/urllist.h"
#include "net/url.h"
#include "tick/tagset.h"

/* Takes url, title and tags (malloc'd, any NULL). */
static void
add_entry(urllist_t *l, const char *where, long lineno, char *url, char *title, char *tags)
{
	const char *why = "record has no \"url\" string";
	char *canon = url ? url_canon(url, NULL, &why) : NULL;   /* url.h: the stored form */
	if (!canon) {
		warnx_("%s %ld: %s: %s", where, lineno, why, url ? url : "");
		l->bad++;
		free(url), free(title), free(tags);
		return;
	}
	free(url);
	url = canon;
	for (size_t i = 0; i < l->n; i++)
		if (strcmp(l->v[i].url, url) == 0) {
			free(url), free(title), free(tags);
			return;   /* unique per crawl, as in ArchiveBox */
		}
	if (l->n == l->cap) {
		l->cap = l->cap ? l->cap * 2 : 64;
		l->v = xrealloc(l->v, l->cap * sizeof(urlentry_t));
	}
	l->v[l->n++] = (urlentry_t){url, title, tags};
}

void
urllist_add(urllist_t *l, const char *where, long lineno, const char *url)
{
	add_entry(l, where, lineno, xstrdup(url), NULL, NULL);
}

/* A record's "tags": a string, or a JSON array of strings; as a set
 * (tagset.h), NULL if it has none. */
static char *
record_tags(const rec_t *r)
{
	if (!rec_raw(r, "tags"))
		return NULL;
	buf_t t = {0};
	tagset_add_field(&t, r, "tags");
	return buf_cstr(&t);
}

void
urllist_line(urllist_t *l, char *line, size_t len, long lineno)
{
	while (len && (line[len - 1] == '\n' || line[len - 1] == '\r'))
		line[--len] = 0;
	char *p = line;
	while (*p == ' ' || *p == '\t')
		p++;
	if (!*p || *p == '#')
		return;
	if (*p != '{') {
		add_entry(l, "line", lineno, xstrdup(p), NULL, NULL);
		return;
	}
	rec_t r;
	if (rec_parse(&r, p, strlen(p)) < 0) {
		warnx_("line %ld: malformed JSON record", lineno);
		l->bad++;
		return;
	}
	char *tags = record_tags(&r);
	add_entry(l, "line", lineno, rec_str(&r, "url"), rec_str(&r, "title"), tags);
	rec_free(&r);
}

void
urllist_read(urllist_t *l, FILE *in)
{
	char *line = NULL;
	size_t cap = 0;
	ssize_t n;
	long lineno = 0;
	while ((n = getline(&line, &cap, in)) != -1)
		urllist_line(l, line, n, ++lineno);
	free(line);
}

void
urllist_text(const urllist_t *l, buf_t *out)
{
	for (size_t i = 0; i < l->n; i++) {
		if (l->v[i].title || l->v[i].tags) {
			/* keep the record form so a later run knows title and tags */
			rec_t r = {0};
			rec_set_str(&r, "url", l->v[i].url);
			if (l->v[i].title)
				rec_set_str(&r, "title", l->v[i].title);
			if (l->v[i].tags)
				rec_set_str(&r, "tags", l->v[i].tags);
			rec_line(&r, out);
			rec_free(&r);
		} else {
			buf_adds(out, l->v[i].url);
		}
		buf_addc(out, '\n');
	}
}

void
urllist_free(urllist_t *l)
{
	for (size_t i = 0; i < l->n; i++)
		free(l->v[i].url), free(l->v[i].title), free(l->v[i].tags);
	free(l->v);
	*l = (urllist_t){0};
}
