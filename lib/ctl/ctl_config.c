/*
 * ctl_config.c — abx-ctl config and version: the effective settings of a
 * crawl or snapshot with where each came from, and the binaries the
 * enabled plugins need (ctl_verbs.h).  The layers are config.h's, loaded
 * as abx-hook loads them (built-ins, DIR/abx.conf, the environment, the
 * crawl's config, the snapshot's), then each enabled plugin's schema.
 *
 * Each value is shown with where it came from: a layer (abx.conf with its
 * line), or for a plugin's key left unset, the key it falls back to
 * (x-fallback, config.h rule 2) with that key's source ("TIMEOUT, abx.conf
 * line 2"), else the plugin's config.json.  A key set in abx.conf, the crawl
 * or the snapshot that neither abx nor a plugin reads (settings.h) is shown
 * with "unknown": true and the key it resembles ("did_you_mean").  The
 * defaults abx applies in code when a key is unset (builtin_defaults
 * below, which must agree with their owners: hostpace.c, crawlrun.c,
 * limits.c, phase_size.c, outlinks.c, robots.c, netzone.c, fscheck.c,
 * storeperm.c, plugin.c, retention.h; HOST's is host_name()'s) are shown
 * as "built-in" too.
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/host.h"
#include "hook/binary.h"
#include "ctl/ctl_verbs.h"
#include "base/err.h"
#include "hook/plugin.h"
#include "tick/settings.h"

extern char **environ;

/* Keys abx itself reads (config.h, abx(7) CONFIGURATION). */
static const char *const abx_keys[] = {
	"DELETE_AFTER", "TIMEOUT", "CRAWL_TIMEOUT", "CRAWL_MAX_SIZE", "SNAPSHOT_MAX_SIZE",
	"CRAWL_MAX_URLS", "CRAWL_MAX_CONCURRENT_SNAPSHOTS", "PLUGINS", "URL_ALLOWLIST",
	"URL_DENYLIST", "USER_AGENT", "CHECK_SSL_VALIDITY", NULL,
};

/* Defaults given in code, not by conf_builtins (so not in hooks'
 * environment): each the value that, set, does what unset does.  A limit
 * of 0 is none; an empty PLUGINS runs every plugin, an empty PACK_ON_SEAL
 * packs nothing.  HOST's is computed (host_name). */
static const char *const builtin_defaults[][2] = {
	{"CRAWL_MAX_CONCURRENT_SNAPSHOTS", "4"}, {"DELETE_AFTER", "0"}, {"HOST_MAX_CONCURRENT", "4"},
	{"HOST_DELAY", "0"}, {"HOST_DELAY_FACTOR", "0"}, {"HOST_MAX_DELAY", "300"},
	{"HOST_BACKOFF_RETRIES", "5"}, {"FAIL_ON_HTTP_ERROR", "False"},
	{"CRAWL_TIMEOUT", "0"}, {"CRAWL_MAX_SIZE", "0"}, {"SNAPSHOT_MAX_SIZE", "0"},
	{"WORKER_MAX_SNAPSHOTS", "100"}, {"CRAWL_SCOPE", "any"}, {"ROBOTS_TXT", "ignore"},
	{"PACK_ON_SEAL", ""}, {"ALLOW_PRIVATE_NETWORKS", "false"}, {"FS_UNSAFE_OK", "false"},
	{"GROUP_READABLE", "false"}, {"PLUGINS", ""},
};

typedef struct {
	conf_t c;
	plugins_t ps;
	char **path;
	char crawl[ID_LEN + 1], snap[ID_LEN + 1];
} layers_t;

/* Load the layers for id (NULL: the data directory's own; s NULL: no
 * data directory, only the built-ins and the environment); CTL_NOTFOUND
 * or CTL_BADSTATE (not a crawl or snapshot). */
static int
layers_load(store_t *s, const char *id, layers_t *l)
{
	memset(l, 0, sizeof *l);
	conf_builtins(&l->c);
	if (s && conf_load_file(&l->c, s->dfd, "abx.conf") < 0)
		warnsys("unable to read %s/abx.conf", s->dir);
	conf_load_environ(&l->c, environ);
	if (s && id) {
		rec_t r, cr;
		if (store_get(s, id, &r) < 0)
			return CTL_NOTFOUND;
		int snap = rec_streq(&r, "type", "Snapshot");
		if (!snap && !rec_streq(&r, "type", "Crawl")) {
			rec_free(&r);
			return CTL_BADSTATE;
		}
		char *cid = snap ? rec_str(&r, "crawl_id") : NULL;
		if (snap && id_valid(cid) && store_get(s, cid, &cr) == 0) {
			conf_load_json(&l->c, rec_raw(&cr, "config"), CONF_CRAWL);
			snprintf(l->crawl, sizeof l->crawl, "%s", cid);
			rec_free(&cr);
		}
		if (snap) {
			snprintf(l->snap, sizeof l->snap, "%s", id);
			conf_load_json(&l->c, rec_raw(&r, "config"), CONF_SNAPSHOT);
		} else {
			snprintf(l->crawl, sizeof l->crawl, "%s", id);
			conf_load_json(&l->c, rec_raw(&r, "config"), CONF_CRAWL);
		}
		free(cid);
		rec_free(&r);
	}
	l->path = plugins_path(s ? s->dir : NULL);
	plugins_discover(&l->ps, l->path);
	const char *missing;
	plugins_select(&l->ps, &l->c, NULL, &missing);
	return CTL_OK;
}

static void
layers_free(layers_t *l)
{
	conf_free(&l->c);
	plugins_free(&l->ps);
	for (char **p = l->path; p && *p; p++)
		free(*p);
	free(l->path);
}

static void
emit_config(ctl_emit_fn emit, void *arg, const char *k, const char *v, const char *src)
{
	rec_t line = {0};
	rec_set_str(&line, "type", "Config");
	rec_set_str(&line, "key", k);
	rec_set_str(&line, "value", v);
	rec_set_str(&line, "source", src);
	emit(arg, &line);
	rec_free(&line);
}

/* A key set by the user that nothing reads: marked, with the near one. */
static void
emit_unknown(ctl_emit_fn emit, void *arg, const layers_t *l, const conf_ent_t *e, const char *src)
{
	rec_t line = {0};
	rec_set_str(&line, "type", "Config");
	rec_set_str(&line, "key", e->key);
	rec_set_str(&line, "value", e->val);
	rec_set_str(&line, "source", src);
	rec_set_raw(&line, "unknown", "true");
	const char *near = settings_key_near(e->key, &l->ps);
	if (near)
		rec_set_str(&line, "did_you_mean", near);
	emit(arg, &line);
	rec_free(&line);
}

/* Where the entry of l->c came from, into src. */
static void
source_of(const layers_t *l, const conf_ent_t *e, char *src, size_t n)
{
	switch (e->layer) {
	case CONF_BUILTIN: snprintf(src, n, "built-in"); break;
	case CONF_FILE: snprintf(src, n, "abx.conf line %d", e->line); break;
	case CONF_ENV: snprintf(src, n, "environment"); break;
	case CONF_CRAWL: snprintf(src, n, "crawl %s", l->crawl); break;
	case CONF_SNAPSHOT: snprintf(src, n, "snapshot %s", l->snap); break;
	default: snprintf(src, n, "layer %d", e->layer); break;
	}
}

/* The source of a plugin's unset key k: an alias's, else its x-fallback's
 * (followed), else config.json. */
static void
plugin_source(const layers_t *l, const schema_t *const *sc, size_t n, const char *k,
    const char *plugin, char *src, size_t sn)
{
	for (int depth = 0; depth < 8; depth++) {
		const prop_t *p = NULL;
		for (size_t i = 0; i < n && !p; i++)
			p = schema_find(sc[i], k);
		if (!p)
			break;
		for (char **a = p->aliases; a && *a; a++) {
			const conf_ent_t *al = conf_find(&l->c, *a);
			if (al) {
				char as[128];
				source_of(l, al, as, sizeof as);
				snprintf(src, sn, "%s, %s", al->key, as);
				return;
			}
		}
		if (!p->fallback)
			break;
		const conf_ent_t *f = conf_find(&l->c, p->fallback);
		if (f) {
			char fs[128];
			source_of(l, f, fs, sizeof fs);
			snprintf(src, sn, "%s, %s", f->key, fs);
			return;
		}
		k = p->fallback;
	}
	snprintf(src, sn, "plugin %s (its config.json)", plugin);
}

/* Is k a key of a plugin's schema (or an alias of one)? */
static int
plugin_key(const plugins_t *ps, const char *k)
{
	for (size_t i = 0; i < ps->n; i++) {
		const schema_t *sc = &ps->v[i].schema;
		for (size_t j = 0; j < sc->n; j++) {
			if (strcmp(sc->v[j].key, k) == 0)
				return 1;
			for (char **a = sc->v[j].aliases; a && *a; a++)
				if (strcmp(*a, k) == 0)
					return 1;
		}
	}
	return 0;
}

static int
shown_env(const layers_t *l, const char *k)
{
	for (int i = 0; abx_keys[i]; i++)
		if (strcmp(abx_keys[i], k) == 0)
			return 1;
	return strncmp(k, "ABX_", 4) == 0 || plugin_key(&l->ps, k);
}

int
ctl_config(store_t *s, const char *id, int all, ctl_emit_fn emit, void *arg)
{
	layers_t l;
	int rc = layers_load(s, id, &l);
	if (rc != CTL_OK) {
		layers_free(&l);
		return rc;
	}
	conf_t builtin = {0};
	conf_builtins(&builtin);
	for (size_t i = 0; i < l.c.n; i++) {
		const conf_ent_t *e = &l.c.v[i];
		char src[128];
		if (e->layer == CONF_ENV && !all && !conf_find(&builtin, e->key) && !shown_env(&l, e->key))
			continue;
		source_of(&l, e, src, sizeof src);
		if (e->layer >= CONF_FILE && e->layer <= CONF_SNAPSHOT && e->layer != CONF_ENV &&
		    !settings_key_known(e->key, &l.ps))
			emit_unknown(emit, arg, &l, e, src);
		else
			emit_config(emit, arg, e->key, e->val, src);
	}
	for (size_t i = 0; i < sizeof builtin_defaults / sizeof builtin_defaults[0]; i++)
		if (!conf_find(&l.c, builtin_defaults[i][0]))
			emit_config(emit, arg, builtin_defaults[i][0], builtin_defaults[i][1], "built-in");
	char host[HOST_NAME_MAX + 1], why[160];
	if (!conf_find(&l.c, "HOST") && host_name(s ? s->dfd : -1, host, sizeof host, why, sizeof why) == 0)
		emit_config(emit, arg, "HOST", host, getenv("ABX_HOST") ? "ABX_HOST, environment" : "built-in (the host's name)");
	/* then what the enabled plugins' schemas give the keys left unset,
	 * each key once (CURL_BINARY is in the schemas of several) */
	conf_t seen = {0};
	for (size_t i = 0; i < l.ps.n; i++) {
		const plugin_t *p = &l.ps.v[i];
		if (!p->selected)
			continue;
		const schema_t *sc[64];
		size_t n = plugin_schemas(&l.ps, p, sc, 64);
		for (size_t j = 0; j < p->schema.n; j++) {
			const char *k = p->schema.v[j].key;
			if (conf_find(&l.c, k) || conf_find(&seen, k))
				continue;
			conf_set(&seen, k, "", CONF_PLUGIN);
			char *v = conf_resolve_one(&l.c, sc, n, k, p->name);
			char src[160];
			plugin_source(&l, sc, n, k, p->name, src, sizeof src);
			if (v)
				emit_config(emit, arg, k, v, src);
			free(v);
		}
	}
	conf_free(&seen);
	conf_free(&builtin);
	layers_free(&l);
	return CTL_OK;
}

/* An installed Binary record of that name whose abspath still runs
 * (found by a provider plugin, outside PATH). */
typedef struct {
	const char *name;
	char *abspath, *version;
} binfind_t;

static int
each_binary(rec_t *r, void *arg)
{
	binfind_t *f = arg;
	if (rec_streq(r, "name", f->name) && rec_streq(r, "status", "installed")) {
		char *ap = rec_str(r, "abspath");
		if (ap && access(ap, X_OK) == 0) {
			free(f->abspath), free(f->version);
			f->abspath = ap;
			f->version = rec_str(r, "version");
		} else {
			free(ap);
		}
	}
	return 0;
}

int
ctl_deps(store_t *s, ctl_emit_fn emit, void *arg, int *missing)
{
	layers_t l;
	*missing = 0;
	int rc = layers_load(s, NULL, &l);
	for (size_t i = 0; rc == CTL_OK && i < l.ps.n; i++) {
		const plugin_t *p = &l.ps.v[i];
		if (!p->selected || !p->binaries)
			continue;
		conf_t pc = {0};
		plugin_conf(&l.ps, p, &l.c, &pc);
		binreq_t *rq;
		size_t n = binreqs_parse(p->binaries, &pc, &rq);
		for (size_t k = 0; k < n; k++) {
			binfind_t f = {rq[k].name, NULL, NULL};
			const char *how = "PATH";
			f.abspath = binary_which(rq[k].name, conf_get(&pc, "PATH"));
			if (f.abspath) {
				f.version = binary_version(f.abspath);
			} else if (s) {
				store_each(s, "binaries.jsonl", NULL, each_binary, &f);
				how = "binaries.jsonl";
			}
			rec_t line = {0};
			rec_set_str(&line, "type", "Dependency");
			rec_set_str(&line, "plugin", p->name);
			rec_set_str(&line, "name", rq[k].name);
			rec_set_str(&line, "abspath", f.abspath);
			rec_set_str(&line, "version", f.version);
			rec_set_str(&line, "found_in", f.abspath ? how : NULL);
			rec_set_str(&line, "binproviders", rq[k].binproviders);
			rec_set_str(&line, "status", f.abspath ? "found" : "missing");
			if (!f.abspath)
				(*missing)++;
			emit(arg, &line);
			rec_free(&line);
			free(f.abspath), free(f.version);
		}
		binreqs_free(rq, n);
		conf_free(&pc);
	}
	layers_free(&l);
	return rc;
}
