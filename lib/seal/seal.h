/*
 * seal.h — finishing snapshots and crawls, and the index files.
 *
 * seal_snapshot(): under the store lock, the snapshot becomes sealed
 * (retry_at null, lease dropped, output_size set, and sealed_reason
 * "archived" with downloaded_at when a hook ran for it, else "no_hooks"
 * without) unless it is paused (SEAL_PAUSED) or queued with no result that
 * ran (SEAL_UNRUN: sealing it would say it was archived); a result still
 * queued (by abx-ctl retry, not run again) is made skipped with a note,
 * at a reseal too; then its index files are written (in place the first
 * time, by temp + rename when they exist):
 *   index.jsonl  the Snapshot record, then the installed Binary records,
 *                the Process records, then the ArchiveResults in start_ts
 *                order (ArchiveBox's record formats)
 *   index.json   the snapshot as one pretty JSON object (ArchiveBox's keys)
 *   index.html   a self-contained page linking every output
 * and a line is appended to the data directory's index.jsonl.  Sealing a
 * sealed snapshot again rewrites the files (maintenance) and is otherwise
 * a no-op: it is idempotent.
 *
 * seal_crawl(): ArchiveBox's finalize rule.  A crawl with no snapshot
 * queued, started or paused is sealed (sealed_reason "finished" unless a
 * cancel said "cancelled"; no lease) and its page written (crawlpage.h),
 * at every reseal too; a paused one stays paused, its lease dropped
 * (SEAL_PAUSED, *out untouched); otherwise it is requeued at its earliest
 * active child's retry_at and SEAL_REQUEUED is returned.
 *
 * Packing a sealed item is pack.h's (seal_pack, pack_on_seal).
 *
 * seal_site_index(): the top-level index.html from index.jsonl (a line a
 * sealed snapshot, appended at seal), paged so that its cost follows a
 * page, not the archive: full pages of 1000 are written once as
 * index-K.html, index.html holds the newest (fewer than 1000) and links to
 * them, and index/site.json remembers where paging stopped.  All of it is
 * a hint, rebuilt from index.jsonl when the state is missing.
 */
#ifndef ABX_SEAL_H
#define ABX_SEAL_H

#include "store/store.h"

enum { SEAL_OK = 0, SEAL_REQUEUED, SEAL_NOTFOUND, SEAL_PAUSED, SEAL_BADKIND, SEAL_ERR,
	SEAL_EXISTS, SEAL_BADFORMAT,
	SEAL_UNRUN /* a queued snapshot none of whose hooks ran */ };

int seal_snapshot(store_t *s, const char *id, rec_t *out);
/* The same, with the snapshot's Process and ArchiveResult records given
 * (recs: all of them, a first run's as its worker printed them; NULL:
 * look them up in the crawl's journal) and its size already counted
 * (size < 0: count it). */
int seal_snapshot_with(store_t *s, const char *id, rec_t *out, const rec_t *recs, size_t n,
    long long size);
/* The same, with its files built before the store lock from seen, the
 * record as read without it (seal.c: seal_snapshot_ahead), when it is a
 * first seal and seen is still the record under the lock; else as
 * seal_snapshot_with.  For abx-tick, of a snapshot its worker ran. */
int seal_snapshot_ahead(store_t *s, const char *id, const rec_t *seen, rec_t *out, const rec_t *recs,
    size_t n, long long size);
int seal_crawl(store_t *s, const char *id, rec_t *out);
void seal_site_index(store_t *s);
/* The directory of a snapshot (crawls/C/S) or crawl (crawls/C). */
int seal_dir_of(const rec_t *r, char *out, size_t n);

#endif
