/*
 * retention.h — DELETE_AFTER: expired final items are removed.
 *
 * DELETE_AFTER (abx.conf, the environment, or a crawl's config) uses
 * ArchiveBox's syntax: 0, empty, none/false/no/off disable it; else
 * <int><unit> with unit h|hr|hrs|hour|hours|d|day|days|w|week|weeks|
 * mo|month|months|y|yr|yrs|year|years (a month is 30 days, a year 365);
 * durations under an hour, or over 100000 years (CONF_DURATION_MAX: any
 * more could not be added to a time), are refused (conf_parse_duration()
 * in config.h).  A crawl expires at its last change (its modified_at: when
 * it was sealed, after every snapshot of it was made) plus the duration;
 * the unit of removal is the crawl, since its journal and directory hold
 * all of its snapshots.
 *
 * What is due is read from the store's index of expiries (store/expire.h),
 * which the store's commit writes for each crawl committed final: the
 * sealed log from its position (index/sealed.pos, advanced and compacted
 * here, under the store lock), up to the first line not yet due under the
 * global DELETE_AFTER, and the day buckets (index/expire/) of the days
 * that have come, each removed once every line of it is handled.  A data
 * directory without index/sealed.pos gets the index once, from
 * crawls.jsonl (expire_rebuild()).
 *
 * retention_run() removes, oldest first and at most `batch` per call, sealed
 * crawls whose every snapshot is sealed and expired: the crawl directory
 * (snapshots, outputs, journal) goes, the crawl gets a final "deleted"
 * line in crawls.jsonl (so the audit trail says when and why), and its
 * snapshots leave the site index.  Nothing unfinished is ever removed:
 * a crawl is only removed when it and all of its snapshots are sealed and
 * no lease is held on it.  Returns how many crawls were removed.
 *
 * A removal holds the store lock for one commit and one rename, never for
 * the removal of a tree (which takes as long as the crawl is large):
 *  1. take the crawl's lease (held: skip it) and the store lock; re-check;
 *  2. commit the tombstone (deleted_at, notes) durably: the record never
 *     claims a directory that is gone;
 *  3. rename crawls/ID to crawls/.deleted/ID, and release the lock;
 *  4. once every expired crawl is done and the site index pruned, remove
 *     everything in crawls/.deleted/, without the lock.
 * A crash after 2 leaves a tombstoned crawl whose directory is still in
 * crawls/: the next run moves it (step 3) and removes it; a crash after 3
 * leaves entries in crawls/.deleted/, which every run empties.  If the
 * rename fails the directory is removed in place, after the lock.
 */
#ifndef ABX_RETENTION_H
#define ABX_RETENTION_H

#include <stdint.h>
#include "store/store.h"

/* Seconds, 0 for disabled, -1 for malformed or out of range. */
long long retention_parse(const char *s);
int retention_run(store_t *s, int batch, int verbose);

/*
 * The steps of a removal, for abx-ctl remove (ctl_remove.c), which removes
 * crawls and snapshots on demand the same way:
 *   retention_move_away()   under the store lock, after the tombstone's
 *                           commit: rename the directory from (relative to
 *                           DIR) to crawls/.deleted/ID; 0, or -1 if it is
 *                           still in place (then remove it after the lock);
 *   retention_prune_site_index()  under the store lock: take these
 *                           crawls' sealed snapshots, or these snapshots,
 *                           off the site index (a deleted_at line each in
 *                           index.jsonl: siteindex.h), so that
 *                           seal_site_index() rewrites the pages that
 *                           showed them;
 *   retention_empty_trash() without the lock: remove crawls/.deleted/.
 * A crawl whose record says "files_kept": true was removed with its files
 * kept on purpose: retention leaves its directory alone.
 */
int retention_move_away(store_t *s, const char *from, const char *id);
void retention_prune_site_index(store_t *s, const char (*ids)[ID_LEN + 1], size_t n);
void retention_empty_trash(store_t *s);

#endif
