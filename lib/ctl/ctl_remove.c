/*
 * ctl_remove.c — abx-ctl remove: a crawl or a snapshot removed on demand,
 * in retention's steps (retention.h): lease, store lock, tombstone
 * committed durably, site index pruned (a deleted_at line appended to
 * index.jsonl) and a snapshot's crawl page rewritten without it, directory
 * moved away, lock released, the crawl's offline copies rewritten without
 * links to a removed snapshot (offline.h), site pages rebuilt, trash
 * emptied.  See ctl_verbs.h.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ctl/ctl_verbs.h"
#include "base/err.h"
#include "base/fs.h"
#include "store/lease.h"
#include "tick/retention.h"
#include "seal/crawlpage.h"
#include "seal/offline.h"
#include "seal/seal.h"

typedef struct {
	store_t *s;
	const char *snap;      /* a snapshot's id: tombstone its records */
	int unfinished;        /* a crawl's snapshots that are not final */
	int64_t now;
	int files_kept;
} kids_t;

static int
each_kid(rec_t *r, void *arg)
{
	kids_t *k = arg;
	if (!rec_isnull(r, "deleted_at"))
		return 0;
	if (!k->snap) {
		if (rec_streq(r, "type", "Snapshot") &&
		    (!record_is_final(r) || !rec_isnull(r, "retry_at")))
			k->unfinished++;
		return 0;
	}
	if (rec_streq(r, "snapshot_id", k->snap)) {
		rec_t c;
		rec_copy(&c, r);
		rec_set_time(&c, "deleted_at", k->now);
		store_put(k->s, &c);
		rec_free(&c);
	}
	return 0;
}

static void
tombstone(rec_t *r, int64_t now, int delete_files)
{
	rec_set_time(r, "deleted_at", now);
	rec_set_str(r, "notes", delete_files ? "removed by abx-ctl remove --delete"
	                                     : "removed by abx-ctl remove (files kept)");
	if (delete_files)
		rec_del(r, "files_kept");
	else
		rec_set_raw(r, "files_kept", "true");
}

/* A snapshot's crawl page, where one was written, again without it (a
 * hint: a failure is said, not the removal's). */
static void
crawl_page_again(store_t *s, const char *cid)
{
	char page[ID_LEN + 32];
	rec_t cr;
	snprintf(page, sizeof page, "crawls/%s/index.html", cid);
	if (!id_valid(cid) || !fs_exists(s->dfd, page) || store_get(s, cid, &cr) < 0)
		return;
	if (rec_isnull(&cr, "deleted_at") && crawlpage_write(s, &cr) < 0)
		warnx_("unable to write %s/%s: %s", s->dir, page, strerror(errno));
	rec_free(&cr);
}

int
ctl_remove(store_t *s, const char *id, int delete_files, rec_t *out)
{
	int fd, rc = CTL_OK, in_place = 0;
	unsigned nerr = s->nerr;
	char dir[128] = "";
	memset(out, 0, sizeof *out);
	if (lease_take(s, id, &fd) != LEASE_TAKEN)
		return CTL_BUSY;
	store_lock(s);
	rec_t r;
	if (store_get(s, id, &r) < 0) {
		store_unlock(s);
		lease_drop(fd);
		return CTL_NOTFOUND;
	}
	int is_crawl = rec_streq(&r, "type", "Crawl");
	char *cid = rec_str(&r, "crawl_id");
	kids_t k = {s, is_crawl ? NULL : id, 0, clock_now(), !delete_files};
	char j[128];
	store_crawl_journal(is_crawl ? id : cid ? cid : "", j, sizeof j);
	/* removed before: --delete finishes what a removal with the files
	 * kept, or a crash after a tombstone, left; else nothing to do */
	int again = !rec_isnull(&r, "deleted_at");
	if (again && !(delete_files && seal_dir_of(&r, dir, sizeof dir) == 0 && fs_exists(s->dfd, dir))) {
		rc = CTL_NOOP;
	} else if (!is_crawl && !rec_streq(&r, "type", "Snapshot")) {
		rc = CTL_BADSTATE;
	} else if (!record_is_final(&r) || !rec_isnull(&r, "retry_at")) {
		rc = CTL_BADSTATE;
	} else if (is_crawl && (store_each(s, j, "\"Snapshot\"", each_kid, &k), k.unfinished)) {
		rc = CTL_BADSTATE;
	} else if (seal_dir_of(&r, dir, sizeof dir) < 0) {
		rc = CTL_BADSTATE;
	} else {
		/* the tombstones first: a record never claims a directory
		 * that is gone; a snapshot's results go with it */
		if (!is_crawl && id_valid(cid) && !again)
			store_each(s, j, id, each_kid, &k);
		int64_t when = again ? rec_time(&r, "deleted_at") : k.now;
		tombstone(&r, when, delete_files);
		store_put(s, &r);
		int committed = store_commit(s) == 0;
		if (committed) {
			/* off the site index while its crawl's journal is still
			 * there to name its snapshots (under the lock: seals
			 * append to index.jsonl under it) */
			char ids[1][ID_LEN + 1];
			snprintf(ids[0], sizeof ids[0], "%s", id);
			retention_prune_site_index(s, (const char (*)[ID_LEN + 1])ids, 1);
			if (!is_crawl)
				crawl_page_again(s, cid);
		}
		if (committed && delete_files)
			in_place = fs_exists(s->dfd, dir) && retention_move_away(s, dir, id) < 0;
		rec_copy(out, &r);
	}
	free(cid);
	rec_free(&r);
	store_unlock(s);
	if (rc != CTL_OK || s->nerr != nerr) {
		lease_drop(fd);   /* a failed commit: the caller reports s->errmsg */
		return rc;
	}
	if (in_place && fs_rmtree(s->dfd, dir) < 0)
		warnsys("unable to remove all of %s/%s", s->dir, dir);
	lease_drop(fd);
	if (!is_crawl) {
		/* the crawl's other offline copies link it no more */
		char *c = rec_str(out, "crawl_id");
		offline_crawl(s, c);
		free(c);
	}
	seal_site_index(s);
	retention_empty_trash(s);
	return CTL_OK;
}
