/* err.c — see err.h. */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <unistd.h>

#include "base/err.h"
#include "base/termsafe.h"

static const char *prog = "abx";
static int verbose;

/* the full-disk lines held back (err_repeats_flush) */
static pthread_mutex_t repeats_mu = PTHREAD_MUTEX_INITIALIZER;
static int full_seen, full_atexit;
static long full_more;
static char full_words[64];

void
err_init(const char *argv0)
{
	const char *s = strrchr(argv0, '/');
	prog = s ? s + 1 : argv0;
}

const char *
err_prog(void)
{
	return prog;
}

int
err_verbose(int set)
{
	if (set >= 0)
		verbose = set;
	return verbose;
}

/* Is line a full disk's, after the first one printed?  Then it is counted. */
static int
full_disk_held(const char *line)
{
	const char *w = strstr(line, strerror(ENOSPC)) ? strerror(ENOSPC) :
	                strstr(line, strerror(EDQUOT)) ? strerror(EDQUOT) : NULL;
	if (!w)
		return 0;
	pthread_mutex_lock(&repeats_mu);
	int held = full_seen++ > 0;
	if (held) {
		full_more++;
		snprintf(full_words, sizeof full_words, "%s", w);
		if (!full_atexit)
			full_atexit = atexit(err_repeats_flush) == 0;
	}
	pthread_mutex_unlock(&repeats_mu);
	return held;
}

void
err_repeats_flush(void)
{
	pthread_mutex_lock(&repeats_mu);
	long more = full_more;
	char words[64];
	snprintf(words, sizeof words, "%s", full_words);
	full_seen = 0, full_more = 0;
	pthread_mutex_unlock(&repeats_mu);
	if (!more)
		return;
	char line[256];
	int n = snprintf(line, sizeof line, "%s: warning: (and %ld more like it: %s)\n", prog, more, words);
	if (n > 0) {
		ssize_t w = write(2, line, (size_t)n < sizeof line ? (size_t)n : sizeof line - 1);
		(void)w;
	}
}

void
err_vemit(const char *kind, int errnum, const char *fmt, va_list ap)
{
	char buf[4096];
	int n = snprintf(buf, sizeof buf, "%s: %s%s", prog, kind, *kind ? ": " : "");
	if (n < 0 || n >= (int)sizeof buf)
		n = 0;
	int m = vsnprintf(buf + n, sizeof buf - n, fmt, ap);
	if (m > 0)
		n += m < (int)(sizeof buf - n) ? m : (int)(sizeof buf - n) - 1;
	if (errnum && n < (int)sizeof buf - 2)
		n += snprintf(buf + n, sizeof buf - n, ": %s", strerror(errnum));
	if (n > (int)sizeof buf - 2)
		n = sizeof buf - 2;
	buf[n] = 0;
	if (strcmp(kind, "fatal") != 0 && full_disk_held(buf))
		return;
	/* a URL or title in the message came from someone's page: its
	 * controls are shown, never sent to the terminal (termsafe.h) */
	char *safe = termsafe(buf);
	struct iovec iov[2] = {{safe, strlen(safe)}, {"\n", 1}};
	ssize_t w = writev(2, iov, 2);   /* one write: lines of processes do not mix */
	(void)w;
	free(safe);
}

void
warnx_(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	err_vemit("warning", 0, fmt, ap);
	va_end(ap);
}

void
errorx(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	err_vemit("error", 0, fmt, ap);
	va_end(ap);
}

void
warnsys(const char *fmt, ...)
{
	int e = errno;
	va_list ap;
	va_start(ap, fmt);
	err_vemit("warning", e, fmt, ap);
	va_end(ap);
}

void
info(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	err_vemit("", 0, fmt, ap);
	va_end(ap);
}

int
fault_armed(const char *name)
{
	const char *f = getenv("ABX_TEST_FAULT");
	return f && strcmp(f, name) == 0;
}

void
fault_point(const char *name)
{
	if (fault_armed(name))
		raise(SIGKILL);
}
