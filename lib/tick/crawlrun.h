/*
 * crawlrun.h — one crawl run of abx-tick (tick.h step 2), below the pass:
 * it is handed the pass's context (tickctx.h) and a claimed crawl, and
 * tells how it went by its result and the context's counters.
 *
 *   1. the run's settings are read (abx.conf, the environment, the crawl's
 *      own config), its limits loaded (limits.c);
 *   2. CrawlSetup hooks, if any plugin has them; the crawl is live
 *      (heartbeat.h) from here to its cleanup;
 *   3. snapshots from the crawl's URLs if it has none yet (seed.c);
 *   4. the loop: the crawl's record re-read every half second (pause,
 *      cancel, CRAWL_TIMEOUT) and leases renewed every 10 s (watch.c); the
 *      filesystem synced every 250 ms (the group commit of the workers'
 *      commits and ours); the due snapshots run by workers (worker.h), up
 *      to CRAWL_MAX_CONCURRENT_SNAPSHOTS at once, refilled in (depth,
 *      created_at) order as slots free (pool.c), each host's pacing slot
 *      taken first (pace.c) and robots.txt obeyed if asked (robotsgate.c);
 *      each ended worker's snapshot is judged (ended.c): a 429 or 503
 *      backs its host off (backoff.c), else it is counted against the
 *      limits, its outlinks queued (found.c) and it is sealed;
 *   5. the loop ends when nothing runs and nothing is due soon enough to
 *      wait for (pace.c), or on a signal, pause, cancel or limit;
 *   6. CrawlCleanup; then the crawl sealed or requeued (seal_crawl), and
 *      packed if PACK_ON_SEAL says so; on a signal or a failure of the
 *      store it is put back instead.
 *
 * A failure of the store stops new work in the run (reported with
 * tick_error); the crawl is then put back.  A snapshot whose hooks failed
 * is said in one line on stderr when its worker ends
 * (worker_report_failures), below the display, which is cleared first.
 */
#ifndef ABX_CRAWLRUN_H
#define ABX_CRAWLRUN_H

#include "tick/tickctx.h"

/* Run a claimed crawl to its end (cfd: its lease, dropped here).  0, or -1
 * if the store failed on the way (reported; the crawl is put back). */
int crawl_run(tick_t *t, rec_t *crawl, int cfd);

#endif
