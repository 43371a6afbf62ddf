/* retention.c — see retention.h. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "config.h"
#include "err.h"
#include "fs.h"
#include "lease.h"
#include "retention.h"
#include "seal.h"

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
} cand_t;

typedef struct {
	store_t *s;
	long long global;
	int64_t now;
	cand_t *v;
	size_t n;
	cand_t *left;        /* tombstoned, but their directory is still there */
	size_t nleft;
} scan_t;

static void
add_cand(cand_t **v, size_t *n, const char *id, int64_t expires, long long secs)
{
	*v = xrealloc(*v, (*n + 1) * sizeof(cand_t));
	snprintf((*v)[*n].id, sizeof (*v)[*n].id, "%s", id);
	(*v)[*n].expires = expires;
	(*v)[*n].secs = secs;
	(*n)++;
}

static int
crawl_candidate(rec_t *r, void *arg)
{
	scan_t *sc = arg;
	if (!rec_streq(r, "type", "Crawl") || !record_is_final(r) || !rec_isnull(r, "retry_at"))
		return 0;
	const char *tpl = rec_raw(r, "is_template");
	if (tpl && !strcmp(tpl, "true"))
		return 0;   /* a schedule's template lives as long as the schedule */
	const char *kept = rec_raw(r, "files_kept");
	if (kept && !strcmp(kept, "true"))
		return 0;   /* removed by abx-ctl remove, its files kept on purpose */
	if (!rec_isnull(r, "deleted_at")) {
		/* a crash came between its tombstone and the move of its
		 * directory: finish the job */
		char *id = rec_str(r, "id");
		char dir[128];
		snprintf(dir, sizeof dir, "crawls/%s", id ? id : "");
		if (id_valid(id) && fs_exists(sc->s->dfd, dir))
			add_cand(&sc->left, &sc->nleft, id, -1, 0);
		free(id);
		return 0;
	}
	long long d = sc->global;
	const char *cfg = rec_raw(r, "config");
	if (cfg && strstr(cfg, "DELETE_AFTER")) {
		conf_t c = {0};
		conf_load_json(&c, cfg, CONF_CRAWL);
		const char *v = conf_get(&c, "DELETE_AFTER");
		if (v) {
			d = retention_parse(v);
			if (d < 0) {
				char *id = rec_str(r, "id");
				warnx_("crawl %s: DELETE_AFTER=%s is not a duration of an hour to 100000 "
				       "years (e.g. 30d, 12w, 1y); the crawl is kept", id ? id : "?", v);
				free(id);
			}
		}
		conf_free(&c);
	}
	if (d <= 0)
		return 0;
	int64_t mod = rec_time(r, "modified_at");
	/* the crawl's last change (its seal) is after every snapshot of it
	 * was made, so nothing younger than the duration goes; d is at most
	 * CONF_DURATION_MAX, so d * 10^6 plus any time of ours fits */
	if (mod < 0 || mod + d * 1000000 > sc->now)
		return 0;
	char *id = rec_str(r, "id");
	add_cand(&sc->v, &sc->n, id ? id : "", mod + d * 1000000, d);
	free(id);
	return 0;
}

static int
by_expiry(const void *a, const void *b)
{
	const cand_t *x = a, *y = b;
	return x->expires < y->expires ? -1 : x->expires > y->expires;
}

typedef struct {
	const char *cid;
	int unfinished;
} kids_t;

static int
check_kids(rec_t *r, void *arg)
{
	kids_t *k = arg;
	if (rec_streq(r, "type", "Snapshot") && (!record_is_final(r) || !rec_isnull(r, "retry_at")))
		k->unfinished++;
	return 0;
}

/* Drop the removed crawls' lines from the site index (a hint). */
static void
prune_site_index(store_t *s, cand_t *gone, size_t n)
{
	buf_t in = {0}, out = {0};
	if (fs_read(s->dfd, "index.jsonl", &in) < 0) {
		buf_free(&in);
		return;
	}
	char *q = in.p, *end = in.p + in.len;
	while (q < end) {
		char *nl = memchr(q, '\n', end - q);
		size_t len = nl ? (size_t)(nl - q) : (size_t)(end - q);
		int drop = 0;
		for (size_t i = 0; i < n && !drop; i++)
			drop = memmem(q, len, gone[i].id, ID_LEN) != NULL;
		if (!drop && nl) {
			buf_add(&out, q, len);
			buf_addc(&out, '\n');
		}
		q += len + 1;
	}
	/* durable: the site index is appended to behind a barrier (seal.h),
	 * and a rewrite that a power loss empties would lose all of it */
	if (fs_replace(s->dfd, "index.jsonl", out.p ? out.p : "", out.len, s->durable) < 0)
		warnsys("unable to rewrite %s/index.jsonl", s->dir);
	unlinkat(s->dfd, "index/site.json", 0);   /* the pages are rebuilt */
	buf_free(&in);
	buf_free(&out);
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

/* Tombstone one candidate (or, for a leftover, only move its directory),
 * under its lease and the store lock, and move its directory away; the
 * lock is held for one commit and one rename.  Returns 1 if tombstoned. */
static int
expire(store_t *s, const cand_t *c, int leftover, int verbose)
{
	int fd, done = 0, in_place = 0;
	if (lease_take(s, c->id, &fd) != LEASE_TAKEN)
		return 0;
	store_lock(s);
	rec_t r;
	if (store_get(s, c->id, &r) == 0) {
		if (leftover) {
			in_place = !rec_isnull(&r, "deleted_at") && move_away(s, c->id) < 0;
		} else {
			char j[128];
			store_crawl_journal(c->id, j, sizeof j);
			kids_t k = {c->id, 0};
			store_each(s, j, "\"Snapshot\"", check_kids, &k);
			/* re-checked under the lock: a crawl retried and sealed
			 * again since the scan is younger now */
			int64_t mod = rec_time(&r, "modified_at");
			if (k.unfinished == 0 && record_is_final(&r) && rec_isnull(&r, "retry_at") &&
			    rec_isnull(&r, "deleted_at") && mod >= 0 && mod + c->secs * 1000000 <= clock_now()) {
				/* the tombstone first: the record never claims a
				 * directory that is gone */
				rec_set_time(&r, "deleted_at", clock_now());
				rec_set_str(&r, "notes", "removed by retention (DELETE_AFTER)");
				store_put(s, &r);
				store_commit(s);
				fault_point("retention-after-tombstone");
				in_place = move_away(s, c->id) < 0;
				done = 1;
				if (verbose)
					info("crawl %s expired and removed", c->id);
			}
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
	/* with no global DELETE_AFTER only crawls configuring one can expire
	 * (and tombstones, whose notes name it, be finished): a substring
	 * pre-filter skips the rest without parsing them */
	store_each(s, "crawls.jsonl", sc.global ? "\"sealed\"" : "DELETE_AFTER", crawl_candidate, &sc);
	for (size_t i = 0; i < sc.nleft; i++)
		expire(s, &sc.left[i], 1, verbose);
	if (sc.n)
		qsort(sc.v, sc.n, sizeof(cand_t), by_expiry);
	size_t removed = 0;
	cand_t *gone = xcalloc(sc.n + 1, sizeof(cand_t));
	for (size_t i = 0; i < sc.n && (int)removed < batch; i++)
		if (expire(s, &sc.v[i], 0, verbose))
			gone[removed++] = sc.v[i];
	if (removed) {
		store_lock(s);   /* seals append to index.jsonl under it */
		prune_site_index(s, gone, removed);
		store_unlock(s);
		seal_site_index(s);
		/* for the tests: the lock is free, the directories moved away
		 * and not yet removed */
		if (fault_armed("retention-stop-before-remove"))
			raise(SIGSTOP);
		fault_point("retention-before-remove");
	}
	empty_trash(s);
	free(gone);
	free(sc.v);
	free(sc.left);
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
	cand_t *v = xcalloc(n + 1, sizeof *v);
	for (size_t i = 0; i < n; i++)
		snprintf(v[i].id, sizeof v[i].id, "%s", ids[i]);
	prune_site_index(s, v, n);
	free(v);
}

void
retention_empty_trash(store_t *s)
{
	empty_trash(s);
}
