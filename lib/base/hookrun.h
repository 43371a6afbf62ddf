/*
 * hookrun.h — one hook process: spawn it, enforce its deadline, stop it,
 * and reap it together with everything it left in its process group.
 *
 * A hook is spawned by spawn() (spawn.h: the one policy of every child,
 * fds, signals, environment) as the leader of a new session and process
 * group, whatever sp->session says: the deadlines below kill its group.
 * The caller gives its cwd (cwdfd), stdout and stderr.
 *
 * Deadlines (monotonic clock):
 *   1. at start + timeout (none if timeout is 0), SIGTERM to the group;
 *   2. grace = min(10 s, timeout) later, SIGKILL to the group.
 * proc_stop() starts the same sequence at once (end of phase, interrupt).
 *
 * When the leader exits, it is left a zombie while SIGKILL goes to its
 * whole group, so the group id cannot have been reused by then; then it is
 * reaped, and the group is waited for (up to 2 s) until no live process is
 * left in it.  So a hook that ignores SIGTERM and forks children leaves
 * nothing behind — unless a child moved itself to another session
 * (setsid), which abx-hook catches by being a child subreaper (phase.h).
 *
 * Waiting uses a pidfd per hook (poll wakes when it exits), so it never
 * touches SIGCHLD and never reaps children that are not hooks; without
 * pidfd_open (old kernels) it polls every 10 ms.  A caller must not reap
 * with waitpid(-1) while hooks run.
 */
#ifndef ABX_HOOKRUN_H
#define ABX_HOOKRUN_H

#include <signal.h>
#include <stdint.h>
#include <sys/types.h>

#include "base/spawn.h"

enum { PROC_RUN, PROC_TERM, PROC_KILL, PROC_DONE, PROC_DETACHED };
enum { WHY_NONE, WHY_TIMEOUT, WHY_STOPPED, WHY_INTERRUPTED, WHY_LIMIT };

typedef struct {
	pid_t pid;              /* also the process group id */
	int pidfd;              /* -1: polled */
	int state;
	int why;                /* what stopped it, if we did */
	int killed;             /* SIGKILL was needed */
	int status;             /* waitpid status once DONE */
	long timeout, grace;    /* seconds; timeout 0: none */
	int64_t started, ended; /* wall clock, µs */
	int64_t t0, deadline;   /* monotonic µs; deadline 0: none */
} proc_t;

/* Spawn sp (spawn.h) in its own session: 0, or an errno value (ENOENT,
 * EACCES, ENOEXEC ...) if it did not start. */
int proc_spawn(proc_t *p, const spawn_t *sp, long timeout);

/* SIGTERM to the group now, SIGKILL after the grace. */
void proc_stop(proc_t *p, int why);
/* SIGKILL to the group now. */
void proc_kill(proc_t *p, int why);

/*
 * Wait until one of ps[0..n) has finished (it is reaped, with its group:
 * state DONE, returns its index), or until the monotonic time `until`
 * (0: none; returns -1), or until *stop exceeds seen (returns -2: a signal
 * handler counts signals in *stop).  Deadlines of
 * all of them are acted on meanwhile.  mask, if set, is the signal mask to
 * wait with (ppoll), so that a blocked SIGTERM can interrupt the wait.
 * Returns -3, errno set, if it cannot wait (ppoll(2) failed other than by
 * EINTR, or by ENOMEM and EAGAIN, which are retried): the hooks are left
 * as they are, and the caller ends them with proc_reap().
 */
int proc_wait(proc_t **ps, size_t n, int64_t until, const sigset_t *mask,
    volatile sig_atomic_t *stop, int seen);
/* SIGKILL to the group now and reap it, blocking (the way out when
 * proc_wait cannot wait): state DONE, why set if not yet. */
void proc_reap(proc_t *p, int why);

/* Leave it running (a CrawlSetup daemon): forget it without reaping. */
void proc_detach(proc_t *p);

/* Exit code as abx records it: the code, or 128+signal; -1 if we killed
 * it at a timeout or an interrupt. */
int proc_exit_code(const proc_t *p);

/* A pidfd for pid (poll wakes when it exits), or -1 (old kernel: ENOSYS). */
int proc_pidfd(pid_t pid);

/* What abx reads of /proc/PID/stat: the one reader of it. */
typedef struct {
	char state;             /* R S D Z ... */
	long pgrp, sid;
	long long start;        /* clock ticks since boot */
} proc_stat_t;
/* 0, or -1 if the process is gone (or /proc unreadable). */
int proc_stat(pid_t pid, proc_stat_t *st);
/* Its start time, or -1. */
long long proc_starttime(pid_t pid);
/* Kill every live process of group pgid, wait up to grace_ms for them to go
 * (SIGTERM first if term, then SIGKILL).  Returns 1 if any was there. */
int proc_group_stop(pid_t pgid, int term, long grace_ms);
/* Is any live (non-zombie) process in group pgid? */
int proc_group_alive(pid_t pgid);

#endif
