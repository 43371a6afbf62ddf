/* names.c — see names.h. */
#include <stdlib.h>
#include <string.h>

#include "base/err.h"
#include "base/exitcodes.h"
#include "hook/names.h"
#include "hook/plugin.h"

static const struct {
	const char *kind, *type;
} kinds[] = {
	{"crawl", "Crawl"}, {"snapshot", "Snapshot"}, {"result", "ArchiveResult"},
	{"archiveresult", "ArchiveResult"}, {"binary", "Binary"}, {"schedule", "CrawlSchedule"},
	{"process", "Process"}, {NULL, NULL},
};

/* The statuses each type's records carry (record.h, results.h, binary.h,
 * schedule.h); "template" is abx-ls's name for a schedule's crawl. */
static const struct {
	const char *type;
	const char *v[9];
} statuses[] = {
	{"Crawl", {"queued", "started", "paused", "sealed", "template", NULL}},
	{"Snapshot", {"queued", "started", "paused", "sealed", NULL}},
	{"ArchiveResult",
	    {"queued", "started", "succeeded", "failed", "skipped", "noresults", NULL}},
	{"Binary", {"queued", "installed", NULL}},
	{"CrawlSchedule", {"queued", "paused", "sealed", NULL}},
	{"Process", {"running", "exited", NULL}},
	{NULL, {NULL}},
};

static const char *const all_statuses[] = {
	"queued", "started", "paused", "sealed", "template", "succeeded", "failed", "skipped",
	"noresults", "installed", "running", "exited", NULL,
};

static int
by_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

int
names_plugins(const char *datadir, char **names, buf_t *why)
{
	char **path = plugins_path(datadir);
	plugins_t ps = {0};
	plugins_discover(&ps, path);
	int rc = 0;
	for (char **n = names; n && *n; n++) {
		if (plugins_find(&ps, *n))
			continue;
		if (why->len)
			buf_adds(why, "; ");
		buf_addf(why, "unknown plugin %s", *n);
		rc = EX_DATAERR_;
	}
	if (rc) {
		const char **v = xcalloc(ps.n + 1, sizeof *v);
		for (size_t i = 0; i < ps.n; i++)
			v[i] = ps.v[i].name;
		qsort(v, ps.n, sizeof *v, by_name);
		buf_adds(why, ps.n ? "; the plugins found are: " : "; no plugin was found");
		for (size_t i = 0; i < ps.n; i++)
			buf_addf(why, "%s%s", i ? ", " : "", v[i]);
		free(v);
		buf_adds(why, " (searched in ");
		for (char **p = path; p && *p; p++)
			buf_addf(why, "%s%s", p == path ? "" : ", ", *p);
		buf_adds(why, ")");
	}
	plugins_free(&ps);
	for (char **p = path; p && *p; p++)
		free(*p);
	free(path);
	return rc;
}

const char *
names_kind(const char *kind, buf_t *why)
{
	for (int i = 0; kinds[i].kind; i++)
		if (strcmp(kinds[i].kind, kind) == 0)
			return kinds[i].type;
	buf_addf(why, "unknown kind %s; the kinds are:", kind);
	for (int i = 0; kinds[i].kind; i++)
		buf_addf(why, " %s", kinds[i].kind);
	return NULL;
}

const char *const *
names_statuses(const char *type)
{
	if (type)
		for (int i = 0; statuses[i].type; i++)
			if (strcmp(statuses[i].type, type) == 0)
				return statuses[i].v;
	return all_statuses;
}

int
names_status(const char *type, const char *status, buf_t *why)
{
	const char *const *v = names_statuses(type);
	for (int i = 0; v[i]; i++)
		if (strcmp(v[i], status) == 0)
			return 0;
	buf_addf(why, "unknown status %s", status);
	if (type)
		buf_addf(why, " for a %s", type);
	buf_adds(why, "; the statuses are:");
	for (int i = 0; v[i]; i++)
		buf_addf(why, " %s", v[i]);
	return EX_DATAERR_;
}
