/*
 * claimrun.h — abx-claim's CMD: a command run holding an item's flock
 * lease, in the manner of flock(1).
 *
 *   claim_run()   start cmd (cmd[0] looked up in $PATH as execvp(3) does:
 *                 a file that is not a program is run by /bin/sh) with
 *                 the lock fd open and, in its environment,
 *
 *                     ABX_DIR       the data directory
 *                     ABX_KIND      crawl, snapshot or binary
 *                     ABX_ID        the item
 *                     ABX_LEASE_FD  the lock fd (lease.h: lease_inherited)
 *                     ABX_HINT      where its records are (store_hint(),
 *                                   store.h: Lean mode); unset if the index
 *                                   does not say
 *
 *                 and every signal at its default, none blocked
 *                 (tool_spawnattr(), toolspawn.h).  While it runs: every
 *                 third of lease_us the record's expiry is renewed (the
 *                 fallback where locks are not trusted: the flock is the
 *                 truth) until a renewal fails, and a signal the caller's
 *                 handler stored in *forward is sent on to it: the handler
 *                 is installed for SIGINT, SIGTERM and SIGHUP before cmd
 *                 starts, and left there.  When it
 *                 exits, the lease is released (claim_release(), unless cmd
 *                 moved the item on, e.g. sealed it) and the lock dropped.
 *
 * Returns cmd's exit status, 128 + the signal that killed it, or, if it
 * could not be run, 127 (not found) or 126 after a warning ("unable to run
 * CMD: reason").  If it could not be started (no process) or waited for,
 * returns -1 with the message in why; the lease is then left to the
 * caller's exit.  Nothing here exits.
 */
#ifndef ABX_CLAIMRUN_H
#define ABX_CLAIMRUN_H

#include <signal.h>
#include <stdint.h>

#include "store/store.h"

int claim_run(store_t *s, const char *kind, const char *id, int fd, int64_t lease_us, char **cmd,
    void (*on_signal)(int), volatile sig_atomic_t *forward, buf_t *why);

#endif
