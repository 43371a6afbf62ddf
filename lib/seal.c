/*
 * seal.c — see seal.h.  Sections: collecting a snapshot's records, the
 * three index files, sealing, the crawl rule, packing, the site index.
 */
#include <archive.h>
#include <archive_entry.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "err.h"
#include "exitcodes.h"
#include "fs.h"
#include "lease.h"
#include "record.h"
#include "seal.h"
#include "url.h"

#define CHILD_BUSY_US (10 * 1000000LL)   /* a lease renewal period */

typedef struct {
	const char *sid;
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

static int
collect_result(rec_t *r, void *arg)
{
	recs_t *rs = arg;
	if ((rec_streq(r, "type", "ArchiveResult") || rec_streq(r, "type", "Process")) &&
	    rec_streq(r, "snapshot_id", rs->sid))
		recs_add(rs, r);
	return 0;
}

static int
collect_all(rec_t *r, void *arg)
{
	recs_add(arg, r);
	return 0;
}

static int
by_start(const void *a, const void *b)
{
	const rec_t *x = a, *y = b;
	int64_t p = rec_time(x, "start_ts"), q = rec_time(y, "start_ts");
	if (p != q)
		return p < q ? -1 : 1;
	char *h1 = rec_str(x, "hook_name"), *h2 = rec_str(y, "hook_name");
	int c = strcmp(h1 ? h1 : "", h2 ? h2 : "");
	free(h1), free(h2);
	return c;
}

int
seal_dir_of(const rec_t *r, char *out, size_t n)
{
	char *id = rec_str(r, "id"), *cid = rec_str(r, "crawl_id");
	int rc = -1;
	if (rec_streq(r, "type", "Crawl") && id_valid(id))
		rc = snprintf(out, n, "crawls/%s", id) < (int)n ? 0 : -1;
	else if (rec_streq(r, "type", "Snapshot") && id_valid(id) && id_valid(cid))
		rc = snprintf(out, n, "crawls/%s/%s", cid, id) < (int)n ? 0 : -1;
	free(id), free(cid);
	return rc;
}

/* ------------------------------------------------------------ HTML */

static void
html(buf_t *b, const char *s)
{
	for (; s && *s; s++) {
		switch (*s) {
		case '<': buf_adds(b, "&lt;"); break;
		case '>': buf_adds(b, "&gt;"); break;
		case '&': buf_adds(b, "&amp;"); break;
		case '"': buf_adds(b, "&quot;"); break;
		case '\'': buf_adds(b, "&#39;"); break;
		default: buf_addc(b, *s);
		}
	}
}

/* A relative link: percent-encode what a URL path cannot hold. */
static void
href(buf_t *b, const char *path)
{
	static const char hex[] = "0123456789ABCDEF";
	for (const unsigned char *p = (const unsigned char *)path; *p; p++) {
		if ((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') ||
		    strchr("/-_.~+,=:@", *p))
			buf_addc(b, *p);
		else
			buf_addf(b, "%%%c%c", hex[*p >> 4], hex[*p & 15]);
	}
}

static const char css[] =
    "body{font:15px/1.5 system-ui,sans-serif;margin:0;color:#1d2430;background:#f6f7f9}"
    "header{background:#23395d;color:#fff;padding:18px 28px}header h1{margin:0;font-size:22px}"
    "header a{color:#cfe0ff;word-break:break-all}header .meta{color:#c9d4e5}"
    "main{padding:20px 28px;max-width:1100px}"
    "table{border-collapse:collapse;width:100%;background:#fff;box-shadow:0 1px 3px #0002}"
    "th,td{text-align:left;padding:7px 10px;border-bottom:1px solid #e4e7ec;vertical-align:top}"
    "th{background:#eef1f5;font-size:13px;text-transform:uppercase;letter-spacing:.04em}"
    ".succeeded{color:#19753b;font-weight:600}.failed{color:#b42318;font-weight:600}"
    ".skipped,.noresults{color:#8a6d00}.meta{color:#556;font-size:13px}"
    "ul{margin:0;padding-left:18px}img.preview{max-width:100%;border:1px solid #ccd;margin:12px 0}"
    "code{font-size:12px;color:#556}";

static void
files_list(buf_t *b, const char *plugin, const char *files_raw)
{
	rec_t f;
	if (!files_raw || files_raw[0] != '{' || rec_parse(&f, files_raw, strlen(files_raw)) < 0)
		return;
	buf_adds(b, "<ul>");
	for (int i = 0; i < f.n && i < 200; i++) {
		char path[4096];
		snprintf(path, sizeof path, "%s/%s", plugin, f.f[i].key);
		buf_adds(b, "<li><a href=\"");
		href(b, path);
		buf_adds(b, "\">");
		html(b, f.f[i].key);
		buf_adds(b, "</a></li>");
	}
	if (f.n > 200)
		buf_addf(b, "<li>… and %d more</li>", f.n - 200);
	buf_adds(b, "</ul>");
	rec_free(&f);
}

static void
write_html(buf_t *b, const rec_t *snap, const recs_t *rs, int has_shot)
{
	char *title = rec_str(snap, "title"), *url = rec_str(snap, "url"), *st = rec_str(snap, "status");
	char *tags = rec_str(snap, "tags"), *ts = rec_str(snap, "bookmarked_at");
	buf_adds(b, "<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
	            "<meta name=\"viewport\" content=\"width=device-width,initial-scale=1\"><title>");
	html(b, title && *title ? title : url);
	buf_addf(b, "</title><style>%s</style></head><body><header><h1>", css);
	html(b, title && *title ? title : url);
	buf_adds(b, "</h1><a href=\"");
	html(b, url);
	buf_adds(b, "\">");
	html(b, url);
	buf_adds(b, "</a><div class=\"meta\">");
	html(b, st);
	buf_adds(b, " · bookmarked ");
	html(b, ts);
	if (tags && *tags) {
		buf_adds(b, " · tags: ");
		html(b, tags);
	}
	buf_addf(b, " · depth %lld · output %lld bytes</div></header><main>", rec_int(snap, "depth", 0),
	    rec_int(snap, "output_size", 0));
	if (has_shot)
		buf_adds(b, "<a href=\"screenshot/screenshot.png\"><img class=\"preview\" alt=\"screenshot\" "
		            "src=\"screenshot/screenshot.png\"></a>");
	buf_adds(b, "<table><tr><th>plugin</th><th>status</th><th>output</th><th>files</th></tr>");
	for (size_t i = 0; i < rs->n; i++) {
		const rec_t *r = &rs->v[i];
		if (!rec_streq(r, "type", "ArchiveResult"))
			continue;
		char *pl = rec_str(r, "plugin"), *hk = rec_str(r, "hook_name"), *s = rec_str(r, "status");
		char *os = rec_str(r, "output_str"), *notes = rec_str(r, "notes");
		buf_adds(b, "<tr><td>");
		html(b, pl);
		buf_adds(b, "<br><code>");
		html(b, hk);
		buf_adds(b, "</code></td><td class=\"");
		html(b, s);
		buf_adds(b, "\">");
		html(b, s);
		buf_adds(b, "</td><td>");
		html(b, os);
		if (notes && *notes) {
			buf_adds(b, "<div class=\"meta\">");
			html(b, notes);
			buf_adds(b, "</div>");
		}
		buf_adds(b, "</td><td>");
		if (pl && name_valid(pl))
			files_list(b, pl, rec_raw(r, "output_files"));
		buf_adds(b, "</td></tr>");
		free(pl), free(hk), free(s), free(os), free(notes);
	}
	buf_adds(b, "</table><p class=\"meta\"><a href=\"index.json\">index.json</a> · "
	            "<a href=\"index.jsonl\">index.jsonl</a></p></main></body></html>\n");
	free(title), free(url), free(st), free(tags), free(ts);
}

/* ------------------------------------------------------------ JSON */

static void
json_field(buf_t *b, const char *k, const char *raw, int *first)
{
	buf_adds(b, *first ? "{\n  " : ",\n  ");
	*first = 0;
	buf_json_strz(b, k);
	buf_adds(b, ": ");
	buf_adds(b, raw ? raw : "null");
}

static void
write_json(buf_t *b, const rec_t *snap, const recs_t *rs, const char *dir)
{
	static const char *keys[] = {"id", "crawl_id", "url", "timestamp", "title", "downloaded_at",
	    "bookmarked_at", "created_at", "modified_at", "retry_at", "depth", "status", "output_size", NULL};
	int first = 1, outs = 0, fails = 0;
	json_field(b, "TYPE", "\"core.models.Snapshot\"", &first);
	for (int i = 0; keys[i]; i++)
		json_field(b, keys[i], rec_raw(snap, keys[i]), &first);
	/* tags as a sorted list */
	char *tags = rec_str(snap, "tags");
	buf_t t = {0};
	buf_addc(&t, '[');
	int nt = 0;
	char *save = NULL, *dup = xstrdup(tags ? tags : "");
	char *names[256];
	for (char *x = strtok_r(dup, ",", &save); x && nt < 256; x = strtok_r(NULL, ",", &save))
		names[nt++] = x;
	for (int i = 1; i < nt; i++)
		for (int j = i; j > 0 && strcmp(names[j - 1], names[j]) > 0; j--) {
			char *tmp = names[j];
			names[j] = names[j - 1];
			names[j - 1] = tmp;
		}
	for (int i = 0; i < nt; i++) {
		if (i)
			buf_addc(&t, ',');
		buf_json_strz(&t, names[i]);
	}
	buf_addc(&t, ']');
	json_field(b, "tags", t.p, &first);
	char *url = rec_str(snap, "url");
	char host[512];
	url_host(url ? url : "", host, sizeof host);
	buf_t v = {0};
	buf_json_strz(&v, host);
	json_field(b, "domain", v.p, &first);
	buf_reset(&v);
	const char *colon = url ? strchr(url, ':') : NULL;
	buf_json_str(&v, url ? url : "", colon ? (size_t)(colon - url) : 0);
	json_field(b, "scheme", v.p, &first);
	buf_reset(&v);
	buf_json_strz(&v, dir);
	json_field(b, "output_dir", v.p, &first);
	for (size_t i = 0; i < rs->n; i++)
		if (rec_streq(&rs->v[i], "type", "ArchiveResult")) {
			outs += rec_streq(&rs->v[i], "status", "succeeded");
			fails += rec_streq(&rs->v[i], "status", "failed");
		}
	char num[32];
	snprintf(num, sizeof num, "%d", outs);
	json_field(b, "num_outputs", num, &first);
	snprintf(num, sizeof num, "%d", fails);
	json_field(b, "num_failures", num, &first);
	buf_adds(b, "\n}\n");
	free(tags), free(dup), free(url);
	buf_free(&t);
	buf_free(&v);
}

/* ----------------------------------------------------------- sealing */

/* The snapshot's index files: written in place the first time (one inode
 * each: nothing trusts them before the seal commits), by temp + rename
 * when they exist (a reseal); not synced here: the seal's commit is
 * preceded by a store barrier.  0, or -1 (s->err set). */
static int
write_files(store_t *s, const rec_t *snap, const char *dir, const rec_t *given, size_t ngiven)
{
	recs_t rs = {0}, bins = {0};
	char *sid = rec_str(snap, "id"), *cid = rec_str(snap, "crawl_id");
	char j[128], path[512];
	store_crawl_journal(cid, j, sizeof j);
	rs.sid = sid;
	if (given) {
		/* the caller has them (the records its worker printed): no
		 * scan of the crawl's journal, whose size grows with the crawl */
		for (size_t i = 0; i < ngiven; i++)
			collect_result((rec_t *)&given[i], &rs);
	} else {
		store_each(s, j, sid, collect_result, &rs);
	}
	if (rs.n)
		qsort(rs.v, rs.n, sizeof(rec_t), by_start);
	store_each(s, "binaries.jsonl", NULL, collect_all, &bins);

	buf_t b = {0};
	rec_line(snap, &b);
	buf_addc(&b, '\n');
	for (size_t i = 0; i < bins.n; i++)
		if (rec_streq(&bins.v[i], "status", "installed")) {
			rec_line(&bins.v[i], &b);
			buf_addc(&b, '\n');
		}
	/* Process records right before the result they belong to */
	for (size_t i = 0; i < rs.n; i++)
		if (rec_streq(&rs.v[i], "type", "Process")) {
			rec_line(&rs.v[i], &b);
			buf_addc(&b, '\n');
		}
	for (size_t i = 0; i < rs.n; i++)
		if (rec_streq(&rs.v[i], "type", "ArchiveResult")) {
			rec_line(&rs.v[i], &b);
			buf_addc(&b, '\n');
		}
	int rc = 0;
	if (fs_mkdirs(s->dfd, dir) < 0) {
		rc = store_fail(s, EX_CANTCREAT_, errno, "unable to create %s/%s", s->dir, dir);
		goto out;
	}
	snprintf(path, sizeof path, "%s/index.jsonl", dir);
	if (fs_write_new(s->dfd, path, b.p, b.len) < 0)
		goto fail;
	buf_reset(&b);
	write_json(&b, snap, &rs, dir);
	snprintf(path, sizeof path, "%s/index.json", dir);
	if (fs_write_new(s->dfd, path, b.p, b.len) < 0)
		goto fail;
	buf_reset(&b);
	snprintf(path, sizeof path, "%s/screenshot/screenshot.png", dir);
	write_html(&b, snap, &rs, fs_exists(s->dfd, path));
	snprintf(path, sizeof path, "%s/index.html", dir);
	if (fs_write_new(s->dfd, path, b.p, b.len) < 0)
		goto fail;
	goto out;
fail:
	rc = store_fail(s, EX_IOERR_, errno, "unable to write %s/%s", s->dir, path);
out:
	buf_free(&b);
	recs_free(&rs);
	recs_free(&bins);
	free(sid), free(cid);
	return rc;
}

/*
 * Append the snapshot's line to the site's index.jsonl, under the store
 * lock and before the seal's barrier, so the line is durable whenever the
 * sealed record is (a crash between leaves an extra line, which
 * seal_site_index shows once).  A torn last line (a crash mid-append) is
 * cut off first, so the new line never joins it.
 */
static void
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

int
seal_snapshot(store_t *s, const char *id, rec_t *out)
{
	return seal_snapshot_with(s, id, out, NULL, 0, -1);
}

/*
 * The files first, then the record: the index files are written (with the
 * sealed version), a store barrier makes them and every hook output
 * written before durable ahead of the journal line (store.h), and only
 * then is "sealed" committed.  A crash before the commit leaves the
 * snapshot unsealed with index files that the next seal rewrites.
 */
int
seal_snapshot_with(store_t *s, const char *id, rec_t *out, const rec_t *recs, size_t n, long long size)
{
	rec_t r;
	char dir[256];
	if (store_lock(s) < 0)
		return SEAL_ERR;
	fault_point("seal-locked");
	if (store_get(s, id, &r) < 0)
		return store_unlock(s) < 0 || store_failed(s) ? SEAL_ERR : SEAL_NOTFOUND;
	if (!rec_streq(&r, "type", "Snapshot")) {
		rec_free(&r);
		store_unlock(s);
		return SEAL_BADKIND;
	}
	if (rec_streq(&r, "status", "paused")) {
		rec_free(&r);
		store_unlock(s);
		return SEAL_PAUSED;
	}
	seal_dir_of(&r, dir, sizeof dir);
	int was_sealed = rec_streq(&r, "status", "sealed") && rec_isnull(&r, "retry_at") &&
	                 rec_isnull(&r, "lease");
	if (!was_sealed) {
		int64_t now = clock_now();
		record_status(&r, "sealed", -1);
		rec_set_null(&r, "lease");
		rec_del(&r, "retry_plugins");
		if (rec_isnull(&r, "downloaded_at"))
			rec_set_time(&r, "downloaded_at", now);
		rec_set_int(&r, "output_size", size >= 0 ? size : fs_du(s->dfd, dir));
	}
	if (!was_sealed)
		store_put(s, &r);   /* staged: sets modified_at, which the files show */
	int ok = write_files(s, &r, dir, recs, n) == 0;
	if (ok)
		store_barrier(s);   /* a reseal's files too: durable at the next sync */
	if (!ok) {
		store_discard(s);
	} else if (!was_sealed) {
		site_index_append(s, &r, dir);
		store_barrier(s);
		ok = store_commit(s) == 0;
	}
	if (store_unlock(s) < 0)
		ok = 0;
	if (out && ok)
		*out = r;
	else
		rec_free(&r);
	return ok ? SEAL_OK : SEAL_ERR;
}

typedef struct {
	int64_t earliest;
	int active;
} childscan_t;

int
seal_crawl(store_t *s, const char *id, rec_t *out)
{
	rec_t r;
	if (store_lock(s) < 0)
		return SEAL_ERR;
	if (store_get(s, id, &r) < 0)
		return store_unlock(s) < 0 || store_failed(s) ? SEAL_ERR : SEAL_NOTFOUND;
	if (!rec_streq(&r, "type", "Crawl")) {
		rec_free(&r);
		store_unlock(s);
		return SEAL_BADKIND;
	}
	/* the active index lists exactly the unfinished snapshots */
	ient_t *v;
	size_t n = store_active(s, "Snapshot", &v);
	childscan_t cs = {INT64_MAX, 0};
	int64_t now = clock_now();
	for (size_t i = 0; i < n; i++)
		if (strcmp(v[i].crawl_id, id) == 0 && strcmp(v[i].status, "sealed") != 0) {
			cs.active++;
			int64_t t = v[i].retry_at < 0 ? now : v[i].retry_at;
			/* due but held by a live worker elsewhere (its flock):
			 * not claimable now, so the crawl is looked at again
			 * after a renewal period, never at once (a spin) */
			if (t <= now && lease_busy(s, v[i].id))
				t = now + CHILD_BUSY_US;
			if (t < cs.earliest)
				cs.earliest = t;
		}
	free(v);
	int rc;
	if (cs.active == 0) {
		if (!rec_streq(&r, "status", "sealed") || !rec_isnull(&r, "retry_at")) {
			record_status(&r, "sealed", -1);
			rec_set_null(&r, "lease");
			store_put(s, &r);
			store_commit(s);
		}
		char j[128];
		store_crawl_journal(id, j, sizeof j);
		if (!store_failed(s))
			store_compact(s, j, 1);   /* a finished crawl keeps one line a record */
		rc = SEAL_OK;
	} else {
		if (!rec_streq(&r, "status", "paused")) {
			if (!rec_streq(&r, "status", "started"))
				rec_set_str(&r, "status", "queued");
			rec_set_time(&r, "retry_at", cs.earliest);
			rec_set_null(&r, "lease");
			store_put(s, &r);
		}
		rc = SEAL_REQUEUED;
	}
	if (store_unlock(s) < 0)
		rc = SEAL_ERR;
	if (out)
		*out = r;
	else
		rec_free(&r);
	return rc;
}

/* ------------------------------------------------------------ packing */

static int
pack_tree(store_t *s, struct archive *a, int dfd, const char *rel, const char *name)
{
	struct stat st;
	if (fstatat(dfd, rel, &st, AT_SYMLINK_NOFOLLOW) < 0)
		return -1;
	if (!S_ISDIR(st.st_mode) && !S_ISREG(st.st_mode) && !S_ISLNK(st.st_mode))
		return 0;   /* sockets, fifos, devices: not archived (a fifo would block) */
	struct archive_entry *e = archive_entry_new();
	archive_entry_set_pathname(e, name);
	archive_entry_set_mtime(e, st.st_mtime, 0);
	archive_entry_set_perm(e, st.st_mode & 07777);
	int rc = 0;
	if (S_ISLNK(st.st_mode)) {
		/* kept as a link, never followed out of the data directory */
		char target[4096];
		ssize_t n = readlinkat(dfd, rel, target, sizeof target - 1);
		if (n >= 0) {
			target[n] = 0;
			archive_entry_set_filetype(e, AE_IFLNK);
			archive_entry_set_symlink(e, target);
			if (archive_write_header(a, e) != ARCHIVE_OK)
				rc = -1;
		}
		archive_entry_free(e);
		return rc;
	}
	int fd = openat(dfd, rel, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0) {
		archive_entry_free(e);
		return -1;
	}
	if (S_ISDIR(st.st_mode)) {
		archive_entry_set_filetype(e, AE_IFDIR);
		if (archive_write_header(a, e) != ARCHIVE_OK)
			rc = -1;
		DIR *d = fdopendir(fd);
		if (!d) {
			close(fd);
			archive_entry_free(e);
			return -1;
		}
		struct dirent *de;
		char **names = NULL;
		size_t nn = 0;
		while ((de = readdir(d)))
			if (strcmp(de->d_name, ".") && strcmp(de->d_name, "..")) {
				names = xrealloc(names, (nn + 1) * sizeof(char *));
				names[nn++] = xstrdup(de->d_name);
			}
		for (size_t i = 0; i < nn; i++) {
			char child[4096];
			snprintf(child, sizeof child, "%s/%s", name, names[i]);
			if (pack_tree(s, a, dirfd(d), names[i], child) < 0)
				rc = -1;
			free(names[i]);
		}
		free(names);
		closedir(d);
	} else {
		archive_entry_set_filetype(e, AE_IFREG);
		archive_entry_set_size(e, st.st_size);
		if (archive_write_header(a, e) != ARCHIVE_OK)
			rc = -1;
		char buf[65536];
		ssize_t n;
		while (rc == 0 && (n = read(fd, buf, sizeof buf)) > 0)
			if (archive_write_data(a, buf, n) != n)
				rc = -1;
		close(fd);
	}
	archive_entry_free(e);
	return rc;
}

static int
ends(const char *s, const char *suf)
{
	size_t a = strlen(s), b = strlen(suf);
	return a >= b && strcmp(s + a - b, suf) == 0;
}

int
seal_pack(store_t *s, const char *id, const char *file)
{
	rec_t r;
	char dir[256];
	if (store_get(s, id, &r) < 0)
		return SEAL_NOTFOUND;
	if (seal_dir_of(&r, dir, sizeof dir) < 0) {
		rec_free(&r);
		return SEAL_BADKIND;
	}
	rec_free(&r);
	struct archive *a = archive_write_new();
	int ok = ARCHIVE_OK;
	if (ends(file, ".zip")) {
		ok = archive_write_set_format_zip(a);
	} else {
		ok = archive_write_set_format_pax_restricted(a);
		if (ends(file, ".tar.gz") || ends(file, ".tgz"))
			ok |= archive_write_add_filter_gzip(a);
		else if (ends(file, ".tar.zst"))
			ok |= archive_write_add_filter_zstd(a);
		else if (ends(file, ".tar.xz"))
			ok |= archive_write_add_filter_xz(a);
		else if (!ends(file, ".tar")) {
			archive_write_free(a);
			errno = EINVAL;
			return SEAL_ERR;
		}
	}
	if (ok != ARCHIVE_OK || archive_write_open_filename(a, file) != ARCHIVE_OK) {
		warnx_("%s: %s", file, archive_error_string(a));
		archive_write_free(a);
		return SEAL_ERR;
	}
	char *slash = strrchr(dir, '/');
	int pfd = -1;
	char parent[256];
	snprintf(parent, sizeof parent, "%.*s", (int)(slash - dir), dir);
	pfd = fs_opendir(s->dfd, parent);
	int rc = pfd < 0 ? -1 : pack_tree(s, a, pfd, slash + 1, slash + 1);
	if (pfd >= 0)
		close(pfd);
	if (archive_write_close(a) != ARCHIVE_OK) {
		warnx_("%s: %s", file, archive_error_string(a));
		rc = -1;
	}
	archive_write_free(a);
	if (rc < 0)
		unlink(file);   /* no partial archive left behind */
	return rc < 0 ? SEAL_ERR : SEAL_OK;
}

/* --------------------------------------------------------- site index */

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
		html(b, bk ? bk : "");
		buf_adds(b, "</td><td><a href=\"");
		if (p) {
			href(b, p);
			buf_adds(b, "/index.html");
		}
		buf_adds(b, "\">");
		html(b, t && *t ? t : u);
		buf_adds(b, "</a></td><td><a href=\"");
		html(b, u);
		buf_adds(b, "\">");
		html(b, u);
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
	    title, css, title, total);
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
