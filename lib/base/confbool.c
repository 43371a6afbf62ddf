/*
 * confbool.c — conf_bool() (config.h): a boolean setting as ArchiveBox
 * reads one.  Apart from config.c so that a program that reads only
 * booleans (the wget hook, through netzone.c) does not link every setting's
 * parser.
 */
#include <strings.h>

#include "base/config.h"

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
