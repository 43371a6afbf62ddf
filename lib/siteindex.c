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

#include "err.h"
#include "fs.h"
#include "html.h"
#include "record.h"
#include "seal.h"
#include "siteindex.h"

typedef struct {
	rec_t *v;
	size_t n, cap;
} recs_t;

static void
recs_add(recs_t *rs, const rec_t *r)
{
	if (rs->n == rs->cap) {
		rs->cap = rs->cap ? rs->cap * 2 : 16;
		rs->v = xrealloc(rs->v, rs->cap * sizeof(rec_t));
	}
	rec_copy(&rs->v[rs->n++], r);
}

static void
recs_free(recs_t *rs)
{
	for (size_t i = 0; i < rs->n; i++)
		rec_free(&rs->v[i]);
	free(rs->v);
	memset(rs, 0, sizeof *rs);
}

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
	rec_set_str(&l, "path", dir);
	buf_t b = {0};
	rec_line(&l, &b);
	buf_addc(&b, '\n');
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
	if (fd < 0 || write(fd, b.p, b.len) != (ssize_t)b.len)
		warnsys("unable to append to %s/index.jsonl", s->dir);
	if (fd >= 0)
		close(fd);
	buf_free(&b);
	rec_free(&l);
}

#define SITE_PAGE 1000
#define SITE_STATE "index/site.json"

static void
site_rows(buf_t *b, rec_t *v, size_t n)
{
	buf_adds(b, "<table><tr><th>bookmarked</th><th>title</th><th>url</th><th>size</th></tr>");
	for (size_t i = n; i-- > 0;) {   /* newest first */
		char *p = rec_str(&v[i], "path"), *t = rec_str(&v[i], "title");
		char *u = rec_str(&v[i], "url"), *bk = rec_str(&v[i], "bookmarked_at");
		buf_adds(b, "<tr><td class=\"meta\">");
		html_esc(b, bk ? bk : "");
		buf_adds(b, "</td><td><a href=\"");
		if (p) {
			html_href(b, p);
			buf_adds(b, "/index.html");
		}
		buf_adds(b, "\">");
		html_esc(b, t && *t ? t : u);
		buf_adds(b, "</a></td><td><a href=\"");
		html_esc(b, u);
		buf_adds(b, "\">");
		html_esc(b, u);
		buf_addf(b, "</a></td><td class=\"meta\">%lld</td></tr>", rec_int(&v[i], "output_size", 0));
		free(p), free(t), free(u), free(bk);
	}
	buf_adds(b, "</table>");
}

static void
site_page(store_t *s, const char *name, const char *title, rec_t *v, size_t n, long pages, long total)
{
	buf_t b = {0};
	buf_addf(&b, "<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><meta name=\"viewport\" "
	             "content=\"width=device-width,initial-scale=1\"><title>%s</title><style>%s</style></head>"
	             "<body><header><h1>%s</h1><div class=\"meta\">%ld snapshots in all; "
	             "<a href=\"index.jsonl\">index.jsonl</a> lists every one</div></header><main>",
	    title, html_css, title, total);
	site_rows(&b, v, n);
	if (pages > 0) {
		buf_adds(&b, "<p class=\"meta\">older pages:");
		for (long k = pages; k-- > 0;)
			buf_addf(&b, " <a href=\"index-%ld.html\">%ld</a>", k, k);
		buf_adds(&b, "</p>");
	}
	buf_adds(&b, "</main></body></html>\n");
	/* synced: a page is written once a pass at most (index.html) or once
	 * (a full index-K.html), and one a power loss emptied would stay so */
	if (fs_replace(s->dfd, name, b.p, b.len, s->durable) < 0)
		warnsys("unable to write %s/%s", s->dir, name);
	buf_free(&b);
}

/*
 * The site index grows with the archive, so it is paged: index.jsonl is
 * append-only (a line a sealed snapshot); every full page of SITE_PAGE
 * lines is written once, as index-K.html (K = 0 the oldest), and
 * index/site.json remembers how many pages and the byte offset where the
 * lines not yet paged begin.  Each call reads only those lines and writes
 * index.html: them, newest first, and links to the pages.  Its cost follows
 * the page size, not the archive.  The state is a hint: without it (or
 * after retention rewrote index.jsonl) the pages are rebuilt.
 */
void
seal_site_index(store_t *s)
{
	long pages = 0;
	long long off = 0;
	buf_t st = {0};
	if (fs_read(s->dfd, SITE_STATE, &st) == 0) {
		rec_t r;
		if (rec_parse(&r, st.p, st.len) == 0) {
			pages = rec_int(&r, "pages", 0);
			off = rec_int(&r, "offset", 0);
			rec_free(&r);
		}
	}
	buf_free(&st);
	int fd = fs_open(s->dfd, "index.jsonl", O_RDONLY, 0);
	struct stat sb;
	if (fd < 0 || fstat(fd, &sb) < 0) {
		if (fd >= 0)
			close(fd);
		site_page(s, "index.html", "abx archive", NULL, 0, 0, 0);
		return;
	}
	if (off < 0 || off > sb.st_size || pages < 0)
		pages = 0, off = 0;
	/* read in chunks and keep at most a page of records: a rebuild of a
	 * large archive streams through it in constant memory */
	recs_t v = {0};
	long long at = off;          /* file offset of the next unread byte */
	long long page_start = off;  /* where the records in v begin */
	buf_t carry = {0};
	char chunk[1 << 16];
	int advanced = 0;
	for (;;) {
		ssize_t got = pread(fd, chunk, sizeof chunk, at);
		if (got <= 0)
			break;
		at += got;
		buf_add(&carry, chunk, got);
		char *q = carry.p, *end = carry.p + carry.len;
		for (char *nl; q < end && (nl = memchr(q, '\n', end - q)); q = nl + 1) {
			rec_t r;
			if (nl > q && rec_parse(&r, q, nl - q) == 0) {
				recs_add(&v, &r);
				rec_free(&r);
			}
			if (v.n == SITE_PAGE) {
				char name[64], title[64];
				snprintf(name, sizeof name, "index-%ld.html", pages);
				snprintf(title, sizeof title, "abx archive, page %ld", pages);
				site_page(s, name, title, v.v, v.n, 0, (pages + 1) * SITE_PAGE);
				pages++;
				recs_free(&v);
				/* the next page starts after this line */
				page_start = at - (long long)(end - (nl + 1));
				advanced = 1;
			}
		}
		size_t left = end - q;
		memmove(carry.p, q, left);
		carry.len = left;
	}
	close(fd);
	buf_free(&carry);
	off = page_start;
	if (advanced) {
		buf_t b = {0};
		buf_addf(&b, "{\"pages\":%ld,\"offset\":%lld}\n", pages, off);
		/* after the pages it names, each synced */
		if (fs_replace(s->dfd, SITE_STATE, b.p, b.len, s->durable) < 0)
			warnsys("unable to write %s/%s", s->dir, SITE_STATE);
		buf_free(&b);
	}
	size_t first = 0;
	site_page(s, "index.html", "abx archive", v.v + first, v.n - first, pages,
	    pages * SITE_PAGE + (long)(v.n - first));
	recs_free(&v);
}
