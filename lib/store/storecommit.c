/*
 * storecommit.c — staging and the commit (store.h, Protocol and Errors):
 * store_put() stages a record version under the lock; store_commit()
 * writes each journal touched in one write(2) and syncs it (or owes the
 * sync: ABX_SYNC=batch), then the index lines of them all, or on any
 * failure cuts off what it wrote; the hints of a finished record (its
 * location, its expiry: expire.h) are written before its line.  Also the
 * syncs owed (store_sync, store_syncfs, store_barrier, store_barrier_path)
 * and store_discard.  Where syncfs is not trusted (s->perfile, durable.h)
 * a barrier fsyncs the files the staged records name instead, before
 * their lines (store.h, Durability), and every syncfs here becomes an
 * fdatasync of the journals owed.  Part of the store (store_int.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/err.h"
#include "base/exitcodes.h"
#include "base/fs.h"
#include "store/durable.h"
#include "store/nolock.h"
#include "store/store_int.h"
#include "store/storefd.h"

void
store_put(store_t *s, rec_t *r)
{
	rec_set_time(r, "modified_at", clock_now());
	store_put_as_is(s, r);
}

void
store_put_as_is(store_t *s, rec_t *r)
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
	if (s->npend == s->pendcap) {
		s->pendcap = s->pendcap ? s->pendcap * 2 : 16;
		s->pend = xrealloc(s->pend, s->pendcap * sizeof(pending_t));
	}
	pending_t *p = &s->pend[s->npend++];
	snprintf(p->journal, sizeof p->journal, "%s", j);
	memcpy(p->id, id, ID_LEN + 1);
	rec_copy(&p->rec, r);
	p->active = record_is_active(r);
	p->fresh = 0;
	free(id);
}

void
store_put_new(store_t *s, rec_t *r)
{
	size_t n = s->npend;
	store_put(s, r);
	if (s->npend > n)
		s->pend[n].fresh = 1;
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
	if (jfd_stat(s, w->fd, &st) < 0)
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
	w->base = st.st_size;
	/* a top-level journal is not stat'ed at a lock while the index took
	 * no other line (storelock.c): its state goes to the index first */
	if (!s->lean && store_is_top(j)) {
		buf_t pre = {0};
		state_line(&pre, j, w->base);
		int rc = index_note(s, &pre, "index-note-half-line");
		buf_free(&pre);
		if (rc < 0)
			return store_fail(s, EX_IOERR_, ENOSPC, "unable to note %s/%s in %s/%s", s->dir, j,
			    s->dir, INDEX_PATH);
	}
	buf_t lines = {0}, post = {0};
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
			e.nolock = p->fresh && nolock_fresh_ok(s, p->id);
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
			e = index_slot(s, p->id, 0);   /* the table may have grown */
			if (e && p->fresh && nolock_fresh_ok(s, p->id))
				e->nolock = 1;
			index_line(s, p->active ? &w->idx : &post, e);
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
	jfd_changed(s);
	int e = n < 0 ? errno : ENOSPC;   /* a short write to a file: the disk is full */
	size_t len = lines.len;
	buf_free(&lines);
	if (n != (ssize_t)len) {
		if (n > 0 && ftruncate(w->fd, w->base) < 0)
			return store_fail(s, EX_IOERR_, e, "unable to append to %s/%s (and unable to cut "
			    "the partial line off: the next writer will)", s->dir, j);
		/* an armed journal (storefd.h) fails once the lock is lost:
		 * say so if the store lock is indeed gone */
		if (n < 0 && s->lockfd >= 0 && flock(s->lockfd, LOCK_EX | LOCK_NB) < 0)
			return store_fail(s, EX_TEMPFAIL_, e, "lost the store lock of %s (a write to %s "
			    "failed); nothing was committed", s->dir, j);
		return store_fail(s, EX_IOERR_, e, "unable to append to %s/%s", s->dir, j);
	}
	w->end = w->base + len;
	/* a crawl's journal may hold a worker's unsynced result lines (its
	 * commits are deferred), whose files must be durable first: syncing
	 * it is a syncfs, which makes them durable together (perfile: the
	 * worker fsynced them before it wrote the lines) */
	int shared = w->base > 0 && strncmp(j, "crawls/", 7) == 0 && !s->perfile;
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
	jfd_changed(s);
	if (ftruncate(w->fd, w->base) < 0 || (s->durable && fdatasync(w->fd) < 0)) {
		int e = errno;
		char was[sizeof s->errmsg];
		memcpy(was, s->errmsg, sizeof was);
		store_fail(s, EX_IOERR_, e, "%s; the lines written to %s/%s before the failure may "
		    "stay committed (unable to cut them off)", was, s->dir, w->j);
	}
}

/* Is the store lock still ours?  Re-asserted, unless every journal this
 * commit writes is armed (storefd.h): then a lock lost since fails the
 * first write instead.  From its second commit on, a process that arms
 * (s->arm) arms the journals it writes before it re-asserts (a process
 * that commits once takes no lock it would not use). */
static int
still_ours(store_t *s)
{
	int all = 1;
	for (size_t i = 0; i < s->npend && all; i++)
		all = jfd_armed(s, s->pend[i].journal);
	if (all)
		return 0;
	if (s->reasserted && s->arm)
		for (size_t i = 0; i < s->npend; i++)
			jfd_arm(s, s->pend[i].journal);
	s->reasserted = 1;
	return store_still_locked(s);
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
	int fd = jfd_open(s, j, 0, 0, NULL);
	if (fd < 0)
		return 0;
	if (fdatasync(fd) < 0)
		return store_fail(s, EX_IOERR_, errno, "unable to sync %s/%s", s->dir, j);
	return 0;
}

void
store_barrier(store_t *s)
{
	s->barrier = 1;
}

/* Note rel (a tree; "DIR/": that directory alone; "DIR" then "/" and
 * "*": its own files and itself) to fsync before the next line, once. */
static void
name_path(store_t *s, const char *rel)
{
	for (size_t i = 0; i < s->nnamed; i++)
		if (strcmp(s->named[i], rel) == 0)
			return;
	if (store_is_presynced(s, rel))
		return;   /* its writer synced it before the lock (store.h) */
	s->named = xrealloc(s->named, (s->nnamed + 1) * sizeof *s->named);
	snprintf(s->named[s->nnamed++], sizeof *s->named, "%s", rel);
}

void
store_trees_durable(store_t *s, const char *id)
{
	snprintf(s->trees_durable, sizeof s->trees_durable, "%s", id_valid(id) ? id : "");
}

void
store_barrier_path(store_t *s, const char *rel)
{
	s->barrier = 1;
	if (s->perfile && strlen(rel) < sizeof *s->named)
		name_path(s, rel);
}

/* A plugin's name as a path component: no separator, not . or .. */
static int
plain_name(const char *p)
{
	if (!p || !*p || *p == '.' || strlen(p) > 64)
		return 0;
	return strchr(p, '/') == NULL;
}

/* The files a staged record names (store.h, Durability): a final
 * Snapshot's directory (after store_trees_durable, its own files and the
 * directory alone: "*" after it), an ArchiveResult's plugin directory and
 * the directories above it up to its crawl's. */
static void
name_files_of(store_t *s, const pending_t *p)
{
	const char *j = p->journal, *sl = strncmp(j, "crawls/", 7) == 0 ? strchr(j + 7, '/') : NULL;
	char cid[ID_LEN + 1], rel[256];
	if (!sl || sl - (j + 7) != ID_LEN)
		return;
	memcpy(cid, j + 7, ID_LEN);
	cid[ID_LEN] = 0;
	if (!id_valid(cid))
		return;
	if (rec_streq(&p->rec, "type", "Snapshot") && record_is_final(&p->rec)) {
		snprintf(rel, sizeof rel, "crawls/%s/%s%s", cid, p->id,
		    strcmp(s->trees_durable, p->id) == 0 ? "/*" : "");
		name_path(s, rel);
	} else if (rec_streq(&p->rec, "type", "ArchiveResult") && !rec_streq(&p->rec, "status", "queued")) {
		char *sid = rec_str(&p->rec, "snapshot_id"), *pl = rec_str(&p->rec, "plugin");
		if (id_valid(sid) && plain_name(pl)) {
			snprintf(rel, sizeof rel, "crawls/%s/%s/%s", cid, sid, pl);
			name_path(s, rel);   /* its tree, and the snapshot's directory */
			snprintf(rel, sizeof rel, "crawls/%s/", cid);
			name_path(s, rel);   /* the snapshot's entry in its crawl's */
		}
		free(sid), free(pl);
	}
}

/* perfile: fsync what the staged records and store_barrier_path name. */
static int
sync_named(store_t *s)
{
	for (size_t i = 0; i < s->npend; i++)
		name_files_of(s, &s->pend[i]);
	for (size_t i = 0; i < s->nnamed; i++) {
		char rel[sizeof *s->named];
		snprintf(rel, sizeof rel, "%s", s->named[i]);
		size_t n = strlen(rel);
		int rc;
		if (n && rel[n - 1] == '/') {
			rel[n - 1] = 0;
			rc = fs_fsync_dir(s->dfd, rel);
			if (rc < 0 && errno == ENOENT)
				rc = 0;
		} else if (n > 1 && rel[n - 1] == '*' && rel[n - 2] == '/') {
			rel[n - 2] = 0;
			rc = durable_dir_files(s->dfd, rel);
		} else {
			rc = durable_tree(s->dfd, rel);
		}
		if (rc < 0)
			return store_fail(s, EX_IOERR_, errno, "unable to sync %s/%s", s->dir, rel);
	}
	s->nnamed = 0;        /* only now: a failed sync leaves them owed */
	return 0;
}

int
store_syncfs(store_t *s)
{
	if (s->durable && s->perfile) {
		/* what a syncfs would have covered: the files named and the
		 * journals written since the last sync */
		if (sync_named(s) < 0)
			return -1;
		int rc = 0;
		for (size_t i = 0; i < s->nunsynced; i++)
			if (sync_journal(s, s->unsynced[i]) < 0)
				rc = -1;
		if (rc < 0)
			return -1;
	} else if (s->durable && syncfs(s->dfd) < 0) {
		return store_fail(s, EX_IOERR_, errno, "unable to sync the filesystem of %s", s->dir);
	}
	s->barrier = 0;       /* only now: a failed sync leaves them owed */
	s->nunsynced = 0;
	return 0;
}

int
store_sync(store_t *s)
{
	/* perfile: the parent cannot know which files we wrote */
	if (s->parent_syncs && !s->perfile) {
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
	if (still_ours(s) < 0) {
		store_discard(s);
		s->rollback = 1;
		return -1;
	}
	/* files a record names are made durable before the record: perfile,
	 * even when the journal's sync is deferred (store.h, Durability) */
	if (s->barrier && s->durable && s->perfile) {
		if (sync_named(s) < 0) {
			store_discard(s);
			s->rollback = 1;
			return -1;
		}
		s->barrier = 0;
	} else if (s->barrier && s->durable && !s->lazy && store_syncfs(s) < 0) {
		store_discard(s);
		s->rollback = 1;
		return -1;
	}
	/* lean: a journal no hint names may be one the index does not know
	 * (store.h): load the index and commit as always */
	for (size_t i = 0; i < s->npend && s->lean; i++)
		if ((!lean_vouched(s, s->pend[i].journal) || store_is_top(s->pend[i].journal)) &&
		    store_unlean(s) < 0) {
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
	for (size_t k = 0; k < nw; k++)
		buf_free(&w[k].idx);
	jfd_unpin_all(s);   /* the journals' descriptors stay open (storefd.h) */
	if (rc < 0 && s->err == EX_TEMPFAIL_)
		jfd_drop_armed(s);   /* the lock lost: theirs too (storefd.h) */
	free(w);
	free(done);
	store_discard(s);
	return rc;
}
