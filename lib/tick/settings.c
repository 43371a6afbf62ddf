/*
 * settings.c — the values abx itself reads, each checked by the parser of
 * the module that owns its key (settings.h).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "base/config.h"
#include "base/err.h"
#include "base/exitcodes.h"
#include "base/ids.h"
#include "net/hostpace.h"
#include "net/netzone.h"
#include "net/robots.h"
#include "net/scope.h"
#include "pack/packfmt.h"
#include "tick/settings.h"

static int
check_plugins(const char *v, long long *out)
{
	char **names;
	if (conf_parse_plugins(v, &names) < 0)
		return -1;
	name_list_free(names);
	*out = 0;
	return 0;
}

/* FS_UNSAFE_OK (fscheck.h) and HOST (ids.h) */
static int
check_bool(const char *v, long long *out)
{
	*out = conf_bool(v, -1);
	return *out < 0 ? -1 : 0;
}

static int
check_host(const char *v, long long *out)
{
	*out = 0;
	return host_valid(v) ? 0 : -1;
}

static int
check_zones(const char *v, long long *out)
{
	unsigned m;
	*out = 0;
	return netzone_parse_allow(v, &m);
}

/* The last entry is every other key ending in _TIMEOUT: a plugin's. */
static const struct {
	const char *key;
	int (*parse)(const char *, long long *);
	long long min;
	const char *want;
} checks[] = {
	{"DELETE_AFTER", conf_parse_duration, 0,
	    "a duration of 1h to 100000y such as 30d, 12w or 1y, or 0 for never"},
	{"TIMEOUT", conf_parse_seconds, 1, "whole seconds from 1 to 2592000 (30 days)"},
	{"CRAWL_TIMEOUT", conf_parse_seconds, 0,
	    "whole seconds up to 2592000 (30 days), or 0 for no limit"},
	{"CRAWL_MAX_SIZE", conf_parse_size, 0,
	    "a size such as 500M, 2G or 1.5T (powers of 1024), or 0 for no limit"},
	{"SNAPSHOT_MAX_SIZE", conf_parse_size, 0,
	    "a size such as 50M, 1G or 500k (powers of 1024), or 0 for no limit"},
	{"CRAWL_MAX_URLS", conf_parse_count, 0, "a whole number, or 0 for no limit"},
	{"WORKER_MAX_SNAPSHOTS", conf_parse_count, 0, "a whole number: 0 (a new worker for each snapshot) or more"},
	{"CRAWL_MAX_CONCURRENT_SNAPSHOTS", conf_parse_count, 1, "a whole number, 1 or more"},
	{"PLUGINS", check_plugins, 0, "plugin names separated by commas, such as wget,title"},
	{"HOST_MAX_CONCURRENT", conf_parse_count, 1, "a whole number, 1 or more"},
	{"HOST_DELAY", conf_parse_dsec, 0, "seconds such as 0.5 or 2, up to 2592000 (30 days)"},
	{"HOST_MAX_DELAY", conf_parse_dsec, 0, "seconds such as 30 or 300, up to 2592000 (30 days)"},
	{"HOST_DELAY_FACTOR", conf_parse_factor, 0, "a number from 0 to 1000 such as 0.5 or 5"},
	{"HOST_BACKOFF_RETRIES", conf_parse_count, 0, "a whole number, 0 or more"},
	{"CRAWL_SCOPE", conf_parse_scope, 0, "one of any, page, prefix, host, domain"},
	{"ROBOTS_TXT", conf_parse_robots, 0, "obey or ignore"},
	{"PACK_ON_SEAL", pack_parse_formats, 0, "pack formats separated by commas: wacz, tar.gz, tgz, tar.zst, tar.xz, tar, zip"},
	{"ALLOW_PRIVATE_NETWORKS", check_zones, 0,
	    "true, false, or zone names separated by commas, such as loopback,private"},
	{"FS_UNSAFE_OK", check_bool, 0, "true or false"},
	{"HOST", check_host, 0, "a host name of 1 to 64 letters, digits, '_', '.' or '-'"},
	{"<PLUGIN>_TIMEOUT", conf_parse_seconds, 1, "whole seconds from 1 to 2592000 (30 days)"},
};

static int
check_index(const conf_ent_t *e)
{
	size_t n = sizeof checks / sizeof checks[0], kl = strlen(e->key);
	if (e->layer == CONF_ENV && strcmp(e->key, "HOST") == 0)
		return -1;   /* a shell's (zsh); abx reads ABX_HOST there */
	for (size_t i = 0; i + 1 < n; i++)
		if (strcmp(e->key, checks[i].key) == 0)
			return (int)i;
	/* not in the environment, which is everyone's */
	if (e->layer != CONF_ENV && kl > 8 && strcmp(e->key + kl - 8, "_TIMEOUT") == 0)
		return (int)n - 1;
	return -1;
}

int
settings_check(const conf_t *c, buf_t *why)
{
	int rc = 0;
	for (size_t i = 0; i < c->n; i++) {
		const conf_ent_t *e = &c->v[i];
		if (e->layer < CONF_FILE || e->layer > CONF_SNAPSHOT)
			continue;
		int k = check_index(e);
		long long x;
		if (k < 0 || (checks[k].parse(e->val, &x) == 0 && x >= checks[k].min))
			continue;
		if (why->len)
			buf_adds(why, "; ");
		if (e->layer == CONF_FILE && e->line)
			buf_addf(why, "abx.conf line %d", e->line);
		else if (e->layer == CONF_FILE)
			buf_adds(why, "abx.conf");
		else
			buf_adds(why, e->layer == CONF_ENV ? "the environment" :
			    e->layer == CONF_CRAWL ? "the crawl's --config" : "the snapshot's config");
		buf_addf(why, ": %s=%.200s: want %s", e->key, e->val, checks[k].want);
		if (e->layer <= CONF_ENV)
			rc = EX_CONFIG_;
		else if (!rc)
			rc = EX_DATAERR_;
	}
	buf_cstr(why);
	return rc;
}

int
settings_check_global(int dfd, buf_t *why)
{
	extern char **environ;
	conf_t c = {0};
	int rc;
	conf_builtins(&c);
	if (conf_load_file(&c, dfd, "abx.conf") < 0) {
		if (why->len)
			buf_adds(why, "; ");
		buf_addf(why, "unable to read abx.conf: %s", strerror(errno));
		rc = EX_CONFIG_;
	} else {
		conf_load_environ(&c, environ);
		rc = settings_check(&c, why);
	}
	buf_cstr(why);
	conf_free(&c);
	return rc;
}

int
settings_check_json(const char *raw, int layer, buf_t *why)
{
	conf_t c = {0};
	conf_load_json(&c, raw, layer);
	int rc = settings_check(&c, why);
	conf_free(&c);
	return rc;
}

