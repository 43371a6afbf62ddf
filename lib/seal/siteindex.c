/*
 * siteindex.c — the data directory's index.jsonl and index.html: see
 * siteindex.h.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/err.h"
#include "base/fs.h"
#include "seal/html.h"
#include "store/record.h"
#include "seal/seal.h"
#include "seal/siteindex.h"

static void site_append(store_t *s, buf_t *b);

/*
 * Append the snapshot's line to the site's index.jsonl, under the store
 * lock and before the seal's barrier, so the line is durable whenever the
 * sealed record is (a crash between leaves an extra line, which
 * seal_site_index shows once).  A torn last line (a crash mid-append) is
 * cut off first, so the new line never joins it.
 */
void
site_index_append(store_t *s, const rec_t *snap, const char *dir)
{
	rec_t l = {0};
	static const char *keys[] = {"id", "crawl_id", "url", "title", "tags", "depth", "bookmarked_at",
	    "downloaded_at", "output_size", NULL};
	rec_set_str(&l, "type", "Snapshot");
	for (int i = 0; keys[i]; i++) {
		const char *v = rec_raw(snap, keys[i]);
		rec_set_raw(&l, keys[i], v ? v : "null");
	}
	/* what the site answered, when a hook recorded it (abx(7)) */
	if (rec_int(snap, "http_status", 0) > 0)
		rec_set_raw(&l, "http_status", rec_raw(snap, "http_status"));
	rec_set_str(&l, "path", dir);
	/* sealed before (its location hint says so, written at each seal):
	 * seal_site_index takes its earlier row off the page it is on */
	char *sid = rec_str(snap, "id");
	if (id_valid(sid) && store_snap_was_final(s, sid))
		rec_set_raw(&l, "resealed", "true");
	free(sid);
	buf_t b = {0};
	rec_line(&l, &b);
	buf_addc(&b, '\n');
	site_append(s, &b);
	buf_free(&b);
	rec_free(&l);
}

/* Append a line to index.jsonl, its torn last line cut off first. */
static void
site_append(store_t *s, buf_t *b)
{
	int fd = fs_open(s->dfd, "index.jsonl", O_RDWR | O_APPEND | O_CREAT, 0644);
	struct stat st;
	char c = '\n';
	if (fd >= 0 && fstat(fd, &st) == 0 && st.st_size > 0 && pread(fd, &c, 1, st.st_size - 1) == 1 &&
	    c != '\n') {
		/* a torn line: keep whole lines only (the site index is a hint) */
		buf_t all = {0};
		if (fs_read(s->dfd, "index.jsonl", &all) == 0) {
			char *nl = all.len ? memrchr(all.p, '\n', all.len) : NULL;
			if (ftruncate(fd, nl ? nl - all.p + 1 : 0) < 0)
				warnsys("unable to repair %s/index.jsonl", s->dir);
		}
		buf_free(&all);
	}
	if (fd < 0 || write(fd, b->p, b->len) != (ssize_t)b->len)
		warnsys("unable to append to %s/index.jsonl", s->dir);
	if (fd >= 0)
		close(fd);
}

void
site_index_remove(store_t *s, const char *snap_id, const char *crawl_id)
{
	char iso[ISO_LEN + 1];
	clock_iso(clock_now(), iso);
	buf_t b = {0};
	buf_addf(&b, "{\"type\":\"Snapshot\",\"id\":\"%s\",\"crawl_id\":\"%s\",\"deleted_at\":\"%s\"}\n", snap_id,
	    crawl_id, iso);
	site_append(s, &b);
	buf_free(&b);
}

#define SITE_PAGE 1000
#define SITE_STATE "index/site.pages"
#define SITE_MAGIC "abx-site-pages 2"

/* A page of the site index: the lines of index.jsonl in [start, end),
 * their ids between lo and hi, less the ids in x (a later line of theirs
 * came after the page was written: a reseal, or a removal). */
typedef struct {
	long long start, end;
	char lo[ID_LEN + 1], hi[ID_LEN + 1];
	long rows;
	char *x;             /* ids, comma-separated ("" none) */
	int dirty;
} page_t;

typedef struct {
	page_t *v;
	size_t n;
	long long off;       /* where the lines not yet paged begin */
} pages_t;

static void
pages_free(pages_t *ps)
{
	for (size_t i = 0; i < ps->n; i++)
		free(ps->v[i].x);
	free(ps->v);
	memset(ps, 0, sizeof *ps);
}

static page_t *
pages_add(pages_t *ps)
{
	ps->v = xrealloc(ps->v, (ps->n + 1) * sizeof(page_t));
	page_t *p = &ps->v[ps->n++];
	memset(p, 0, sizeof *p);
	p->x = xstrdup("");
	return p;
}

/* Read the state; 0, or -1 if there is none that can be trusted. */
static int
pages_load(store_t *s, pages_t *ps, long long size)
{
	buf_t b = {0};
	memset(ps, 0, sizeof *ps);
	if (fs_read(s->dfd, SITE_STATE, &b) < 0) {
		buf_free(&b);
		return -1;
	}
	char *q = buf_cstr(&b), *nl;
	int rc = -1, first = 1;
	while ((nl = strchr(q, '\n'))) {
		*nl = 0;
		if (first) {
			char *e;
			if (strncmp(q, SITE_MAGIC " ", strlen(SITE_MAGIC) + 1) != 0)
				break;
			ps->off = strtoll(q + strlen(SITE_MAGIC) + 1, &e, 10);
			if (*e || ps->off < 0 || ps->off > size)
				break;
			first = 0;
			rc = 0;
		} else {
			page_t *p = pages_add(ps);
			char lo[64], hi[64], x[strlen(q) + 1];
			if (sscanf(q, "%lld %lld %63s %63s %ld %s", &p->start, &p->end, lo, hi, &p->rows, x) != 6 ||
			    !id_valid(lo) || !id_valid(hi) || p->start < 0 || p->end < p->start || p->end > ps->off) {
				rc = -1;
				break;
			}
			memcpy(p->lo, lo, ID_LEN + 1);
			memcpy(p->hi, hi, ID_LEN + 1);
			free(p->x);
			p->x = xstrdup(strcmp(x, "-") ? x : "");
		}
		q = nl + 1;
	}
	buf_free(&b);
	if (rc < 0)
		pages_free(ps);
	return rc;
}

static int
pages_save(store_t *s, const pages_t *ps)
{
	buf_t b = {0};
	buf_addf(&b, "%s %lld\n", SITE_MAGIC, ps->off);
	for (size_t i = 0; i < ps->n; i++) {
		const page_t *p = &ps->v[i];
		buf_addf(&b, "%lld %lld %s %s %ld %s\n", p->start, p->end, p->lo, p->hi, p->rows,
		    p->x[0] ? p->x : "-");
	}
	/* after the pages it names, each synced */
	int rc = fs_replace(s->dfd, SITE_STATE, b.p, b.len, s->durable);
	if (rc < 0)
		warnsys("unable to write %s/%s", s->dir, SITE_STATE);
	buf_free(&b);
	return rc;
}

static int
in_list(const char *list, const char *id)
{
	for (const char *p = list; (p = strstr(p, id)); p += ID_LEN)
		if ((p == list || p[-1] == ',') && (p[ID_LEN] == ',' || p[ID_LEN] == 0))
			return 1;
	return 0;
}

/* The rows of a stretch of index.jsonl: the last line of each id wins (in
 * its place), a removed one (deleted_at) and the ids of x are left out. */
typedef struct {
	recs_t v;
	char (*ids)[ID_LEN + 1];
	long long *ends;     /* the offset after each one's line */
} rows_t;

static void
rows_free(rows_t *rs)
{
	recs_free(&rs->v);
	free(rs->ids);
	free(rs->ends);
	memset(rs, 0, sizeof *rs);
}

/* Add a line (its record, its id); a row of the same id before it goes. */
static void
rows_add(rows_t *rs, const rec_t *r, const char *id, long long end)
{
	for (size_t i = rs->v.n; i-- > 0;)
		if (strcmp(rs->ids[i], id) == 0) {
			rec_free(&rs->v.v[i]);
			memmove(&rs->v.v[i], &rs->v.v[i + 1], (rs->v.n - i - 1) * sizeof(rec_t));
			memmove(&rs->ids[i], &rs->ids[i + 1], (rs->v.n - i - 1) * sizeof *rs->ids);
			memmove(&rs->ends[i], &rs->ends[i + 1], (rs->v.n - i - 1) * sizeof *rs->ends);
			rs->v.n--;
			break;
		}
	size_t n = rs->v.n;
	recs_add(&rs->v, r);
	rs->ids = xrealloc(rs->ids, rs->v.cap * sizeof *rs->ids);
	rs->ends = xrealloc(rs->ends, rs->v.cap * sizeof *rs->ends);
	memcpy(rs->ids[n], id, ID_LEN + 1);
	rs->ends[n] = end;
}

/* Parse one line of index.jsonl; 0 with its id, else -1. */
static int
site_line(const char *p, size_t n, rec_t *r, char id[ID_LEN + 1])
{
	if (n == 0 || rec_parse(r, p, n) < 0)
		return -1;
	char *v = rec_str(r, "id");
	int ok = id_valid(v);
	if (ok)
		memcpy(id, v, ID_LEN + 1);
	free(v);
	if (!ok)
		rec_free(r);
	return ok ? 0 : -1;
}

/* The rows of page p, read again from its stretch of index.jsonl. */
static void
page_rows(store_t *s, int fd, const page_t *p, rows_t *rs)
{
	memset(rs, 0, sizeof *rs);
	size_t n = p->end - p->start;
	char *d = xmalloc(n + 1);
	if (pread(fd, d, n, p->start) != (ssize_t)n) {
		warnsys("unable to read %s/index.jsonl", s->dir);
		free(d);
		return;
	}
	for (char *q = d, *nl; q < d + n && (nl = memchr(q, '\n', d + n - q)); q = nl + 1) {
		rec_t r;
		char id[ID_LEN + 1];
		if (site_line(q, nl - q, &r, id) == 0) {
			rows_add(rs, &r, id, 0);
			rec_free(&r);
		}
	}
	free(d);
}

static int
row_shown(const rows_t *rs, size_t i, const char *x)
{
	return rec_isnull(&rs->v.v[i], "deleted_at") && !in_list(x, rs->ids[i]);
}

static void
site_rows(buf_t *b, const rows_t *rs, const char *x)
{
	buf_adds(b, "<table id=\"rows\"><thead><tr><th>bookmarked</th><th>title</th><th>url</th><th>crawl</th>"
	            "<th>size</th></tr></thead><tbody>\n");
	for (size_t i = rs->v.n; i-- > 0;) {   /* newest first */
		if (!row_shown(rs, i, x))
			continue;
		rec_t *r = &rs->v.v[i];
		char *p = rec_str(r, "path"), *t = rec_str(r, "title");
		char *u = rec_str(r, "url"), *bk = rec_str(r, "bookmarked_at"), *c = rec_str(r, "crawl_id");
		buf_adds(b, "<tr><td class=\"meta\">");
		html_esc(b, bk ? bk : "");
		buf_adds(b, "</td><td><a href=\"");
		if (p) {
			html_href(b, p);
			buf_adds(b, "/index.html");
		}
		buf_adds(b, "\">");
		html_esc(b, t && *t ? t : u ? u : "");
		buf_adds(b, "</a></td><td>");
		if (html_http(b, r, 0, ""))   /* a 404 is archived as answered */
			buf_addc(b, ' ');
		buf_adds(b, "<a href=\"");
		html_esc(b, u ? u : "");
		buf_adds(b, "\">");
		html_esc(b, u ? u : "");
		buf_adds(b, "</a></td><td class=\"meta\">");
		if (id_valid(c)) {
			/* the crawl's page: its seeds, settings and outcomes */
			buf_addf(b, "<a href=\"crawls/%s/index.html\">%.8s</a>", c, c);
		}
		buf_addf(b, "</td><td class=\"meta\">%lld</td></tr>\n", rec_int(r, "output_size", 0));
		free(p), free(t), free(u), free(bk), free(c);
	}
	buf_adds(b, "</tbody></table>");
}

/* A filter box that works from file:// with no server: rows whose text
 * holds every word typed stay shown. */
static const char filter_js[] =
    "<script>(function(){var q=document.getElementById('filter'),"
    "rows=document.getElementById('rows').tBodies[0].rows;q.oninput=function(){"
    "var w=q.value.toLowerCase().split(/\\s+/).filter(Boolean);for(var i=0;i<rows.length;i++){"
    "var t=rows[i].textContent.toLowerCase(),ok=true;for(var k=0;k<w.length;k++)"
    "if(t.indexOf(w[k])<0){ok=false;break;}rows[i].style.display=ok?'':'none';}};})();</script>";

static void
site_page(store_t *s, const char *name, const char *title, const rows_t *rs, const char *x, long pages,
    long total)
{
	buf_t b = {0};
	buf_addf(&b, "<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><meta name=\"viewport\" "
	             "content=\"width=device-width,initial-scale=1\"><title>%s</title><style>%s</style></head>"
	             "<body><header><h1>%s</h1><div class=\"meta\">%ld snapshots in all; "
	             "<a href=\"index.jsonl\">index.jsonl</a> lists every one</div>"
	             "<p><input id=\"filter\" type=\"search\" placeholder=\"filter this page\" "
	             "aria-label=\"filter this page\"></p></header><main>",
	    title, html_css, title, total);
	rows_t none = {0};
	site_rows(&b, rs ? rs : &none, x ? x : "");
	if (pages > 0) {
		buf_adds(&b, "<p class=\"meta\">older pages:");
		for (long k = pages; k-- > 0;)
			buf_addf(&b, " <a href=\"index-%ld.html\">%ld</a>", k, k);
		buf_adds(&b, "</p>");
	}
	buf_adds(&b, "</main>");
	buf_adds(&b, filter_js);
	buf_adds(&b, "</body></html>\n");
	/* synced: a page is written when what it shows changed, and one a
	 * power loss emptied would stay so */
	if (fs_replace(s->dfd, name, b.p, b.len, s->durable) < 0)
		warnsys("unable to write %s/%s", s->dir, name);
	buf_free(&b);
}

/* Is id on a page before the one being filled?  Then that page drops it
 * (x) and is written again: one row a snapshot, the latest. */
static void
supersede(store_t *s, int fd, pages_t *ps, const char *id)
{
	for (size_t k = 0; k < ps->n; k++) {
		page_t *p = &ps->v[k];
		if (strcmp(id, p->lo) < 0 || strcmp(id, p->hi) > 0 || in_list(p->x, id))
			continue;
		size_t n = p->end - p->start;
		char *d = xmalloc(n + 1), pat[ID_LEN + 8];
		snprintf(pat, sizeof pat, "\"id\":\"%s\"", id);
		if (pread(fd, d, n, p->start) == (ssize_t)n && memmem(d, n, pat, strlen(pat))) {
			size_t l = strlen(p->x);
			p->x = xrealloc(p->x, l + ID_LEN + 2);
			snprintf(p->x + l, ID_LEN + 2, "%s%s", l ? "," : "", id);
			p->dirty = 1;
		}
		free(d);
	}
}

static long
shown(const rows_t *rs, const char *x)
{
	long n = 0;
	for (size_t i = 0; i < rs->v.n; i++)
		n += row_shown(rs, i, x);
	return n;
}

/*
 * The site index grows with the archive, so it is paged, and a call costs
 * what changed: index.jsonl is append-only (a line a seal, and a line
 * with deleted_at a removal: the last line of an id is its row); every
 * SITE_PAGE snapshots of it make a page, index-K.html (K = 0 the oldest),
 * and index/site.pages remembers each page's stretch of index.jsonl, the
 * lowest and highest id in it, and the ids a later line took off it.
 * Each call reads only the lines not yet paged; a line whose id is on an
 * earlier page (found by the id's range: ids are UUIDv7, so a snapshot is
 * on the pages of its time) takes it off that page, which is written
 * again.  index.html shows the lines not yet paged, newest first, and
 * links to the pages.  Without the state the pages are rebuilt.
 */
void
seal_site_index(store_t *s)
{
	int fd = fs_open(s->dfd, "index.jsonl", O_RDONLY, 0);
	struct stat sb;
	if (fd < 0 || fstat(fd, &sb) < 0) {
		if (fd >= 0)
			close(fd);
		site_page(s, "index.html", "abx archive", NULL, NULL, 0, 0);
		return;
	}
	pages_t ps;
	if (pages_load(s, &ps, sb.st_size) < 0)
		memset(&ps, 0, sizeof ps);   /* rebuilt */
	/* stream the new lines, keeping at most a page of rows */
	rows_t rs = {0};
	long long at = ps.off, page_start = ps.off;
	buf_t carry = {0};
	char chunk[1 << 16];
	int advanced = 0;
	for (;;) {
		ssize_t got = pread(fd, chunk, sizeof chunk, at);
		if (got <= 0)
			break;
		long long base = at - (long long)carry.len;   /* file offset of carry.p */
		at += got;
		buf_add(&carry, chunk, got);
		char *q = carry.p, *end = carry.p + carry.len;
		for (char *nl; q < end && (nl = memchr(q, '\n', end - q)); q = nl + 1) {
			rec_t r;
			char id[ID_LEN + 1];
			if (site_line(q, nl - q, &r, id) < 0)
				continue;
			/* only a reseal or a removal can have a row on a page
			 * before (ids are new otherwise) */
			if (rec_raw(&r, "resealed") || !rec_isnull(&r, "deleted_at"))
				supersede(s, fd, &ps, id);
			rows_add(&rs, &r, id, base + (nl + 1 - carry.p));
			rec_free(&r);
			if (rs.v.n == SITE_PAGE) {
				page_t *p = pages_add(&ps);
				p->start = page_start;
				p->end = page_start = rs.ends[rs.v.n - 1];
				memcpy(p->lo, rs.ids[0], ID_LEN + 1);
				memcpy(p->hi, rs.ids[0], ID_LEN + 1);
				for (size_t i = 1; i < rs.v.n; i++) {
					if (strcmp(rs.ids[i], p->lo) < 0)
						memcpy(p->lo, rs.ids[i], ID_LEN + 1);
					if (strcmp(rs.ids[i], p->hi) > 0)
						memcpy(p->hi, rs.ids[i], ID_LEN + 1);
				}
				p->rows = shown(&rs, "");
				char name[64], title[64];
				snprintf(name, sizeof name, "index-%zu.html", ps.n - 1);
				snprintf(title, sizeof title, "abx archive, page %zu", ps.n - 1);
				site_page(s, name, title, &rs, "", 0, p->rows);
				rows_free(&rs);
				advanced = 1;
			}
		}
		size_t left = end - q;
		memmove(carry.p, q, left);
		carry.len = left;
	}
	buf_free(&carry);
	long total = 0;
	for (size_t k = 0; k < ps.n; k++) {
		page_t *p = &ps.v[k];
		if (p->dirty) {
			rows_t pr;
			page_rows(s, fd, p, &pr);
			p->rows = shown(&pr, p->x);
			char name[64], title[64];
			snprintf(name, sizeof name, "index-%zu.html", k);
			snprintf(title, sizeof title, "abx archive, page %zu", k);
			site_page(s, name, title, &pr, p->x, 0, p->rows);
			rows_free(&pr);
			advanced = 1;
		}
		total += p->rows;
	}
	close(fd);
	ps.off = page_start;
	if (advanced || fs_exists(s->dfd, SITE_STATE) == 0)
		pages_save(s, &ps);
	site_page(s, "index.html", "abx archive", &rs, "", (long)ps.n, total + shown(&rs, ""));
	rows_free(&rs);
	pages_free(&ps);
}
