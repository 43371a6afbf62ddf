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

char **
cli_names(const char *list, const char **bad)
{
	static char badbuf[128];
	size_t n = 1;
	for (const char *p = list; *p; p++)
		n += *p == ',';
	char **v = xcalloc(n + 1, sizeof(char *));
	char *dup = xstrdup(list), *save = NULL;
	size_t k = 0;
	for (char *t = strtok_r(dup, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
		while (*t == ' ')
			t++;
		size_t l = strlen(t);
		while (l && t[l - 1] == ' ')
			t[--l] = 0;
		if (!*t)
			continue;
		if (!name_valid(t)) {
			snprintf(badbuf, sizeof badbuf, "%s", t);
			*bad = badbuf;
			free(dup);
			cli_names_free(v);
			return NULL;
		}
		v[k++] = xstrdup(t);
	}
	free(dup);
	return v;
}

void
cli_names_free(char **v)
{
	if (!v)
		return;
	for (char **p = v; *p; p++)
		free(*p);
	free(v);
}

int
cli_isatty_out(void)
{
	return isatty(1);
}
