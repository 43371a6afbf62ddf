/* host.c — see host.h. */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "base/config.h"
#include "base/host.h"
#include "base/ids.h"

int
host_name(int dfd, char *out, size_t n, char *why, size_t whyn)
{
	const char *env = getenv("ABX_HOST");
	if (env && *env) {
		if (!host_valid(env)) {
			snprintf(why, whyn, "ABX_HOST=%.80s: want a host name of 1 to 64 letters, "
			    "digits, '_', '.' or '-'", env);
			return -1;
		}
		snprintf(out, n, "%s", env);
		return 0;
	}
	if (dfd >= 0) {
		conf_t c = {0};
		conf_load_file(&c, dfd, "abx.conf");
		const conf_ent_t *e = conf_find(&c, "HOST");
		int bad = e && !host_valid(e->val);
		if (bad)
			snprintf(why, whyn, "abx.conf line %d: HOST=%.80s: want a host name of 1 to 64 "
			    "letters, digits, '_', '.' or '-'", e->line, e->val);
		else if (e)
			snprintf(out, n, "%s", e->val);
		conf_free(&c);
		if (e)
			return bad ? -1 : 0;
	}
	if (gethostname(out, n - 1) < 0 || !*out)
		snprintf(out, n, "localhost");
	out[n - 1] = 0;
	return 0;
}
