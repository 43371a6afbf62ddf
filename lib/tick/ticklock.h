/*
 * ticklock.h — the per-host tick lock: one abx-tick (a one-shot pass or a
 * daemon) per data directory per host.
 *
 * The lock is an flock on DIR/locks/tick@HOST (HOST the store's host name,
 * every byte but [A-Za-z0-9.-] made "_"), taken without waiting and held
 * until the process exits; the file holds the holder's pid, so that cat
 * shows which tick runs.  Ticks on other hosts sharing the directory do
 * not take each other's lock: the leases keep them apart.
 */
#ifndef ABX_TICKLOCK_H
#define ABX_TICKLOCK_H

#include <stddef.h>
#include "store/store.h"

#define TICK_LOCK_BUSY (-1)   /* another tick holds it */
#define TICK_LOCK_FAIL (-2)   /* its file could not be opened (errno) */

/* Take the tick lock: its fd, or TICK_LOCK_BUSY or TICK_LOCK_FAIL.  The
 * lock file's path (relative to s->dir) goes to path[0..n). */
int tick_lock(store_t *s, char *path, size_t n);

#endif
