/*
 * store.h — the data directory: journals of records, the active index, and
 * the store lock.
 *
 * Layout (abx(7) FILES is the user-facing copy of this):
 *
 *   abx.conf                           KEY=value settings; marks a data dir
 *   crawls.jsonl                       journal of Crawl records
 *   schedules.jsonl, binaries.jsonl    journals of CrawlSchedule, Binary
 *   crawls/<crawl>/snapshots.jsonl     journal of the crawl's Snapshot and
 *                                      ArchiveResult records
 *   crawls/<crawl>/<snapshot>/         the snapshot's outputs
 *   locks/store.lock                   the store lock (flock)
 *   locks/<id>                         lease lock files, one per item
 *   index/active.jsonl                 hint: where the active items are
 *   tmp/                               temp files, swept by the repair pass
 *
 * Truth and hints.  A journal is append-only JSONL: each line is a whole
 * record version, and the last line with an id is its current version.
 * index/active.jsonl lists only the items that can still become due (not
 * sealed, or sealed with a maintenance retry_at) with the byte offset of
 * their latest line, so that finding due work and reading a record cost in
 * proportion to the active items, not to the archive.  The index is a hint:
 * every entry is checked against the journal line it points to, and a wrong
 * one makes that journal be rescanned.
 *
 * Protocol.  Every change is made by store_lock(), store_get() (the latest
 * version, re-read after taking the lock), store_put() (stage a new
 * version), store_commit() and store_unlock().  store_commit writes, for
 * each journal touched, all the journal lines in one write(2), then
 * fdatasync (group commit: one sync per journal per commit), then the index
 * lines of the records and a state line {"j":J,"end":N} with the journal's
 * new size.  The index is written after the sync so that the sync carries
 * the journal alone (a commit of several journals writes them all before
 * any index line: see Errors).  A crash between the two leaves the journal longer
 * than the end the index knows: every process that takes the lock first
 * replays such tails (a crash, or a line appended by hand under the lock)
 * into the index, before any hint is trusted, of the journals that can
 * hold active items (the top-level ones, and a crawl's while the crawl or
 * an item of it is active: a finished crawl's journal is never opened by
 * a lock; a commit to one replays it first).  A top-level journal is
 * replayed only while the index took another process's line since it was
 * last checked, or after a second: a commit or compaction of one appends
 * its state line to the index before it writes it (storelock.c).  The index
 * also says which items have no lock file (nolock.h).  The index is compacted when
 * its file holds more than twice its live lines plus 64 (without the 64
 * after a transaction that made an entry gone: a sealed item's rows do not
 * stay).  A hint is also checked
 * against the line it points to.  The index is not synced: its first line
 * names the boot it was written in, and an index that is empty, or whose
 * first line is torn or not that header, is rebuilt from the journals
 * before anything of it is used.  One holding lines of another boot (its
 * header, or a boot line, names it: another host's, or this host's before
 * a power loss, which may have dropped any part of it) is used as far as
 * its chain of marks checks (index.c: each state line carries "h", a hash
 * of the index bytes before it); a hole makes it rebuilt, and the
 * catch-up replays what the journals gained since, giving a state (end 0)
 * to each top-level journal and live crawl's journal it lacks
 * ($ABX_TEST_BOOT_ID stands for the boot id in the tests).  The store keeps the
 * journals' descriptors open between transactions (storefd.h).  The due predicate over the index is queue.h's.
 *
 * A torn last line (a writer killed mid-write) is moved to "<journal>.torn"
 * and cut off by the next writer under the lock, with a warning; readers
 * without the lock ignore a trailing partial line.  A malformed line in the
 * middle of a journal is reported with its line number and skipped.
 *
 * Errors.  The store never exits: a function that fails records the error
 * in s->err (an exit code of exitcodes.h) and s->errmsg (the message, with
 * the path and strerror: "unable to append to D/crawls.jsonl: No space left
 * on device"), counts it in s->nerr, and returns -1 (or, for lookups, "not
 * found").  A commit is all or nothing: store_commit writes every journal
 * first and appends the index lines only when all were written (and
 * synced); when one fails, the lines already written by this commit are
 * cut off again (ftruncate to the size before, then synced), the staged
 * records are dropped, the index in memory is dropped (reloaded from the
 * file at the next lock), and store_unlock releases the lock and returns
 * -1.  A transaction whose store_lock failed commits nothing either.  A
 * read that failed (one unreadable journal) fails only its lookup: what
 * else the transaction staged is committed, and store_failed() tells the
 * caller that something went wrong since store_lock.  The caller reports s->errmsg and
 * decides: a tool exits with s->err, abx-tick puts the item back and goes on.
 * If even the cut fails (EIO), the message says the commit may have been
 * kept.  Out of memory is the exception: it exits 70 (err.h).
 */
#ifndef ABX_STORE_H
#define ABX_STORE_H

#include <stdint.h>
#include <sys/stat.h>
#include <sys/types.h>
#include "base/buf.h"
#include "base/clock.h"
#include "base/ids.h"
#include "base/json.h"

typedef struct {
	char id[ID_LEN + 1];
	char crawl_id[ID_LEN + 1];     /* Snapshot: its crawl */
	char type[16];                 /* Crawl Snapshot Binary CrawlSchedule */
	char status[16];
	int64_t off;                   /* offset of the latest line */
	int64_t retry_at;              /* -1: null; INT64_MAX: paused marker */
	int64_t created_at;
	int depth;
	int lease;                     /* a flock lease is recorded */
	int used;                      /* hash slot in use */
	int live;                      /* active (else a tombstone) */
	int nolock;                    /* no locks/<id> (nolock.h) */
} ient_t;

typedef struct pending pending_t;

typedef struct {
	char j[128];                   /* a journal the index knows */
	int64_t end;                   /* its size when last indexed */
	int64_t seen;                  /* ... replayed into memory, maybe unlocked */
	int need;                      /* replayed at each lock (index.c) */
} jstate_t;

/* A location hint (Lean mode below): ID's latest line is at or after OFF
 * in journal J. */
typedef struct {
	char id[ID_LEN + 1];
	char j[128];
	int64_t off;
} lhint_t;
#define LEAN_HINTS 4
#define JFD_KEEP 16                /* journal descriptors kept (storefd.h) */

typedef struct store {
	int dfd;
	char *dir;
	int lockfd, locked;
	int durable;                   /* fdatasync at commit ($ABX_SYNC=0: no) */
	int lazy;                      /* defer syncs to store_sync ($ABX_SYNC=batch) */
	int parent_syncs;              /* ... and never sync ($ABX_SYNC=parent) */
	int barrier;                   /* files must be durable before the next line */
	int perfile;                   /* syncfs is not trusted (durable.h) */
	char (*named)[256];            /* ... files to fsync before the next line */
	size_t nnamed;
	char trees_durable[40];        /* store_trees_durable's id, until the unlock */
	char (*presynced)[256];        /* store_presynced's paths, until the unlock */
	size_t npresynced;
	char (*unsynced)[128];         /* journals written since the last sync */
	size_t nunsynced;
	/* the active index, loaded under the lock */
	ient_t *tab;
	size_t tabcap, nlive, nlines;
	size_t flines;                 /* lines in the index file */
	int dropped;                   /* this transaction made an entry gone */
	int idxfd;
	int64_t idxoff;                /* bytes of index/active.jsonl applied */
	ino_t idxino;
	jstate_t *js;                  /* journal ends, from state lines */
	struct ichain *chain;          /* the file's chain of marks (indexchain.h) */
	size_t njs, jscap;
	int nolock_off;                /* another boot's lines: no nolock bit holds */
	int tops_noted;                /* a top-level journal's state line read since ... */
	int tops_synced;               /* ... the top-level journals were checked */
	int64_t tops_at;               /* ... at this clock_mono() */
	char (*leasednew)[ID_LEN + 1]; /* lock files made before their id's record */
	size_t nleasednew;
	/* staged changes */
	pending_t *pend;
	size_t npend, pendcap;
	char host[256], boot_id[64];
	/* errors (see Errors above) */
	int err;                       /* exit code of the last error; 0: none */
	char errmsg[512];              /* its message, without the program name */
	unsigned nerr, txerr;          /* errors so far; at store_lock */
	int rollback;                  /* this transaction commits nothing */
	int replay_warned;             /* a journal store_lock could not replay */
	/* Lean mode: no index in memory; lookups by hints */
	int lean;
	lhint_t hint[LEAN_HINTS];
	int nhint;
	/* descriptors kept between transactions (storefd.h) */
	struct {
		char j[128];
		int fd, rw, pinned;
		int armed;             /* holds a shared flock (storefd.h) */
		struct stat st;        /* its fstat, taken in epoch ... */
		unsigned epoch;
	} jfd[JFD_KEEP];
	int njfd;
	unsigned jepoch;               /* under the lock; moved by every change */
	int locksfd;                   /* locks/, or -1 */
	int reasserted;                /* a commit re-asserted the store lock */
	int arm;                       /* arm journals (storefd.h): set by the caller */
} store_t;

/* Open DIR (NULL: $ABX_DIR, else the default).  create: make it if absent;
 * else a directory without abx.conf is an error (78).  0, or -1 with
 * s->err set (the store is then closed: only s->err and s->errmsg stay). */
int store_open(store_t *s, const char *dir, int create);
/* Unlock (committing), sync what is unsynced, close; 0, or -1 if that
 * failed.  s->err, s->errmsg and s->nerr survive it: a main exits with
 * s->err if s->nerr says anything failed since store_open. */
int store_close(store_t *s);
const char *store_default_dir(void);

/* Record an error (errnum: appended as strerror, 0: none); returns -1. */
int store_fail(store_t *s, int code, int errnum, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
/* Did anything fail since store_lock? */
int store_failed(const store_t *s);

int store_lock(store_t *s);        /* blocking flock; refreshes the index; 0 or -1 */
/* Commits what is staged and releases the lock (always); 0, or -1 if the
 * commit failed or store_lock had (nothing of it was committed). */
int store_unlock(store_t *s);
int store_commit(store_t *s);
/* Is the store lock still ours?  Re-asserts it (a no-op where it is held);
 * a lock lost under us on a network filesystem (EBADFD, ENOLCK, EIO):
 * -1 with s->err 75.  store_commit() asks first; so does anything that
 * writes beside the journals under the lock (the site index). */
int store_still_locked(store_t *s);      /* 0, or -1: rolled back (see Errors) */
void store_discard(store_t *s);    /* drop what is staged */
/*
 * Durability.  A commit fdatasyncs each journal it wrote ($ABX_SYNC unset
 * or 1), except:
 *   $ABX_SYNC=batch (s->lazy)  commits do not sync; store_sync() (and
 *                              store_close) syncs what they wrote, once;
 *   $ABX_SYNC=parent           commits do not sync and neither does
 *                              store_close: the parent that started this
 *                              process (abx-tick, for its workers) syncs
 *                              the filesystem before it reports anything;
 *   $ABX_SYNC=0                never (tests and benchmarks).
 * A record may name files (a hook's outputs, a snapshot's index files):
 * they must be durable before the line that names them.  store_barrier()
 * says so: the next commit first syncs the whole filesystem of the data
 * directory (syncfs(2): files, their directories, the journals), or, when
 * commits are deferred, the deferred sync is a syncfs.  One syncfs covers
 * every file a batch of seals wrote, which costs less than an fsync of
 * each (make bench prints what the syncs cost a snapshot).  A durable commit to a crawl's
 * journal that already holds lines is a syncfs too: the journal may hold
 * a worker's deferred result lines, whose files must not follow them.
 * store_syncfs() syncs the
 * filesystem now (abx-tick's clock).
 *
 * Where syncfs is not known to reach stable storage (durable.h: FUSE,
 * network filesystems, $ABX_DURABILITY=perfile), s->perfile, every syncfs
 * above is replaced: a barrier makes the commit fsync, before it writes a
 * line, the files its staged records name (a final Snapshot: its whole
 * directory, or its own files after store_trees_durable below; an
 * ArchiveResult: its plugin's directory; the directories
 * that hold them) and those store_barrier_path() noted, even when its
 * journal syncs are deferred, since another process's fdatasync of a
 * shared journal may make the line durable; a commit then fdatasyncs its
 * journals, and store_syncfs() and a deferred sync fdatasync the journals
 * written since the last sync.  ABX_SYNC=parent then defers to
 * store_close, which syncs them before the process exits.
 *
 * What is lost to an OS crash before
 * a deferred sync is work re-done (the snapshot runs again):
 * at-least-once, never a user's acknowledged change, since abx-add and
 * abx-ctl always commit durably.
 */
void store_barrier(store_t *s);
/* A barrier that also names a file or directory tree (relative to the
 * data directory) the next commit makes durable first where s->perfile. */
void store_barrier_path(store_t *s, const char *rel);
/*
 * Where s->perfile, a final Snapshot staged names its whole directory
 * tree: every plugin's tree is fsync'd again, though each result's commit
 * named it and its writer synced it before saying it was done.  The
 * caller that knows so says it with store_trees_durable() before it
 * stages the snapshot (abx-tick, of a snapshot whose every result came
 * from one worker that exited 0 or 1, after its store_close: ended.c):
 * until the next store_unlock, the final Snapshot id names only its
 * directory's own files (the seal's index files), the directory and its
 * entry.  An id that is not valid says nothing.
 */
void store_trees_durable(store_t *s, const char *id);
/*
 * Where s->perfile, the fsyncs a commit owes can be paid before the lock,
 * by the process that wrote the files, so that the lock is not held across
 * them.  store_presynced() says that rel, in the form a commit names it
 * (a tree; "DIR/": that directory; "DIR/ *" without the space: its own
 * files), has been made durable as the commit would (a tree's files and
 * directories and its entry in its parent; DIR/ *: its files, DIR and its
 * entry) after its last change, and that nothing in it changes before the
 * commit: until the next store_unlock or failed store_lock, a commit that
 * names rel does not sync it again.  Said before store_lock.
 *
 * store_presync_result() is that for an ArchiveResult of a hook that has
 * exited (nothing writes its plugin's directory for it any more): it
 * fsyncs the plugin's tree crawls/CID/SID/PLUGIN, the snapshot's
 * directory and the crawl's, as the result's commit would, and says so;
 * through treefd and snapfd, the plugin's and the snapshot's directories
 * as the caller holds them open, when both are >= 0 (else by their paths:
 * on a network filesystem each component of a path is a round trip).
 * 0 (also where there is nothing to pay: not perfile, or not durable), or
 * -1 (errno; nothing is said, and the commit syncs them under the lock,
 * reporting the failure there).
 */
void store_presynced(store_t *s, const char *rel);
/* Take back what store_presynced said (the files are to be made again). */
void store_presynced_drop(store_t *s);
int store_presync_result(store_t *s, const char *crawl_id, const char *snap_id, const char *plugin, int treefd,
    int snapfd);
int store_syncfs(store_t *s);                        /* 0 or -1 */
int store_sync(store_t *s);                          /* 0 or -1 */

/*
 * Lean mode (storelean.c).  A worker given $ABX_HINT, words
 * "ID=JOURNAL:OFFSET" naming where its snapshot's and crawl's latest lines
 * are, never loads the index: store_lock takes the lock only, a lookup of
 * a hinted id reads the line at the hint (checked: it must be ID's) and the
 * journal after it, and a commit writes the journals and an index line for
 * each active record, but no state line (the next process that takes the
 * lock replays the worker's lines: a state's end moves only under the
 * lock, and a replay without it only notes how far it read, jstate_t's
 * seen).  A hint that fails its check, a lookup of another id, or a commit
 * to a journal no hint names leaves lean mode (the index is loaded and
 * caught up as at store_lock), so lean mode answers what the index would,
 * at the cost of the bytes after the hint instead of the whole active
 * index.
 *
 * store_lean parses such words into s (0; -1 if they are not such words:
 * then s is unchanged and not lean).  store_hint appends, for the claimer,
 * id's words and its crawl's from this process's index (0; -1 if it does
 * not know id).
 */
int store_lean(store_t *s, const char *text);
int store_hint(store_t *s, const char *id, buf_t *out);
/* Leave lean mode: load the index (and catch up, if locked); 0 or -1. */
int store_unlean(store_t *s);

/* Latest version of id; 0 found, -1 not.  Staged versions are seen. */
int store_get(store_t *s, const char *id, rec_t *out);
/* Same, but search the given journal (e.g. a crawl's) if not indexed. */
int store_get_in(store_t *s, const char *id, const char *journal, rec_t *out);

/* Was snapshot id committed final before (its location hint, in
 * index/loc/, says so)?  Reads the hints of its minute only. */
int store_snap_was_final(store_t *s, const char *id);

/* Stage a new version (sets modified_at).  Needs the lock. */
void store_put(store_t *s, rec_t *r);
/* Stage the first version of a record whose id this process has just
 * made (record.h), which nobody else can know yet: the index may then say
 * that no lock file exists for it (nolock.h).  Otherwise store_put. */
void store_put_new(store_t *s, rec_t *r);
/* The same, keeping the modified_at r has: a version made before the lock
 * (seal_snapshot_ahead), whose files show it, staged once the record is
 * checked to be the one it was made from. */
void store_put_as_is(store_t *s, rec_t *r);

/* Armed journals (storefd.h): a process that commits often and keeps
 * working sets s->arm, so that from its second commit on its commits need
 * not re-assert the store lock; it calls store_disarm() before it waits
 * long (abx-tick --daemon between passes), because on GlusterFS a lock
 * lost to a brick restart makes its file unusable to every process of the
 * host while a descriptor that held the lock stays open. */
void store_disarm(store_t *s);

/* Journal of a record (by type and crawl_id), into out. */
int store_journal_of(const rec_t *r, char *out, size_t n);
void store_crawl_journal(const char *crawl_id, char *out, size_t n);

/*
 * Latest version of every record in a journal, in order of first
 * appearance; fn returns nonzero to stop.  filter, if set, is a substring a
 * line must contain (a cheap memmem pre-filter before parsing).
 */
typedef int (*store_each_fn)(rec_t *r, void *arg);
int store_each(store_t *s, const char *journal, const char *filter, store_each_fn fn, void *arg);

/* Active index entries of a type (NULL: all), in (retry_at, created_at)
 * order.  The array is malloc'd; entries are copies.  _unordered: the
 * same in no order, for a caller that orders them its own way (the queue
 * can hold tens of thousands). */
size_t store_active(store_t *s, const char *type, ient_t **out);
size_t store_active_unordered(store_t *s, const char *type, ient_t **out);

/* Rebuild the index from the journals (the repair pass uses it); 0 or -1. */
int store_rebuild_index(store_t *s);
/* Rewrite a journal to its latest versions if it is more than twice its
 * live size plus $ABX_COMPACT_MIN bytes (default 65536; force: whenever it
 * holds any superseded line).  Returns 1 if compacted. */
int store_compact(store_t *s, const char *journal, int force);
/* Under the lock: cut a torn last line off a journal (kept in .torn);
 * returns 1 if one was cut. */
int store_check_journal(store_t *s, const char *journal);

int record_is_final(const rec_t *r);      /* by type and status */
int record_is_active(const rec_t *r);     /* belongs in the index */
int64_t rec_time(const rec_t *r, const char *key);  /* -1 null, INT64_MAX max */
void rec_set_time(rec_t *r, const char *key, int64_t us);  /* <0: null */

#endif
