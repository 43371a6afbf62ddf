/*
 * repair.h — the repair pass: make the data directory consistent again
 * after crashes.  abx-ctl repair runs it by hand; abx-tick runs it at start
 * (and the daemon periodically).  Under the store lock, in order:
 *
 *   1. cut torn last lines off the journals (kept in <journal>.torn);
 *   2. rebuild the active index from the journals;
 *   3. items whose flock lease holder died (lock free) become due now;
 *      expired time leases are dropped; queued items without retry_at get
 *      now (ArchiveBox recovery step 5);
 *   4. compact journals that grew past twice their live size;
 *   5. sweep temp files older than $ABX_TMP_AGE seconds (default 3600)
 *      from tmp/ and ".NAME.tmp.PID" files whose writer is gone;
 *   6. remove lock files of items that are no longer active (each one
 *      while holding its flock, so no holder is ever cut off).
 *
 * Everything it changes it reports in the counters; nothing committed is
 * ever dropped.
 */
#ifndef ABX_REPAIR_H
#define ABX_REPAIR_H

#include "store/store.h"

typedef struct {
	int torn, requeued, leases_dropped, compacted, tmp_swept, locks_removed, active;
} repair_stats_t;

void repair_run(store_t *s, repair_stats_t *st);     /* the full pass */
/* full == 0: the light pass each one-shot tick runs: steps 1 and 3 only,
 * on the journals the index knows (cost follows the active items). */
/* 0, or -1 if the store failed (s->errmsg; nothing of it committed). */
int repair_pass(store_t *s, repair_stats_t *st, int full);

#endif
