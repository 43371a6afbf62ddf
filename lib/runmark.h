/*
 * runmark.h — the marks a run of hooks leaves, so that what is left of a
 * run that died (kill -9 of abx-hook or of its worker, the OOM killer, a
 * crash) is found and ended before its snapshot or crawl runs again.
 *
 * A run is one phase of one item (a snapshot, or a crawl for CrawlSetup
 * and CrawlCleanup), by one process holding the item's lease.  It leaves
 * three marks:
 *  1. the run token: every hook it starts, BinaryRequest hooks included,
 *     has ABX_RUN=<item id>/<run id> (a fresh UUIDv7) in its environment.
 *     The kernel keeps it: /proc/PID/environ is the environment the
 *     process was exec'd with, and every descendant inherits it across
 *     fork, setsid, double forks and execve, unless it builds a new
 *     environment (env -i) or writes over its own (setproctitle);
 *  2. the marker <item dir>/.abx-run,
 *         {"run":TOKEN,"host":"..","boot_id":"..","pid":N}
 *     created before the run's first hook starts and removed after its last
 *     hook and every descendant left behind were reaped (runmark_begin,
 *     runmark_end): it exists only while a run goes on, or after one died.
 *     It is not synced: a machine crash ends the hooks too;
 *  3. <hook_name>.pid in each hook's cwd, "PID STARTTIME" (the start time
 *     of /proc/PID/stat), written just after the hook started and removed
 *     when it ended, as ArchiveBox's runtime writes one; a hint only.
 *
 * Since the marker comes first and goes last, whatever instant a run dies
 * at, the marker is there if anything of it can still be alive (a kill
 * between posix_spawn and the pid file leaves a hook with no pid file, but
 * with the token and the marker).  So the next run walks /proc only when it
 * finds a marker (runmark_clear_dead); a run after a clean one pays one
 * file created and removed, never a walk of /proc (about 6 µs a process:
 * 3 ms with 500 processes).
 *
 * run_sweep() ends a dead run's processes: every process whose ABX_RUN
 * names the item but another run than ours and than the runs in keep (the
 * CrawlSetup daemons recorded in daemon.json files, which are meant to
 * outlive their run: crawldaemons.h).  No live run can own such a process:
 * a run holds the item's lease from before its marker is written until
 * after its last descendant is reaped, and the caller holds the lease now.
 * Also ended: every process in the session of such a process, or of a
 * hook named by a pid file (same start time; its ABX_RUN, if it still has
 * one, naming the item): a hook leads a session of its own, which only its
 * descendants can join, so whatever is in it belongs to that run even if
 * it dropped its environment.  They get SIGTERM, and those still there
 * 2 s later SIGKILL; /proc is walked again after each round until it finds
 * none (they may have forked meanwhile).  Each is signalled through a pidfd
 * opened after it matched and checked to be the same process (start
 * time), so a reused pid is never signalled, and waited for by polling
 * the pidfd (not our children: they were reparented elsewhere).  Only
 * processes whose environment we may read (our uid, or all as root) are
 * seen.
 *
 * A marker from another host cannot be acted on here (a warning says so,
 * and the run goes on); one from another boot needs nothing (no process
 * survives a reboot).  The marker of the item, if any, is removed once
 * what its run left is gone.
 */
#ifndef ABX_RUNMARK_H
#define ABX_RUNMARK_H

#include <sys/types.h>
#include "ids.h"
#include "store.h"

typedef struct {
	char item[ID_LEN + 1];
	char token[2 * ID_LEN + 2];   /* the value of ABX_RUN: <item>/<run id> */
	char *dir;                    /* the item's directory, relative */
	int dirfd;                    /* open on it, or -1 */
	int marked;                   /* our marker is there */
} runmark_t;

/* A new run of item, whose directory is dir (relative to the data dir). */
void runmark_init(runmark_t *m, const char *item, const char *dir);
void runmark_free(runmark_t *m);

/*
 * If an earlier run's marker is in the item's directory, end what that
 * run left (run_sweep, with the sessions its pid files name), remove its
 * pid files and the marker.  Returns 0, or -1 if some process of it would
 * not die (a message says which; the marker is kept).
 */
int runmark_clear_dead(store_t *s, runmark_t *m, char *const *keep);
/* Write our marker (the directory is created if needed): 0, or -1 errno. */
int runmark_begin(store_t *s, runmark_t *m);
/* Remove it. */
void runmark_end(runmark_t *m);

/*
 * End every process whose ABX_RUN is "<item>/..." other than ours (NULL:
 * ours too) and the tokens in keep (NULL-terminated, or NULL), and every
 * process in the sessions sids[0..nsids).  Returns how many were found,
 * or -1 if some would not die.
 */
int run_sweep(const char *item, const char *ours, char *const *keep, const pid_t *sids,
    size_t nsids);

/* The pid files: "<stem>.pid" in dirfd. */
void pidfile_write(int dirfd, const char *stem, pid_t pid);
void pidfile_remove(int dirfd, const char *stem);

#endif
