/*
 * itemlease.h — a tool's hold on one item's lease while it works on the
 * item (abx-seal, abx-hook): the lease abx-claim handed it
 * ($ABX_LEASE_FD, lease_inherited(), lease.h), else one taken here (a
 * by-hand run).
 *
 *   item_lease()   0 (LEASE_TAKEN) with *fd, and *own set if the lease was
 *                  taken here (the caller lease_drop()s it when done); or
 *                  LEASE_BUSY (a worker holds it) or LEASE_UNKNOWN (its
 *                  state cannot be known: treat it as busy), and *fd -1.
 *
 * flags: ITEMLEASE_NOTE writes a lease taken here into its lock file as a
 * flock lease of an hour held by this process (lease_object()), for cat
 * and abx-ls to see; ITEMLEASE_CLOEXEC keeps the fd from the programs the
 * tool starts (the lease is the tool's, never a hook's).  Nothing here
 * prints or exits.
 */
#ifndef ABX_ITEMLEASE_H
#define ABX_ITEMLEASE_H

#include "store/store.h"

#define ITEMLEASE_NOTE 1
#define ITEMLEASE_CLOEXEC 2

int item_lease(store_t *s, const char *id, int flags, int *fd, int *own);

#endif
