/* pluginsarg.c — a --plugins operand checked: see pluginsarg.h. */
#include <stddef.h>

#include "base/exitcodes.h"
#include "base/ids.h"
#include "ctl/pluginsarg.h"

int
plugins_arg(const char *arg, char ***names, buf_t *why)
{
	const char *bad = NULL;
	char **v = name_list(arg, &bad);
	*names = NULL;
	if (!v) {
		buf_addf(why, "--plugins: not a plugin name: %s", bad);
		return EX_DATAERR_;
	}
	if (!v[0]) {
		name_list_free(v);
		buf_adds(why, "--plugins wants one or more plugin names, separated by commas");
		return EX_DATAERR_;
	}
	*names = v;
	return 0;
}
