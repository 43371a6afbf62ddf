/*
 * claim.h — the due queue: claim, renew, release and test leases on items.
 *
 * An item (Crawl, Snapshot, Binary) is due when it is not paused, not final
 * (unless a maintenance retry_at is set on a sealed one), nobody holds its
 * flock, and either retry_at <= now, or its record carries a flock lease
 * whose holder is gone (the kernel freed the lock: the holder died, so the
 * work is made due again at once instead of after the lease's expiry).
 * The next due item is the first in (retry_at, created_at) order; only the
 * active index is read, so the cost does not grow with sealed items.
 *
 * A claim, under the store lock: take the item's flock, re-read its latest
 * version, check it is still due, append the new version (status started,
 * retry_at = now + lease, lease object), commit durably, note the lease in
 * the lock file.  A time lease (hold == 0) then lets go of the flock and is
 * protected by retry_at alone; a flock lease keeps the fd, which the caller
 * hands to the worker.
 */
#ifndef ABX_CLAIM_H
#define ABX_CLAIM_H

#include "base/json.h"
#include "store/store.h"

enum {
	CLAIM_OK = 0,
	CLAIM_NONE,        /* nothing due / not due */
	CLAIM_BUSY,        /* leased by someone else */
	CLAIM_PAUSED,
	CLAIM_FINAL,
	CLAIM_NOTFOUND,
	CLAIM_ERROR,       /* the store failed (s->errmsg); nothing claimed */
};

typedef struct {
	int64_t lease_us;     /* lease length */
	int hold;             /* keep the flock (a worker will run) */
	int by_name;          /* -i: ignore a sleep (retry_at in the future) */
} claim_opts_t;

/* type: "Crawl", "Snapshot" or "Binary"; crawl_id restricts to one crawl
 * (NULL: any).  On CLAIM_OK, *out is the new version and *fd the lock fd
 * (-1 for a time lease). */
int claim_next(store_t *s, const char *type, const char *crawl_id, const claim_opts_t *o,
    rec_t *out, int *fd);
int claim_id(store_t *s, const char *id, const claim_opts_t *o, rec_t *out, int *fd);
/* claim_next, passing over the ids in except (those that failed in this
 * pass: abx-tick goes on with other work). */
int claim_next_except(store_t *s, const char *type, const char *crawl_id, char (*except)[ID_LEN + 1],
    size_t nexcept, const claim_opts_t *o, rec_t *out, int *fd);

/*
 * Group commit: claim, in the order given, up to max of ids that are due,
 * with one durable commit for all of them (abx-tick's refill).  out[] and
 * fds[] get the claimed records and lock fds; returns how many, or -1 if
 * the store failed (nothing claimed, no fd kept).
 */
int claim_ids(store_t *s, char (*ids)[ID_LEN + 1], size_t nids, const claim_opts_t *o, int max,
    rec_t *out, int *fds);

/* The next max due items (claim_next's order) with one durable commit:
 * abx-claim -n; returns how many, or -1 as claim_ids. */
int claim_next_batch(store_t *s, const char *type, const char *crawl_id, const claim_opts_t *o, int max,
    rec_t *out, int *fds);

/* Extend the lease of id to now + lease_us (never un-pauses). 0, 1 if
 * id carries no lease, -1 if the store failed. */
int claim_renew(store_t *s, const char *id, int64_t lease_us);
/* Drop id's lease; if only_pid, only when that pid took it.  A non-final
 * item becomes due again at once.  0, 1 if there was no lease, -1 if the
 * store failed. */
int claim_release(store_t *s, const char *id, long only_pid);
/* 1 if id is leased (flock held, or an unexpired time lease), else 0. */
int claim_leased(store_t *s, const char *id);

/* Is this version of a record claimable now (its flock being free)? */
int claim_due(const rec_t *r, int64_t now, int by_name);

#endif
