/*
 * confbool.c — conf_bool() (confbool.h).
 */
#include <stddef.h>
#include <strings.h>

#include "base/confbool.h"

int
conf_bool(const char *v, int dflt)
{
	static const char *yes[] = {"true", "1", "yes", "on", "y", NULL};
	static const char *no[] = {"false", "0", "no", "off", "n", "", NULL};
	if (!v)
		return dflt;
	for (int i = 0; yes[i]; i++)
		if (strcasecmp(v, yes[i]) == 0)
			return 1;
	for (int i = 0; no[i]; i++)
		if (strcasecmp(v, no[i]) == 0)
			return 0;
	return dflt;
}
