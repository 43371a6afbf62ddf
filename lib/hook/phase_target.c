/*
 * phase_target.c — the item a phase runs for: its records, its directory
 * and its config.
 *
 * Snapshot family: the snapshot's record and its crawl's (a missing crawl
 * is warned about, and the phase runs without the crawl's config); the
 * directory is crawls/<crawl>/<snapshot>.  Crawl families: the crawl's
 * record, its root snapshot (depth 0) for --url= and EXTRA_CONTEXT, else
 * the first URL of its "urls"; the directory is crawls/<crawl>.
 *
 * The config layers (config.h): built-ins, abx.conf, the environment, the
 * crawl's config, the snapshot's config; then what abx-hook sets itself
 * (DATA_DIR, CRAWL_DIR, SNAP_DIR, ABX_RUN; ABX_RUNTIME and the runtime
 * directories as the user set them, else as abx-dl derives them:
 * runtime_paths) and what a hook must never see (ABX_LEASE_FD, ABX_ID,
 * ABX_SIZE_BUDGET).  Each plugin's config is made from them when first
 * needed (plugin.h).
 */
#include <ctype.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>

#include "base/err.h"
#include "base/exitcodes.h"
#include "hook/phase_int.h"

extern char **environ;

static int
find_root(rec_t *r, void *arg)
{
	phase_t *ph = arg;
	if (!rec_streq(r, "type", "Snapshot") || rec_int(r, "depth", 0) != 0 ||
	    !rec_streq(r, "crawl_id", ph->crawl_id))
		return 0;
	rec_copy(&ph->snap, r);
	ph->have_snap = 1;
	return 1;
}

/* The first URL of a crawl's "urls" text (lines, '#' comments, JSONL). */
static char *
first_url(const rec_t *crawl)
{
	char *urls = rec_str(crawl, "urls"), *save = NULL, *found = NULL;
	if (!urls)
		return NULL;
	for (char *l = strtok_r(urls, "\n", &save); l && !found; l = strtok_r(NULL, "\n", &save)) {
		while (*l == ' ' || *l == '\t')
			l++;
		size_t n = strlen(l);
		while (n && (l[n - 1] == ' ' || l[n - 1] == '\r' || l[n - 1] == '\t'))
			l[--n] = 0;
		if (!*l || *l == '#')
			continue;
		rec_t r;
		if (*l == '{' && rec_parse(&r, l, n) == 0) {
			found = rec_str(&r, "url");
			rec_free(&r);
		} else if (*l != '{') {
			found = xstrdup(l);
		}
	}
	free(urls);
	return found;
}

int
phase_load_target(phase_t *ph)
{
	store_t *s = ph->s;
	const char *id = ph->o->id;
	if (ph->snapshot) {
		if (store_get(s, id, &ph->snap) < 0) {
			warnx_("no snapshot %s in %s", id, s->dir);
			return EX_DATAERR_;
		}
		ph->have_snap = 1;
		if (!rec_streq(&ph->snap, "type", "Snapshot")) {
			warnx_("%s is not a snapshot (the Snapshot family needs a snapshot id)", id);
			return EX_DATAERR_;
		}
		ph->crawl_id = rec_str(&ph->snap, "crawl_id");
		ph->url = rec_str(&ph->snap, "url");
		if (!id_valid(ph->crawl_id) || !ph->url) {
			warnx_("snapshot %s has no valid crawl_id or url; repair its record", id);
			return EX_DATAERR_;
		}
		ph->have_crawl = store_get(s, ph->crawl_id, &ph->crawl) == 0;
		if (!ph->have_crawl)
			warnx_("snapshot %s: its crawl %s is missing; running without crawl config", id,
			    ph->crawl_id);
		ph->snap_id = xstrdup(id);
		ph->depth = rec_int(&ph->snap, "depth", 0);
		ph->base_rel = xasprintf("crawls/%s/%s", ph->crawl_id, id);
	} else {
		if (store_get(s, id, &ph->crawl) < 0 || !rec_streq(&ph->crawl, "type", "Crawl")) {
			if (ph->crawl.n)
				rec_free(&ph->crawl);
			warnx_("no crawl %s in %s (the %s family needs a crawl id)", id, s->dir,
			    ph->o->family);
			return EX_DATAERR_;
		}
		ph->have_crawl = 1;
		ph->crawl_id = xstrdup(id);
		char j[128];
		store_crawl_journal(id, j, sizeof j);
		store_each(s, j, "\"type\":\"Snapshot\"", find_root, ph);
		ph->url = ph->have_snap ? rec_str(&ph->snap, "url") : NULL;
		if (!ph->url)
			ph->url = first_url(&ph->crawl);
		if (!ph->url)
			ph->url = xstrdup("");
		ph->snap_id = ph->have_snap ? rec_str(&ph->snap, "id") : NULL;
		if (!ph->snap_id)
			ph->snap_id = xstrdup("");
		ph->depth = ph->have_snap ? rec_int(&ph->snap, "depth", 0) : 0;
		ph->base_rel = xasprintf("crawls/%s", id);
	}
	char real[PATH_MAX];
	if (!realpath(s->dir, real)) {
		warnsys("unable to resolve %s", s->dir);
		return EX_CONFIG_;
	}
	ph->data_abs = xstrdup(real);
	ph->base_abs = xasprintf("%s/%s", real, ph->base_rel);
	return 0;
}

/* A runtime setting: the user's (from any layer; empty is unset), else
 * the derived value; forced, so that a plugin schema's empty default
 * ("LIB_DIR": "" in abx-plugins' base plugin) cannot blank it. */
static const char *
runtime_set(conf_t *c, const char *key, const char *derived)
{
	const char *v = conf_get(c, key);
	char *keep = xstrdup(v && *v ? v : derived);
	conf_set(c, key, keep, CONF_FORCED);
	free(keep);
	return conf_get(c, key);
}

static const char *
runtime_dir(conf_t *c, const char *key, const char *base, const char *sub)
{
	char *d = xasprintf("%s/%s", base, sub);
	const char *v = runtime_set(c, key, d);
	free(d);
	return v;
}

/* Prepend dir to PATH unless it is there already. */
static void
path_add(conf_t *c, const char *dir)
{
	const char *path = conf_get(c, "PATH");
	size_t n = strlen(dir);
	for (const char *p = path; p && *p;) {
		const char *e = strchr(p, ':');
		size_t l = e ? (size_t)(e - p) : strlen(p);
		if (l == n && strncmp(p, dir, n) == 0)
			return;
		p += l + (e != NULL);
	}
	char *np = path && *path ? xasprintf("%s:%s", dir, path) : xstrdup(dir);
	conf_set(c, "PATH", np, CONF_FORCED);
	free(np);
}

/*
 * The runtime directories abx-dl 1.10.71 derives (config.py
 * derive_runtime_paths; abx-hook(1) RUNTIME DIRECTORIES), each unless the
 * user set it: CONFIG_DIR ($HOME/.config/abx, else the data directory),
 * LIB_DIR (CONFIG_DIR/lib/<machine>-<system>, e.g. x86_64-linux),
 * LIB_BIN_DIR, PERSONAS_DIR, TMP_DIR, PIP_HOME, PIP_BIN_DIR, NPM_HOME,
 * NODE_MODULES_DIR, NODE_PATH, NPM_BIN_DIR, PUPPETEER_CACHE_DIR;
 * PUPPETEER_SKIP_DOWNLOAD=1 and CHROME_SANDBOX=true (a boolean written as
 * abx-dl writes it); then the bin directories go first on PATH, in
 * abx-dl's order (LIB_BIN_DIR, PIP_BIN_DIR, NPM_BIN_DIR, UV's directory),
 * behind which the *_BINARY directories are put (phase_binaries.c).
 */
static void
runtime_paths(conf_t *c, const char *data_abs)
{
	const char *home = conf_get(c, "HOME");
	char *cfg = home && home[0] == '/' ? xasprintf("%s/.config/abx", home) : xstrdup(data_abs);
	const char *config_dir = runtime_set(c, "CONFIG_DIR", cfg);
	free(cfg);
	struct utsname u;
	char arch[160] = "unknown-linux";
	if (uname(&u) == 0) {
		snprintf(arch, sizeof arch, "%s-%s", u.machine, u.sysname);
		for (char *p = arch; *p; p++)
			*p = (char)tolower((unsigned char)*p);
	}
	char *sub = xasprintf("lib/%s", arch);
	const char *lib = runtime_dir(c, "LIB_DIR", config_dir, sub);
	free(sub);
	const char *lib_bin = runtime_dir(c, "LIB_BIN_DIR", lib, "bin");
	runtime_dir(c, "PERSONAS_DIR", config_dir, "personas");
	const char *tmp = conf_get(c, "TMPDIR");
	runtime_set(c, "TMP_DIR", tmp && tmp[0] == '/' ? tmp : "/tmp");
	const char *pip = runtime_dir(c, "PIP_HOME", lib, "pip");
	const char *pip_bin = runtime_dir(c, "PIP_BIN_DIR", pip, "venv/bin");
	const char *npm = runtime_dir(c, "NPM_HOME", lib, "npm");
	const char *nm = runtime_dir(c, "NODE_MODULES_DIR", npm, "node_modules");
	runtime_set(c, "NODE_PATH", nm);
	const char *npm_bin = runtime_dir(c, "NPM_BIN_DIR", nm, ".bin");
	runtime_dir(c, "PUPPETEER_CACHE_DIR", lib, "puppeteer");
	runtime_set(c, "PUPPETEER_SKIP_DOWNLOAD", "1");
	const char *sb = runtime_set(c, "CHROME_SANDBOX", "true");
	int b = conf_bool(sb, -1);
	if (b >= 0)
		conf_set(c, "CHROME_SANDBOX", b ? "true" : "false", CONF_FORCED);
	/* conf_set may move entries: copy before PATH changes */
	char *dirs[4] = {xstrdup(lib_bin), xstrdup(pip_bin), xstrdup(npm_bin), NULL};
	const char *uv = conf_get(c, "UV");
	const char *sl = uv && uv[0] == '/' ? strrchr(uv, '/') : NULL;
	if (sl)
		dirs[3] = xstrndup(uv, sl - uv > 0 ? (size_t)(sl - uv) : 1);
	for (int i = 3; i >= 0; i--)
		if (dirs[i])
			path_add(c, dirs[i]);
	for (int i = 0; i < 4; i++)
		free(dirs[i]);
}

void
phase_load_config(phase_t *ph)
{
	conf_t *c = &ph->conf;
	conf_builtins(c);
	if (conf_load_file(c, ph->s->dfd, "abx.conf") < 0)
		warnsys("unable to read %s/abx.conf", ph->s->dir);
	conf_load_environ(c, environ);
	if (ph->have_crawl)
		conf_load_json(c, rec_raw(&ph->crawl, "config"), CONF_CRAWL);
	if (ph->snapshot)
		conf_load_json(c, rec_raw(&ph->snap, "config"), CONF_SNAPSHOT);
	/* the lease is abx-hook's, never a hook's */
	conf_unset(c, "ABX_LEASE_FD");
	conf_unset(c, "ABX_ID");
	conf_unset(c, "ABX_SIZE_BUDGET");
	/* set by abx-tick for its worker (abx-hook), not for the hooks: an
	 * abx-add a hook runs commits durably, as by hand */
	conf_unset(c, "ABX_SYNC");
	conf_unset(c, "ABX_PARENT_PID");
	conf_unset(c, "ABX_HINT");
	conf_unset(c, "ABX_PROGRESS_FD");
	conf_set(c, "ABX_RUN", ph->mark.token, CONF_FORCED);   /* runmark.h */
	char *crawl_dir = xasprintf("%s/crawls/%s", ph->data_abs, ph->crawl_id);
	conf_set(c, "DATA_DIR", ph->data_abs, CONF_FORCED);
	conf_set(c, "CRAWL_DIR", crawl_dir, CONF_FORCED);
	conf_set(c, "SNAP_DIR", ph->base_abs, CONF_FORCED);
	free(crawl_dir);
	/* the user's ABX_RUNTIME (default abx), over any schema's default
	 * (abx-plugins' base says abx-dl): search-index plugins act only
	 * under archivebox */
	runtime_set(c, "ABX_RUNTIME", "abx");
	runtime_paths(c, ph->data_abs);
}

conf_t *
phase_plugin_config(phase_t *ph, plugin_t *p)
{
	size_t i = p - ph->ps.v;
	if (!ph->pconf_ok[i]) {
		plugin_conf(&ph->ps, p, &ph->conf, &ph->pconf[i]);
		ph->pconf_ok[i] = 1;
	}
	return &ph->pconf[i];
}
