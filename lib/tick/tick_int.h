/*
 * tick_int.h — what the files of abx-tick's pass share (tick.c the pass,
 * crawlrun.c a crawl run, worker.c the workers, progress.c the display).
 * Not an interface: other code uses tick.h.
 */
#ifndef ABX_TICK_INT_H
#define ABX_TICK_INT_H

#include "store/store.h"
#include "tick/tick.h"

#define LEASE_US (60 * 1000000LL)    /* a claim's lease */
#define RENEW_US (10 * 1000000LL)    /* renewed this often */
#define SYNC_US (250 * 1000LL)       /* the group-commit clock */
#define MAX_SLOTS 64

/* Report a failure of the store (what we were doing, then s->errmsg) and
 * count it; the pass goes on with other work. */
void tick_error(tick_t *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* The active entries of a type, the index refreshed under the lock; in
 * store_active's order if ordered, else in none. */
size_t tick_active(tick_t *t, const char *type, int ordered, ient_t **v);
/* The plugins, discovered once and kept for a minute (t->ps). */
void tick_discover_plugins(tick_t *t);

/* Run a claimed crawl to its end (cfd: its lease, dropped here).  0, or -1
 * if the store failed on the way (reported; the crawl is put back). */
int crawl_run(tick_t *t, rec_t *crawl, int cfd);

#endif
