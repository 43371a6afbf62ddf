/*
 * storeloc.c — location hints of finished records (index/loc/, below), so
 * that a lookup by id of a record no longer in the active index reads a
 * few lines.  Part of the store (store_int.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/err.h"
#include "base/fs.h"
#include "store/store_int.h"

/*
 * Location hints of finished records, so that a lookup by id reads a few
 * lines, not the journal of every crawl: index/loc/<the first 8 hex
 * digits of the id>.jsonl, the bucket of the 65 seconds the id was made
 * in (ids are UUIDv7: they begin with the time), holds a line for each
 * final commit of a record made then:
 *   {"id":C,"off":N}            a Crawl: the offset of its line in
 *                               crawls.jsonl;
 *   {"id":S,"crawl_id":C}       a Snapshot: its crawl (whose journal is
 *                               then read).
 * The last line of an id is the one used.  A hint is appended before the
 * line it speaks of: a crash leaves a hint naming a line that is not
 * there, or another record's, which the lookup checks (and then scans as
 * before); a compaction of crawls.jsonl makes the offsets stale in the
 * same, checked, way.  Not synced: a hint lost costs a scan.
 */
static void
loc_append(store_t *s, const char *id, const char *line, size_t n)
{
	char rel[64];
	snprintf(rel, sizeof rel, "index/loc/%.8s.jsonl", id);
	int fd = fs_open(s->dfd, rel, O_WRONLY | O_APPEND | O_CREAT, 0644);
	if (fd < 0 && errno == ENOENT && fs_mkdirs(s->dfd, "index/loc") == 0)
		fd = fs_open(s->dfd, rel, O_WRONLY | O_APPEND | O_CREAT, 0644);
	if (fd < 0 || write(fd, line, n) != (ssize_t)n)
		warnsys("unable to append to %s/%s (a hint: a lookup of %s by id scans for it)", s->dir, rel, id);
	if (fd >= 0)
		close(fd);
}

/* The text after {"id":"<id>","KEY": on the last line of id, into out
 * (up to the closing brace); 0, or -1 if there is none. */
static int
loc_last(store_t *s, const char *id, const char *key, char *out, size_t n)
{
	char rel[64], pat[96];
	buf_t b = {0};
	snprintf(rel, sizeof rel, "index/loc/%.8s.jsonl", id);
	if (fs_read(s->dfd, rel, &b) < 0) {
		buf_free(&b);
		return -1;
	}
	snprintf(pat, sizeof pat, "{\"id\":\"%s\",\"%s\":", id, key);
	size_t pl = strlen(pat);
	int rc = -1;
	for (char *q = b.p, *end = b.p + b.len, *nl; q < end && (nl = memchr(q, '\n', end - q)); q = nl + 1)
		if ((size_t)(nl - q) > pl + 1 && memcmp(q, pat, pl) == 0 && nl[-1] == '}' &&
		    (size_t)(nl - q - pl - 1) < n) {
			memcpy(out, q + pl, nl - q - pl - 1);
			out[nl - q - pl - 1] = 0;
			rc = 0;
		}
	buf_free(&b);
	return rc;
}

void
crawl_loc_write(store_t *s, const char *id, int64_t off)
{
	char line[128];
	int n = snprintf(line, sizeof line, "{\"id\":\"%s\",\"off\":%lld}\n", id, (long long)off);
	loc_append(s, id, line, n);
}

int
crawl_loc_get(store_t *s, const char *id, rec_t *out)
{
	char v[32];
	if (loc_last(s, id, "off", v, sizeof v) < 0)
		return -1;
	char *e;
	long long off = strtoll(v, &e, 10);
	if (e == v || *e || off < 0)
		return -1;
	int fd = fs_open(s->dfd, "crawls.jsonl", O_RDONLY, 0);
	if (fd < 0)
		return -1;
	int rc = -1;
	char lid[ID_LEN + 1];
	buf_t line = {0};
	/* the line must start at off (the line before ends there) */
	char before = '\n';
	if ((off == 0 || pread(fd, &before, 1, off - 1) == 1) && before == '\n' &&
	    read_line_at(fd, off, &line) == 0 && line_id(line.p, line.len, lid) == 0 &&
	    strcmp(lid, id) == 0 && rec_parse(out, line.p, line.len) == 0) {
		if (rec_streq(out, "type", "Crawl") && record_is_final(out))
			rc = 0;
		else
			rec_free(out);
	}
	close(fd);
	buf_free(&line);
	return rc;
}

void
snap_loc_write(store_t *s, const char *id, const char *crawl_id)
{
	char line[128];
	int n = snprintf(line, sizeof line, "{\"id\":\"%s\",\"crawl_id\":\"%.36s\"}\n", id, crawl_id);
	loc_append(s, id, line, n);
}

int
store_snap_was_final(store_t *s, const char *id)
{
	char v[64];
	return loc_last(s, id, "crawl_id", v, sizeof v) == 0;
}

int
snap_loc_get(store_t *s, const char *id, rec_t *out)
{
	char v[64];
	if (loc_last(s, id, "crawl_id", v, sizeof v) < 0 || strlen(v) != ID_LEN + 2 || v[0] != '"')
		return -1;
	char cid[ID_LEN + 1], j[128];
	memcpy(cid, v + 1, ID_LEN);
	cid[ID_LEN] = 0;
	if (!id_valid(cid))
		return -1;
	store_crawl_journal(cid, j, sizeof j);
	return journal_find(s, j, id, out, NULL);
}
