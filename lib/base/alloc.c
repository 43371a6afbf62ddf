/* alloc.c — see alloc.h. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <unistd.h>

#include "base/alloc.h"
#include "base/exitcodes.h"

/* The one exit of the library: nothing here allocates, so it cannot fail
 * in turn. */
static void __attribute__((noreturn))
out_of_memory(void)
{
	const char *prog = program_invocation_short_name;
	const char *tail = ": fatal: out of memory\n";
	struct iovec iov[2] = {{(void *)prog, strlen(prog)}, {(void *)tail, strlen(tail)}};
	ssize_t w = writev(2, iov, 2);   /* one write: lines of processes do not mix */
	(void)w;
	exit(EX_SOFT_);
}

void *
xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);
	if (!p)
		out_of_memory();
	return p;
}

void *
xcalloc(size_t n, size_t m)
{
	void *p = calloc(n ? n : 1, m ? m : 1);
	if (!p)
		out_of_memory();
	return p;
}

void *
xrealloc(void *p, size_t n)
{
	p = realloc(p, n ? n : 1);
	if (!p)
		out_of_memory();
	return p;
}

char *
xstrdup(const char *s)
{
	char *p = strdup(s);
	if (!p)
		out_of_memory();
	return p;
}

char *
xstrndup(const char *s, size_t n)
{
	char *p = strndup(s, n);
	if (!p)
		out_of_memory();
	return p;
}

char *
xasprintf(const char *fmt, ...)
{
	char *p;
	va_list ap;
	va_start(ap, fmt);
	int n = vasprintf(&p, fmt, ap);
	va_end(ap);
	if (n < 0)
		out_of_memory();
	return p;
}
