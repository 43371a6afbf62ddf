/*
 * store.c — see store.h for the protocol.  Sections: opening, records,
 * transactions (lock, get, put, commit, sync) and queries.  The active index
 * is in index.c, journals, rebuild and compaction in journal.c; what the
 * three share is declared in store_int.h.
 */
#include <errno.h>
#include <stdarg.h>
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
#include "store/fscheck.h"
#include "base/fsretry.h"
#include "store/store_int.h"

struct pending {
	char journal[128];
	char id[ID_LEN + 1];
	rec_t rec;
	int active;
};

#define CONF_DEFAULT \
	"# abx.conf — settings of this data directory, KEY=value, one a line.\n" \
	"# See abx(7) and abx-tick(1).  Environment variables override these.\n" \
	"# TIMEOUT=60\n# CRAWL_MAX_CONCURRENT_SNAPSHOTS=4\n# DELETE_AFTER=0\n"

/* ---------------------------------------------------------------- open */

const char *
store_default_dir(void)
{
	static char buf[4096];
	const char *d = getenv("ABX_DIR");
	if (d && *d)
		return d;
	const char *x = getenv("XDG_DATA_HOME");
	const char *h = getenv("HOME");
	if (x && *x)
		snprintf(buf, sizeof buf, "%s/abx", x);
	else
		snprintf(buf, sizeof buf, "%s/.local/share/abx", h && *h ? h : ".");
	return buf;
}

static void
read_boot_id(store_t *s)
{
	/* the power-loss tests simulate a reboot with a boot id of their own */
	const char *fake = getenv("ABX_TEST_BOOT_ID");
	if (fake && *fake) {
		snprintf(s->boot_id, sizeof s->boot_id, "%s", fake);
		return;
	}
	int fd = open("/proc/sys/kernel/random/boot_id", O_RDONLY | O_CLOEXEC);
	ssize_t n = fd >= 0 ? read(fd, s->boot_id, sizeof s->boot_id - 1) : -1;
	if (fd >= 0)
		close(fd);
	if (n <= 0)
		n = 0;
	s->boot_id[n] = 0;
	char *nl = strchr(s->boot_id, '\n');
	if (nl)
		*nl = 0;
	if (!*s->boot_id)
		strcpy(s->boot_id, "unknown");
}

/* fsync the directory that holds path (a directory just made in it). */
static int
sync_parent(store_t *s, const char *path)
{
	if (!s->durable)
		return 0;
	char parent[4096];
	snprintf(parent, sizeof parent, "%s", path);
	size_t n = strlen(parent);
	while (n > 1 && parent[n - 1] == '/')
		parent[--n] = 0;
	char *sl = strrchr(parent, '/');
	if (!sl)
		snprintf(parent, sizeof parent, ".");
	else if (sl == parent)
		parent[1] = 0;
	else
		*sl = 0;
	int fd = open(parent, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0 || fsync(fd) < 0) {
		int e = errno;
		if (fd >= 0)
			close(fd);
		return store_fail(s, EX_IOERR_, e, "unable to sync %s (making %s)", parent, path);
	}
	close(fd);
	return 0;
}

static int
make_dirs(store_t *s)
{
	static const char *dirs[] = {"crawls", "locks", "index", "tmp", NULL};
	int made = 0;
	for (int i = 0; dirs[i]; i++) {
		made |= !fs_exists(s->dfd, dirs[i]);
		if (fs_mkdirs(s->dfd, dirs[i]) < 0)
			return store_fail(s, EX_CANTCREAT_, errno, "unable to create %s/%s", s->dir, dirs[i]);
	}
	if (made && s->durable && fs_fsync_dir(s->dfd, "") < 0)
		return store_fail(s, EX_IOERR_, errno, "unable to sync %s", s->dir);
	return 0;
}

/* abx.conf made on first use, durably: it is what marks a data dir. */
static int
make_conf(store_t *s)
{
	if (fs_exists(s->dfd, "abx.conf"))
		return 0;
	if (make_dirs(s) < 0)
		return -1;
	if (fs_replace(s->dfd, "abx.conf", CONF_DEFAULT, strlen(CONF_DEFAULT), s->durable) < 0)
		return store_fail(s, EX_CANTCREAT_, errno, "unable to create %s/abx.conf", s->dir);
	return 0;
}

static int
open_failed(store_t *s)
{
	store_close(s);   /* keeps err and errmsg */
	return -1;
}

int
store_open(store_t *s, const char *dir, int create)
{
	memset(s, 0, sizeof *s);
	s->lockfd = s->idxfd = s->dfd = -1;
	s->dir = xstrdup(dir ? dir : store_default_dir());
	const char *sync = getenv("ABX_SYNC");
	s->durable = !(sync && strcmp(sync, "0") == 0);
	s->parent_syncs = sync && strcmp(sync, "parent") == 0;
	s->lazy = (sync && strcmp(sync, "batch") == 0) || s->parent_syncs;
	read_boot_id(s);
	s->dfd = open(s->dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (s->dfd < 0 && errno == ENOENT && create) {
		char tmp[4096];
		snprintf(tmp, sizeof tmp, "%s", s->dir);
		for (char *p = tmp + 1; *p; p++)
			if (*p == '/') {
				*p = 0;
				if (mkdir(tmp, 0755) == 0)
					sync_parent(s, tmp);
				*p = '/';
			}
		if (mkdir(s->dir, 0755) < 0 && errno != EEXIST) {
			store_fail(s, EX_CANTCREAT_, errno, "unable to create %s", s->dir);
			return open_failed(s);
		}
		/* the new directory's name is durable before abx-add says
		 * anything was queued in it */
		if (sync_parent(s, s->dir) < 0)
			return open_failed(s);
		s->dfd = open(s->dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	}
	if (s->dfd < 0) {
		if (errno == ENOENT)
			store_fail(s, EX_CONFIG_, 0, "%s is not an abx data directory (it does not exist); "
			    "create one with abx-add -d %s URL", s->dir, s->dir);
		else
			store_fail(s, EX_CONFIG_, errno, "unable to open data directory %s", s->dir);
		return open_failed(s);
	}
	if (!fs_exists(s->dfd, "abx.conf") && !create) {
		store_fail(s, EX_CONFIG_, 0, "%s is not an abx data directory (no abx.conf); "
		    "create one with abx-add -d %s URL", s->dir, s->dir);
		return open_failed(s);
	}
	if (create && make_conf(s) < 0)
		return open_failed(s);
	buf_t refusal = {0};
	if (fscheck(s->dfd, s->dir, &refusal)) {   /* a network filesystem abx cannot trust */
		store_fail(s, EX_CONFIG_, 0, "%s", buf_cstr(&refusal));
		buf_free(&refusal);
		return open_failed(s);
	}
	buf_free(&refusal);
	char why[256];
	if (host_name(s->dfd, s->host, sizeof s->host, why, sizeof why) < 0) {
		store_fail(s, EX_CONFIG_, 0, "%s", why);
		return open_failed(s);
	}
	s->lockfd = fs_open(s->dfd, "locks/store.lock", O_RDWR | O_CREAT, 0644);
	if (s->lockfd < 0 && errno == ENOENT) {
		if (make_dirs(s) < 0)
			return open_failed(s);
		s->lockfd = fs_open(s->dfd, "locks/store.lock", O_RDWR | O_CREAT, 0644);
	}
	if (s->lockfd < 0) {
		store_fail(s, EX_CONFIG_, errno, "unable to open %s/locks/store.lock", s->dir);
		return open_failed(s);
	}
	s->nerr = s->txerr = 0;
	return 0;
}

int
store_close(store_t *s)
{
	int rc = 0;
	if (s->locked && store_unlock(s) < 0)
		rc = -1;
	if (store_sync(s) < 0)
		rc = -1;
	free(s->unsynced);
	index_drop(s);
	if (s->lockfd >= 0)
		close(s->lockfd);
	if (s->dfd >= 0)
		close(s->dfd);
	free(s->pend);
	free(s->dir);
	int err = s->err;
	unsigned nerr = s->nerr;
	char msg[sizeof s->errmsg];
	memcpy(msg, s->errmsg, sizeof msg);
	memset(s, 0, sizeof *s);
	s->dfd = s->lockfd = s->idxfd = -1;
	s->err = err;
	s->nerr = nerr;
	memcpy(s->errmsg, msg, sizeof msg);
	return rc;
}

int
store_fail(store_t *s, int code, int errnum, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(s->errmsg, sizeof s->errmsg, fmt, ap);
	va_end(ap);
	if (n < 0)
		n = 0;
	if (errnum && (size_t)n < sizeof s->errmsg)
		snprintf(s->errmsg + n, sizeof s->errmsg - n, ": %s", strerror(errnum));
	s->err = code;
	s->nerr++;
	return -1;
}

int
store_failed(const store_t *s)
{
	return s->nerr != s->txerr;
}

/* ------------------------------------------------------------ records */

int64_t
rec_time(const rec_t *r, const char *key)
{
	char *v = rec_str(r, key);
	int64_t us;
	if (!v)
		return -1;
	if (strcmp(v, TIME_MAX_ISO) == 0 || strncmp(v, "9999-", 5) == 0)
		us = INT64_MAX;
	else if (clock_parse(v, &us) < 0)
		us = -1;
	free(v);
	return us;
}

void
rec_set_time(rec_t *r, const char *key, int64_t us)
{
	char iso[ISO_LEN + 1];
	if (us < 0) {
		rec_set_null(r, key);
		return;
	}
	if (us == INT64_MAX)
		strcpy(iso, TIME_MAX_ISO);
	else
		clock_iso(us, iso);
	rec_set_str(r, key, iso);
}

int
record_is_final(const rec_t *r)
{
	char *t = rec_str(r, "type"), *st = rec_str(r, "status");
	int fin = 0;
	if (t && st) {
		if (strcmp(t, "ArchiveResult") == 0)
			fin = strcmp(st, "succeeded") == 0 || strcmp(st, "failed") == 0 ||
			      strcmp(st, "skipped") == 0 || strcmp(st, "noresults") == 0;
		else if (strcmp(t, "Binary") == 0)
			fin = strcmp(st, "installed") == 0;
		else
			fin = strcmp(st, "sealed") == 0;
	}
	free(t);
	free(st);
	return fin;
}

int
record_is_active(const rec_t *r)
{
	char *t = rec_str(r, "type");
	int act = t && (strcmp(t, "Crawl") == 0 || strcmp(t, "Snapshot") == 0 ||
	                strcmp(t, "Binary") == 0 || strcmp(t, "CrawlSchedule") == 0);
	free(t);
	if (!act)
		return 0;
	return !record_is_final(r) || !rec_isnull(r, "retry_at");
}

void
store_crawl_journal(const char *crawl_id, char *out, size_t n)
{
	snprintf(out, n, "crawls/%s/snapshots.jsonl", crawl_id);
}

int
store_journal_of(const rec_t *r, char *out, size_t n)
{
	char *t = rec_str(r, "type");
	int rc = 0;
	if (!t)
		return -1;
	if (strcmp(t, "Crawl") == 0)
		snprintf(out, n, "crawls.jsonl");
	else if (strcmp(t, "CrawlSchedule") == 0)
		snprintf(out, n, "schedules.jsonl");
	else if (strcmp(t, "Binary") == 0)
		snprintf(out, n, "binaries.jsonl");
	else if (strcmp(t, "Snapshot") == 0 || strcmp(t, "ArchiveResult") == 0 ||
	         strcmp(t, "Process") == 0 || strcmp(t, "Tag") == 0) {
		char *c = rec_str(r, "crawl_id");
		if (id_valid(c))
			store_crawl_journal(c, out, n);
		else
			rc = -1;
		free(c);
	} else
		rc = -1;
	free(t);
	return rc;
}

/* ---------------------------------------------------------- transactions */

static int catch_up(store_t *s);

int
store_lock(store_t *s)
{
	if (s->locked)
		return 0;
	s->txerr = s->nerr;
	s->rollback = 0;
	while (flock(s->lockfd, LOCK_EX) < 0) {
		if (errno == EINTR)
			continue;
		s->rollback = 1;
		return store_fail(s, EX_IOERR_, errno, "unable to lock %s/locks/store.lock", s->dir);
	}
	s->locked = 1;
	if (s->lean)
		return 0;   /* hints only (store.h: Lean mode) */
	if (catch_up(s) < 0) {
		flock(s->lockfd, LOCK_UN);
		s->locked = 0;
		s->rollback = 1;
		return -1;
	}
	return 0;
}

int
store_unlean(store_t *s)
{
	if (!s->lean)
		return 0;
	s->lean = 0;
	if (s->locked && catch_up(s) < 0) {
		s->rollback = 1;
		return -1;
	}
	return 0;
}

/* Under the lock: read what the index file gained, and replay what the
 * journals hold beyond it.  0, or -1 (s->err set). */
static int
catch_up(store_t *s)
{
	if (index_refresh(s) < 0)
		return -1;
	/* lines the index missed (a crash, a hand edit) are replayed now,
	 * before any decision is taken on a hint.  A journal that cannot be
	 * read here is not this transaction's failure (its lookups fail on
	 * their own): it is warned of once */
	unsigned nerr = s->nerr;
	int err = s->err;
	char msg[sizeof s->errmsg];
	memcpy(msg, s->errmsg, sizeof msg);
	/* the top-level journals first: a crawl they make active again has
	 * its journal replayed too */
	for (int top = 1; top >= 0; top--) {
		index_mark_needed(s);
		for (size_t i = 0; i < s->njs; i++) {
			if (!s->js[i].need || (strncmp(s->js[i].j, "crawls/", 7) != 0) != top)
				continue;
			char j[128];
			snprintf(j, sizeof j, "%s", s->js[i].j);
			journal_sync(s, j);
		}
	}
	if (s->nerr != nerr) {
		if (!s->replay_warned++)
			warnx_("%s (its index hints are kept as they are)", s->errmsg);
		s->nerr = nerr, s->err = err;
		memcpy(s->errmsg, msg, sizeof msg);
	}
	return 0;
}

int
store_unlock(store_t *s)
{
	if (!s->locked) {
		/* store_lock failed: nothing was staged (store_put refused) */
		int rb = s->rollback;
		s->rollback = 0;
		return rb ? -1 : 0;
	}
	if (s->rollback)
		store_discard(s);
	else
		store_commit(s);
	/* compact the index when tombstones dominate, while we hold the lock */
	if (!s->rollback && !s->lean && index_bloated(s))
		index_write_full(s);
	flock(s->lockfd, LOCK_UN);
	s->locked = 0;
	int rb = s->rollback;
	s->rollback = 0;
	return rb ? -1 : 0;
}

static pending_t *
pending_find(store_t *s, const char *id)
{
	for (size_t i = s->npend; i-- > 0;)
		if (strcmp(s->pend[i].id, id) == 0)
			return &s->pend[i];
	return NULL;
}

int
store_get_in(store_t *s, const char *id, const char *journal, rec_t *out)
{
	if (!id_valid(id))
		return -1;
	pending_t *p = pending_find(s, id);
	if (p) {
		rec_copy(out, &p->rec);
		return 0;
	}
	if (s->lean && lean_get(s, id, out) == 0)
		return 0;
	if (store_unlean(s) < 0)
		return -1;
	if (!s->locked)
		index_refresh(s);   /* what other processes committed since */
	ient_t *e = index_slot(s, id, 0);
	char j[128];
	if (e && e->live) {
		entry_journal(e, j, sizeof j);
		journal_sync(s, j);
		e = index_slot(s, id, 0);   /* the replay may have grown the table */
	}
	if (e && e->live) {
		int fd = fsr_open(s->dfd, j, O_RDONLY, FSR_EXISTED, NULL);
		buf_t line = {0};
		if (fd >= 0 && e->off >= 0 && read_line_at(fd, e->off, &line) == 0) {
			char lid[ID_LEN + 1];
			if (line_id(line.p, line.len, lid) == 0 && strcmp(lid, id) == 0 &&
			    rec_parse(out, line.p, line.len) == 0) {
				close(fd);
				buf_free(&line);
				return 0;
			}
		}
		if (fd >= 0)
			close(fd);
		buf_free(&line);
		/* a stale hint: rescan that journal for this id */
		int64_t off;
		unsigned nerr = s->nerr;
		int found = journal_find(s, j, id, out, &off) == 0;
		if (!found && s->nerr != nerr)
			return -1;   /* unreadable: the hint may be right; keep it */
		if (s->locked) {
			/* correct the hint, or drop a ghost (an index line
			 * whose journal write never happened) */
			if (found)
				index_set_from(s, out, off);
			else
				s->nlive -= e->live, e->live = 0;
			buf_t b = {0};
			index_line(s, &b, index_slot(s, id, 0));
			index_append(s, &b);
			buf_free(&b);
		}
		if (found)
			return 0;
	}
	if (journal && journal_find(s, journal, id, out, NULL) == 0)
		return 0;
	return -1;
}

typedef struct {
	store_t *s;
	const char *id;
	rec_t *out;
	int found;
} findctx_t;

static int
find_in_crawl(rec_t *crawl, void *arg)
{
	findctx_t *f = arg;
	char *cid = rec_str(crawl, "id");
	char j[128];
	if (id_valid(cid)) {
		store_crawl_journal(cid, j, sizeof j);
		if (journal_find(f->s, j, f->id, f->out, NULL) == 0)
			f->found = 1;
	}
	free(cid);
	return f->found;
}

int
store_get(store_t *s, const char *id, rec_t *out)
{
	static const char *tops[] = {"crawls.jsonl", "schedules.jsonl", "binaries.jsonl", NULL};
	if (store_get_in(s, id, NULL, out) == 0)
		return 0;
	if (!id_valid(id))
		return -1;
	if (crawl_loc_get(s, id, out) == 0)
		return 0;
	for (int i = 0; tops[i]; i++)
		if (journal_find(s, tops[i], id, out, NULL) == 0)
			return 0;
	if (snap_loc_get(s, id, out) == 0)
		return 0;
	/* not active and not a top-level record: a final snapshot or result;
	 * look through every crawl (the slow path, for by-hand lookups) */
	if (getenv("ABX_DEBUG_SLOW"))
		info("slow lookup of %s", id);
	findctx_t f = {s, id, out, 0};
	store_each(s, "crawls.jsonl", NULL, find_in_crawl, &f);
	return f.found ? 0 : -1;
}

void
store_put(store_t *s, rec_t *r)
{
	if (!s->locked) {
		/* a failed store_lock (reported): the transaction fails */
		if (!store_failed(s))
			store_fail(s, EX_SOFT_, 0, "internal error: store_put without the store lock");
		s->rollback = 1;
		return;
	}
	char j[128];
	char *id = rec_str(r, "id");
	if (!id_valid(id) || store_journal_of(r, j, sizeof j) < 0) {
		store_fail(s, EX_SOFT_, 0, "internal error: record without a valid id, type or crawl_id");
		s->rollback = 1;
		free(id);
		return;
	}
	rec_set_time(r, "modified_at", clock_now());
	if (s->npend == s->pendcap) {
		s->pendcap = s->pendcap ? s->pendcap * 2 : 16;
		s->pend = xrealloc(s->pend, s->pendcap * sizeof(pending_t));
	}
	pending_t *p = &s->pend[s->npend++];
	snprintf(p->journal, sizeof p->journal, "%s", j);
	memcpy(p->id, id, ID_LEN + 1);
	rec_copy(&p->rec, r);
	p->active = record_is_active(r);
	free(id);
}

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

/* Is r of a type the index holds? */
static int
indexable(const rec_t *r)
{
	static const char *types[] = {"Crawl", "Snapshot", "Binary", "CrawlSchedule", NULL};
	for (int i = 0; types[i]; i++)
		if (rec_streq(r, "type", types[i]))
			return 1;
	return 0;
}

/* One journal's part of a commit. */
typedef struct {
	char j[128];
	int fd;
	int64_t base, end;
	buf_t idx;            /* its index lines, appended once all are written */
} jwrite_t;

/* Write (and sync) the staged records of one journal (those with done ==
 * 0); their index lines go to w->idx.  0, or -1 with nothing written. */
static int
write_journal(store_t *s, const char *j, char *done, jwrite_t *w)
{
	memset(w, 0, sizeof *w);
	snprintf(w->j, sizeof w->j, "%s", j);
	w->fd = journal_open_append(s, j);
	if (w->fd < 0)
		return -1;
	struct stat st;
	if (fstat(w->fd, &st) < 0)
		return store_fail(s, EX_IOERR_, errno, "unable to stat %s/%s", s->dir, j);
	/* the index must know the journal (a state line: replayed from
	 * there) before a line is written to it, or a crash or a full disk
	 * that loses this commit's index lines would hide its records (lean:
	 * the claimer's index knew it, and no lean commit moves its end) */
	if (!s->lean)
		journal_sync(s, j);
	if (!s->lean && !jstate(s, j, 0))
		return store_fail(s, EX_IOERR_, ENOSPC, "unable to note %s/%s in %s/%s", s->dir, j, s->dir,
		    INDEX_PATH);
	buf_t lines = {0}, post = {0};
	w->base = st.st_size;
	for (size_t i = 0; i < s->npend; i++) {
		pending_t *p = &s->pend[i];
		if (done[i] || strcmp(p->journal, j) != 0)
			continue;
		done[i] = 1;
		int64_t off = w->base + lines.len;
		rec_line(&p->rec, &lines);
		buf_addc(&lines, '\n');
		if (!p->active && strncmp(j, "crawls/", 7) == 0 && rec_streq(&p->rec, "type", "Snapshot"))
			snap_loc_write(s, p->id, j + 7);
		if (!p->active && strcmp(j, "crawls.jsonl") == 0 && rec_streq(&p->rec, "type", "Crawl")) {
			/* hints of a finished crawl, before its line (a crash
			 * leaves an extra hint, never a missing one) */
			crawl_loc_write(s, p->id, off);
			expire_note(s, &p->rec);
		}
		if (s->lean) {
			/* a hint for readers; a record that is no longer
			 * active may have been: say it is gone */
			ient_t e = {0};
			snprintf(e.id, sizeof e.id, "%s", p->id);
			ient_from(&e, &p->rec, off);
			if (p->active || indexable(&p->rec))
				index_line(s, p->active ? &w->idx : &post, &e);
			lhint_t *h = lean_hint(s, p->id);
			if (h)
				h->off = off;
			continue;
		}
		ient_t *e = index_slot(s, p->id, 0);
		int was_live = e && e->live;
		if (p->active || was_live) {
			index_set_from(s, &p->rec, off);
			index_line(s, p->active ? &w->idx : &post, index_slot(s, p->id, 0));
		}
	}
	buf_add(&w->idx, post.p ? post.p : "", post.len);
	buf_free(&post);
	fault_point("journal-before-write");
	if (fault_armed("journal-half-line")) {
		ssize_t h = write(w->fd, lines.p, lines.len / 2);
		(void)h;
		fault_point("journal-half-line");
	}
	/* one write(2): a reader never sees half of a commit */
	ssize_t n = fault_armed("journal-enospc") ? (errno = ENOSPC, -1) : write(w->fd, lines.p, lines.len);
	int e = n < 0 ? errno : ENOSPC;   /* a short write to a file: the disk is full */
	size_t len = lines.len;
	buf_free(&lines);
	if (n != (ssize_t)len) {
		if (n > 0 && ftruncate(w->fd, w->base) < 0)
			return store_fail(s, EX_IOERR_, e, "unable to append to %s/%s (and unable to cut "
			    "the partial line off: the next writer will)", s->dir, j);
		return store_fail(s, EX_IOERR_, e, "unable to append to %s/%s", s->dir, j);
	}
	w->end = w->base + len;
	/* a crawl's journal may hold a worker's unsynced result lines (its
	 * commits are deferred), whose files must be durable first: syncing
	 * it is a syncfs, which makes them durable together */
	int shared = w->base > 0 && strncmp(j, "crawls/", 7) == 0;
	if (s->durable && !s->lazy && (shared ? syncfs(w->fd) : fdatasync(w->fd)) < 0)
		return store_fail(s, EX_IOERR_, errno, "unable to sync %s/%s", s->dir, j);
	if (s->durable && s->lazy) {
		size_t k = 0;
		while (k < s->nunsynced && strcmp(s->unsynced[k], j) != 0)
			k++;
		if (k == s->nunsynced) {
			s->unsynced = xrealloc(s->unsynced, (k + 1) * sizeof *s->unsynced);
			snprintf(s->unsynced[s->nunsynced++], 128, "%s", j);
		}
	}
	fault_point("journal-after-write");
	return 0;
}

/* Undo a journal's part of a failed commit: cut its lines off again. */
static void
unwrite_journal(store_t *s, jwrite_t *w)
{
	if (w->fd < 0 || w->end <= w->base)
		return;
	if (ftruncate(w->fd, w->base) < 0 || (s->durable && fdatasync(w->fd) < 0)) {
		int e = errno;
		char was[sizeof s->errmsg];
		memcpy(was, s->errmsg, sizeof was);
		store_fail(s, EX_IOERR_, e, "%s; the lines written to %s/%s before the failure may "
		    "stay committed (unable to cut them off)", was, s->dir, w->j);
	}
}

/* Drop what is staged; the index in memory is reloaded from the file. */
void
store_discard(store_t *s)
{
	for (size_t i = 0; i < s->npend; i++)
		rec_free(&s->pend[i].rec);
	s->npend = 0;
}

static int
sync_journal(store_t *s, const char *j)
{
	if (!s->durable)
		return 0;
	int fd = fs_open(s->dfd, j, O_RDWR, 0);
	if (fd < 0)
		return 0;
	int rc = 0;
	if (fdatasync(fd) < 0)
		rc = store_fail(s, EX_IOERR_, errno, "unable to sync %s/%s", s->dir, j);
	close(fd);
	return rc;
}

void
store_barrier(store_t *s)
{
	s->barrier = 1;
}

int
store_syncfs(store_t *s)
{
	if (s->durable && syncfs(s->dfd) < 0)
		return store_fail(s, EX_IOERR_, errno, "unable to sync the filesystem of %s", s->dir);
	s->barrier = 0;       /* only now: a failed sync leaves them owed */
	s->nunsynced = 0;
	return 0;
}

int
store_sync(store_t *s)
{
	if (s->parent_syncs) {
		s->barrier = 0;
		s->nunsynced = 0;
		return 0;
	}
	if (s->barrier)
		return store_syncfs(s);
	int rc = 0;
	for (size_t i = 0; i < s->nunsynced; i++)
		if (sync_journal(s, s->unsynced[i]) < 0)
			rc = -1;
	s->nunsynced = 0;
	return rc;
}

/*
 * Every journal first (written, synced unless lazy), then the index lines
 * of all of them: a failure in any journal cuts off what this commit wrote
 * in the others, so the commit is all or nothing.
 */
int
store_still_locked(store_t *s)
{
	if (s->locked && s->lockfd >= 0 && flock(s->lockfd, LOCK_EX | LOCK_NB) < 0)
		return store_fail(s, EX_TEMPFAIL_, errno, "lost the store lock of %s; nothing was committed",
		    s->dir);
	return 0;
}

int
store_commit(store_t *s)
{
	if (s->rollback) {
		store_discard(s);   /* a store_put failed: commit nothing */
		return -1;
	}
	if (s->npend == 0)
		return 0;
	/* still ours?  On a network filesystem a lock can be lost under us
	 * (a brick restarted under GlusterFS's strict-locks: EBADFD; an NFS
	 * lease expired: ENOLCK, EIO), and another host may hold it now: then
	 * nothing is written.  Locally this re-asserts a held lock: a no-op. */
	if (store_still_locked(s) < 0) {
		store_discard(s);
		s->rollback = 1;
		return -1;
	}
	/* files a record names are made durable before the record */
	if (s->barrier && s->durable && !s->lazy && store_syncfs(s) < 0) {
		store_discard(s);
		s->rollback = 1;
		return -1;
	}
	/* lean: a journal no hint names may be one the index does not know
	 * (store.h): load the index and commit as always */
	for (size_t i = 0; i < s->npend && s->lean; i++)
		if (!lean_vouched(s, s->pend[i].journal) && store_unlean(s) < 0) {
			store_discard(s);
			return -1;
		}
	char *done = xcalloc(s->npend, 1);
	jwrite_t *w = xcalloc(s->npend, sizeof *w);
	size_t nw = 0;
	int rc = 0;
	for (size_t i = 0; i < s->npend && rc == 0; i++)
		if (!done[i])
			rc = write_journal(s, s->pend[i].journal, done, &w[nw++]);
	if (rc < 0) {
		s->rollback = 1;
		for (size_t k = 0; k < nw; k++)
			unwrite_journal(s, &w[k]);
		/* the index in memory took the staged versions: reload it */
		if (!s->lean) {
			index_drop(s);
			if (s->locked)
				index_refresh(s);
		}
	} else if (s->lean) {
		/* hints without state lines (store.h: Lean mode) */
		for (size_t k = 0; k < nw; k++)
			lean_index_append(s, &w[k].idx);
	} else {
		/* the index lines follow the journals' sync: hints, replayed by
		 * the next locker (journal_sync) if a crash drops them */
		for (size_t k = 0; k < nw; k++) {
			jstate_t *js = jstate(s, w[k].j, 1);
			js->end = js->seen = w[k].end;
			state_line(&w[k].idx, w[k].j, w[k].end);
			index_append(s, &w[k].idx);
		}
	}
	for (size_t k = 0; k < nw; k++) {
		if (w[k].fd >= 0)
			close(w[k].fd);
		buf_free(&w[k].idx);
	}
	free(w);
	free(done);
	store_discard(s);
	return rc;
}

/* -------------------------------------------------------------- queries */

/* (retry_at, created_at, id) order: when an item became due, then FIFO. */
int
ient_cmp(const void *a, const void *b)
{
	const ient_t *x = a, *y = b;
	if (x->retry_at != y->retry_at)
		return x->retry_at < y->retry_at ? -1 : 1;
	if (x->created_at != y->created_at)
		return x->created_at < y->created_at ? -1 : 1;
	return strcmp(x->id, y->id);
}

size_t
store_active_unordered(store_t *s, const char *type, ient_t **out)
{
	store_unlean(s);
	if (!s->tab && !s->locked)
		index_refresh(s);
	size_t n = 0;
	*out = xmalloc(sizeof(ient_t) * (s->nlive + 1));
	for (size_t i = 0; i < s->tabcap; i++) {
		ient_t *e = &s->tab[i];
		if (e->used && e->live && (!type || strcmp(e->type, type) == 0))
			(*out)[n++] = *e;
	}
	return n;
}

size_t
store_active(store_t *s, const char *type, ient_t **out)
{
	size_t n = store_active_unordered(s, type, out);
	qsort(*out, n, sizeof(ient_t), ient_cmp);
	return n;
}
