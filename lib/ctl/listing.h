/*
 * listing.h — the records abx-ls lists, in its order, each version the
 * current one and each passed through the filters (verbs_filter.h) before
 * it goes to emit:
 *
 *   listing_ids()   the records ids names, in that order; a record of a
 *                   removed crawl's journal is history, not listed.  An
 *                   operand that is not an id or names no record is
 *                   reported ("abx-ls: error: no record with id ID") and
 *                   the others listed; returns 1 if one was, else 0.
 *   listing_all()   every record: schedules, binaries, crawls, then each
 *                   crawl's snapshots and results (a removed crawl's
 *                   journal is skipped).  f->crawl: that crawl and its
 *                   journal alone (1 after "--crawl: no crawl with id ID"
 *                   if there is none).  An active status (queued, started,
 *                   paused) of crawls, snapshots or the like with no url or
 *                   tag filter reads the active index only, so the cost
 *                   follows the work in flight, not the archive's size.
 *
 * A failure of the store is left in s (s->nerr, s->errmsg) for the caller
 * to report after what could be read was listed.  Nothing here exits.
 */
#ifndef ABX_LISTING_H
#define ABX_LISTING_H

#include "ctl/ctl_verbs.h"
#include "ctl/verbs_filter.h"
#include "store/store.h"

int listing_ids(store_t *s, filter_t *f, char **ids, int n, ctl_emit_fn emit, void *arg);
int listing_all(store_t *s, filter_t *f, ctl_emit_fn emit, void *arg);

#endif
