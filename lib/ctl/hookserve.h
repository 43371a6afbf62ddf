/*
 * hookserve.h — `abx-hook --serve`: one worker that runs the Snapshot
 * phase of snapshot after snapshot for abx-tick (abx-hook(1)).
 *
 * Its stdin is a SOCK_SEQPACKET socket from the tick; each message is one
 * snapshot to run, four fields separated by tabs:
 *     ID <tab> PLUGINS <tab> BUDGET <tab> HINT
 * (PLUGINS: names separated by commas, or empty for every plugin; BUDGET:
 * bytes left of CRAWL_MAX_SIZE, 0 for no limit, as $ABX_SIZE_BUDGET;
 * HINT: where the records are, as $ABX_HINT, or empty) with the
 * snapshot's lease attached (SCM_RIGHTS: the tick's own open lock, so the
 * lease is held by both, and dies with the last of them).  For each, what
 * `abx-hook ID` does: the data directory opened, ID and PLUGINS checked,
 * the settings checked, the lease checked (lease_held: 75 if it is not a
 * lock on locks/ID), phase_run, the store closed; its records on out,
 * then one end line
 *     {"type":"PhaseEnd","id":"ID","exit":N,"size":BYTES}
 * where N is the exit status `abx-hook ID` would have had, and BYTES, when
 * N is 0 or 1, the bytes of the regular files under the snapshot's
 * directory then (fs_du: what the tick counts against CRAWL_MAX_SIZE and
 * its seal records, walked by the worker so that the tick, which serves
 * every worker in turn, need not; left out when it was not walked).  The
 * lease descriptor is closed, never unlocked (the lock is the tick's too).
 *
 * Its hooks get $ABX_WORKER, "PID.STARTTIME" of this process (its
 * start time as /proc/PID/stat gives it): a hook may leave a process up
 * for the worker's later snapshots (phase.h, step 9); such a process is
 * ended (phase_end_kept) before hook_serve returns.
 *
 * Between messages it waits with the signals of phase_signals()
 * unblocked: a signal, or a stop during a phase, ends the loop after that
 * snapshot's end line.  End of file ends it too.  Returns 0 at end of
 * file, 75 after a signal, 74 if stdin or stdout fails.  Everything a
 * snapshot allocates is freed before the next one, but what the worker
 * keeps and re-checks at each snapshot: the discovery of the plugins
 * (plugins_keep, plugin.h) and its last crawl's seeds reduced to one URL
 * a host (phase_gate.c).
 */
#ifndef ABX_HOOKSERVE_H
#define ABX_HOOKSERVE_H

#include <signal.h>
#include <stdio.h>

int hook_serve(const char *dir, int in, FILE *out, const sigset_t *waitmask, volatile sig_atomic_t *stop,
    int reap_orphans);

#endif
