/* hookrun.c — see hookrun.h. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "base/clock.h"
#include "base/err.h"
#include "base/hookrun.h"

#define GRACE_MAX 10          /* s: SIGTERM → SIGKILL */
#define DRAIN_MS 2000         /* how long to wait for a killed group to go */

int
proc_pidfd(pid_t pid)
{
#ifdef SYS_pidfd_open
	return syscall(SYS_pidfd_open, pid, 0);
#else
	errno = ENOSYS;
	return -1;
#endif
}

int
proc_spawn(proc_t *p, const spawn_t *sp, long timeout)
{
	memset(p, 0, sizeof *p);
	p->pidfd = -1;
	p->timeout = timeout > 0 ? timeout : 0;
	p->grace = p->timeout && p->timeout < GRACE_MAX ? p->timeout : GRACE_MAX;
	spawn_t leader = *sp;
	leader.session = 1;
	p->started = clock_now();
	p->t0 = clock_mono();
	int rc = spawn(&leader, &p->pid);
	if (rc) {
		p->state = PROC_DONE;
		p->ended = clock_now();
		p->status = -1;
		return rc;
	}
	p->pidfd = proc_pidfd(p->pid);
	p->state = PROC_RUN;
	p->deadline = p->timeout ? p->t0 + p->timeout * 1000000LL : 0;
	return 0;
}

void
proc_stop(proc_t *p, int why)
{
	if (p->state != PROC_RUN)
		return;
	if (!p->why)
		p->why = why;
	killpg(p->pid, SIGTERM);
	p->state = PROC_TERM;
	p->deadline = clock_mono() + p->grace * 1000000LL;
}

void
proc_kill(proc_t *p, int why)
{
	if (p->state != PROC_RUN && p->state != PROC_TERM)
		return;
	if (!p->why)
		p->why = why;
	killpg(p->pid, SIGKILL);
	p->killed = 1;
	p->state = PROC_KILL;
	p->deadline = 0;
}

/* Act on a passed deadline. */
static void
advance(proc_t *p, int64_t now)
{
	if (!p->deadline || now < p->deadline)
		return;
	if (p->state == PROC_RUN) {
		proc_stop(p, WHY_TIMEOUT);
	} else if (p->state == PROC_TERM) {
		proc_kill(p, WHY_TIMEOUT);
	}
}

int
proc_stat(pid_t pid, proc_stat_t *st)
{
	char path[64], buf[1024];
	snprintf(path, sizeof path, "/proc/%ld/stat", (long)pid);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	ssize_t n = read(fd, buf, sizeof buf - 1);
	close(fd);
	if (n <= 0)
		return -1;
	buf[n] = 0;
	/* after "pid (comm)": state(3) ppid pgrp session ... starttime(22) */
	char *p = strrchr(buf, ')');
	long ppid;
	if (!p || sscanf(p + 1, " %c %ld %ld %ld %*s %*s %*s %*s %*s %*s %*s %*s %*s %*s %*s %*s %*s "
	    "%*s %*s %lld", &st->state, &ppid, &st->pgrp, &st->sid, &st->start) != 5)
		return -1;
	return 0;
}

long long
proc_starttime(pid_t pid)
{
	proc_stat_t st;
	return proc_stat(pid, &st) == 0 ? st.start : -1;
}

int
proc_group_alive(pid_t pgid)
{
	if (kill(-pgid, 0) < 0 && errno == ESRCH)
		return 0;
	/* only zombies (waiting for their reaper) may be left: look */
	DIR *d = opendir("/proc");
	if (!d)
		return 1;
	int alive = 0;
	for (struct dirent *e; !alive && (e = readdir(d));) {
		proc_stat_t ps;
		if (e->d_name[0] >= '1' && e->d_name[0] <= '9' && proc_stat(atol(e->d_name), &ps) == 0 &&
		    ps.pgrp == pgid && ps.state != 'Z' && ps.state != 'X')
			alive = 1;
	}
	closedir(d);
	return alive;
}

static void
sleep_ms(long ms)
{
	struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
}

/* Reap what we can of the group (as a subreaper we may be its parent). */
static void
reap_group(pid_t pgid)
{
	while (waitpid(-pgid, NULL, WNOHANG) > 0)
		;
}

int
proc_group_stop(pid_t pgid, int term, long grace_ms)
{
	if (pgid <= 1 || !proc_group_alive(pgid))
		return 0;
	if (term) {
		killpg(pgid, SIGTERM);
		for (long t = 0; t < grace_ms; t += 20) {
			reap_group(pgid);
			if (!proc_group_alive(pgid))
				return 1;
			sleep_ms(20);
		}
	}
	killpg(pgid, SIGKILL);
	for (long t = 0; t < DRAIN_MS; t += 5) {
		reap_group(pgid);
		if (!proc_group_alive(pgid))
			break;
		sleep_ms(5);
	}
	return 1;
}

/* The leader has exited (a zombie): kill the rest of its group, reap. */
static void
finish(proc_t *p)
{
	killpg(p->pid, SIGKILL);
	pid_t w;
	while ((w = waitpid(p->pid, &p->status, 0)) < 0 && errno == EINTR)
		;
	if (w < 0)
		p->status = -1;   /* reaped by someone else: outcome unknown */
	p->ended = clock_now();
	p->state = PROC_DONE;
	p->deadline = 0;
	if (p->pidfd >= 0)
		close(p->pidfd);
	p->pidfd = -1;
	for (long t = 0; t < DRAIN_MS; t += 2) {
		reap_group(p->pid);
		if (!proc_group_alive(p->pid))
			break;
		sleep_ms(2);
	}
}

static int
exited(proc_t *p)
{
	siginfo_t si;
	memset(&si, 0, sizeof si);
	if (waitid(P_PID, p->pid, &si, WEXITED | WNOHANG | WNOWAIT) < 0)
		return errno == ECHILD;   /* not ours any more: treat as gone */
	return si.si_pid == p->pid;
}

int
proc_wait(proc_t **ps, size_t n, int64_t until, const sigset_t *mask, volatile sig_atomic_t *stop,
    int seen)
{
	struct pollfd *fds = xcalloc(n + 1, sizeof *fds);
	int rc, e;
	for (;;) {
		int64_t now = clock_mono(), next = until;
		int polled = 0;
		size_t nf = 0;
		for (size_t i = 0; i < n; i++) {
			proc_t *p = ps[i];
			if (p->state == PROC_DONE || p->state == PROC_DETACHED)
				continue;
			if (exited(p)) {
				finish(p);
				rc = i;
				goto out;
			}
			advance(p, now);
			if (p->deadline && (!next || p->deadline < next))
				next = p->deadline;
			if (p->pidfd >= 0)
				fds[nf++] = (struct pollfd){.fd = p->pidfd, .events = POLLIN};
			else
				polled = 1;
		}
		if (stop && *stop > seen) {
			rc = -2;
			goto out;
		}
		if (until && now >= until) {
			rc = -1;
			goto out;
		}
		int64_t wait = next ? next - now : -1;
		if (wait < 0 && next)
			wait = 0;
		if (polled && (wait < 0 || wait > 10000))
			wait = 10000;
		struct timespec ts = {wait / 1000000, (wait % 1000000) * 1000};
		if (ppoll(fds, nf, wait < 0 ? NULL : &ts, mask) < 0 && errno != EINTR) {
			if (errno != ENOMEM && errno != EAGAIN) {
				rc = -3;
				goto out;
			}
			sleep_ms(10);   /* short of kernel memory: try again */
		}
	}
out:
	e = errno;
	free(fds);
	errno = e;
	return rc;
}

void
proc_reap(proc_t *p, int why)
{
	if (p->state != PROC_RUN && p->state != PROC_TERM && p->state != PROC_KILL)
		return;
	proc_kill(p, why);
	finish(p);
}

void
proc_detach(proc_t *p)
{
	if (p->pidfd >= 0)
		close(p->pidfd);
	p->pidfd = -1;
	p->state = PROC_DETACHED;
}

int
proc_exit_code(const proc_t *p)
{
	if (p->status == -1 || p->why == WHY_TIMEOUT || p->why == WHY_INTERRUPTED || p->why == WHY_LIMIT)
		return -1;
	return spawn_code(p->status);
}
