/* die.c — see die.h. */
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>

#include "die.h"
#include "base/err.h"

void
die(int code, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	err_vemit("fatal", 0, fmt, ap);
	va_end(ap);
	exit(code);
}

void
diesys(int code, const char *fmt, ...)
{
	int e = errno;
	va_list ap;
	va_start(ap, fmt);
	err_vemit("fatal", e, fmt, ap);
	va_end(ap);
	exit(code);
}
