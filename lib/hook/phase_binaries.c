/*
 * phase_binaries.c — the required binaries of the phase's plugins, each
 * resolved once for the phase (binary.h), before any hook runs.
 *
 * For each plugin with a hook to run, in hook order, its required_binaries
 * are resolved: a path, PATH, else each provider plugin's BinaryRequest
 * hooks, in (NN, stem) order, run in <crawl dir>/<provider>/ and waited
 * for (up to the provider's timeout; a signal stops them as it stops the
 * phase's hooks).  A binary found sets the plugin's KEY (e.g.
 * WGET_BINARY) to its path, and the directories of *_BINARY paths go first
 * in the plugin's PATH; one missing fails every hook of its plugin
 * (binfail).  The Binary records that changed are committed together and
 * printed.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "hook/binary.h"
#include "base/err.h"
#include "hook/phase_int.h"

/* Put the directories of *_BINARY paths first in PATH (as abx-dl does). */
static void
path_prefix(conf_t *pc)
{
	buf_t b = {0};
	const char *path = conf_get(pc, "PATH");
	for (size_t i = 0; i < pc->n; i++) {
		size_t kl = strlen(pc->v[i].key);
		const char *v = pc->v[i].val, *sl = strrchr(v, '/');
		if (kl < 7 || strcmp(pc->v[i].key + kl - 7, "_BINARY") != 0 || v[0] != '/' || !sl)
			continue;
		char *dir = xstrndup(v, sl - v > 0 ? (size_t)(sl - v) : 1);
		if (!strstr(b.p ? b.p : "", dir)) {
			buf_adds(&b, dir);
			buf_addc(&b, ':');
		}
		free(dir);
	}
	if (b.len) {
		buf_adds(&b, path ? path : "");
		conf_set(pc, "PATH", buf_cstr(&b), CONF_FORCED);
	}
	buf_free(&b);
}

/* The provider hook's argv: the request as abx-dl passes it (binary.h). */
static char **
provider_argv(phase_t *ph, const hook_t *h, const binreq_t *req, const char *binary_id)
{
	size_t na = 0;
	while (req->args && req->args[na])
		na++;
	char **a = xcalloc(na + 8, sizeof(char *));
	size_t n = 0;
	a[n++] = xstrdup(h->path);
	a[n++] = xasprintf("--name=%s", req->name);
	a[n++] = xasprintf("--plugin-name=%s", ph->requester ? ph->requester : "");
	a[n++] = xasprintf("--output-dir=%s/crawls/%s", ph->data_abs, ph->crawl_id);
	size_t k = 0;
	/* min-version, postinstall-scripts, min-release-age come first */
	for (; k < na && (!strncmp(req->args[k], "--min-", 6) || !strncmp(req->args[k], "--postinstall-", 14)); k++)
		a[n++] = xstrdup(req->args[k]);
	a[n++] = xasprintf("--binary-id=%s", binary_id);
	a[n++] = xasprintf("--binproviders=%s", req->binproviders);
	for (; k < na; k++)
		a[n++] = xstrdup(req->args[k]);
	return a;
}

static int
run_provider_hook(phase_t *ph, hook_t *h, const binreq_t *req, const char *binary_id, char **abspath,
    char **version)
{
	run_t r = {0};
	r.h = h;
	char *rel = xasprintf("crawls/%s/%s", ph->crawl_id, h->plugin->name);
	int rc = -1;
	if (run_prepare(ph, &r, rel) == 0) {
		conf_t *pc = phase_plugin_config(ph, h->plugin);
		char k[200];
		snprintf(k, sizeof k, "%s_TIMEOUT", h->plugin->key);
		long timeout = conf_seconds(conf_get(pc, k), 300);
		r.argv = provider_argv(ph, h, req, binary_id);
		run_spawn(ph, &r, pc, timeout);
		if (r.interp_note)
			warnx_("provider %s: %s", h->stem, r.interp_note);
		if (!r.spawn_err) {
			proc_t *pp = &r.p;
			while (pp->state != PROC_DONE) {
				int k = proc_wait(&pp, 1, 0, ph->o->waitmask, ph->o->stop, ph->signals);
				if (k == -2) {
					ph->signals = *ph->o->stop;
					ph->interrupted = 1;
					if (ph->signals > 1)
						proc_kill(pp, WHY_INTERRUPTED);
					else
						proc_stop(pp, WHY_INTERRUPTED);
				} else if (k == -3) {
					ph->wait_err = errno;
					ph->interrupted = 1;
					warnsys("unable to wait for %s; killing it", h->stem);
					proc_reap(pp, WHY_INTERRUPTED);
				}
			}
			hookout_t o;
			hookout_read(r.outfd, NULL, &o);
			for (size_t i = 0; i < o.nbins && rc < 0; i++) {
				char *nm = rec_str(&o.bins[i], "name"), *ap = rec_str(&o.bins[i], "abspath");
				if (nm && strcmp(nm, req->name) == 0 && access(ap, X_OK) == 0) {
					*abspath = ap;
					*version = rec_str(&o.bins[i], "version");
					ap = NULL;
					rc = 0;
				}
				free(nm), free(ap);
			}
			hookout_free(&o);
		}
	}
	run_release(&r);
	free(rel);
	return rc;
}

static int
provider(void *arg, const char *name, const binreq_t *req, const char *binary_id, char **abspath,
    char **version)
{
	phase_t *ph = arg;
	plugin_t *pp = plugins_find(&ph->ps, name);
	if (!pp || ph->interrupted)
		return -2;
	hook_t **hs = NULL;
	size_t n = 0;
	for (size_t i = 0; i < pp->nhooks; i++)
		if (strcmp(pp->hooks[i].family, "BinaryRequest") == 0) {
			hs = xrealloc(hs, (n + 1) * sizeof *hs);
			hs[n++] = &pp->hooks[i];
		}
	int rc = n ? -1 : -2;
	/* the plugin's hooks are in file-name order; run them by (NN, stem) */
	for (size_t i = 1; i < n; i++)
		for (size_t j = i; j > 0 && (hs[j]->order < hs[j - 1]->order ||
		     (hs[j]->order == hs[j - 1]->order && strcmp(hs[j]->stem, hs[j - 1]->stem) < 0)); j--) {
			hook_t *t = hs[j];
			hs[j] = hs[j - 1];
			hs[j - 1] = t;
		}
	for (size_t i = 0; i < n && rc < 0; i++)
		rc = run_provider_hook(ph, hs[i], req, binary_id, abspath, version);
	free(hs);
	return rc;
}

static bincache_t *
resolve_one(phase_t *ph, const binreq_t *q, conf_t *pc, binres_t **changed, size_t *nchanged)
{
	for (size_t i = 0; i < ph->nbins; i++)
		if (strcmp(ph->bins[i].name, q->name) == 0)
			return &ph->bins[i];
	binres_t r;
	binary_resolve(ph->s, q, conf_get(pc, "PATH"), provider, ph, &r);
	ph->bins = xrealloc(ph->bins, (ph->nbins + 1) * sizeof *ph->bins);
	bincache_t *c = &ph->bins[ph->nbins++];
	c->name = xstrdup(q->name);
	c->ok = r.ok;
	c->abspath = r.abspath ? xstrdup(r.abspath) : NULL;
	c->why = r.why ? xstrdup(r.why) : NULL;
	if (r.changed) {
		*changed = xrealloc(*changed, (*nchanged + 1) * sizeof(binres_t));
		(*changed)[(*nchanged)++] = r;
	} else {
		binres_free(&r);
	}
	return c;
}

/* Resolve the required binaries of the plugins that have hooks to run. */
void
phase_resolve_binaries(phase_t *ph)
{
	binres_t *changed = NULL;
	size_t nchanged = 0;
	for (size_t i = 0; i < ph->nhooks && !ph->interrupted; i++) {
		plugin_t *p = ph->hooks[i]->plugin;
		size_t pi = p - ph->ps.v;
		int first = 1;
		for (size_t j = 0; j < i; j++)
			if (ph->hooks[j]->plugin == p)
				first = 0;
		if (!first)
			continue;
		conf_t *pc = phase_plugin_config(ph, p);
		binreq_t *rq = NULL;
		size_t n = binreqs_parse(p->binaries, pc, &rq);
		ph->requester = p->name;
		for (size_t k = 0; k < n; k++) {
			bincache_t *c = resolve_one(ph, &rq[k], pc, &changed, &nchanged);
			if (!c->ok && !ph->binfail[pi])
				ph->binfail[pi] = xstrdup(c->why ? c->why : "binary missing");
			if (c->ok && rq[k].key)
				conf_set(pc, rq[k].key, c->abspath, CONF_PLUGIN);
		}
		binreqs_free(rq, n);
		path_prefix(pc);
	}
	if (nchanged) {
		store_lock(ph->s);
		for (size_t i = 0; i < nchanged; i++)
			binary_commit(ph->s, &changed[i]);
		store_unlock(ph->s);
		for (size_t i = 0; i < nchanged; i++) {
			phase_emit(ph, &changed[i].rec);
			binres_free(&changed[i]);
		}
	}
	free(changed);
}

/* What plugin p lacks to run the phase's hooks: the #! interpreters of
 * its hooks and its required binaries that are not on its PATH (nothing
 * is installed: abx-hook -n).  A malloc'd JSON array, "[]" if nothing. */
char *
phase_plugin_missing(phase_t *ph, plugin_t *p)
{
	conf_t *pc = phase_plugin_config(ph, p);
	const char *path = conf_get(pc, "PATH");
	buf_t b = {0}, seen = {0};
	buf_addc(&b, '[');
	for (size_t i = 0; i < ph->nhooks; i++) {
		if (ph->hooks[i]->plugin != p)
			continue;
		char *in = hook_interpreter(ph->hooks[i]->path);
		char *key = in ? xasprintf("\n%s\n", in) : NULL;
		if (in && !interpreter_found(in, path) && !strstr(seen.p ? buf_cstr(&seen) : "", key)) {
			if (b.len > 1)
				buf_addc(&b, ',');
			buf_json_strz(&b, in);
			buf_addf(&seen, "%s", key);
		}
		free(in), free(key);
	}
	binreq_t *rq = NULL;
	size_t n = binreqs_parse(p->binaries, pc, &rq);
	for (size_t k = 0; k < n; k++) {
		char *w = binary_which(rq[k].name, path);
		if (!w) {
			if (b.len > 1)
				buf_addc(&b, ',');
			buf_json_strz(&b, rq[k].name);
		}
		free(w);
	}
	binreqs_free(rq, n);
	buf_addc(&b, ']');
	buf_free(&seen);
	return buf_cstr(&b);
}
