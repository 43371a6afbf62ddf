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
 *     The kernel keeps it: /proc/PID/environ is the environment a process
 *     was exec'd with, and every descendant inherits it across fork,
 *     setsid, double forks and execve, unless it builds a new environment
 *     (env -i) or writes over its own (setproctitle);
 *  2. the mark: the sticky bit (S_ISVTX, `ls -ld` shows a "t") of the
 *     item's directory, set before the run's first hook starts and cleared
 *     after its last hook and every descendant it left were reaped
 *     (runmark_begin, runmark_end): it is set only while a run goes on, or
 *     after one died.  A mode bit costs no inode and no data block (a
 *     marker file created and removed cost 90-250 µs a snapshot on ext4);
 *  3. <hook_name>.pid in each hook's cwd, "PID STARTTIME" (the start time
 *     of /proc/PID/stat), written just after the hook started and removed
 *     when it ended, as ArchiveBox's runtime writes one: a hint only.
 *
 * Since the mark is set first and cleared last, whatever instant a run dies
 * at, the mark is there if anything of it can still be alive (a kill
 * between posix_spawn and the pid file leaves a hook without a pid file,
 * but with the token and the mark).  So the next run walks /proc only when
 * it finds the mark (runmark_clear_dead); a run after a clean one pays an
 * fstat and two fchmods, never a walk of /proc (about 6 µs a process:
 * 3 ms with 500 processes).
 *
 * run_sweep() ends a dead run's processes: every process whose ABX_RUN
 * names the item but another run than ours and than the runs in keep (the
 * CrawlSetup daemons recorded in daemon.json files, which are meant to
 * outlive their run: crawldaemons.h).  No live run can own such a process:
 * a run holds the item's lease from before it sets the mark until after
 * its last descendant is reaped, and the caller holds the lease now.
 * Also ended: every process in the session of such a process, or of a
 * hook named by a pid file (same start time; its ABX_RUN, if it still has
 * one, naming the item): a hook leads a session of its own, which only its
 * descendants can join, so whatever is in it belongs to that run even if
 * it dropped its environment.  They get SIGTERM, and those still there
 * 2 s later SIGKILL; /proc is walked again after each round until it finds
 * none (they may have forked meanwhile).  Each is signalled through a pidfd
 * opened after it matched and checked to be the same process (start
 * time), so a reused pid is never signalled, and waited for by polling
 * the pidfd (they are not our children).  Only processes whose environment
 * we may read (our uid, or all as root) are found; one we may not signal
 * is reported and left.
 *
 * /proc shows this host's processes only: the hooks of a run that died on
 * another host sharing the data directory are not found (its mark is
 * cleared all the same); after a reboot the walk finds nothing.
 */
#ifndef ABX_RUNMARK_H
#define ABX_RUNMARK_H

#include <sys/types.h>
#include "base/ids.h"
#include "store/store.h"

typedef struct {
	char item[ID_LEN + 1];
	char token[2 * ID_LEN + 2];   /* the value of ABX_RUN: <item>/<run id> */
	char *dir;                    /* the item's directory, relative */
	int dirfd;                    /* open on it, or -1 */
	mode_t mode;                  /* its permission bits, unmarked */
	int have_mode;
	int marked;                   /* we set the mark */
} runmark_t;

/* A new run of item, whose directory is dir (relative to the data dir). */
void runmark_init(runmark_t *m, const char *item, const char *dir);
void runmark_free(runmark_t *m);

/*
 * If the item's directory is marked, end what the run that marked it left
 * (run_sweep, with the sessions its pid files name), remove its pid files
 * and clear the mark.  Returns 0, or -1 if some process of it would not
 * die (a message says which; the mark stays).
 */
int runmark_clear_dead(store_t *s, runmark_t *m, char *const *keep);
/* Set the mark (the directory is created if needed): 0, or -1 errno. */
int runmark_begin(store_t *s, runmark_t *m);
/* Clear it. */
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
