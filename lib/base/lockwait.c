/* lockwait.c — see lockwait.h. */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <time.h>
#include <unistd.h>

#include "base/err.h"
#include "base/lockwait.h"

int
lock_holder(int fd, char *buf, size_t n)
{
	struct stat st;
	buf[0] = 0;
	if (fstat(fd, &st) < 0)
		return 0;
	char want[64];
	snprintf(want, sizeof want, "%02x:%02x:%llu", major(st.st_dev), minor(st.st_dev),
	    (unsigned long long)st.st_ino);
	FILE *f = fopen("/proc/locks", "re");
	if (!f)
		return 0;
	char line[256];
	int pid = 0;
	while (!pid && fgets(line, sizeof line, f)) {
		char kind[16], dev[64];
		int p;
		/* "1: FLOCK  ADVISORY  WRITE 123 fe:00:4711 0 EOF"; a waiter
		 * has "->" before FLOCK and does not match */
		if (sscanf(line, "%*d: %15s %*s %*s %d %63s", kind, &p, dev) == 3 &&
		    strcmp(kind, "FLOCK") == 0 && strcmp(dev, want) == 0 && p > 0)
			pid = p;
	}
	fclose(f);
	if (!pid)
		return 0;
	char path[64], comm[64] = "";
	snprintf(path, sizeof path, "/proc/%d/comm", pid);
	FILE *c = fopen(path, "re");
	if (c) {
		if (fgets(comm, sizeof comm, c))
			comm[strcspn(comm, "\n")] = 0;
		fclose(c);
	}
	if (*comm)
		snprintf(buf, n, "pid %d (%s)", pid, comm);
	else
		snprintf(buf, n, "pid %d", pid);
	return pid;
}

typedef struct {
	pthread_mutex_t mu;
	pthread_cond_t cv;
	int done, fd, after;
	const char *name;
} watch_t;

static void *
watch(void *arg)
{
	watch_t *w = arg;
	struct timespec until;
	clock_gettime(CLOCK_MONOTONIC, &until);
	until.tv_sec += w->after;
	pthread_mutex_lock(&w->mu);
	while (!w->done && pthread_cond_timedwait(&w->cv, &w->mu, &until) != ETIMEDOUT)
		;
	int done = w->done;
	pthread_mutex_unlock(&w->mu);
	if (!done) {
		char who[128];
		if (lock_holder(w->fd, who, sizeof who))
			warnx_("waiting for the lock %s, held by %s", w->name, who);
		else
			warnx_("waiting for the lock %s (held by another process)", w->name);
	}
	return NULL;
}

int
lock_wait(int fd, int op, const char *name, int after)
{
	int r;
	while ((r = flock(fd, op | LOCK_NB)) < 0 && errno == EINTR)
		;
	if (r == 0 || errno != EWOULDBLOCK)
		return r;
	watch_t w = {.fd = fd, .after = after, .name = name};
	pthread_mutex_init(&w.mu, NULL);
	pthread_condattr_t ca;
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&w.cv, &ca);
	pthread_condattr_destroy(&ca);
	/* the watcher takes no signal: the process's handlers see them in
	 * the thread that waits, as without a watcher */
	sigset_t all, old;
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	pthread_t t;
	int watching = pthread_create(&t, NULL, watch, &w) == 0;
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	while ((r = flock(fd, op)) < 0 && errno == EINTR)
		;
	int e = errno;
	if (watching) {
		pthread_mutex_lock(&w.mu);
		w.done = 1;
		pthread_cond_signal(&w.cv);
		pthread_mutex_unlock(&w.mu);
		pthread_join(t, NULL);
	}
	pthread_cond_destroy(&w.cv);
	pthread_mutex_destroy(&w.mu);
	errno = e;
	return r;
}
