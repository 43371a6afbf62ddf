/* cli.c — see cli.h. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "base/termsafe.h"
#include "base/err.h"
#include "base/exitcodes.h"
#include "base/ids.h"
#include "store/store.h"

void
cli_usage(const char *usage)
{
	fprintf(stderr, "usage: %s\nTry '%s --help' or man %s.\n", usage, err_prog(), err_prog());
	exit(EX_USAGE_);
}

void
cli_usage_err(const char *usage, const char *fmt, ...)
{
	char msg[1024];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	/* one write for the reason: concurrent tools' lines never mix; a
	 * value quoted in it shows its controls (termsafe.h) */
	char *safe = termsafe(msg);
	fprintf(stderr, "%s: fatal: %s\n", err_prog(), safe);
	free(safe);
	cli_usage(usage);
}

void
cli_help(const char *usage, const char *options)
{
	printf("usage: %s\n\n%s\nThe manual is %s(1): man %s\n", usage, options, err_prog(), err_prog());
	if (fflush(stdout) == EOF && errno != EPIPE)
		diesys(EX_IOERR_, "unable to write to stdout");
	exit(0);
}

void
cli_version(void)
{
	printf("%s (abx) %s\n", err_prog(), ABX_VERSION);
	if (fflush(stdout) == EOF && errno != EPIPE)
		diesys(EX_IOERR_, "unable to write to stdout");
	exit(0);
}

const char *
cli_dir(const char *dir)
{
	return dir ? dir : store_default_dir();
}

void
cli_out(const char *s, size_t n)
{
	if (fwrite(s, 1, n, stdout) != n || putchar('\n') == EOF || fflush(stdout) == EOF) {
		if (errno == EPIPE)
			exit(0);
		diesys(EX_IOERR_, "unable to write to stdout");
	}
}

int
cli_isatty_out(void)
{
	return isatty(1);
}
