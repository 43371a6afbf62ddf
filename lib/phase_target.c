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
 * (DATA_DIR, CRAWL_DIR, SNAP_DIR, ABX_RUNTIME, ABX_RUN) and what a hook
 * must never see (ABX_LEASE_FD, ABX_ID, ABX_SIZE_BUDGET).  Each plugin's
 * config is made from them when first needed (plugin.h).
 */
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "err.h"
#include "exitcodes.h"
#include "phase_int.h"

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
	conf_unset(c, "ABX_PROGRESS_FD");
	conf_set(c, "ABX_RUN", ph->mark.token, CONF_FORCED);   /* runmark.h */
	char *crawl_dir = xasprintf("%s/crawls/%s", ph->data_abs, ph->crawl_id);
	conf_set(c, "DATA_DIR", ph->data_abs, CONF_FORCED);
	conf_set(c, "CRAWL_DIR", crawl_dir, CONF_FORCED);
	conf_set(c, "SNAP_DIR", ph->base_abs, CONF_FORCED);
	conf_set(c, "ABX_RUNTIME", "abx", CONF_FORCED);
	free(crawl_dir);
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
