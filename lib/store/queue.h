/*
 * queue.h — the due queue over the store's active index: which entries are
 * due now, and the first of them in (retry_at, created_at, id) order.  An
 * entry is due when it is live, not paused (status paused, or the paused
 * marker INT64_MAX as retry_at), not final with a null retry_at, and either
 * retry_at <= now, or it records a flock lease (its holder may have died:
 * the caller tries the lock, claim.h).  Only the active index is read, so
 * the cost follows the active items, not the archive.
 */
#ifndef ABX_QUEUE_H
#define ABX_QUEUE_H

#include "store/store.h"

/* Is e a due candidate: live, of type (NULL: any) and crawl (NULL: any; a
 * crawl's own id matches too), not paused, retry_at <= now or a flock
 * lease recorded (its holder may have died: the caller tries the lock)? */
int queue_entry_due(const ient_t *e, const char *type, const char *crawl_id, int64_t now);

/* The first due entry in (retry_at, created_at, id) order, in one pass
 * (no copy, no sort): live, of type (NULL: any) and crawl (NULL: any), not
 * paused, retry_at <= now or a flock lease recorded, and not in skip. */
const ient_t *queue_next_due(store_t *s, const char *type, const char *crawl_id, int64_t now,
    char (*skip)[ID_LEN + 1], size_t nskip);

/* The first k due entries (same rules, no skip list), in order, in one
 * pass; returns how many (<= k).  The pointers are into the index. */
size_t queue_first_due(store_t *s, const char *type, const char *crawl_id, int64_t now,
    const ient_t **best, size_t k);

#endif
