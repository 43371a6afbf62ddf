/*
 * indexread.c — reading the active index (index.c): refresh() reads what
 * the file gained (or all of it, if it was replaced), checking the marks
 * of another boot's lines (indexchain.c); an index it cannot trust is
 * rebuilt under the lock and replayed from the journals into memory by a
 * reader without it, which writes nothing (abx-ls(1)).  Internal to the
 * store: declared in store_int.h.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/err.h"
#include "base/exitcodes.h"
#include "base/fs.h"
#include "base/fsretry.h"
#include "store/indexchain.h"
#include "store/store_int.h"

/* A reader's index rebuilt in memory: replay what the journals gained
 * (tops first: a crawl they make active has its journal replayed next).
 * walk: the table took another boot's lines (refresh), which may be an
 * older state than the journals': every journal it may lack is replayed
 * too, as catch_up does under the lock. */
static int
memory_catch_up(store_t *s, int walk)
{
	static const char *tops[] = {"crawls.jsonl", "schedules.jsonl", "binaries.jsonl", NULL};
	int grew = s->njs == 0 || walk;
	for (int i = 0; tops[i]; i++) {
		if (walk)
			jstate(s, tops[i], 1);
		grew |= journal_sync(s, tops[i]);
	}
	if (walk)
		index_ensure_crawls(s);
	if (!grew || walk) {
		/* the same crawls: their journals' tails only */
		for (size_t i = 0; i < s->njs; i++)
			if (strncmp(s->js[i].j, "crawls/", 7) == 0) {
				char j[128];
				snprintf(j, sizeof j, "%s", s->js[i].j);
				journal_sync(s, j);
			}
		if (!walk)
			return 0;
	}
	for (size_t i = 0; i < s->tabcap; i++) {
		const ient_t *e = &s->tab[i];
		if (e->used && e->live && strcmp(e->type, "Crawl") == 0) {
			char j[128];
			store_crawl_journal(e->id, j, sizeof j);
			journal_sync(s, j);
		}
	}
	return 0;
}

/* The journal of every live crawl, and of every live snapshot, gets a
 * state if it has none (end 0: replayed whole).  See the header. */
void
index_ensure_crawls(store_t *s)
{
	char last[ID_LEN + 1] = "";
	for (size_t i = 0; i < s->tabcap; i++) {
		const ient_t *e = &s->tab[i];
		if (!e->used || !e->live)
			continue;
		const char *cid = strcmp(e->type, "Crawl") == 0 ? e->id : strcmp(e->type, "Snapshot") == 0 ?
		    e->crawl_id : "";
		if (!id_valid(cid) || strcmp(cid, last) == 0)
			continue;
		snprintf(last, sizeof last, "%s", cid);
		char j[128];
		store_crawl_journal(cid, j, sizeof j);
		jstate(s, j, 1);
	}
}

/*
 * An index that must be rebuilt: under the lock, rebuilt (file and all).
 * A reader without the lock writes nothing and takes no lock (abx-ls(1)):
 * it replays the journals into memory instead, as a rebuild would (the
 * top-level journals, then the journal of each active crawl), and marks
 * the table as such (idxino INO_MEMORY), so that a later refresh only
 * replays what the journals gained (journal_sync ignores a trailing
 * partial line, so a writer's line is read once it is whole).
 */
#define INO_MEMORY ((ino_t)-1)

static int
rebuild_locked(store_t *s)
{
	if (s->locked)
		return store_rebuild_index(s);
	index_drop(s);
	s->idxino = INO_MEMORY;
	return memory_catch_up(s, 0);
}

/*
 * Read new index lines (or all, if the file was replaced).  The header is
 * checked before anything of the file is used: an index that is empty,
 * whose header line is torn, or that names another boot is rebuilt from
 * the journals.  Another boot's index may be one written before a power
 * loss, which kept an older whole version of it (a compaction) or any
 * part of it: it is never synced.  An older whole version names only the
 * journals of its day, and a crawl added since would be missed (its
 * journal is found by a rebuild, not by a replay); so it is not reused,
 * though another host's index on a shared filesystem then is rebuilt too.
 */
static int
refresh(store_t *s, int attempt)
{
	struct stat st;
	int fd = -1;
	if (!s->locked && s->idxino == INO_MEMORY)
		return memory_catch_up(s, 0);
	/* the descriptor read so far names the index while its file has a
	 * link (a rewrite renames over it, here or on another host: the old
	 * file's count drops to 0); then no path is walked (storefd.h) */
	if (s->idxfd >= 0 && fstat(s->idxfd, &st) == 0 && st.st_nlink > 0 && st.st_ino == s->idxino &&
	    (!s->locked || (fcntl(s->idxfd, F_GETFL) & O_ACCMODE) == O_RDWR)) {
		fd = s->idxfd;
	} else if (fs_exists(s->dfd, INDEX_PATH) == 0) {
		return rebuild_locked(s);
	} else {
		/* a reader opens it read-only (a read-only data directory, or
		 * another user's); the lock holder reads and appends */
		index_drop(s);
		fd = fsr_open(s->dfd, INDEX_PATH, s->locked ? O_RDWR | O_APPEND : O_RDONLY, FSR_EXISTED, &st);
		if (fd < 0)
			return store_fail(s, EX_IOERR_, errno, "unable to open %s/%s", s->dir, INDEX_PATH);
		s->idxfd = fd;
		s->idxino = st.st_ino;
		s->idxoff = 0;
	}
	/* st is the file's (fstat above, or fsr_open's); what this process
	 * read of it ends with a newline */
	if (s->locked && repair_tail(s, fd, INDEX_PATH, 0, &st, s->idxoff > 0 ? s->idxoff : -1) < 0)
		return -1;
	if (s->idxoff == 0 && st.st_size == 0)
		return rebuild_locked(s);   /* empty: a power loss, or a crash mid-rebuild */
	if (st.st_size <= s->idxoff)
		return 0;
	size_t n = st.st_size - s->idxoff;
	char *p = xmalloc(n + 1);
	ssize_t got = pread(fd, p, n, s->idxoff);
	if (got < 0 && errno == ESTALE && fsr_again(ESTALE, 0, attempt)) {
		free(p);
		index_drop(s);
		return refresh(s, attempt + 1);
	}
	if (got < 0) {
		free(p);
		return store_fail(s, EX_IOERR_, errno, "unable to read %s/%s", s->dir, INDEX_PATH);
	}
	ichain_t *c = chain_of(s);
	char *q = p, *end = p + got;
	if (s->idxoff == 0) {
		/* the header: a line without its newline was torn by a crash (a
		 * rewrite is renamed in whole, so never while being written) */
		char *nl = memchr(q, '\n', end - q);
		int own = nl ? chain_boot_line(s, q, nl - q) : -1;
		if (own < 0) {
			free(p);
			return rebuild_locked(s);
		}
		chain_start(c, q, nl - q + 1, own);
		c->foreign |= !own;
		s->idxoff = nl - q + 1;
		q = nl + 1;
	}
	int bad = 0, tail = 0;
	/* this boot's file: every line is used as it is read, and the chain
	 * is taken from the marks (hashed only from the last one, when an
	 * append needs it) */
	while (q < end && !c->verify) {
		char *nl = memchr(q, '\n', end - q);
		if (!nl)
			break;   /* a line being written; read it next time */
		size_t len = nl - q;
		int b = chain_boot_line(s, q, len);
		uint64_t h;
		if (b == 0) {
			/* another boot appended from here on: its marks are
			 * checked, from the chain's value here */
			if (chain_catch(c, fd, s->idxoff) < 0)
				bad = 1;
			c->verify = 1;
			c->mine = 0;
			break;
		}
		if (b < 0 && chain_mark_of(q, len, &h)) {
			c->mark_h = chain_line(h, q, len + 1);
			c->mark_off = s->idxoff + len + 1;
			c->known = 1;
		}
		if (b < 0 && (s->flines++, index_apply(s, q, len) < 0))
			warnx_("%s/%s: malformed index line ignored", s->dir, INDEX_PATH);
		s->idxoff += len + 1;
		q = nl + 1;
	}
	if (c->verify && !bad && (!c->known || c->mark_off != s->idxoff))
		bad = 1;
	if (c->verify && !bad) {
		/* lines of another boot: the last mark whose value is the chain
		 * of the bytes before it vouches for them; a mark that is not
		 * is a hole (lost, zeroed or torn lines); lines after the last
		 * mark wait for one */
		uint64_t run = c->mark_h, goodh = run;
		char *good = q, *r = q;
		while (r < end) {
			char *nl = memchr(r, '\n', end - r);
			if (!nl)
				break;
			uint64_t h;
			if (chain_mark_of(r, nl - r, &h) && h != run) {
				bad = 1;
				break;
			}
			run = chain_line(run, r, nl - r + 1);
			if (chain_mark_of(r, nl - r, &h))
				good = nl + 1, goodh = run;
			r = nl + 1;
		}
		tail = !bad && r > good;
		while (!bad && q < good) {
			char *nl = memchr(q, '\n', good - q);
			size_t len = nl - q;
			int b = chain_boot_line(s, q, len);
			if (b >= 0)
				c->mine = b;
			else if (s->flines++, index_apply(s, q, len) < 0)
				warnx_("%s/%s: malformed index line ignored", s->dir, INDEX_PATH);
			s->idxoff += len + 1;
			q = nl + 1;
		}
		if (!bad && c->mark_off != s->idxoff) {
			c->mark_off = s->idxoff;
			c->mark_h = goodh;
			c->verified = c->foreign = 1;
		}
	}
	free(p);
	/* another boot's lines may lack lock lines (nolock.h) */
	if (c->verify)
		s->nolock_off = 1;
	/* a hole, or another boot's lines no mark vouches for at all (an
	 * index of an older abx): treated as a torn index */
	if (bad || (tail && !c->verified))
		return rebuild_locked(s);
	/* a tail no mark vouches for yet is not appended after (the chain
	 * would vouch for it): the lock holder rewrites the index from what
	 * was verified (a compaction), which the catch-up completes; so is
	 * an index that tombstones dominate */
	if (s->locked && (tail || index_bloated(s)))
		index_write_full(s);
	if (!s->locked && c->foreign) {
		c->foreign = 0;
		return memory_catch_up(s, 1);
	}
	return 0;
}

int
index_refresh(store_t *s)
{
	return refresh(s, 0);
}
