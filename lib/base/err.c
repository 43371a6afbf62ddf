/* err.c — see err.h. */
#include <errno.h>
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
