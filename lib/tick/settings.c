/*
 * settings.c — the values abx itself reads, each checked by the parser of
 * the module that owns its key (settings.h).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "base/config.h"
#include "base/err.h"
#include "base/exitcodes.h"
#include "base/ids.h"
#include "hook/plugin.h"
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

/* FS_UNSAFE_OK (fscheck.h), GROUP_READABLE (storeperm.h) and HOST (ids.h) */
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
	{"GROUP_READABLE", check_bool, 0, "true or false"},
	{"HOST", check_host, 0, "a host name of 1 to 64 letters, digits, '_', '.' or '-'"},
	/* the chrome plugin's kept browser (its chrome.c) */
	{"CHROME_KEEP", check_bool, 0, "true or false"},
	{"CHROME_KEEP_IDLE", conf_parse_seconds, 0, "whole seconds up to 2592000 (30 days), or 0: until the worker ends"},
	{"<PLUGIN>_TIMEOUT", conf_parse_seconds, 1, "whole seconds from 1 to 2592000 (30 days)"},
};

static void warn_unknown(const conf_t *c, int dfd);

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
		if (rc == 0)
			warn_unknown(&c, dfd);
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


/* ------------------------------------------------------------ unknown keys */

/* Keys abx reads that no parser above checks (the table above has the others). */
static const char *const other_keys[] = {
	"URL_ALLOWLIST", "URL_DENYLIST", "USER_AGENT", "CHECK_SSL_VALIDITY", "COOKIES_FILE", "PATH",
	"TMPDIR", "HOME", "ABX_RUNTIME", "EXTRA_CONTEXT", "FAIL_ON_HTTP_ERROR", "DAEMON_POLL_INTERVAL",
	"DAEMON_REPAIR_INTERVAL", "CURL_BINARY", "CHROME_SANDBOX",
	/* the runtime directories and tools of abx-plugins' hooks (phase_target.c) */
	"CONFIG_DIR", "CRAWL_DIR", "DATA_DIR", "LIB_BIN_DIR", "LIB_DIR", "NODE_MODULES_DIR", "NODE_PATH",
	"NPM_BIN_DIR", "NPM_HOME", "PERSONAS_DIR", "PIP_BIN_DIR", "PIP_HOME", "PUPPETEER_CACHE_DIR",
	"PUPPETEER_SKIP_DOWNLOAD", "SNAP_DIR", "TMP_DIR", "UV", NULL,
};

/* Call fn on every known key until it returns non-zero. */
static const char *
each_known(const plugins_t *ps, int (*fn)(const char *, void *), void *arg)
{
	size_t n = sizeof checks / sizeof checks[0];
	for (size_t i = 0; i + 1 < n; i++)
		if (fn(checks[i].key, arg))
			return checks[i].key;
	for (int i = 0; other_keys[i]; i++)
		if (fn(other_keys[i], arg))
			return other_keys[i];
	for (size_t i = 0; ps && i < ps->n; i++) {
		const schema_t *sc = &ps->v[i].schema;
		for (size_t j = 0; j < sc->n; j++) {
			if (fn(sc->v[j].key, arg))
				return sc->v[j].key;
			for (char **a = sc->v[j].aliases; a && *a; a++)
				if (fn(*a, arg))
					return *a;
		}
	}
	return NULL;
}

static int
same_key(const char *k, void *arg)
{
	return strcmp(k, arg) == 0;
}

/* A plugin's own prefix: <PLUGIN>_ (a plugin without a config.json). */
static int
plugin_prefix(const char *key, const plugins_t *ps)
{
	for (size_t i = 0; ps && i < ps->n; i++) {
		const char *nm = ps->v[i].name;
		size_t n = strlen(nm);
		if (strlen(key) > n + 1 && strncasecmp(key, nm, n) == 0 && key[n] == '_') {
			int upper = 1;
			for (size_t j = 0; j < n; j++)
				if (key[j] >= 'a' && key[j] <= 'z')
					upper = 0;
			if (upper)
				return 1;
		}
	}
	return 0;
}

/* An upper-case <NAME>_TIMEOUT: a plugin's timeout (checked as one above),
 * of a plugin that may be installed after the setting is written. */
static int
timeout_key(const char *key)
{
	size_t n = strlen(key);
	if (n <= 8 || strcmp(key + n - 8, "_TIMEOUT") != 0)
		return 0;
	for (size_t i = 0; i < n; i++)
		if (!((key[i] >= 'A' && key[i] <= 'Z') || (key[i] >= '0' && key[i] <= '9') || key[i] == '_'))
			return 0;
	return 1;
}

int
settings_key_known(const char *key, const plugins_t *ps)
{
	return strncmp(key, "ABX_", 4) == 0 || each_known(ps, same_key, (void *)key) ||
	       plugin_prefix(key, ps) || timeout_key(key);
}

/* Edits from a to b (a letter added, dropped, changed, or two neighbours
 * swapped: Damerau-Levenshtein, optimal string alignment), at most 9. */
static int
edits(const char *a, const char *b)
{
	size_t n = strlen(a), m = strlen(b);
	if (n > 60 || m > 60)
		return 9;
	int d[61][61];
	for (size_t i = 0; i <= n; i++)
		d[i][0] = (int)i;
	for (size_t j = 0; j <= m; j++)
		d[0][j] = (int)j;
	for (size_t i = 1; i <= n; i++)
		for (size_t j = 1; j <= m; j++) {
			int c = a[i - 1] != b[j - 1];
			int v = d[i - 1][j] + 1;
			if (d[i][j - 1] + 1 < v)
				v = d[i][j - 1] + 1;
			if (d[i - 1][j - 1] + c < v)
				v = d[i - 1][j - 1] + c;
			if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] && d[i - 2][j - 2] + 1 < v)
				v = d[i - 2][j - 2] + 1;
			d[i][j] = v;
		}
	return d[n][m] > 9 ? 9 : d[n][m];
}

typedef struct {
	const char *key, *best;
	int dist;
} near_t;

static int
nearer(const char *k, void *arg)
{
	near_t *nr = arg;
	if (strcasecmp(k, nr->key) == 0) {
		nr->best = k, nr->dist = 0;
		return 1;
	}
	char up[64];
	size_t i = 0;
	for (; nr->key[i] && i + 1 < sizeof up; i++)
		up[i] = (char)(nr->key[i] >= 'a' && nr->key[i] <= 'z' ? nr->key[i] - 32 : nr->key[i]);
	up[i] = 0;
	int d = edits(up, k);
	if (d < nr->dist) {
		nr->best = k;
		nr->dist = d;
	}
	return 0;
}

const char *
settings_key_near(const char *key, const plugins_t *ps)
{
	near_t nr = {key, NULL, 3};   /* at most 2 edits, once in upper case */
	each_known(ps, nearer, &nr);
	return nr.best;
}

static void
where_of(const conf_ent_t *e, buf_t *b)
{
	if (e->layer == CONF_FILE && e->line)
		buf_addf(b, "abx.conf line %d", e->line);
	else if (e->layer == CONF_FILE)
		buf_adds(b, "abx.conf");
	else if (e->layer == CONF_CRAWL)
		buf_addf(b, "--config %s=%.100s", e->key, e->val);
	else
		buf_adds(b, e->layer == CONF_ENV ? "the environment" : "the snapshot's config");
}

int
settings_unknown(const conf_t *c, int layer, const plugins_t *ps, buf_t *why, const char *sep)
{
	int n = 0;
	for (size_t i = 0; i < c->n; i++) {
		const conf_ent_t *e = &c->v[i];
		if (e->layer != layer || settings_key_known(e->key, ps))
			continue;
		if (n++)
			buf_adds(why, sep);
		where_of(e, why);
		buf_addf(why, ": %s is no setting of abx or of its plugins", e->key);
		const char *near = settings_key_near(e->key, ps);
		if (near)
			buf_addf(why, " (did you mean %s?)", near);
		else
			buf_adds(why, " (abx-ctl config lists them)");
	}
	buf_cstr(why);
	return n;
}

int
settings_unknown_dir(const conf_t *c, int layer, const char *dir, buf_t *why, const char *sep)
{
	char **path = plugins_path(dir);
	plugins_t ps;
	plugins_discover(&ps, path);
	int n = settings_unknown(c, layer, &ps, why, sep);
	plugins_free(&ps);
	for (char **p = path; p && *p; p++)
		free(*p);
	free(path);
	return n;
}

/* abx.conf's unknown keys, warned about once (not by a tick's worker, whose
 * tick said it). */
static void
warn_unknown(const conf_t *c, int dfd)
{
	if (getenv("ABX_PARENT_PID"))
		return;
	char link[64], dir[4096];
	snprintf(link, sizeof link, "/proc/self/fd/%d", dfd);
	ssize_t l = readlink(link, dir, sizeof dir - 1);
	dir[l > 0 ? l : 0] = 0;
	buf_t w = {0};
	if (settings_unknown_dir(c, CONF_FILE, l > 0 ? dir : NULL, &w, "\n"))
		for (char *save = NULL, *t = strtok_r(w.p, "\n", &save); t; t = strtok_r(NULL, "\n", &save))
			warnx_("%s", t);
	buf_free(&w);
}
