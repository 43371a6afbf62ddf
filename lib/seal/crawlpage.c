/*
 * crawlpage.c — see crawlpage.h.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "seal/crawlpage.h"
#include "base/err.h"
#include "base/fs.h"
#include "seal/html.h"
#include "store/record.h"
#include "hook/results.h"

typedef struct {
	char id[ID_LEN + 1];
	rec_t r;
	int ok, failed, other;
	char *fail_plugin;       /* the first failed result's plugin */
	buf_t fail_why;          /* and the first line of its reason */
} snaprow_t;

typedef struct {
	const char *cid;
	snaprow_t *v;
	size_t n, cap;
	rec_t *res;              /* results, matched to rows once all are read */
	size_t nres, rescap;
} crawlrecs_t;

static int
collect(rec_t *r, void *arg)
{
	crawlrecs_t *c = arg;
	if (!rec_isnull(r, "deleted_at"))
		return 0;   /* removed (abx-ctl remove): history, not on the page */
	if (rec_streq(r, "type", "Snapshot") && rec_streq(r, "crawl_id", c->cid)) {
		char *id = rec_str(r, "id");
		if (id_valid(id)) {
			if (c->n == c->cap) {
				c->cap = c->cap ? 2 * c->cap : 64;
				c->v = xrealloc(c->v, c->cap * sizeof *c->v);
			}
			snaprow_t *row = &c->v[c->n++];
			memset(row, 0, sizeof *row);
			memcpy(row->id, id, ID_LEN + 1);
			rec_copy(&row->r, r);
		}
		free(id);
	} else if (rec_streq(r, "type", "ArchiveResult")) {
		if (c->nres == c->rescap) {
			c->rescap = c->rescap ? 2 * c->rescap : 64;
			c->res = xrealloc(c->res, c->rescap * sizeof *c->res);
		}
		rec_copy(&c->res[c->nres++], r);
	}
	return 0;
}

static int
by_id(const void *a, const void *b)
{
	return strcmp(((const snaprow_t *)a)->id, ((const snaprow_t *)b)->id);
}

static int
by_depth(const void *a, const void *b)
{
	const snaprow_t *x = a, *y = b;
	long long dx = rec_int(&x->r, "depth", 0), dy = rec_int(&y->r, "depth", 0);
	if (dx != dy)
		return dx < dy ? -1 : 1;
	int64_t cx = rec_time(&x->r, "created_at"), cy = rec_time(&y->r, "created_at");
	if (cx != cy)
		return cx < cy ? -1 : 1;
	return strcmp(x->id, y->id);
}

/* Count each result on its snapshot's row (rows sorted by id). */
static void
tally(crawlrecs_t *c, long *ok, long *failed, long *other)
{
	qsort(c->v, c->n, sizeof *c->v, by_id);
	for (size_t i = 0; i < c->nres; i++) {
		rec_t *r = &c->res[i];
		char *sid = rec_str(r, "snapshot_id");
		snaprow_t key;
		snprintf(key.id, sizeof key.id, "%s", sid ? sid : "");
		snaprow_t *row = bsearch(&key, c->v, c->n, sizeof *c->v, by_id);
		free(sid);
		if (!row)
			continue;
		if (rec_streq(r, "status", "succeeded")) {
			row->ok++, (*ok)++;
		} else if (rec_streq(r, "status", "failed")) {
			row->failed++, (*failed)++;
			if (!row->fail_plugin) {
				row->fail_plugin = rec_str(r, "plugin");
				char *notes = rec_str(r, "notes");
				result_reason_line(notes, &row->fail_why);
				free(notes);
			}
		} else {
			row->other++, (*other)++;
		}
	}
	qsort(c->v, c->n, sizeof *c->v, by_depth);
}

static void
field(buf_t *b, const char *name, const char *value)
{
	if (!value || !*value)
		return;
	buf_adds(b, "<tr><th>");
	html_esc(b, name);
	buf_adds(b, "</th><td>");
	html_esc(b, value);
	buf_adds(b, "</td></tr>");
}

static void
seeds(buf_t *b, const rec_t *crawl)
{
	char *urls = rec_str(crawl, "urls");
	buf_adds(b, "<h2>Seeds</h2><ul>");
	char *save = NULL;
	for (char *l = strtok_r(urls ? urls : (char[]){0}, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
		while (*l == ' ')
			l++;
		if (!*l || *l == '#')
			continue;
		char *u = NULL;
		rec_t r;
		if (*l == '{' && rec_parse(&r, l, strlen(l)) == 0) {
			u = rec_str(&r, "url");
			rec_free(&r);
		}
		buf_adds(b, "<li>");
		html_esc(b, u ? u : l);
		buf_adds(b, "</li>");
		free(u);
	}
	buf_adds(b, "</ul>");
	free(urls);
}

/* An object's keys and values (config, limits) as table rows. */
static void
object_rows(buf_t *b, const char *prefix, const char *raw)
{
	rec_t o;
	if (!raw || raw[0] != '{' || rec_parse(&o, raw, strlen(raw)) < 0)
		return;
	for (int i = 0; i < o.n; i++) {
		char name[256];
		snprintf(name, sizeof name, "%s%s", prefix, o.f[i].key);
		char *v = rec_str(&o, o.f[i].key);
		field(b, name, v ? v : rec_raw(&o, o.f[i].key));
		free(v);
	}
	rec_free(&o);
}

/* Snapshots counted by why they were sealed, or by status. */
static void
outcomes(buf_t *b, const crawlrecs_t *c, long ok, long failed, long other)
{
	const char *keys[32];
	long counts[32], http_errors = 0;
	int nk = 0;
	for (size_t i = 0; i < c->n; i++) {
		http_errors += html_http_error(&c->v[i].r);
		char *st = rec_str(&c->v[i].r, "status"), *why = rec_str(&c->v[i].r, "sealed_reason");
		char k[64];
		if (st && !strcmp(st, "sealed"))
			snprintf(k, sizeof k, "sealed: %s", why ? why : "unknown");
		else
			snprintf(k, sizeof k, "%s", st ? st : "unknown");
		int j;
		for (j = 0; j < nk && strcmp(keys[j], k); j++)
			;
		if (j == nk && nk < 32) {
			keys[nk] = xstrdup(k);
			counts[nk++] = 0;
		}
		if (j < nk)
			counts[j]++;
		free(st), free(why);
	}
	buf_addf(b, "<h2>Outcomes</h2><p>%zu snapshot%s", c->n, c->n == 1 ? "" : "s");
	for (int j = 0; j < nk; j++) {
		buf_addf(b, " · %ld ", counts[j]);
		html_esc(b, keys[j]);
		free((char *)keys[j]);
	}
	if (http_errors)
		buf_addf(b, " · <span class=\"httperr\">%ld answered HTTP 4xx/5xx</span>", http_errors);
	buf_addf(b, "</p><p>hook results: <span class=\"succeeded\">%ld succeeded</span> · "
	            "<span class=\"failed\">%ld failed</span> · %ld other</p>", ok, failed, other);
}

static void
snapshot_rows(store_t *s, buf_t *b, const crawlrecs_t *c)
{
	buf_adds(b, "<h2>Snapshots</h2><table><tr><th>depth</th><th>page</th><th>status</th>"
	            "<th>results</th><th>size</th></tr>");
	for (size_t i = 0; i < c->n; i++) {
		const snaprow_t *row = &c->v[i];
		char *url = rec_str(&row->r, "url"), *title = rec_str(&row->r, "title");
		char *st = rec_str(&row->r, "status"), *why = rec_str(&row->r, "sealed_reason");
		char page[ID_LEN + 16];
		snprintf(page, sizeof page, "%s/index.html", row->id);
		char rel[2 * ID_LEN + 32];
		snprintf(rel, sizeof rel, "crawls/%s/%s", c->cid, page);
		buf_addf(b, "<tr><td>%lld</td><td>", rec_int(&row->r, "depth", 0));
		int linked = fs_exists(s->dfd, rel);
		if (linked) {
			buf_adds(b, "<a href=\"");
			html_href(b, page);
			buf_adds(b, "\">");
		}
		html_esc(b, title && *title ? title : url);
		if (linked)
			buf_adds(b, "</a>");
		buf_adds(b, "<div class=\"meta\">");
		html_esc(b, url);
		buf_adds(b, "</div></td><td>");
		html_esc(b, st);
		if (why || html_http_error(&row->r)) {
			buf_adds(b, "<div class=\"meta\">");
			html_esc(b, why);
			html_http(b, &row->r, 0, why ? " · " : "");
			buf_adds(b, "</div>");
		}
		buf_addf(b, "</td><td><span class=\"succeeded\">%d ok</span>", row->ok);
		if (row->failed) {
			buf_addf(b, " · <span class=\"failed\">%d failed</span><div class=\"meta\">", row->failed);
			html_esc(b, row->fail_plugin);
			buf_adds(b, ": ");
			html_esc(b, buf_cstr((buf_t *)&row->fail_why));
			buf_adds(b, "</div>");
		}
		if (row->other)
			buf_addf(b, " · %d other", row->other);
		buf_addf(b, "</td><td>%lld</td></tr>", rec_int(&row->r, "output_size", 0));
		free(url), free(title), free(st), free(why);
	}
	buf_adds(b, "</table>");
}

int
crawlpage_write(store_t *s, const rec_t *crawl)
{
	char *cid = rec_str(crawl, "id");
	if (!id_valid(cid)) {
		free(cid);
		errno = EINVAL;
		return -1;
	}
	crawlrecs_t c = {cid, NULL, 0, 0, NULL, 0, 0};
	char j[128];
	store_crawl_journal(cid, j, sizeof j);
	store_each(s, j, NULL, collect, &c);
	long ok = 0, failed = 0, other = 0;
	tally(&c, &ok, &failed, &other);

	char *label = rec_str(crawl, "label"), *st = rec_str(crawl, "status");
	char *why = rec_str(crawl, "sealed_reason"), *tags = rec_str(crawl, "tags_str");
	char *created = rec_str(crawl, "created_at"), *modified = rec_str(crawl, "modified_at");
	char *sched = rec_str(crawl, "schedule_id");
	buf_t b = {0}, t = {0};
	buf_addf(&t, "Crawl %s", label && *label ? label : cid);
	buf_adds(&b, "<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
	             "<meta name=\"viewport\" content=\"width=device-width,initial-scale=1\"><title>");
	html_esc(&b, buf_cstr(&t));
	buf_addf(&b, "</title><style>%s</style></head><body><header><h1>", html_css);
	html_esc(&b, buf_cstr(&t));
	buf_adds(&b, "</h1><div class=\"meta\">");
	html_esc(&b, st);
	if (why) {
		buf_adds(&b, " (");
		html_esc(&b, why);
		buf_adds(&b, ")");
	}
	buf_adds(&b, " · created ");
	html_esc(&b, created);
	buf_adds(&b, " · <a href=\"../../index.html\">all snapshots</a></div></header><main>");
	seeds(&b, crawl);
	buf_adds(&b, "<h2>Settings</h2><table>");
	field(&b, "id", cid);
	char depth[32];
	snprintf(depth, sizeof depth, "%lld", rec_int(crawl, "max_depth", 0));
	field(&b, "max_depth", depth);
	field(&b, "tags", tags);
	field(&b, "schedule_id", sched);
	field(&b, "modified_at", modified);
	object_rows(&b, "config ", rec_raw(crawl, "config"));
	object_rows(&b, "limits ", rec_raw(crawl, "limits"));
	buf_adds(&b, "</table>");
	outcomes(&b, &c, ok, failed, other);
	snapshot_rows(s, &b, &c);
	buf_adds(&b, "</main></body></html>\n");

	char dir[ID_LEN + 8], path[ID_LEN + 32];
	snprintf(dir, sizeof dir, "crawls/%s", cid);
	snprintf(path, sizeof path, "%s/index.html", dir);
	/* synced with its directory entry, as the site index pages are: a
	 * tool that exits 0 has made durable what it wrote */
	int rc = fs_mkdirs(s->dfd, dir) < 0 || fs_replace(s->dfd, path, b.p, b.len, s->durable) < 0 ? -1 : 0;
	int e = errno;
	for (size_t i = 0; i < c.n; i++) {
		rec_free(&c.v[i].r);
		free(c.v[i].fail_plugin);
		buf_free(&c.v[i].fail_why);
	}
	for (size_t i = 0; i < c.nres; i++)
		rec_free(&c.res[i]);
	free(c.v), free(c.res);
	buf_free(&b), buf_free(&t);
	free(label), free(st), free(why), free(tags), free(created), free(modified), free(sched), free(cid);
	errno = e;
	return rc;
}
