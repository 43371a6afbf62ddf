/*
 * benchlib.h — what the benchmark programs share (each includes it once):
 * the monotonic clock in microseconds, quantiles of per-round figures,
 * removing a temp tree without following symlinks, and stopping between
 * rounds on SIGINT or SIGTERM.  Header-only:
 * each benchmark program is built from one source file.
 */
#ifndef ABX_BENCHLIB_H
#define ABX_BENCHLIB_H

#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "base/err.h"
#include "base/fs.h"

/* CLOCK_MONOTONIC, in microseconds. */
static double __attribute__((unused))
bench_mono_us(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

static int
dbl_cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

/* The q-quantile (0..1) of n values, by linear interpolation. */
static double __attribute__((unused))
quantile(const double *v, int n, double q)
{
	double *t = xmalloc(sizeof(double) * n);
	memcpy(t, v, sizeof(double) * n);
	qsort(t, n, sizeof(double), dbl_cmp);
	double pos = q * (n - 1);
	int lo = (int)pos;
	double x = lo + 1 < n ? t[lo] + (pos - lo) * (t[lo + 1] - t[lo]) : t[lo];
	free(t);
	return x;
}

/* rm -rf path (absolute or relative), then empty it; a no-op if empty. */
static void __attribute__((unused))
bench_rmtree(char *path)
{
	if (!*path)
		return;
	char parent[4096];
	snprintf(parent, sizeof parent, "%s", path);
	char *sl = strrchr(parent, '/');
	if (!sl)
		return;
	*sl = 0;
	int pfd = open(*parent ? parent : "/", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (pfd < 0 || fs_rmtree(pfd, sl + 1) < 0)
		warnsys("unable to remove %s", path);
	if (pfd >= 0)
		close(pfd);
	*path = 0;
}

static char tmproot[4096];                 /* the program's temp tree */
static volatile sig_atomic_t bench_stop;   /* SIGINT or SIGTERM seen */

static void __attribute__((unused))
bench_on_signal(int sig)
{
	bench_stop = sig;
}

/* Called between batches and rounds: exit (through atexit) if asked to. */
static void __attribute__((unused))
check_stop(void)
{
	if (bench_stop) {
		warnx_("interrupted by signal %d; removing %s", (int)bench_stop, tmproot);
		exit(128 + bench_stop);
	}
}

#endif
