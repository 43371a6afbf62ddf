/*
 * tickctx.h — the context of abx-tick's work (tick_t), and what every part
 * of it does with the context: report a failure of the store, read the
 * active entries, keep the discovered plugins.  Below the pass (tick.h) and
 * the crawl run (crawlrun.h), which both use it; it calls neither.
 *
 * Errors: tick_error reports a failure of the store as it happens (what we
 * were doing, then s->errmsg) and counts it: t->errors, and t->err the exit
 * code of the first (s->err, else 74).  The work goes on with other items.
 */
#ifndef ABX_TICKCTX_H
#define ABX_TICKCTX_H

#include <signal.h>
#include "hook/plugin.h"
#include "store/store.h"

#define LEASE_US (60 * 1000000LL)    /* a claim's lease (renewed every 10 s) */

typedef struct {
	store_t *s;
	int verbose, dry, tty, color;
	const char *only_crawl;
	volatile sig_atomic_t *signals;  /* count of INT/TERM/HUP received */
	int tick_lock_fd;                /* not inherited by workers */
	char *hook_prog;                 /* the abx-hook workers exec */
	plugins_t ps;                    /* discovered plugins (which families have hooks) */
	int have_ps;
	int64_t ps_at;
	/* counters for the summary */
	int crawls, snapshots, requeued, failed_workers, discovered;
	int failed_hooks, failed_items;  /* hooks that failed, and the snapshots
	                                  * (or crawl phases) they failed in */
	volatile sig_atomic_t *winch;    /* SIGWINCH seen: the display re-reads its width */
	int cols;                        /* the terminal's width (progress.h) */
	int64_t started_us;
	/* errors: reported as they happen; the work goes on with other items */
	int errors, err;                 /* how many; exit code of the first */
} tick_t;

void tick_init(tick_t *t, store_t *s);
void tick_free(tick_t *t);
/* Report a failure of the store (what we were doing, then s->errmsg) and
 * count it (see above). */
void tick_error(tick_t *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* The active entries of a type (NULL: all), the index refreshed under the
 * lock; in store_active's order if ordered, else in none.  A failure is
 * reported (tick_error) and reads as none. */
size_t tick_active(tick_t *t, const char *type, int ordered, ient_t **v);
/* The plugins, discovered once and kept for a minute (t->ps, t->have_ps:
 * 0 if the data directory's path could not be resolved). */
void tick_discover_plugins(tick_t *t);
/* Drop the discovered plugins (SIGHUP; exit). */
void tick_forget_plugins(tick_t *t);

#endif
