/* hookenv.c — see hookenv.h. */
#include <stdlib.h>
#include <string.h>

#include "hookenv.h"

int
hook_false(const char *v)
{
	static const char *const no[] = {"false", "False", "FALSE", "0", "no", "No", "NO",
	                                 "off", "Off", "OFF", ""};
	for (size_t i = 0; i < sizeof no / sizeof no[0]; i++)
		if (!strcmp(v, no[i]))
			return 1;
	return 0;
}

/* A positive decimal integer of at most 9 digits, else 0. */
static long
positive(const char *v)
{
	size_t n = strlen(v);
	if (n == 0 || n > 9 || strspn(v, "0123456789") != n)
		return 0;
	return atol(v);
}

long
hook_timeout(const char *key)
{
	const char *v = getenv(key);
	if (!v || !*v)
		v = getenv("TIMEOUT");
	long t = v && *v ? positive(v) : 0;
	return t > 0 ? t : 60;
}
