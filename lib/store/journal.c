/*
 * journal.c — the journals, see store.h for the protocol: torn-tail repair,
 * reading a line at an offset, scanning (store_each, journal_find), replay
 * of tails the index missed (journal_sync), opening for append, rebuild of
 * the index and compaction.  Internal functions are declared in
 * store_int.h.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/err.h"
#include "base/exitcodes.h"
#include "base/fs.h"
#include "base/fsretry.h"
#include "store/store_int.h"
#include "store/storefd.h"

/* ------------------------------------------------------------- journals */

int
store_is_top(const char *j)
{
	return strcmp(j, "crawls.jsonl") == 0 || strcmp(j, "schedules.jsonl") == 0 ||
	    strcmp(j, "binaries.jsonl") == 0;
}

/*
 * Cut a torn tail off an append-only file we hold the lock for.  The
 * fragment is kept in "<rel>.torn" so nothing is dropped silently.  Only
 * what follows the last newline is ever cut: a read that fails or comes
 * back short leaves the file alone (and is an error), it never moves the
 * cut point.  known: the file's fstat if the caller has it (its size is
 * set to the cut), else NULL; clean: a size at which the file is known to
 * end with a newline (what this process read or wrote of it), or -1: at
 * that size nothing is read.  1 cut, 0 nothing to cut, -1 an error
 * (s->err set).
 */
int
repair_tail(store_t *s, int fd, const char *rel, int keep, struct stat *known, int64_t clean)
{
	struct stat sb, *stp = known ? known : &sb;
	if (!known && jfd_stat(s, fd, &sb) < 0)
		return store_fail(s, EX_IOERR_, errno, "unable to stat %s/%s", s->dir, rel);
	struct stat st = *stp;
	if (st.st_size == 0 || st.st_size == clean)
		return 0;
	char c;
	ssize_t r = pread(fd, &c, 1, st.st_size - 1);
	if (r != 1)
		return store_fail(s, EX_IOERR_, r < 0 ? errno : EIO, "unable to read %s/%s", s->dir, rel);
	if (c == '\n')
		return 0;
	off_t end = st.st_size, pos = end;
	char chunk[4096];
	off_t cut = 0;
	while (pos > 0) {
		off_t from = pos > (off_t)sizeof chunk ? pos - (off_t)sizeof chunk : 0;
		ssize_t n = pread(fd, chunk, pos - from, from);
		if (n != pos - from)
			return store_fail(s, EX_IOERR_, n < 0 ? errno : EIO,
			    "unable to read %s/%s to repair its torn last line", s->dir, rel);
		char *nl = memrchr(chunk, '\n', n);
		if (nl) {
			cut = from + (nl - chunk) + 1;
			break;
		}
		pos = from;
	}
	size_t fraglen = end - cut;
	if (keep) {
		char torn[256];
		snprintf(torn, sizeof torn, "%s.torn", rel);
		int tfd = fs_open(s->dfd, torn, O_WRONLY | O_APPEND | O_CREAT, 0644);
		char *frag = xmalloc(fraglen + 1);
		ssize_t n = pread(fd, frag, fraglen, cut);
		int saved = tfd >= 0 && n == (ssize_t)fraglen;
		if (saved) {
			frag[n] = '\n';
			saved = write(tfd, frag, n + 1) == n + 1 && (!s->durable || fdatasync(tfd) == 0);
		}
		if (tfd >= 0)
			close(tfd);
		free(frag);
		if (!saved)
			return store_fail(s, EX_IOERR_, errno, "unable to save the torn last line of %s/%s "
			    "into %s; left as it is", s->dir, rel, torn);
		warnx_("%s/%s: torn last line at offset %lld (%zu bytes, a writer died mid-write) "
		       "moved to %s and cut off", s->dir, rel, (long long)cut, fraglen, torn);
	}
	jfd_changed(s);
	if (ftruncate(fd, cut) < 0)
		return store_fail(s, EX_IOERR_, errno, "unable to repair %s/%s", s->dir, rel);
	stp->st_size = cut;
	return 1;
}

void
entry_journal(const ient_t *e, char *out, size_t n)
{
	if (strcmp(e->type, "Crawl") == 0)
		snprintf(out, n, "crawls.jsonl");
	else if (strcmp(e->type, "CrawlSchedule") == 0)
		snprintf(out, n, "schedules.jsonl");
	else if (strcmp(e->type, "Binary") == 0)
		snprintf(out, n, "binaries.jsonl");
	else
		store_crawl_journal(e->crawl_id, out, n);
}

/* Read the line starting at off; 0 ok, -1 none. */
int
read_line_at(int fd, int64_t off, buf_t *out)
{
	buf_reset(out);
	char chunk[4096];
	for (;;) {
		ssize_t n = pread(fd, chunk, sizeof chunk, off);
		if (n <= 0)
			return -1;
		char *nl = memchr(chunk, '\n', n);
		if (nl) {
			buf_add(out, chunk, nl - chunk);
			return 0;
		}
		buf_add(out, chunk, n);
		off += n;
	}
}

typedef struct {
	char id[ID_LEN + 1];
	int64_t off;
	size_t first;         /* order of first appearance */
} jent_t;

typedef struct {
	jent_t *v;
	size_t n, cap;
	size_t *slot;         /* open hash of indices into v, +1 */
	size_t scap;
} jmap_t;

static jent_t *
jmap_get(jmap_t *m, const char *id)
{
	if ((m->n + 1) * 2 > m->scap) {
		size_t ncap = m->scap ? m->scap * 2 : 256;
		free(m->slot);
		m->slot = xcalloc(ncap, sizeof(size_t));
		m->scap = ncap;
		for (size_t i = 0; i < m->n; i++) {
			size_t h = hash_id(m->v[i].id) & (ncap - 1);
			while (m->slot[h])
				h = (h + 1) & (ncap - 1);
			m->slot[h] = i + 1;
		}
	}
	size_t h = hash_id(id) & (m->scap - 1);
	while (m->slot[h]) {
		jent_t *e = &m->v[m->slot[h] - 1];
		if (strcmp(e->id, id) == 0)
			return e;
		h = (h + 1) & (m->scap - 1);
	}
	if (m->n == m->cap) {
		m->cap = m->cap ? m->cap * 2 : 256;
		m->v = xrealloc(m->v, m->cap * sizeof(jent_t));
	}
	jent_t *e = &m->v[m->n];
	memset(e, 0, sizeof *e);
	snprintf(e->id, sizeof e->id, "%s", id);
	e->first = m->n;
	m->slot[h] = ++m->n;
	return e;
}

/* Extract "id":"<uuid>" from a record line cheaply, without a full parse.
 * Our writer always puts "type" then "id" first, but a hand-appended line
 * may not: fall back to parsing. */
int
line_id(const char *p, size_t n, char id[ID_LEN + 1])
{
	const char *k = memmem(p, n > 64 ? 64 : n, "\"id\":\"", 6);
	if (k && (size_t)(k - p) + 6 + ID_LEN < n && k[6 + ID_LEN] == '"') {
		memcpy(id, k + 6, ID_LEN);
		id[ID_LEN] = 0;
		if (id_valid(id))
			return 0;
	}
	rec_t r;
	if (rec_parse(&r, p, n) < 0)
		return -1;
	char *v = rec_str(&r, "id");
	int ok = id_valid(v);
	if (ok)
		memcpy(id, v, ID_LEN + 1);
	free(v);
	rec_free(&r);
	return ok ? 0 : -1;
}

/*
 * Map id -> offset of the latest line, for the lines of a journal that
 * contain filter (all if NULL).  Malformed lines are reported.  Returns the
 * file contents in *data (the caller frees) or -1 if it does not exist.
 */
static int
journal_map(store_t *s, const char *journal, const char *filter, jmap_t *m, buf_t *data)
{
	memset(m, 0, sizeof *m);
	memset(data, 0, sizeof *data);
	if (fsr_read(s->dfd, journal, data) < 0) {
		int e = errno;
		buf_free(data);
		if (e != ENOENT)
			store_fail(s, EX_IOERR_, e, "unable to read %s/%s", s->dir, journal);
		return -1;
	}
	size_t flen = filter ? strlen(filter) : 0;
	char *q = data->p, *end = data->p + data->len;
	long lineno = 0;
	while (q < end) {
		char *nl = memchr(q, '\n', end - q);
		lineno++;
		if (!nl)
			break;   /* trailing partial line: a write in progress or torn */
		size_t n = nl - q;
		if (n && (!filter || memmem(q, n, filter, flen))) {
			char id[ID_LEN + 1];
			if (line_id(q, n, id) < 0)
				warnx_("%s/%s:%ld: malformed record skipped", s->dir, journal, lineno);
			else
				jmap_get(m, id)->off = q - data->p;
		}
		q = nl + 1;
	}
	return 0;
}

static void
jmap_free(jmap_t *m)
{
	free(m->v);
	free(m->slot);
}

int
store_each(store_t *s, const char *journal, const char *filter, store_each_fn fn, void *arg)
{
	jmap_t m;
	buf_t data;
	if (journal_map(s, journal, filter, &m, &data) < 0)
		return -1;
	int rc = 0;
	for (size_t i = 0; i < m.n && rc == 0; i++) {
		char *p = data.p + m.v[i].off;
		char *nl = memchr(p, '\n', data.p + data.len - p);
		rec_t r;
		if (rec_parse(&r, p, nl - p) < 0) {
			warnx_("%s/%s: malformed record %s skipped", s->dir, journal, m.v[i].id);
			continue;
		}
		rc = fn(&r, arg);
		rec_free(&r);
	}
	jmap_free(&m);
	buf_free(&data);
	return rc;
}

/* Find id's latest version by scanning a journal. */
int
journal_find(store_t *s, const char *journal, const char *id, rec_t *out, int64_t *offp)
{
	jmap_t m;
	buf_t data;
	if (journal_map(s, journal, id, &m, &data) < 0)
		return -1;
	int rc = -1;
	for (size_t i = 0; i < m.n; i++)
		if (strcmp(m.v[i].id, id) == 0) {
			char *p = data.p + m.v[i].off;
			char *nl = memchr(p, '\n', data.p + data.len - p);
			if (rec_parse(out, p, nl - p) == 0) {
				rc = 0;
				if (offp)
					*offp = m.v[i].off;
			}
			break;
		}
	jmap_free(&m);
	buf_free(&data);
	return rc;
}

/*
 * Replay the lines of journal j that the index does not know yet (a crash
 * between a journal write and its state line, or a line appended by hand
 * under the lock).  A journal shorter than its known end was replaced or
 * truncated: it is replayed whole.  Under the lock the corrections are
 * appended to the index too.  Returns 1 if the index changed.
 */
int
journal_sync(store_t *s, const char *j)
{
	jstate_t *st = jstate(s, j, 0);
	struct stat sb;
	int fd = jfd_open(s, j, 0, 0, &sb);
	if (fd < 0)
		return 0;
	/* a reader without the lock goes on from what it replayed before; a
	 * locker from what the index file holds, so that what a reader saw
	 * (a commit whose index lines a crash lost) is written to it too */
	int64_t known = !st ? 0 : s->locked || st->seen < st->end ? st->end : st->seen;
	if (st && sb.st_size == known)
		return 0;
	int64_t from = st && sb.st_size > known ? known : 0;
	size_t n = sb.st_size - from;
	char *p = xmalloc(n + 1);
	ssize_t got = pread(fd, p, n, from);
	int e = errno;
	if (got < 0) {
		jfd_forget(s, j);   /* replaced: the path is opened again next time */
		/* the hints for this journal stay as they are; lookups check
		 * (ESTALE: replaced since the open, by another host) */
		free(p);
		if (e != ESTALE)
			store_fail(s, EX_IOERR_, e, "unable to read %s/%s", s->dir, j);
		return 0;
	}
	buf_t b = {0};
	char *q = p, *end = p + got;
	int changed = 0;
	/* what each touched entry was before: a replay that ends where the
	 * index already was (lines a worker appended, a journal replayed
	 * from its start) repaired nothing and says nothing */
	jmap_t seen = {0};
	ient_t *pre = NULL;
	size_t npre = 0;
	while (q < end) {
		char *nl = memchr(q, '\n', end - q);
		if (!nl)
			break;
		rec_t r;
		if (nl > q && rec_parse(&r, q, nl - q) == 0) {
			char *id = rec_str(&r, "id");
			ient_t *e = id_valid(id) ? index_slot(s, id, 0) : NULL;
			char t[16] = "";
			char *type = rec_str(&r, "type");
			snprintf(t, sizeof t, "%s", type ? type : "");
			free(type);
			int indexable = !strcmp(t, "Crawl") || !strcmp(t, "Snapshot") || !strcmp(t, "Binary") ||
			                !strcmp(t, "CrawlSchedule");
			/* a final version the store did not write (by hand, under
			 * the lock) gets its location hint too */
			if (s->locked && id_valid(id) && !record_is_active(&r)) {
				if (!strcmp(t, "Crawl") && !strcmp(j, "crawls.jsonl"))
					crawl_loc_write(s, id, from + (q - p));
				else if (!strcmp(t, "Snapshot") && !strncmp(j, "crawls/", 7))
					snap_loc_write(s, id, j + 7);
			}
			if (id_valid(id) && indexable && (record_is_active(&r) || (e && e->live))) {
				jent_t *je = jmap_get(&seen, id);
				if (je->first == npre) {
					pre = xrealloc(pre, (npre + 1) * sizeof *pre);
					memset(&pre[npre], 0, sizeof *pre);
					if (e)
						pre[npre] = *e;
					snprintf(pre[npre].id, sizeof pre[npre].id, "%s", id);
					npre++;
				}
				index_set_from(s, &r, from + (q - p));
				if (s->locked)
					index_line(s, &b, index_slot(s, id, 0));
				changed = 1;
			}
			free(id);
			rec_free(&r);
		}
		q = nl + 1;
	}
	int64_t nend = from + (q - p);
	free(p);
	jstate_t *js = jstate(s, j, 1);
	js->seen = nend;
	if (s->locked)
		js->end = nend;
	if (s->locked) {
		state_line(&b, j, nend);
		index_append(s, &b);
	}
	int repaired = 0;
	for (size_t i = 0; i < npre && changed; i++) {
		ient_t *e = index_slot(s, pre[i].id, 0), *o = &pre[i];
		if (!e || e->live != o->live)
			repaired |= !e ? o->live : 1;
		else if (e->live)
			repaired |= e->off != o->off || e->retry_at != o->retry_at || e->lease != o->lease ||
			            strcmp(e->status, o->status) != 0;
	}
	free(pre);
	jmap_free(&seen);
	changed = repaired;
	/* said only under the lock, after the index file was read: without
	 * it, this process's copy may only lag behind the file */
	if (changed && s->locked && err_verbose(-1))
		info("%s/%s: %lld bytes the index did not know were replayed", s->dir, j,
		    (long long)(nend - from));
	buf_free(&b);
	return changed;
}

/* Make the directories of a new journal, durably: its name must be as
 * durable as the lines about to be synced into it. */
static int
journal_mkdirs(store_t *s, const char *j)
{
	char dir[128];
	snprintf(dir, sizeof dir, "%s", j);
	char *sl = strrchr(dir, '/');
	if (!sl)
		return 0;
	*sl = 0;
	if (fs_mkdirs(s->dfd, dir) < 0)
		return store_fail(s, EX_CANTCREAT_, errno, "unable to create %s/%s", s->dir, dir);
	return 0;
}

static int
journal_sync_dirs(store_t *s, const char *j)
{
	char dir[128];
	snprintf(dir, sizeof dir, "%s", j);
	char *sl = strrchr(dir, '/');
	int rc = 0;
	if (sl) {
		*sl = 0;
		rc |= fs_fsync_dir(s->dfd, dir);
		sl = strrchr(dir, '/');
		if (sl)
			*sl = 0;
		rc |= fs_fsync_dir(s->dfd, sl ? dir : "");
	} else {
		rc |= fs_fsync_dir(s->dfd, "");
	}
	return rc < 0 ? store_fail(s, EX_IOERR_, errno, "unable to sync the directory of %s/%s", s->dir, j) : 0;
}

/* Open a journal to append (created if new, its torn tail cut); the fd,
 * kept and pinned (storefd.h: the caller unpins it, never closes it), or
 * -1 with s->err set. */
int
journal_open_append(store_t *s, const char *j)
{
	int fd = jfd_open(s, j, 1, 0, NULL);
	if (fd < 0 && errno == ENOENT) {
		if (journal_mkdirs(s, j) < 0)
			return -1;
		fd = fs_open(s->dfd, j, O_RDWR | O_APPEND | O_CREAT, 0644);
		if (fd >= 0 && s->durable && journal_sync_dirs(s, j) < 0) {
			close(fd);
			return -1;
		}
		if (fd >= 0) {
			close(fd);
			fd = jfd_open(s, j, 1, FSR_EXISTED, NULL);
		}
	}
	if (fd < 0)
		return store_fail(s, errno == ENOENT || errno == EACCES ? EX_CANTCREAT_ : EX_IOERR_, errno,
		    "unable to open %s/%s", s->dir, j);
	jfd_pin(s, fd);
	jstate_t *js = jstate(s, j, 0);
	if (repair_tail(s, fd, j, 1, NULL, js ? js->end : -1) < 0)
		return -1;
	return fd;
}

/* ------------------------------------------------- rebuild and compaction */

typedef struct {
	store_t *s;
	buf_t *b;
	const char *journal;
	jmap_t *m;
} rebuildctx_t;

static int
rebuild_journal(store_t *s, const char *j, buf_t *b, char ***crawls, size_t *ncrawls)
{
	jmap_t m;
	buf_t data;
	if (journal_map(s, j, NULL, &m, &data) < 0)
		return -1;
	for (size_t i = 0; i < m.n; i++) {
		char *p = data.p + m.v[i].off;
		char *nl = memchr(p, '\n', data.p + data.len - p);
		rec_t r;
		if (rec_parse(&r, p, nl - p) < 0)
			continue;
		if (record_is_active(&r)) {
			index_set_from(s, &r, m.v[i].off);
			index_line(s, b, index_slot(s, m.v[i].id, 0));
		}
		if (crawls && rec_streq(&r, "type", "Crawl") && record_is_active(&r)) {
			*crawls = xrealloc(*crawls, sizeof(char *) * (*ncrawls + 1));
			(*crawls)[(*ncrawls)++] = xstrdup(m.v[i].id);
		}
		rec_free(&r);
	}
	char *last = data.len ? memrchr(data.p, '\n', data.len) : NULL;
	int64_t end = last ? last - data.p + 1 : 0;
	jstate_t *js = jstate(s, j, 1);
	js->end = js->seen = end;
	state_line(b, j, end);
	jmap_free(&m);
	buf_free(&data);
	return 0;
}

int
store_rebuild_index(store_t *s)
{
	int had = s->locked;
	if (!had) {
		while (flock(s->lockfd, LOCK_EX) < 0)
			if (errno != EINTR)
				return store_fail(s, EX_IOERR_, errno, "unable to lock %s/locks/store.lock", s->dir);
		s->locked = 1;
		jfd_changed(s);
	}
	unsigned nerr = s->nerr;
	index_drop(s);
	buf_t b = {0};
	index_header(s, &b);
	char **crawls = NULL;
	size_t ncrawls = 0;
	rebuild_journal(s, "crawls.jsonl", &b, &crawls, &ncrawls);
	rebuild_journal(s, "schedules.jsonl", &b, NULL, NULL);
	rebuild_journal(s, "binaries.jsonl", &b, NULL, NULL);
	/* an active crawl's journal holds its active snapshots; a sealed
	 * crawl has none (seal and cancel see to it) */
	for (size_t i = 0; i < ncrawls; i++) {
		char j[128];
		store_crawl_journal(crawls[i], j, sizeof j);
		rebuild_journal(s, j, &b, NULL, NULL);
		free(crawls[i]);
	}
	free(crawls);
	fault_point("index-rebuild-before-rename");
	if (s->nerr != nerr) {
		/* a journal could not be read: an index without its records
		 * would hide them; keep the one there is */
		index_drop(s);
	} else if (fs_mkdirs(s->dfd, "index") < 0 || index_replace(s, &b) < 0) {
		store_fail(s, EX_IOERR_, errno, "unable to write %s/%s", s->dir, INDEX_PATH);
		index_drop(s);
	} else {
		index_adopt(s);
	}
	buf_free(&b);
	if (!had) {
		flock(s->lockfd, LOCK_UN);
		s->locked = 0;
		jfd_changed(s);
	}
	return s->nerr != nerr ? -1 : 0;
}

int
store_check_journal(store_t *s, const char *journal)
{
	if (!s->locked)
		return store_fail(s, EX_SOFT_, 0, "internal error: store_check_journal without the store lock");
	int fd = fs_open(s->dfd, journal, O_RDWR | O_APPEND, 0);
	if (fd < 0)
		return 0;
	int cut = repair_tail(s, fd, journal, 1, NULL, -1);
	close(fd);
	return cut;
}

int
store_compact(store_t *s, const char *journal, int force)
{
	if (!s->locked)
		return store_fail(s, EX_SOFT_, 0, "internal error: store_compact without the store lock");
	if (store_commit(s) < 0)
		return -1;
	if (!fs_exists(s->dfd, journal))
		return 0;
	int fd = journal_open_append(s, journal);   /* repairs a torn tail */
	jfd_unpin_all(s);
	if (fd < 0)
		return -1;
	jmap_t m;
	buf_t data;
	if (journal_map(s, journal, NULL, &m, &data) < 0)
		return 0;
	size_t live = 0;
	for (size_t i = 0; i < m.n; i++) {
		char *p = data.p + m.v[i].off;
		live += (char *)memchr(p, '\n', data.p + data.len - p) - p + 1;
	}
	int rc = 0;
	const char *mins = getenv("ABX_COMPACT_MIN");
	size_t min = mins ? strtoul(mins, NULL, 10) : 65536;
	if (force ? live < data.len : data.len > 2 * live + min) {
		buf_t out = {0}, idx = {0};
		for (size_t i = 0; i < m.n; i++) {
			char *p = data.p + m.v[i].off;
			char *nl = memchr(p, '\n', data.p + data.len - p);
			int64_t noff = out.len;
			buf_add(&out, p, nl - p + 1);
			ient_t *e = index_slot(s, m.v[i].id, 0);
			if (e && e->live) {
				e->off = noff;
				index_line(s, &idx, e);
			}
		}
		fault_point("compact-before-rename");
		/* a top-level journal: noted in the index before it changes
		 * (store_is_top): the next locker replays it whole if the
		 * lines below are lost */
		buf_t pre = {0};
		if (store_is_top(journal)) {
			jstate_t *ps = jstate(s, journal, 0);
			state_line(&pre, journal, ps ? ps->end : 0);
		}
		int noted = index_note(s, &pre, "index-note-half-line");
		buf_free(&pre);
		if (noted < 0 || fs_replace(s->dfd, journal, out.p, out.len, s->durable) < 0) {
			/* the journal stays as it was; so does the index */
			store_fail(s, EX_IOERR_, errno, "unable to compact %s/%s", s->dir, journal);
			index_drop(s);
			index_refresh(s);
			buf_free(&out);
			buf_free(&idx);
			jmap_free(&m);
			buf_free(&data);
			return -1;
		}
		jfd_forget(s, journal);   /* the old file's descriptor */
		fault_point("compact-after-rename");
		jstate_t *js = jstate(s, journal, 1);
		js->end = js->seen = out.len;
		state_line(&idx, journal, out.len);
		index_append(s, &idx);
		/* the index that says where the rewritten journal's lines are
		 * is made durable (and its name, if a rewrite renamed it): an
		 * index of before, which another boot may reuse (index.c),
		 * would replay the new file from an end of the old one */
		if (s->durable && (s->idxfd < 0 || fdatasync(s->idxfd) < 0 || fs_fsync_dir(s->dfd, "index") < 0))
			warnsys("unable to sync %s/%s after compacting %s (another boot may rebuild it)", s->dir,
			    INDEX_PATH, journal);
		buf_free(&out);
		buf_free(&idx);
		rc = 1;
	}
	jmap_free(&m);
	buf_free(&data);
	return rc;
}
