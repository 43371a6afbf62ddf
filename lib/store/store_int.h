/*
 * store_int.h — internal to the store: what its files (store.c lists them)
 * share.  Not an interface: other code uses store.h, which also describes
 * the layout and the protocol.
 */
#ifndef ABX_STORE_INT_H
#define ABX_STORE_INT_H

#include <stdint.h>
#include "base/buf.h"
#include "base/ids.h"
#include "store/store.h"

#define INDEX_PATH "index/active.jsonl"

/* A record version staged by store_put (storecommit.c), committed by
 * store_commit, read back first by store_get (storeget.c). */
struct pending {
	char journal[128];
	char id[ID_LEN + 1];
	rec_t rec;
	int active;
	int fresh;            /* store_put_new */
};

/* index.c: the active index */
uint64_t hash_id(const char *id);
ient_t *index_slot(store_t *s, const char *id, int create);
void index_drop(store_t *s);
/* Take the index file just written (a rewrite) as the one read so far. */
void index_adopt(store_t *s);
/* Write b, a whole index (its header first), as the index file, the
 * state lines given their marks (index.c); 0, or -1 (errno; the old file
 * stays).  index_adopt then takes it. */
int index_replace(store_t *s, const buf_t *b);
/* Did the table take lines of another boot's index since the last call? */
int index_take_foreign(store_t *s);
/* Apply one line of the index file to the table (index.c): 0, or -1 if
 * it is not an index line. */
int index_apply(store_t *s, const char *line, size_t len);
/* Free s's chain of marks (indexchain.h; store_close). */
void index_chain_forget(store_t *s);
/* Give a state (end 0) to the journal of each live crawl and snapshot
 * that has none. */
void index_ensure_crawls(store_t *s);
jstate_t *jstate(store_t *s, const char *j, int create);
void state_line(buf_t *b, const char *j, int64_t end);
void index_line(store_t *s, buf_t *b, const ient_t *e);
void index_header(store_t *s, buf_t *b);
/* Read new index lines; an index that is empty, torn in its header or
 * from another boot is rebuilt first.  0, or -1 (s->err set). */
int index_refresh(store_t *s);
/* Append index lines; a failure is only warned of (the index is a hint)
 * and makes the index be reloaded. */
int index_append(store_t *s, buf_t *b);   /* 0, or -1: not written */
/* The same, for a line that must be there before a change it tells of (a
 * top-level journal's state, a lock file's: fault point fault, where
 * index_append's is "index-half-line"). */
int index_note(store_t *s, buf_t *b, const char *fault);
void index_write_full(store_t *s);   /* compact the index */
void index_mark_needed(store_t *s);  /* set jstate need (see index.c) */
int index_bloated(const store_t *s);
void index_set_from(store_t *s, const rec_t *r, int64_t off);
/* Fill e (not in the table) from record r at off: its index entry. */
void ient_from(ient_t *e, const rec_t *r, int64_t off);

/* storelean.c: lean mode (store.h) */
lhint_t *lean_hint(store_t *s, const char *id);
int lean_vouched(const store_t *s, const char *j);   /* a hint names journal j */
/* The latest version of a hinted id: 0, or -1 (no hint, or it failed its
 * check: the caller leaves lean mode). */
int lean_get(store_t *s, const char *id, rec_t *out);
int lean_index_append(store_t *s, const buf_t *b);   /* 0, or -1 */

/* storeloc.c: location hints of finished records (index/loc/) */
void crawl_loc_write(store_t *s, const char *id, int64_t off);
int crawl_loc_get(store_t *s, const char *id, rec_t *out);   /* 0 found, -1 not */
void snap_loc_write(store_t *s, const char *id, const char *crawl_id);
int snap_loc_get(store_t *s, const char *id, rec_t *out);    /* 0 found, -1 not */

/* expire.c: the line of a Crawl record about to be committed final in
 * the index of expiries (expire.h); the commit calls it before the
 * record's line is written, so a crash leaves an extra line, never a
 * missing one. */
/* presync.c: forget what store_trees_durable and store_presynced said
 * (at the unlock, or a failed lock); is rel presynced? */
void store_tx_forget(store_t *s);
int store_is_presynced(const store_t *s, const char *rel);

void expire_note(store_t *s, const rec_t *r);

/* storeget.c: the order of the due queue (retry_at, created_at, id) */
int ient_cmp(const void *a, const void *b);

/* journal.c: journals */
/* Is j a top-level journal (crawls.jsonl, schedules.jsonl, binaries.jsonl)?
 * A commit or compaction of one notes it in the index first (storelock.c). */
int store_is_top(const char *j);
int repair_tail(store_t *s, int fd, const char *rel, int keep, struct stat *known, int64_t clean);
void entry_journal(const ient_t *e, char *out, size_t n);
int read_line_at(int fd, int64_t off, buf_t *out);
int line_id(const char *p, size_t n, char id[ID_LEN + 1]);
int journal_find(store_t *s, const char *journal, const char *id, rec_t *out, int64_t *offp);
int journal_sync(store_t *s, const char *j);
int journal_open_append(store_t *s, const char *j);

#endif
