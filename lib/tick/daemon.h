/*
 * daemon.h — abx-tick --daemon: the same pass, in a loop that sleeps.
 *
 * Between passes it sleeps until the earliest retry_at among the active
 * items (a due crawl or snapshot, a schedule's next run, a binary's next
 * check) or until the queue changes: an inotify watch (libinotifytools) on
 * index/, which every commit appends to, wakes it within milliseconds of
 * an abx-add.  On a filesystem inotify cannot see across hosts (NFS, CIFS,
 * FUSE such as GlusterFS, CephFS) it polls instead, every
 * DAEMON_POLL_INTERVAL seconds (default 2 there, 60 as the safety net
 * elsewhere; --poll sets it).  It never busy-polls: with nothing due it
 * blocks in the kernel.
 *
 * The repair pass runs at start and every DAEMON_REPAIR_INTERVAL seconds
 * (default 60), and retention (retention.h) with it.  SIGHUP re-reads
 * abx.conf (these settings; each crawl run reads the rest anew anyway);
 * SIGTERM and SIGINT stop it as they stop one pass.  A second daemon on the
 * same data directory and host exits 75 (the tick lock).
 */
#ifndef ABX_DAEMON_H
#define ABX_DAEMON_H

#include <signal.h>
#include "tick/tick.h"

extern volatile sig_atomic_t daemon_mode_active;

/* Returns TICK_STOPPED (tick.h) when stopped by a signal, EX_CONFIG_ if
 * its settings are bad (at start, or at a SIGHUP). */
int daemon_run(tick_t *t, double poll_s, volatile sig_atomic_t *hup);
/* The earliest retry_at among active items, or -1 if none. */
int64_t daemon_next_due(store_t *s);
/* 1 if inotify cannot be trusted on dir's filesystem. */
int daemon_remote_fs(int dfd);

#endif
