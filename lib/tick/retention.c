/* retention.c — see retention.h. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/config.h"
#include "base/err.h"
#include "base/fs.h"
#include "store/expire.h"
#include "store/lease.h"
#include "tick/retention.h"
#include "seal/seal.h"
#include "seal/siteindex.h"

extern char **environ;

/* Crawl directories moved out of the way, to be removed outside the lock. */
#define TRASH "crawls/.deleted"

long long
retention_parse(const char *s)
{
	long long secs;
	return conf_parse_duration(s, &secs) < 0 ? -1 : secs;
}

typedef struct {
	char id[ID_LEN + 1];
	int64_t expires;
	long long secs;      /* its DELETE_AFTER */
	int64_t end;         /* log: the offset after its line; -1: a bucket's */
	int bucket;          /* a bucket's index in buckets[] */
	int consumed;        /* handled: removed, or not to be removed */
} cand_t;

typedef struct {
	char name[64];
	int all_due;         /* every line of it was due */
} bucket_t;

typedef struct {
	store_t *s;
	long long global;
	int64_t now;
	cand_t *v;
	size_t n;
	bucket_t *b;
	size_t nb;
} scan_t;

static cand_t *
add_cand(scan_t *sc, const char *id, int64_t expires, long long secs)
{
	sc->v = xrealloc(sc->v, (sc->n + 1) * sizeof(cand_t));
	cand_t *c = &sc->v[sc->n++];
	memset(c, 0, sizeof *c);
	snprintf(c->id, sizeof c->id, "%s", id);
	c->expires = expires;
	c->secs = secs;
	c->end = -1;
	return c;
}

/* Parse {"id":C,"at":T}; 0 ok. */
static int
hint_line(const char *p, size_t n, char id[ID_LEN + 1], int64_t *at)
{
	if (n < 7 + ID_LEN + 8 + ISO_LEN + 2 || memcmp(p, "{\"id\":\"", 7) != 0)
		return -1;
	memcpy(id, p + 7, ID_LEN);
	id[ID_LEN] = 0;
	if (!id_valid(id) || memcmp(p + 7 + ID_LEN, "\",\"at\":\"", 8) != 0)
		return -1;
	char iso[ISO_LEN + 1];
	memcpy(iso, p + 15 + ID_LEN, ISO_LEN);
	iso[ISO_LEN] = 0;
	return clock_parse(iso, at) < 0 || *at < 0 ? -1 : 0;
}

/* The log from its position: the lines due under the global duration,
 * up to batch of them; stops at the first line not due. */
static int64_t
scan_log(scan_t *sc, size_t batch)
{
	buf_t b = {0};
	int64_t pos = 0;
	if (fs_read(sc->s->dfd, EXPIRE_SEALED_POS, &b) == 0)
		pos = strtoll(buf_cstr(&b), NULL, 10);
	buf_free(&b);
	if (sc->global <= 0)
		return pos;
	int fd = fs_open(sc->s->dfd, EXPIRE_SEALED_LOG, O_RDONLY, 0);
	if (fd < 0)
		return pos;
	char chunk[65536];
	int64_t off = pos;
	size_t have = 0, taken = 0;
	for (int done = 0; !done;) {
		ssize_t r = pread(fd, chunk + have, sizeof chunk - have, off + (int64_t)have);
		if (r <= 0)
			break;
		have += r;
		char *q = chunk, *end = chunk + have;
		char *nl;
		while ((nl = memchr(q, '\n', end - q))) {
			char id[ID_LEN + 1];
			int64_t at;
			int64_t lend = off + (nl + 1 - chunk);
			if (hint_line(q, nl - q, id, &at) == 0) {
				int64_t exp = at + sc->global * 1000000;
				if (exp > sc->now || taken == batch) {
					done = 1;
					break;
				}
				add_cand(sc, id, exp, sc->global)->end = lend;
				taken++;
			} else {
				/* a torn or foreign line: a candidate of nothing */
				add_cand(sc, "", 0, 0)->end = lend;
				sc->v[sc->n - 1].consumed = 1;
			}
			q = nl + 1;
		}
		size_t used = q - chunk;
		memmove(chunk, q, have - used);
		have -= used;
		off += used;
		if (have == sizeof chunk)
			break;   /* a line longer than a chunk: not ours */
	}
	close(fd);
	return pos;
}

static int
by_name(const void *a, const void *b)
{
	return strcmp(((const bucket_t *)a)->name, ((const bucket_t *)b)->name);
}

/* The buckets of the days that have come. */
static void
scan_buckets(scan_t *sc)
{
	int fd = fs_opendir(sc->s->dfd, EXPIRE_DIR);
	DIR *d = fd >= 0 ? fdopendir(fd) : NULL;
	if (!d) {
		if (fd >= 0)
			close(fd);
		return;
	}
	char today[ISO_LEN + 1];
	clock_iso(sc->now, today);
	struct dirent *e;
	while ((e = readdir(d))) {
		size_t l = strlen(e->d_name);
		if (l != 16 || strcmp(e->d_name + 10, ".jsonl") != 0 || strncmp(e->d_name, today, 10) > 0)
			continue;
		sc->b = xrealloc(sc->b, (sc->nb + 1) * sizeof(bucket_t));
		memcpy(sc->b[sc->nb].name, e->d_name, l + 1);   /* 16 bytes, checked */
		sc->b[sc->nb++].all_due = 1;
	}
	closedir(d);
	if (sc->nb)
		qsort(sc->b, sc->nb, sizeof(bucket_t), by_name);
	for (size_t i = 0; i < sc->nb; i++) {
		char rel[128];
		buf_t b = {0};
		snprintf(rel, sizeof rel, "%s/%s", EXPIRE_DIR, sc->b[i].name);
		if (fs_read(sc->s->dfd, rel, &b) < 0) {
			sc->b[i].all_due = 0;
			buf_free(&b);
			continue;
		}
		char *q = b.p, *end = b.p + b.len, *nl;
		while (q < end && (nl = memchr(q, '\n', end - q))) {
			char id[ID_LEN + 1];
			int64_t at;
			if (hint_line(q, nl - q, id, &at) == 0) {
				if (at <= sc->now)
					add_cand(sc, id, at, 0)->bucket = (int)i;
				else
					sc->b[i].all_due = 0;
			}
			q = nl + 1;
		}
		buf_free(&b);
	}
}

/* Advance the log's position past its handled lines; compact it once
 * what is handled is most of it. */
static void
advance_log(scan_t *sc, int64_t pos)
{
	int64_t npos = pos;
	for (size_t i = 0; i < sc->n; i++) {
		if (sc->v[i].end < 0)
			continue;
		if (!sc->v[i].consumed)
			break;
		npos = sc->v[i].end;
	}
	if (npos == pos)
		return;
	store_t *s = sc->s;
	if (store_lock(s) < 0)
		return;
	struct stat st;
	int fd = fs_open(s->dfd, EXPIRE_SEALED_LOG, O_RDONLY, 0);
	if (fd >= 0 && fstat(fd, &st) == 0 && npos > 1 << 20 && npos > st.st_size / 2) {
		/* the appenders hold the store lock too */
		size_t n = st.st_size - npos;
		char *p = xmalloc(n + 1);
		if (pread(fd, p, n, npos) == (ssize_t)n && fs_replace(s->dfd, EXPIRE_SEALED_LOG, p, n, s->durable) == 0)
			npos = 0;
		free(p);
	}
	if (fd >= 0)
		close(fd);
	char txt[32];
	int n = snprintf(txt, sizeof txt, "%lld\n", (long long)npos);
	if (fs_replace(s->dfd, EXPIRE_SEALED_POS, txt, n, s->durable) < 0)
		warnsys("unable to write %s/%s", s->dir, EXPIRE_SEALED_POS);
	store_unlock(s);
}

static int
by_expiry(const void *a, const void *b)
{
	const cand_t *x = *(cand_t *const *)a, *y = *(cand_t *const *)b;
	if (x->expires != y->expires)
		return x->expires < y->expires ? -1 : 1;
	return x < y ? -1 : x > y;
}

typedef struct {
	const char *cid;
	int unfinished;
	char (*sealed)[ID_LEN + 1];   /* its sealed snapshots: in the site index */
	size_t nsealed;
} kids_t;

static int
check_kids(rec_t *r, void *arg)
{
	kids_t *k = arg;
	if (!rec_streq(r, "type", "Snapshot"))
		return 0;
	if (!record_is_final(r) || !rec_isnull(r, "retry_at")) {
		k->unfinished++;
		return 0;
	}
	char *id = rec_str(r, "id");
	if (id_valid(id)) {
		k->sealed = xrealloc(k->sealed, (k->nsealed + 1) * sizeof *k->sealed);
		memcpy(k->sealed[k->nsealed++], id, ID_LEN + 1);
	}
	free(id);
	return 0;
}

/* Under the store lock: move crawls/ID into TRASH (0), or say that it is
 * still in place (-1); a rename is one step, whatever the crawl's size. */
static int
move_away(store_t *s, const char *id)
{
	char from[128], to[128];
	snprintf(from, sizeof from, "crawls/%s", id);
	snprintf(to, sizeof to, "%s/%s", TRASH, id);
	if (fs_mkdirs(s->dfd, TRASH) == 0 && renameat(s->dfd, from, s->dfd, to) == 0)
		return 0;
	if (!fs_exists(s->dfd, from))
		return 0;
	warnsys("unable to move %s/%s to %s/%s; removing it in place", s->dir, from, s->dir, to);
	return -1;
}

/* Without the store lock: remove what move_away() moved, this run's and
 * any a crash left. */
static void
empty_trash(store_t *s)
{
	int fd = fs_opendir(s->dfd, TRASH);
	if (fd < 0) {
		if (errno != ENOENT)
			warnsys("unable to open %s/%s", s->dir, TRASH);
		return;
	}
	DIR *d = fdopendir(fd);
	if (!d) {
		warnsys("unable to read %s/%s", s->dir, TRASH);
		close(fd);
		return;
	}
	struct dirent *e;
	while ((e = readdir(d)))
		if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0 &&
		    fs_rmtree(dirfd(d), e->d_name) < 0)
			warnsys("unable to remove all of %s/%s/%s", s->dir, TRASH, e->d_name);
	closedir(d);
	unlinkat(s->dfd, TRASH, AT_REMOVEDIR);   /* kept only while not empty */
}

/* Tombstone one candidate under its lease and the store lock, and move
 * its directory away (the lock is held for one commit and one rename); a
 * crawl tombstoned before a crash only has its directory moved.  Returns
 * 1 if removed, 0 if it is not to be removed (now: its line is handled),
 * -1 if its lease is held (its line is kept for the next run). */
static int
expire(store_t *s, const cand_t *c, int verbose)
{
	int fd, done = 0, in_place = 0;
	if (lease_take(s, c->id, &fd) != LEASE_TAKEN)
		return -1;
	store_lock(s);
	rec_t r;
	if (store_get(s, c->id, &r) == 0) {
		char dir[128];
		snprintf(dir, sizeof dir, "crawls/%s", c->id);
		const char *tpl = rec_raw(&r, "is_template");
		/* a bucket's line: its own DELETE_AFTER; the log's: the
		 * global one, which a crawl's own overrides */
		int own;
		long long secs = expire_after(&r, &own);
		int applies = c->secs ? !own : own && secs > 0;
		if (c->secs)
			secs = c->secs;
		const char *kept = rec_raw(&r, "files_kept");
		if (kept && !strcmp(kept, "true")) {
			/* removed by abx-ctl remove, its files kept on purpose */
		} else if (!rec_isnull(&r, "deleted_at")) {
			/* a crash came between its tombstone and the move of
			 * its directory: finish the job */
			in_place = fs_exists(s->dfd, dir) && move_away(s, c->id) < 0;
		} else if (applies && !(tpl && !strcmp(tpl, "true"))) {
			char j[128];
			store_crawl_journal(c->id, j, sizeof j);
			kids_t k = {c->id, 0, NULL, 0};
			store_each(s, j, "\"Snapshot\"", check_kids, &k);
			/* re-checked under the lock: a crawl retried and sealed
			 * again since is younger now (its new seal has a line
			 * of its own) */
			int64_t mod = rec_time(&r, "modified_at");
			if (k.unfinished == 0 && record_is_final(&r) && rec_isnull(&r, "retry_at") &&
			    mod >= 0 && mod + secs * 1000000 <= clock_now()) {
				/* the tombstone first: the record never claims a
				 * directory that is gone */
				rec_set_time(&r, "deleted_at", clock_now());
				rec_set_str(&r, "notes", "removed by retention (DELETE_AFTER)");
				store_put(s, &r);
				if (store_commit(s) < 0) {
					/* nothing says it is gone: nothing goes; its
					 * line stays for the next run */
					warnx_("crawl %s not removed: %s", c->id, s->errmsg);
				} else {
					/* its snapshots leave the site index: a line each */
					for (size_t i = 0; i < k.nsealed; i++)
						site_index_remove(s, k.sealed[i], c->id);
					fault_point("retention-after-tombstone");
					in_place = move_away(s, c->id) < 0;
					done = 1;
					if (verbose)
						info("crawl %s expired and removed", c->id);
				}
			}
			free(k.sealed);
		}
		rec_free(&r);
	}
	store_unlock(s);
	if (in_place) {
		char dir[128];
		snprintf(dir, sizeof dir, "crawls/%s", c->id);
		if (fs_rmtree(s->dfd, dir) < 0)
			warnsys("unable to remove all of %s/%s", s->dir, dir);
	}
	lease_drop(fd);
	return done;
}

int
retention_run(store_t *s, int batch, int verbose)
{
	conf_t c = {0};
	conf_load_file(&c, s->dfd, "abx.conf");
	conf_load_environ(&c, environ);
	const char *g = conf_get(&c, "DELETE_AFTER");
	scan_t sc = {s, retention_parse(g), clock_now(), NULL, 0, NULL, 0};
	if (sc.global < 0) {
		warnx_("DELETE_AFTER=%s is not a duration of an hour to 100000 years (e.g. 30d, 12w, 1y); "
		       "ignored", g);
		sc.global = 0;
	}
	conf_free(&c);
	/* a data directory from before the order existed (no position yet)
	 * gets it once, from crawls.jsonl */
	if (!fs_exists(s->dfd, EXPIRE_SEALED_POS) && store_lock(s) == 0) {
		if (!fs_exists(s->dfd, EXPIRE_SEALED_POS))
			expire_rebuild(s);
		store_unlock(s);
	}
	/* what is due, in the orders that let a run stop early (above) */
	int64_t pos = scan_log(&sc, batch);
	scan_buckets(&sc);
	cand_t **order = xcalloc(sc.n + 1, sizeof(cand_t *));
	size_t no = 0;
	for (size_t i = 0; i < sc.n; i++)
		if (sc.v[i].id[0])
			order[no++] = &sc.v[i];
	if (no)
		qsort(order, no, sizeof(cand_t *), by_expiry);
	size_t removed = 0;
	for (size_t i = 0; i < no && (int)removed < batch; i++) {
		int rc = expire(s, order[i], verbose);
		order[i]->consumed = rc >= 0;
		if (rc > 0)
			removed++;
	}
	free(order);
	advance_log(&sc, pos);
	/* a bucket goes once every line of it is handled */
	for (size_t i = 0; i < sc.nb; i++) {
		int all = sc.b[i].all_due;
		for (size_t k = 0; k < sc.n && all; k++)
			if (sc.v[k].end < 0 && sc.v[k].bucket == (int)i && !sc.v[k].consumed)
				all = 0;
		char rel[128];
		snprintf(rel, sizeof rel, "%s/%s", EXPIRE_DIR, sc.b[i].name);
		if (all && unlinkat(s->dfd, rel, 0) < 0 && errno != ENOENT)
			warnsys("unable to remove %s/%s", s->dir, rel);
	}
	if (removed) {
		seal_site_index(s);   /* the pages the removed snapshots were on */
		/* for the tests: the lock is free, the directories moved away
		 * and not yet removed */
		if (fault_armed("retention-stop-before-remove"))
			raise(SIGSTOP);
		fault_point("retention-before-remove");
	}
	empty_trash(s);
	free(sc.v);
	free(sc.b);
	return (int)removed;
}

/* The steps of a removal, for abx-ctl remove (retention.h). */

int
retention_move_away(store_t *s, const char *from, const char *id)
{
	char to[128];
	snprintf(to, sizeof to, "%s/%s", TRASH, id);
	if (fs_mkdirs(s->dfd, TRASH) == 0 && renameat(s->dfd, from, s->dfd, to) == 0)
		return 0;
	if (!fs_exists(s->dfd, from))
		return 0;
	warnsys("unable to move %s/%s to %s/%s; removing it in place", s->dir, from, s->dir, to);
	return -1;
}

void
retention_prune_site_index(store_t *s, const char (*ids)[ID_LEN + 1], size_t n)
{
	for (size_t i = 0; i < n; i++) {
		rec_t r;
		if (store_get(s, ids[i], &r) < 0)
			continue;
		char *cid = rec_str(&r, rec_streq(&r, "type", "Crawl") ? "id" : "crawl_id");
		if (rec_streq(&r, "type", "Snapshot") && id_valid(cid)) {
			site_index_remove(s, ids[i], cid);
		} else if (rec_streq(&r, "type", "Crawl") && id_valid(cid)) {
			/* a line for each of its sealed snapshots takes its row off */
			char j[128];
			store_crawl_journal(cid, j, sizeof j);
			kids_t k = {cid, 0, NULL, 0};
			store_each(s, j, "\"Snapshot\"", check_kids, &k);
			for (size_t q = 0; q < k.nsealed; q++)
				site_index_remove(s, k.sealed[q], cid);
			free(k.sealed);
		}
		free(cid);
		rec_free(&r);
	}
}

void
retention_empty_trash(store_t *s)
{
	empty_trash(s);
}
