/*
 * wacz.c — see wacz.h.
 *
 * 1. The snapshots: the item itself, or the crawl's sealed snapshots in
 *    the order of its journal, less those removed (deleted_at).
 * 2. For each, its WARCs: scanned (warc.h) in place; a WARC that is not
 *    per-record gzip is re-encoded into an anonymous temp file.  The file
 *    goes into archive/ while its SHA-256 is taken; its records become
 *    index lines; the snapshot's own response gives its page.
 * 3. The index sorted, pages, datapackage.json and its digest, each with
 *    its hash in the resources of datapackage.json.
 */
#include <archive_entry.h>
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/err.h"
#include "base/exitcodes.h"
#include "base/fs.h"
#include "pack/wacz.h"
#include "pack/wacz_sha256.h"
#include "pack/warc.h"

typedef struct {
	char *id, *url, *title;
	char *page_url, *ts;        /* its response, once found */
	char *first_url, *first_ts; /* the first response of its WARCs */
} page_t;

typedef struct {
	char *path;
	long long bytes;
	char hash[72];
} res_t;

typedef struct {
	store_t *s;
	struct archive *a;
	const char *crawl_id;
	page_t *pg;
	size_t npg, pgcap;
	char **cdx;                 /* index lines */
	size_t ncdx, cdxcap;
	size_t filecdx;             /* lines before the current WARC */
	res_t *res;
	size_t nres, rescap;
	page_t *cur;
	const char *fname;          /* the current WARC, below archive/ */
	time_t mtime;               /* of the generated entries */
} wz_t;

/* ------------------------------------------------------------ SURT */

static void
lower_add(buf_t *b, const char *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		buf_addc(b, (char)tolower((unsigned char)p[i]));
}

static int
cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

void
wacz_surt(const char *url, buf_t *out)
{
	const char *p = strstr(url, "://");
	if (!p) {
		lower_add(out, url, strlen(url));
		return;
	}
	size_t sl = p - url;
	p += 3;
	const char *ae = p + strcspn(p, "/?#");
	for (const char *q = p; q < ae; q++)
		if (*q == '@')
			p = q + 1;
	const char *he = p, *port = NULL;
	if (*p == '[') {
		while (he < ae && *he != ']')
			he++;
		if (he < ae)
			he++;
	} else {
		while (he < ae && *he != ':')
			he++;
	}
	if (he < ae && *he == ':')
		port = he + 1;
	buf_t host = {0};
	lower_add(&host, p, he - p);
	buf_cstr(&host);
	while (host.len && host.p[host.len - 1] == '.')
		host.p[--host.len] = 0;
	char *h = host.p;
	if (strncmp(h, "www", 3) == 0) {
		char *d = h + 3;
		while (isdigit((unsigned char)*d))
			d++;
		if (*d == '.' && d[1])
			h = d + 1;
	}
	if (*h == '[') {
		buf_adds(out, h);
	} else {
		/* labels right to left */
		for (char *end = h + strlen(h);;) {
			char *dot = end;
			while (dot > h && dot[-1] != '.')
				dot--;
			buf_add(out, dot, end - dot);
			if (dot == h)
				break;
			buf_addc(out, ',');
			end = dot - 1;
		}
	}
	size_t portl = port ? (size_t)(ae - port) : 0;
	int dflt = port && ((sl == 4 && !strncasecmp(url, "http", 4) && portl == 2 && !memcmp(port, "80", 2)) ||
	                    (sl == 5 && !strncasecmp(url, "https", 5) && portl == 3 && !memcmp(port, "443", 3)));
	if (port && portl && !dflt) {
		buf_addc(out, ':');
		buf_add(out, port, portl);
	}
	buf_addc(out, ')');
	buf_free(&host);
	const char *pe = ae + strcspn(ae, "?#");
	if (pe == ae)
		buf_addc(out, '/');
	lower_add(out, ae, pe - ae);
	if (*pe == '?') {
		const char *qs = pe + 1, *qe = qs + strcspn(qs, "#");
		char *q = xstrndup(qs, qe - qs);
		char **args = NULL;
		size_t na = 0;
		for (char *save = NULL, *t = strtok_r(q, "&", &save); t; t = strtok_r(NULL, "&", &save)) {
			args = xrealloc(args, (na + 1) * sizeof *args);
			args[na++] = t;
		}
		qsort(args, na, sizeof *args, cmp_str);
		buf_addc(out, '?');
		for (size_t i = 0; i < na; i++) {
			if (i)
				buf_addc(out, '&');
			lower_add(out, args[i], strlen(args[i]));
		}
		free(args);
		free(q);
	}
	buf_cstr(out);
}

/* ------------------------------------------------------------ entries */

static int
zip_fail(wz_t *w, const char *path)
{
	return store_fail(w->s, EX_CANTCREAT_, 0, "unable to write %s into the WACZ: %s", path,
	    archive_error_string(w->a) ? archive_error_string(w->a) : "unknown error");
}

static res_t *
add_res(wz_t *w, const char *path, long long bytes, sha256_t *h)
{
	if (w->nres == w->rescap) {
		w->rescap = w->rescap ? w->rescap * 2 : 16;
		w->res = xrealloc(w->res, w->rescap * sizeof *w->res);
	}
	res_t *r = &w->res[w->nres++];
	r->path = xstrdup(path);
	r->bytes = bytes;
	memcpy(r->hash, "sha256:", 7);
	sha256_hex(h, r->hash + 7);
	return r;
}

static int
entry_header(wz_t *w, const char *path, long long size, time_t mtime, int store)
{
	struct archive_entry *e = archive_entry_new();
	archive_entry_set_pathname(e, path);
	archive_entry_set_filetype(e, AE_IFREG);
	archive_entry_set_perm(e, 0644);
	archive_entry_set_size(e, size);
	archive_entry_set_mtime(e, mtime, 0);
	int ok = (store ? archive_write_zip_set_compression_store(w->a) :
	                  archive_write_zip_set_compression_deflate(w->a)) == ARCHIVE_OK &&
	         archive_write_header(w->a, e) == ARCHIVE_OK;
	archive_entry_free(e);
	return ok ? 0 : -1;
}

/* A generated entry (deflated); listed in resources unless it is the
 * digest. */
static int
add_mem(wz_t *w, const char *path, const buf_t *b, sha256_t *h, int listed)
{
	sha256_init(h);
	sha256_add(h, b->p ? b->p : "", b->len);
	if (entry_header(w, path, b->len, w->mtime, 0) < 0 ||
	    (b->len && archive_write_data(w->a, b->p, b->len) != (la_ssize_t)b->len))
		return zip_fail(w, path);
	if (listed) {
		sha256_t copy = *h;
		add_res(w, path, b->len, &copy);
	}
	return 0;
}

/* A WARC from fd (from its start), stored. */
static int
add_warc(wz_t *w, const char *path, int fd)
{
	struct stat st;
	if (fstat(fd, &st) < 0 || lseek(fd, 0, SEEK_SET) < 0)
		return store_fail(w->s, EX_IOERR_, errno, "unable to read the WARC for %s", path);
	if (entry_header(w, path, st.st_size, st.st_mtime, 1) < 0)
		return zip_fail(w, path);
	sha256_t h;
	sha256_init(&h);
	char buf[1 << 16];
	long long left = st.st_size;
	while (left > 0) {
		ssize_t n = read(fd, buf, sizeof buf < (unsigned long long)left ? sizeof buf : (size_t)left);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return store_fail(w->s, EX_IOERR_, n < 0 ? errno : EIO, "unable to read the WARC for %s", path);
		sha256_add(&h, buf, n);
		if (archive_write_data(w->a, buf, n) != n)
			return zip_fail(w, path);
		left -= n;
	}
	add_res(w, path, st.st_size, &h);
	return 0;
}

/* ------------------------------------------------------------ records */

static int
is_http(const char *u)
{
	return strncasecmp(u, "http://", 7) == 0 || strncasecmp(u, "https://", 8) == 0;
}

/* "2026-12-01T05:32:55Z" -> "20261201053255" */
static void
ts14(const char *date, char out[15])
{
	size_t k = 0;
	for (const char *p = date; *p && k < 14; p++)
		if (isdigit((unsigned char)*p))
			out[k++] = *p;
	while (k < 14)
		out[k++] = '0';
	out[14] = 0;
}

static int
same_url(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b);
	if (la == lb)
		return strcmp(a, b) == 0;
	/* http://host and http://host/ */
	if (la + 1 == lb)
		return b[lb - 1] == '/' && strncmp(a, b, la) == 0;
	if (lb + 1 == la)
		return a[la - 1] == '/' && strncmp(a, b, lb) == 0;
	return 0;
}

static int
on_record(const warc_rec_t *r, void *arg)
{
	wz_t *w = arg;
	int resp = !strcmp(r->type, "response");
	if (!(resp || !strcmp(r->type, "revisit") || !strcmp(r->type, "resource")) || !is_http(r->uri))
		return 0;
	char ts[15];
	ts14(r->date, ts);
	buf_t b = {0};
	wacz_surt(r->uri, &b);
	buf_addf(&b, " %s {\"url\":", ts);
	buf_json_strz(&b, r->uri);
	if (r->mime[0]) {
		buf_adds(&b, ",\"mime\":");
		buf_json_strz(&b, r->mime);
	}
	if (r->status)
		buf_addf(&b, ",\"status\":\"%d\"", r->status);
	if (r->digest[0]) {
		buf_adds(&b, ",\"digest\":");
		buf_json_strz(&b, r->digest);
	}
	buf_addf(&b, ",\"length\":\"%lld\",\"offset\":\"%lld\",\"filename\":", (long long)r->len,
	    (long long)r->off);
	buf_json_strz(&b, w->fname);
	buf_addc(&b, '}');
	if (w->ncdx == w->cdxcap) {
		w->cdxcap = w->cdxcap ? w->cdxcap * 2 : 256;
		w->cdx = xrealloc(w->cdx, w->cdxcap * sizeof *w->cdx);
	}
	w->cdx[w->ncdx++] = buf_cstr(&b);
	page_t *pg = w->cur;
	if (resp && !pg->ts && same_url(r->uri, pg->url)) {
		pg->page_url = xstrdup(r->uri);
		pg->ts = xstrdup(r->date);
	}
	if (resp && !pg->first_ts) {
		pg->first_url = xstrdup(r->uri);
		pg->first_ts = xstrdup(r->date);
	}
	return 0;
}

/* Forget the index lines of the current WARC (a scan to be redone). */
static void
drop_file_lines(wz_t *w)
{
	while (w->ncdx > w->filecdx)
		free(w->cdx[--w->ncdx]);
	page_t *pg = w->cur;
	free(pg->page_url), free(pg->ts), free(pg->first_url), free(pg->first_ts);
	pg->page_url = pg->ts = pg->first_url = pg->first_ts = NULL;
}

/* An unnamed temp file: in DIR/tmp (O_TMPFILE), else $TMPDIR. */
static int
anon_tmp(store_t *s)
{
	int dfd = fs_opendir(s->dfd, "tmp");
	if (dfd >= 0) {
		int fd = openat(dfd, ".", O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
		close(dfd);
		if (fd >= 0)
			return fd;
	}
	const char *t = getenv("TMPDIR");
	char path[4096];
	snprintf(path, sizeof path, "%s/abx-warc.XXXXXX", t && *t ? t : "/tmp");
	int fd = mkostemp(path, O_CLOEXEC);
	if (fd >= 0)
		unlink(path);
	return fd;
}

static int
pack_warc(wz_t *w, const char *rel, const char *plugin, const char *name)
{
	int fd = fs_open(w->s->dfd, rel, O_RDONLY | O_CLOEXEC, 0);
	if (fd < 0)
		return store_fail(w->s, EX_IOERR_, errno, "unable to open %s/%s", w->s->dir, rel);
	/* archive/<snapshot>-<plugin>-<name>, always .warc.gz */
	size_t nl = strlen(name);
	int plain = nl > 5 && strcmp(name + nl - 5, ".warc") == 0;
	char *fname = xasprintf("%s-%s-%.*s.warc.gz", w->cur->id, plugin,
	    (int)(nl - (plain ? 5 : 8)), name);
	w->fname = fname;
	w->filecdx = w->ncdx;
	int64_t good = 0;
	int src = fd, tfd = -1;
	int rc = warc_scan(fd, -1, on_record, w, NULL);
	if (rc == WARC_NOTALIGNED || rc == WARC_DAMAGED) {
		drop_file_lines(w);
		if ((tfd = anon_tmp(w->s)) < 0) {
			rc = store_fail(w->s, EX_CANTCREAT_, errno, "unable to create a temp file to re-encode %s", rel);
			goto out;
		}
		rc = warc_scan(fd, tfd, on_record, w, &good);
		src = tfd;
		if (rc == WARC_DAMAGED)
			warnx_("%s/%s: damaged after %lld bytes of whole records; its tail is left out",
			    w->s->dir, rel, (long long)good);
	}
	if (rc == WARC_IOERR) {
		rc = store_fail(w->s, EX_IOERR_, errno, "unable to read %s/%s", w->s->dir, rel);
		goto out;
	}
	rc = 0;
	if (w->ncdx == w->filecdx && (tfd < 0 ? lseek(fd, 0, SEEK_END) : good) == 0)
		goto out;   /* an empty WARC (wget killed before it wrote one) */
	char path[4096];
	snprintf(path, sizeof path, "archive/%s", fname);
	rc = add_warc(w, path, src);
out:
	w->fname = NULL;
	free(fname);
	close(fd);
	if (tfd >= 0)
		close(tfd);
	return rc;
}

static int
ends(const char *s, const char *suf)
{
	size_t a = strlen(s), b = strlen(suf);
	return a > b && strcmp(s + a - b, suf) == 0;
}

static int
is_warc_name(const char *n)
{
	return n[0] != '.' && (ends(n, ".warc.gz") || ends(n, ".warc"));
}

/* Sorted names in dir rel matching want (1: WARC files, 2: directories). */
static char **
list_dir(store_t *s, const char *rel, int want, size_t *n)
{
	*n = 0;
	int dfd = fs_opendir(s->dfd, rel);
	if (dfd < 0)
		return NULL;
	DIR *d = fdopendir(dfd);
	if (!d) {
		close(dfd);
		return NULL;
	}
	char **v = NULL;
	struct dirent *de;
	while ((de = readdir(d))) {
		struct stat st;
		if (de->d_name[0] == '.' || fstatat(dirfd(d), de->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0)
			continue;
		if (want == 2 ? !S_ISDIR(st.st_mode) : !(S_ISREG(st.st_mode) && is_warc_name(de->d_name)))
			continue;
		v = xrealloc(v, (*n + 1) * sizeof *v);
		v[(*n)++] = xstrdup(de->d_name);
	}
	closedir(d);
	if (*n)
		qsort(v, *n, sizeof *v, cmp_str);
	return v;
}

static void
free_list(char **v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(v[i]);
	free(v);
}

/* The WARCs of one snapshot: <plugin>/NAME.warc[.gz], <plugin>/warc/... */
static int
pack_snapshot(wz_t *w, page_t *pg, int *found)
{
	char sdir[256];
	snprintf(sdir, sizeof sdir, "crawls/%s/%s", w->crawl_id, pg->id);
	size_t np;
	char **plugins = list_dir(w->s, sdir, 2, &np);
	int rc = 0;
	w->cur = pg;
	*found = 0;
	for (size_t i = 0; i < np && rc == 0; i++) {
		for (int sub = 0; sub < 2 && rc == 0; sub++) {
			char dir[1024];
			snprintf(dir, sizeof dir, "%s/%s%s", sdir, plugins[i], sub ? "/warc" : "");
			size_t nf;
			char **files = list_dir(w->s, dir, 1, &nf);
			for (size_t k = 0; k < nf && rc == 0; k++) {
				char rel[2048];
				snprintf(rel, sizeof rel, "%s/%s", dir, files[k]);
				size_t before = w->nres;
				rc = pack_warc(w, rel, plugins[i], files[k]);
				*found += w->nres > before;   /* an empty WARC is none */
			}
			free_list(files, nf);
		}
	}
	free_list(plugins, np);
	return rc;
}

/* ------------------------------------------------------------ snapshots */

static void
add_page(wz_t *w, const rec_t *r)
{
	if (w->npg == w->pgcap) {
		w->pgcap = w->pgcap ? w->pgcap * 2 : 64;
		w->pg = xrealloc(w->pg, w->pgcap * sizeof *w->pg);
	}
	page_t *pg = &w->pg[w->npg++];
	memset(pg, 0, sizeof *pg);
	pg->id = rec_str(r, "id");
	pg->url = rec_str(r, "url");
	pg->title = rec_str(r, "title");
	if (!pg->url)
		pg->url = xstrdup("");
}

static int
collect_sealed(rec_t *r, void *arg)
{
	wz_t *w = arg;
	/* a removed one (abx-ctl remove) is history, whether or not its
	 * files stay: not packed, and not missed */
	if (rec_streq(r, "type", "Snapshot") && rec_streq(r, "status", "sealed") &&
	    rec_isnull(r, "deleted_at")) {
		char *id = rec_str(r, "id");
		if (id_valid(id))
			add_page(w, r);
		free(id);
	}
	return 0;
}

static int
cmp_cdx(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static void
pages_jsonl(wz_t *w, buf_t *b, const char **main_url, const char **main_ts)
{
	buf_adds(b, "{\"format\":\"json-pages-1.0\",\"id\":\"pages\",\"title\":\"All Pages\"}\n");
	*main_url = *main_ts = NULL;
	for (size_t i = 0; i < w->npg; i++) {
		page_t *pg = &w->pg[i];
		const char *url = pg->ts ? pg->page_url : pg->first_url;
		const char *ts = pg->ts ? pg->ts : pg->first_ts;
		if (!ts)
			continue;
		if (!*main_url)
			*main_url = url, *main_ts = ts;
		buf_adds(b, "{\"id\":");
		buf_json_strz(b, pg->id);
		buf_adds(b, ",\"url\":");
		buf_json_strz(b, url);
		buf_adds(b, ",\"ts\":");
		buf_json_strz(b, ts);
		if (pg->title && *pg->title) {
			buf_adds(b, ",\"title\":");
			buf_json_strz(b, pg->title);
		}
		buf_adds(b, "}\n");
	}
}

static void
datapackage(wz_t *w, const rec_t *item, const char *main_url, const char *main_ts, buf_t *b)
{
	int crawl = rec_streq(item, "type", "Crawl");
	char *label = rec_str(item, crawl ? "label" : "title");
	char *created = rec_str(item, "created_at"), *modified = rec_str(item, "modified_at");
	buf_adds(b, "{\n  \"profile\": \"data-package\",\n  \"wacz_version\": \"1.1.1\",\n  \"title\": ");
	if (label && *label) {
		buf_json_strz(b, label);
	} else if (crawl) {
		char *t = xasprintf("abx crawl of %s", main_url ? main_url : w->npg ? w->pg[0].url : "nothing");
		buf_json_strz(b, t);
		free(t);
	} else {
		buf_json_strz(b, w->npg ? w->pg[0].url : "");
	}
	buf_adds(b, ",\n  \"created\": ");
	buf_json_strz(b, created);
	buf_adds(b, ",\n  \"modified\": ");
	buf_json_strz(b, modified);
	buf_adds(b, ",\n  \"software\": \"abx (abx-seal --pack)\"");
	if (main_url) {
		buf_adds(b, ",\n  \"mainPageUrl\": ");
		buf_json_strz(b, main_url);
		buf_adds(b, ",\n  \"mainPageDate\": ");
		buf_json_strz(b, main_ts);
	}
	buf_adds(b, ",\n  \"resources\": [");
	for (size_t i = 0; i < w->nres; i++) {
		const char *base = strrchr(w->res[i].path, '/');
		buf_adds(b, i ? ",\n    {\"name\": " : "\n    {\"name\": ");
		buf_json_strz(b, base ? base + 1 : w->res[i].path);
		buf_adds(b, ", \"path\": ");
		buf_json_strz(b, w->res[i].path);
		buf_addf(b, ", \"hash\": \"%s\", \"bytes\": %lld}", w->res[i].hash, w->res[i].bytes);
	}
	buf_adds(b, "\n  ]\n}\n");
	free(label), free(created), free(modified);
}

int
wacz_write(store_t *s, const rec_t *item, struct archive *a, int *skipped)
{
	wz_t w = {.s = s, .a = a};
	char *id = rec_str(item, "id");
	char *cid = rec_str(item, rec_streq(item, "type", "Crawl") ? "id" : "crawl_id");
	w.crawl_id = cid;
	int64_t mod = 0;
	char *m = rec_str(item, "modified_at");
	if (!m || clock_parse(m, &mod) < 0)
		mod = clock_now();
	free(m);
	w.mtime = (time_t)(mod / 1000000);
	int rc = 0;
	*skipped = 0;
	if (rec_streq(item, "type", "Crawl")) {
		char j[128];
		store_crawl_journal(cid, j, sizeof j);
		unsigned nerr = s->nerr;
		store_each(s, j, "\"Snapshot\"", collect_sealed, &w);
		if (s->nerr != nerr)
			rc = -1;
	} else {
		add_page(&w, item);
	}
	const char *first_skipped = NULL;
	for (size_t i = 0; i < w.npg && rc == 0; i++) {
		int found;
		rc = pack_snapshot(&w, &w.pg[i], &found);
		if (rc == 0 && !found) {
			if (!(*skipped)++)
				first_skipped = w.pg[i].id;
		}
	}
	if (rc == 0 && *skipped)
		warnx_("%d sealed snapshot%s without a WARC left out of the WACZ (the first: %s)",
		    *skipped, *skipped == 1 ? "" : "s", first_skipped);
	buf_t b = {0};
	sha256_t h;
	if (rc == 0) {
		if (w.ncdx)
			qsort(w.cdx, w.ncdx, sizeof *w.cdx, cmp_cdx);
		for (size_t i = 0; i < w.ncdx; i++) {
			buf_adds(&b, w.cdx[i]);
			buf_addc(&b, '\n');
		}
		rc = add_mem(&w, "indexes/index.cdxj", &b, &h, 1);
	}
	const char *main_url = NULL, *main_ts = NULL;
	if (rc == 0) {
		buf_reset(&b);
		pages_jsonl(&w, &b, &main_url, &main_ts);
		rc = add_mem(&w, "pages/pages.jsonl", &b, &h, 1);
	}
	if (rc == 0) {
		buf_reset(&b);
		datapackage(&w, item, main_url, main_ts, &b);
		rc = add_mem(&w, "datapackage.json", &b, &h, 0);
	}
	if (rc == 0) {
		char hex[65];
		sha256_hex(&h, hex);
		buf_reset(&b);
		buf_addf(&b, "{\n  \"path\": \"datapackage.json\",\n  \"hash\": \"sha256:%s\"\n}\n", hex);
		rc = add_mem(&w, "datapackage-digest.json", &b, &h, 0);
	}
	buf_free(&b);
	for (size_t i = 0; i < w.ncdx; i++)
		free(w.cdx[i]);
	free(w.cdx);
	for (size_t i = 0; i < w.npg; i++) {
		page_t *pg = &w.pg[i];
		free(pg->id), free(pg->url), free(pg->title);
		free(pg->page_url), free(pg->ts), free(pg->first_url), free(pg->first_ts);
	}
	free(w.pg);
	for (size_t i = 0; i < w.nres; i++)
		free(w.res[i].path);
	free(w.res);
	free(id);
	free(cid);
	return rc < 0 ? -1 : 0;
}
