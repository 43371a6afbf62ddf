/*
 * seal.c — see seal.h.  Sections: collecting a snapshot's records, its
 * three index files (pages: snappage.c), sealing, the crawl rule.  Packing
 * is in pack.c, the site index in siteindex.c.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "seal/crawlpage.h"
#include "seal/offline.h"
#include "base/err.h"
#include "base/exitcodes.h"
#include "base/fs.h"
#include "store/lease.h"
#include "store/record.h"
#include "seal/seal.h"
#include "seal/sealtext.h"
#include "seal/siteindex.h"
#include "seal/snappage.h"

#define CHILD_BUSY_US (10 * 1000000LL)   /* a lease renewal period */

/* collect_result's filter: the results and processes of one snapshot */
typedef struct {
	const char *sid;
	recs_t *out;
} collect_t;

static int
collect_result(rec_t *r, void *arg)
{
	collect_t *c = arg;
	if ((rec_streq(r, "type", "ArchiveResult") || rec_streq(r, "type", "Process")) &&
	    rec_streq(r, "snapshot_id", c->sid))
		recs_add(c->out, r);
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

/* ----------------------------------------------------------- sealing */

/* The snapshot's index files: written in place the first time (one inode
 * each: nothing trusts them before the seal commits), by temp + rename
 * when they exist (a reseal); the directories made if absent when make is
 * set (else -1); not synced here unless synced is given: the
 * seal's commit is preceded by a store barrier.  With synced
 * (seal_snapshot_ahead, per-file durability), each file is fsync'd through
 * the descriptor that wrote it, then the snapshot's directory and the
 * crawl's (its entry), and *synced is set to 1 only if every one of them
 * was.  The files are opened below the snapshot's directory, the hooks'
 * files below the crawl's, each opened once: on a network filesystem each
 * component of a path, and each open, is a round trip.  0, or -1 (s->err
 * set). */
static int
write_files(store_t *s, const rec_t *snap, const char *dir, const recs_t *results, int make, int *synced)
{
	int sync = synced != NULL, fail = 0;
	recs_t bins = {0};
	const recs_t rs = *results;
	char path[512];
	const char *sid = strrchr(dir, '/');
	sid = sid ? sid + 1 : dir;
	int cdfd = -1, sdfd = -1;
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
	snprintf(path, sizeof path, "%s", dir);
	char *cut = strrchr(path, '/');
	if (cut)
		*cut = 0;
	/* the directories as they are, else made if make is set */
	if ((cdfd = fs_opendir(s->dfd, cut ? path : ".")) >= 0)
		sdfd = fs_opendir(cdfd, sid);
	if (sdfd < 0 && errno == ENOENT && make) {
		if (cdfd >= 0)
			close(cdfd);
		cdfd = -1;
		if (fs_mkdirs(s->dfd, dir) == 0 && (cdfd = fs_opendir(s->dfd, cut ? path : ".")) >= 0)
			sdfd = fs_opendir(cdfd, sid);
	}
	if (sdfd < 0) {
		rc = store_fail(s, EX_CANTCREAT_, errno, "unable to create %s/%s", s->dir, dir);
		goto out;
	}
	snprintf(path, sizeof path, "index.jsonl");
	if (fs_write_new_sync(sdfd, path, b.p, b.len, sync) < 0)
		goto fail;
	buf_reset(&b);
	snappage_json(&b, snap, rs.v, rs.n, dir);
	snprintf(path, sizeof path, "index.json");
	if (fs_write_new_sync(sdfd, path, b.p, b.len, sync) < 0)
		goto fail;
	buf_reset(&b);
	/* these name the snapshot's directory (its offline copy's links) */
	fail |= snappage_html(&b, snap, rs.v, rs.n, cdfd, sid, sync) < 0;
	snprintf(path, sizeof path, "index.html");
	if (fs_write_new_sync(sdfd, path, b.p, b.len, sync) < 0)
		goto fail;
	/* text.txt, for abx-ls --search */
	fail |= sealtext_write(cdfd, snap, sid, rs.v, rs.n, sync) < 0;
	if (sync && !fail && fsync(sdfd) == 0 && fsync(cdfd) == 0)
		*synced = 1;
	goto out;
fail:
	rc = store_fail(s, EX_IOERR_, errno, "unable to write %s/%s/%s", s->dir, dir, path);
out:
	if (sdfd >= 0)
		close(sdfd);
	if (cdfd >= 0)
		close(cdfd);
	buf_free(&b);
	recs_free(&bins);
	return rc;
}


int
seal_snapshot(store_t *s, const char *id, rec_t *out)
{
	return seal_snapshot_with(s, id, out, NULL, 0, -1);
}

/* The snapshot's Process and ArchiveResult records, in start_ts order:
 * given (a first run's, as its worker printed them: no scan of the
 * crawl's journal, whose size grows with the crawl), else looked up. */
static void
collect_results(store_t *s, const rec_t *snap, const rec_t *given, size_t ngiven, recs_t *rs)
{
	char *sid = rec_str(snap, "id"), *cid = rec_str(snap, "crawl_id");
	collect_t c = {sid, rs};
	if (given) {
		for (size_t i = 0; i < ngiven; i++)
			collect_result((rec_t *)&given[i], &c);
	} else if (cid) {
		char j[128];
		store_crawl_journal(cid, j, sizeof j);
		store_each(s, j, sid, collect_result, &c);
	}
	if (rs->n)
		qsort(rs->v, rs->n, sizeof(rec_t), by_start);
	free(sid), free(cid);
}

static int
plugin_has_run(const recs_t *rs, const char *plugin)
{
	for (size_t i = 0; i < rs->n; i++)
		if (rec_streq(&rs->v[i], "type", "ArchiveResult") && rec_streq(&rs->v[i], "plugin", plugin) &&
		    !rec_isnull(&rs->v[i], "hook_name") && !rec_streq(&rs->v[i], "status", "queued"))
			return 1;
	return 0;
}

/* How many of the results ran (are not queued). */
static int
results_ran(const recs_t *rs)
{
	int n = 0;
	for (size_t i = 0; i < rs->n; i++)
		n += rec_streq(&rs->v[i], "type", "ArchiveResult") && !rec_streq(&rs->v[i], "status", "queued");
	return n;
}

/* Whether the egress gate refused the page's own fetch for one of the
 * results (its "network_zone", phase_gate.c): the page is then not
 * archived, whatever the hooks saved around it. */
static int
results_refused(const recs_t *rs)
{
	for (size_t i = 0; i < rs->n; i++)
		if (rec_streq(&rs->v[i], "type", "ArchiveResult") && !rec_isnull(&rs->v[i], "network_zone"))
			return 1;
	return 0;
}

/*
 * A result still queued when its snapshot is sealed was queued by abx-ctl
 * retry and not run again (its plugin no longer selected, or without that
 * hook now): a sealed snapshot has no queued result, so it is staged
 * skipped, with a note.  One without a hook_name (queued for a plugin that
 * was not installed, or by an older abx) is left out of the index files
 * when its plugin's hooks recorded results.
 */
static void
settle_queued(store_t *s, recs_t *rs)
{
	for (size_t i = 0; i < rs->n;) {
		rec_t *r = &rs->v[i];
		if (!rec_streq(r, "type", "ArchiveResult")) {
			i++;
			continue;
		}
		if (rec_streq(r, "status", "queued")) {
			char *pl = rec_str(r, "plugin");
			int superseded = rec_isnull(r, "hook_name") && pl && plugin_has_run(rs, pl);
			rec_set_str(r, "status", "skipped");
			rec_set_null(r, "retry_at");
			rec_set_str(r, "notes", superseded ? "queued by abx-ctl retry; superseded by the results of the "
			                                     "plugin's hooks"
			                                   : "queued by abx-ctl retry, but not run again: the plugin "
			                                     "was not selected or has no such hook now");
			store_put(s, r);
			free(pl);
			if (superseded) {
				rec_free(r);
				rs->v[i] = rs->v[--rs->n];
				continue;
			}
		}
		i++;
	}
	if (rs->n)
		qsort(rs->v, rs->n, sizeof(rec_t), by_start);
}

/* The sealed version of r, a snapshot not sealed yet, whose results are
 * rs and whose directory dir holds size bytes (< 0: count them). */
static void
seal_fields(store_t *s, rec_t *r, const recs_t *rs, const char *dir, long long size)
{
	int64_t now = clock_now();
	int results = results_ran(rs);
	record_status(r, "sealed", -1);
	rec_set_null(r, "lease");
	rec_del(r, "retry_plugins");
	/* why it is sealed: its hooks ran, or none was selected, or the
	 * page's own fetch went into a zone the crawl may not enter */
	rec_set_str(r, "sealed_reason", results_refused(rs) ? "network_zone" :
	    results ? "archived" : "no_hooks");
	if (results && rec_isnull(r, "downloaded_at"))
		rec_set_time(r, "downloaded_at", now);
	rec_set_int(r, "output_size", size >= 0 ? size : fs_du(s->dfd, dir));
	snappage_mark(r, rs->v, rs->n);   /* "incomplete": requisites missing */
}

/* The row in the site index and the commit, the lock held: the lock is
 * checked first, so that a host that lost it writes no row beside the one
 * that took it over.  1 committed, 0 not. */
static int
seal_commit(store_t *s, const rec_t *r, const char *dir)
{
	if (store_still_locked(s) < 0) {
		store_discard(s);
		return 0;
	}
	site_index_append(s, r, dir);
	store_barrier_path(s, "index.jsonl");
	return store_commit(s) == 0;
}

/*
 * The files first, then the record: the index files are written (with the
 * sealed version), a store barrier makes them and every hook output
 * written before durable ahead of the journal line (store.h), and only
 * then is "sealed" committed.  A crash before the commit leaves the
 * snapshot unsealed with index files that the next seal rewrites.  The
 * lock is held, and stays held.
 */
static int
seal_locked(store_t *s, const char *id, rec_t *out, const rec_t *recs, size_t n, long long size)
{
	rec_t r;
	char dir[256];
	fault_point("seal-locked");
	if (store_get(s, id, &r) < 0)
		return store_failed(s) ? SEAL_ERR : SEAL_NOTFOUND;
	if (!rec_streq(&r, "type", "Snapshot")) {
		rec_free(&r);
		return SEAL_BADKIND;
	}
	if (rec_streq(&r, "status", "paused")) {
		rec_free(&r);
		return SEAL_PAUSED;
	}
	seal_dir_of(&r, dir, sizeof dir);
	int was_sealed = rec_streq(&r, "status", "sealed") && rec_isnull(&r, "retry_at") &&
	                 rec_isnull(&r, "lease");
	recs_t rs = {0};
	const char *hr = rec_raw(&r, "has_results");
	if (recs || (hr && !strcmp(hr, "true")))
		collect_results(s, &r, recs, n, &rs);
	if (rec_streq(&r, "status", "queued") && !results_ran(&rs)) {
		/* never run: sealing it would say that it was archived */
		recs_free(&rs);
		rec_free(&r);
		return SEAL_UNRUN;
	}
	/* a reseal settles them too: one cancelled before its rerun, or
	 * left by an older abx (committed with the reseal) */
	settle_queued(s, &rs);
	if (!was_sealed) {
		seal_fields(s, &r, &rs, dir, size);
		store_put(s, &r);   /* staged: sets modified_at, which the files show */
	}
	int ok = write_files(s, &r, dir, &rs, 1, NULL) == 0;
	recs_free(&rs);
	if (ok)
		store_barrier(s);   /* a reseal's files too: durable at the next sync */
	if (!ok)
		store_discard(s);
	else if (!was_sealed)
		ok = seal_commit(s, &r, dir);
	if (out && ok)
		*out = r;
	else
		rec_free(&r);
	return ok ? SEAL_OK : SEAL_ERR;
}

int
seal_snapshot_with(store_t *s, const char *id, rec_t *out, const rec_t *recs, size_t n, long long size)
{
	if (store_lock(s) < 0)
		return SEAL_ERR;
	int rc = seal_locked(s, id, out, recs, n, size);
	if (store_unlock(s) < 0) {
		if (out && rc == SEAL_OK)
			rec_free(out);
		rc = SEAL_ERR;
	}
	return rc;
}

/* Whether one of the results is still queued (settle_queued's case). */
static int
results_queued(const recs_t *rs)
{
	for (size_t i = 0; i < rs->n; i++)
		if (rec_streq(&rs->v[i], "type", "ArchiveResult") && rec_streq(&rs->v[i], "status", "queued"))
			return 1;
	return 0;
}

/*
 * seal_snapshot_with, with the files built before the lock.  seen is the
 * record as read without the lock; when it is a first seal that needs no
 * result settled, the sealed version and its files are made from it now
 * (where each file is fsync'd, they are fsync'd too, with the directory
 * and its entry: store_presynced), and under the lock only the record is
 * checked and committed, if it is still seen, line for line.  Otherwise,
 * or if it changed meanwhile (abx-ctl, abx-seal by hand), the seal is
 * made under the lock as seal_snapshot_with makes it, which rewrites the
 * files (temp + rename).  What the lock is held for is then a lookup, a
 * row in the site index and the commit: on a network filesystem the
 * files are dozens of round trips, which no other process of any host
 * has to wait for any more.
 */
int
seal_snapshot_ahead(store_t *s, const char *id, const rec_t *seen, rec_t *out, const rec_t *recs, size_t n,
    long long size)
{
	char dir[256];
	recs_t rs = {0};
	rec_t r = {0};
	buf_t was = {0};
	int ahead = recs && seen && rec_streq(seen, "type", "Snapshot") && rec_streq(seen, "id", id) &&
	            !rec_streq(seen, "status", "paused") && !rec_streq(seen, "status", "sealed") &&
	            seal_dir_of(seen, dir, sizeof dir) == 0;
	if (ahead) {
		collect_results(s, seen, recs, n, &rs);
		ahead = !results_queued(&rs) && !(rec_streq(seen, "status", "queued") && !results_ran(&rs));
	}
	if (ahead) {
		rec_copy(&r, seen);
		rec_line(seen, &was);
		seal_fields(s, &r, &rs, dir, size);
		rec_set_time(&r, "modified_at", clock_now());   /* store_put_as_is keeps it */
		/* a failure here is not the seal's: it is made again under
		 * the lock, which reports what fails there */
		unsigned nerr = s->nerr;
		int err = s->err;
		char msg[sizeof s->errmsg];
		memcpy(msg, s->errmsg, sizeof msg);
		int per = s->perfile && s->durable, synced = 0;
		/* not made here: a snapshot without its directory is sealed under
		 * the lock, as before */
		ahead = write_files(s, &r, dir, &rs, 0, per ? &synced : NULL) == 0;
		if (!ahead) {
			s->nerr = nerr, s->err = err;
			memcpy(s->errmsg, msg, sizeof msg);
		}
		if (ahead && synced) {
			/* each file as written, the directory and its entry */
			char own[sizeof dir + 2];
			snprintf(own, sizeof own, "%s/*", dir);
			store_presynced(s, own);
		}
	}
	recs_free(&rs);
	if (ahead)
		fault_point("seal-ahead");   /* the files written, not the record */
	if (store_lock(s) < 0) {
		rec_free(&r), buf_free(&was);
		return SEAL_ERR;
	}
	int rc;
	rec_t cur;
	int same = 0;
	if (ahead && store_get(s, id, &cur) == 0) {
		buf_t now = {0};
		rec_line(&cur, &now);
		same = now.len == was.len && memcmp(now.p, was.p, now.len) == 0;
		buf_free(&now);
		rec_free(&cur);
	}
	if (same) {
		fault_point("seal-locked");
		store_put_as_is(s, &r);
		store_barrier(s);   /* the files, where one syncfs covers them */
		rc = seal_commit(s, &r, dir) ? SEAL_OK : SEAL_ERR;
	} else {
		/* the files are made again: what was synced is not them */
		store_presynced_drop(s);
		rc = seal_locked(s, id, out, recs, n, size);
	}
	if (store_unlock(s) < 0) {
		if (out && rc == SEAL_OK && !same)
			rec_free(out);   /* seal_locked's */
		rc = SEAL_ERR;
	}
	if (out && rc == SEAL_OK && same)
		*out = r;
	else
		rec_free(&r);
	buf_free(&was);
	return rc;
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
		/* the holder moves it on: its lease goes with it (a cancelled
		 * crawl is sealed already, but may still carry one) */
		if (!rec_streq(&r, "status", "sealed") || !rec_isnull(&r, "retry_at") ||
		    !rec_isnull(&r, "lease")) {
			if (!rec_streq(&r, "status", "sealed") && rec_isnull(&r, "sealed_reason"))
				rec_set_str(&r, "sealed_reason", "finished");
			record_status(&r, "sealed", -1);
			rec_set_null(&r, "lease");
			store_put(s, &r);
			store_commit(s);
		}
		char j[128];
		store_crawl_journal(id, j, sizeof j);
		if (!store_failed(s))
			store_compact(s, j, 1);   /* a finished crawl keeps one line a record */
		/* its page, written at each seal (a reseal refreshes it); a
		 * hint: a failure is reported, not the seal's */
		if (!store_failed(s) && crawlpage_write(s, &r) < 0)
			warnx_("unable to write %s/crawls/%s/index.html: %s", s->dir, id, strerror(errno));
		rc = SEAL_OK;
	} else if (rec_streq(&r, "status", "paused")) {
		/* it stays paused, and nobody holds it any more */
		if (!rec_isnull(&r, "lease")) {
			rec_set_null(&r, "lease");
			store_put(s, &r);
		}
		rc = SEAL_PAUSED;
	} else {
		if (!rec_streq(&r, "status", "started"))
			rec_set_str(&r, "status", "queued");
		rec_set_time(&r, "retry_at", cs.earliest);
		rec_set_null(&r, "lease");
		store_put(s, &r);
		rc = SEAL_REQUEUED;
	}
	if (store_unlock(s) < 0)
		rc = SEAL_ERR;
	if (rc == SEAL_OK)
		offline_crawl(s, id);   /* its pages' offline copies link each other (offline.h) */
	if (out && rc != SEAL_PAUSED)
		*out = r;
	else
		rec_free(&r);
	return rc;
}
