/*
 * storelock.c — the store lock (store.h, Protocol): store_lock() takes
 * locks/store.lock and, before any hint is trusted, reads what the index
 * gained and replays the journal tails it missed; store_unlock() commits
 * (or drops, after a failure) what is staged, compacts a bloated index and
 * releases the lock; store_unlean() leaves lean mode; store_still_locked()
 * checks that a network filesystem did not take the lock from under us.
 * The lock file is opened by the first store_lock (storeperm.h), so that a
 * process that only reads never opens it; a wait of more than 3 seconds
 * is said once on stderr, with the holder's pid (lockwait.h).  Part of the
 * store (store_int.h).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/file.h>

#include "base/err.h"
#include "base/exitcodes.h"
#include "base/lockwait.h"
#include "store/store_int.h"
#include "store/storeperm.h"
#include "store/storefd.h"

static int catch_up(store_t *s);

int
store_lock(store_t *s)
{
	if (s->locked)
		return 0;
	s->txerr = s->nerr;
	s->rollback = 0;
	if (s->lockfd < 0 && store_lock_open(s) < 0) {
		s->rollback = 1;
		store_tx_forget(s);   /* said of this transaction only */
		return store_fail(s, EX_CONFIG_, errno, "unable to open %s/locks/store.lock", s->dir);
	}
	char name[4200];
	snprintf(name, sizeof name, "%s/locks/store.lock", s->dir);
	if (lock_wait(s->lockfd, LOCK_EX, name, 3) < 0) {
		s->rollback = 1;
		store_tx_forget(s);
		return store_fail(s, EX_IOERR_, errno, "unable to lock %s", name);
	}
	s->locked = 1;
	s->dropped = 0;
	jfd_changed(s);   /* what was stat'ed before is stat'ed again */
	if (s->lean)
		return 0;   /* hints only (store.h: Lean mode) */
	if (catch_up(s) < 0) {
		flock(s->lockfd, LOCK_UN);
		s->locked = 0;
		store_tx_forget(s);
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
	/* the table took another boot's lines: they may be an older state
	 * of the index than the journals' (index.c), which may lack the
	 * state of a journal made since: every journal that may hold active
	 * items gets one (end 0: replayed whole), the top-level journals
	 * now, a crawl's once they are replayed */
	static const char *tops[] = {"crawls.jsonl", "schedules.jsonl", "binaries.jsonl", NULL};
	int foreign = index_take_foreign(s);
	for (int i = 0; foreign && tops[i]; i++)
		jstate(s, tops[i], 1);
	/* lines the index missed (a crash, a hand edit) are replayed now,
	 * before any decision is taken on a hint.  A journal that cannot be
	 * read here is not this transaction's failure (its lookups fail on
	 * their own): it is warned of once */
	unsigned nerr = s->nerr;
	int err = s->err;
	char msg[sizeof s->errmsg];
	memcpy(msg, s->errmsg, sizeof msg);
	/* a commit or a compaction of a top-level journal appends its state
	 * line to the index before it writes the journal (storecommit.c,
	 * journal.c), and so does a replay of one: while the index took no
	 * other process's state line of one since they were last checked,
	 * none of them can have grown but by a hand, and they are not
	 * stat'ed again for a second (on a network filesystem, a round trip
	 * each): a line appended by hand is taken within a second */
	int64_t mono = clock_mono();
	int check_tops = foreign || !s->tops_synced || s->tops_noted || mono - s->tops_at >= 1000000;
	/* the top-level journals first: a crawl they make active again has
	 * its journal replayed too */
	for (int top = 1; top >= 0; top--) {
		if (!top && foreign)
			index_ensure_crawls(s);
		if (top && !check_tops)
			continue;
		index_mark_needed(s);
		for (size_t i = 0; i < s->njs; i++) {
			if (!s->js[i].need || (strncmp(s->js[i].j, "crawls/", 7) != 0) != top)
				continue;
			char j[128];
			snprintf(j, sizeof j, "%s", s->js[i].j);
			journal_sync(s, j);
		}
	}
	/* checked: until the index takes a state line of one, or for a
	 * second (a replay that failed is tried again at the next lock) */
	if (check_tops) {
		s->tops_synced = s->nerr == nerr;
		s->tops_at = mono;
	}
	s->tops_noted = 0;
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
	store_tx_forget(s);
	jfd_changed(s);
	int rb = s->rollback;
	s->rollback = 0;
	return rb ? -1 : 0;
}

int
store_still_locked(store_t *s)
{
	if (s->locked && s->lockfd >= 0 && flock(s->lockfd, LOCK_EX | LOCK_NB) < 0)
		return store_fail(s, EX_TEMPFAIL_, errno, "lost the store lock of %s; nothing was committed",
		    s->dir);
	return 0;
}
