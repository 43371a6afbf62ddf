/*
 * tick.h — one scheduling pass: ArchiveBox's runner loop over plain files.
 *
 * tick_pass() repeats until nothing is due now, in ArchiveBox's order:
 *   1. schedules that are due enqueue a crawl each (schedule.h);
 *   2. a due crawl is claimed (flock lease, held by this process) and run
 *      (crawlrun.h): CrawlSetup hooks, snapshots from the crawl's URLs if
 *      it has none yet, then its due snapshots, each run by a worker: the
 *      toolkit's abx-hook, exec'd with stdio and the snapshot's lease and
 *      nothing else of ours (worker.h), up to
 *      CRAWL_MAX_CONCURRENT_SNAPSHOTS at once, the claims of a refill one
 *      commit, refilled in (depth, created_at) order as slots free; when a
 *      worker ends, the tick counts the snapshot's size, discovers its
 *      outlinks (discover.h) and seals it; CrawlCleanup hooks; then the
 *      crawl is sealed, or requeued at its earliest child's time
 *      (seal_crawl);
 *   3. a due snapshot whose crawl is not due (a retry, a maintenance
 *      tick) is run the same way, alone, and its crawl finalised;
 *   4. due binaries are resolved again (binary.h).
 * Leases are renewed every 10 s.  The crawl's record is re-read at least
 * every second: a pause stops new snapshots from starting (running ones
 * finish and stay paused), a cancel also interrupts the running hooks.
 *
 * Limits (ArchiveBox's, counted here for real): CRAWL_MAX_URLS
 * caps the snapshots made; CRAWL_MAX_SIZE (bytes of every sealed snapshot's
 * directory) and CRAWL_TIMEOUT (seconds since the crawl's first run) stop
 * the crawl: no more discovery, and its queued snapshots are sealed
 * unrun, with the reason in the crawl's "limits" field.  abx-hook enforces
 * SNAPSHOT_MAX_SIZE, and what is left of CRAWL_MAX_SIZE ($ABX_SIZE_BUDGET),
 * while the hooks run (checked every 2 s; the hooks stopped when exceeded).
 *
 * Errors: the store's failures (store.h) are reported as they happen and
 * the pass goes on with other work: a crawl on which the store failed
 * starts no new snapshot, is put back and is not claimed again in this
 * pass; tick_pass then returns TICK_FAILED.  Nothing is spun on: a crawl whose due
 * child is held by a live worker elsewhere waits a renewal period.
 *
 * Signals: the first SIGINT, SIGTERM or SIGHUP stops scheduling, forwards
 * SIGTERM to the workers (which interrupt their hooks), requeues the
 * in-flight snapshots (queued, due now: never sealed half done) and the
 * crawl, and makes tick_pass return.  A second signal is forwarded as
 * SIGKILL-now (abx-hook kills its hooks at once on a second signal).
 * SIGWINCH (*winch, set by the main) makes the display fit the terminal's
 * new width (progress.h).
 */
#ifndef ABX_TICK_H
#define ABX_TICK_H

#include "tick/tickctx.h"   /* tick_t, tick_init, tick_free */

/* What a pass (or the daemon) comes to.  Not exit codes: tick_exit makes
 * the exit status of them (TICK_STOPPED is 128 + the signal, never 2,
 * which is EX_HOOKSFAILED in exitcodes.h). */
enum {
	TICK_DID = 0,        /* it did work */
	TICK_IDLE = 1,       /* nothing was due */
	TICK_STOPPED = -1,   /* stopped by a signal */
	TICK_FAILED = -2,    /* something failed (reported; t->err the exit
	                      * code of the first) */
};

/* One pass (see above): TICK_DID, TICK_IDLE, TICK_STOPPED or TICK_FAILED.
 * Hooks that failed are reported as they end, a line a snapshot, and
 * counted in t->failed_hooks (tick_exit says what a pass exits with). */
int tick_pass(tick_t *t);
/* abx-tick without --daemon: the light repair pass (repair.h: a failure
 * is reported and counted in t->errors, t->err), retention (retention.h:
 * up to 100 expired crawls), then tick_pass; what it returns, but
 * TICK_DID if retention removed a crawl and nothing was due. */
int tick_oneshot(tick_t *t);
/* The exit status of a one-shot pass or a daemon that came to rc
 * (tick_oneshot, daemon_run): 128 + lastsig if stopped by a signal; rc
 * if it is EX_CONFIG_ (the daemon's settings went bad); t->err if
 * something failed (EX_IOERR_ if none was kept); EX_HOOKSFAILED if hooks
 * failed; else EX_DONE if it did work, EX_NOTHING if nothing was due. */
int tick_exit(const tick_t *t, int rc, int lastsig);
/* On a terminal: the one-line summary of what the pass did. */
void tick_summary(const tick_t *t);
/* -n: print what is due, run nothing; 0 if something is due, else 1. */
int tick_dry(tick_t *t);

#endif
