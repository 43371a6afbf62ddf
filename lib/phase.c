/*
 * phase.c — see phase.h.  Sections: the target (records, dirs, config),
 * binaries, starting a hook, recording a finished hook, waiting, the phase.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "binary.h"
#include "clock.h"
#include "config.h"
#include "crawldaemons.h"
#include "discover.h"
#include "err.h"
#include "exitcodes.h"
#include "fs.h"
#include "hookrun.h"
#include "ids.h"
#include "outfiles.h"
#include "phase.h"
#include "plugin.h"
#include "results.h"
#include "runmark.h"

extern char **environ;

typedef struct {
	hook_t *h;
	plugin_t *pl;
	proc_t p;
	int started, spawn_err, recorded;
	const char *not_run;       /* why it was skipped without running */
	int cwdfd, outfd, errfd;
	ftree_t before;
	char **argv;
	char *rel, *pwd;
	char process_id[ID_LEN + 1];
} run_t;

typedef struct {
	char *plugin, *hook, *id, *created_at;
} prior_t;

typedef struct {
	char *name, *abspath, *why;
	int ok;
} bincache_t;

typedef struct {
	store_t *s;
	const phase_opts_t *o;
	int snapshot;              /* the Snapshot family */
	rec_t snap, crawl;
	int have_snap, have_crawl;
	char *crawl_id, *snap_id, *url;
	long depth;
	char *base_rel, *base_abs, *data_abs;
	int borrowed_ps;            /* ps belongs to the caller */
	conf_t conf;
	plugins_t ps;
	conf_t *pconf;
	char *pconf_ok;
	char **binfail;
	bincache_t *bins;
	size_t nbins;
	hook_t **hooks;
	size_t nhooks;
	run_t *runs;
	prior_t *prior;
	size_t nprior;
	const char *requester;     /* plugin whose binary a provider resolves */
	int interrupted, out_broken;
	int signals;               /* how many of *o->stop were acted on */
	long long max_size;        /* SNAPSHOT_MAX_SIZE or the crawl's budget, 0: none */
	char *limit_note;          /* what a hook stopped at max_size is told */
	int size_stop;
	int64_t next_size_check;   /* monotonic µs */
	int wait_err;              /* errno of a wait that failed */
	runmark_t mark;
} phase_t;

int
phase_family_valid(const char *f)
{
	return f && (strcmp(f, "Snapshot") == 0 || strcmp(f, "CrawlSetup") == 0 ||
	             strcmp(f, "CrawlCleanup") == 0);
}

static void
emit(phase_t *ph, const rec_t *r)
{
	if (!ph->o->out || ph->out_broken)
		return;
	buf_t b = {0};
	rec_line(r, &b);
	buf_addc(&b, '\n');
	if (fwrite(b.p, 1, b.len, ph->o->out) != b.len || fflush(ph->o->out) == EOF) {
		/* a closed pipe: keep running the hooks, stop printing */
		if (errno != EPIPE)
			warnsys("unable to write records to stdout");
		ph->out_broken = 1;
	}
	buf_free(&b);
}

/* ------------------------------------------------------------ the target */

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

static int
load_target(phase_t *ph)
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
	if (!realpath(s->dir, real))
		diesys(EX_CONFIG_, "unable to resolve %s", s->dir);
	ph->data_abs = xstrdup(real);
	ph->base_abs = xasprintf("%s/%s", real, ph->base_rel);
	return 0;
}

static void
load_config(phase_t *ph)
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
	conf_set(c, "ABX_RUN", ph->mark.token, CONF_FORCED);   /* runmark.h */
	char *crawl_dir = xasprintf("%s/crawls/%s", ph->data_abs, ph->crawl_id);
	conf_set(c, "DATA_DIR", ph->data_abs, CONF_FORCED);
	conf_set(c, "CRAWL_DIR", crawl_dir, CONF_FORCED);
	conf_set(c, "SNAP_DIR", ph->base_abs, CONF_FORCED);
	conf_set(c, "ABX_RUNTIME", "abx", CONF_FORCED);
	free(crawl_dir);
}

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

static conf_t *
plugin_config(phase_t *ph, plugin_t *p)
{
	size_t i = p - ph->ps.v;
	if (!ph->pconf_ok[i]) {
		plugin_conf(&ph->ps, p, &ph->conf, &ph->pconf[i]);
		ph->pconf_ok[i] = 1;
	}
	return &ph->pconf[i];
}

/* ------------------------------------------------------------ starting */

static int
open_log(int cwdfd, const char *stem, const char *kind)
{
	char name[300];
	snprintf(name, sizeof name, "%s.%s.log", stem, kind);
	int fd = openat(cwdfd, name, O_RDWR | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0644);
	if (fd < 0)
		warnsys("unable to open %s", name);
	return fd;
}

/* The hook's cwd, logs and the files there before it runs; -1 on error. */
static int
prepare_run(phase_t *ph, run_t *r, const char *rel)
{
	r->cwdfd = r->outfd = r->errfd = -1;
	r->rel = xstrdup(rel);
	r->pwd = xasprintf("%s/%s", ph->data_abs, rel);
	r->cwdfd = fs_opendir(ph->s->dfd, rel);
	if (r->cwdfd < 0 && errno == ENOENT && fs_mkdirs(ph->s->dfd, rel) == 0)
		r->cwdfd = fs_opendir(ph->s->dfd, rel);
	if (r->cwdfd < 0) {
		warnsys("unable to create %s/%s", ph->s->dir, rel);
		return -1;
	}
	ftree_scan(r->cwdfd, &r->before);
	r->outfd = open_log(r->cwdfd, r->h->stem, "stdout");
	r->errfd = open_log(r->cwdfd, r->h->stem, "stderr");
	return r->outfd < 0 || r->errfd < 0 ? -1 : 0;
}

static void
release_run(run_t *r)
{
	if (r->cwdfd >= 0 && r->h && r->started && !r->spawn_err)
		pidfile_remove(r->cwdfd, r->h->stem);   /* a daemon's: its .daemon.json says */
	if (r->cwdfd >= 0)
		close(r->cwdfd);
	if (r->outfd >= 0)
		close(r->outfd);
	if (r->errfd >= 0)
		close(r->errfd);
	r->cwdfd = r->outfd = r->errfd = -1;
	ftree_free(&r->before);
	for (char **a = r->argv; a && *a; a++)
		free(*a);
	free(r->argv);
	free(r->rel), free(r->pwd);
	r->argv = NULL;
	r->rel = r->pwd = NULL;
}

/* "start <hook>" on $ABX_PROGRESS_FD, for abx-tick's live display. */
static void
progress_note(const char *stem)
{
	const char *f = getenv("ABX_PROGRESS_FD");
	if (!f || !*f)
		return;
	char line[256];
	int n = snprintf(line, sizeof line, "start %s\n", stem);
	if (n > 0 && n < (int)sizeof line && write(atoi(f), line, n) < 0) {
		/* the display is a nicety: never fail a hook for it */
	}
}

static char *
extra_context(phase_t *ph, const conf_t *pc, const hook_t *h)
{
	rec_t r = {0};
	const char *user = conf_get(pc, "EXTRA_CONTEXT");
	if (!user || rec_parse(&r, user, strlen(user)) < 0)
		memset(&r, 0, sizeof r);
	rec_set_str(&r, "snapshot_id", ph->snap_id);
	rec_set_int(&r, "snapshot_depth", ph->depth);
	rec_set_str(&r, "plugin", h->plugin->name);
	rec_set_str(&r, "hook_name", h->stem);
	buf_t b = {0};
	rec_line(&r, &b);
	rec_free(&r);
	return buf_cstr(&b);
}

static void
spawn_run(phase_t *ph, run_t *r, conf_t *pc, long timeout)
{
	char *ec = extra_context(ph, pc, r->h);
	conf_set(pc, "EXTRA_CONTEXT", ec, CONF_FORCED);
	free(ec);
	char **envp = conf_envp(pc);
	spawn_t sp = {r->h->path, r->argv, envp, r->cwdfd, r->outfd, r->errfd};
	id_new(r->process_id);
	r->started = 1;
	r->spawn_err = proc_spawn(&r->p, &sp, timeout);
	conf_envp_free(envp);
	fault_point("hook-after-spawn");   /* the mark and ABX_RUN find it */
	if (!r->spawn_err)
		pidfile_write(r->cwdfd, r->h->stem, r->p.pid);
	progress_note(r->h->stem);
}

static char **
argv_of(const char *path, const char *url)
{
	char **a = xcalloc(3, sizeof(char *));
	a[0] = xstrdup(path);
	a[1] = xasprintf("--url=%s", url);
	return a;
}

/* ------------------------------------------------------------ binaries */

static int
run_provider_hook(phase_t *ph, hook_t *h, const binreq_t *req, char **abspath, char **version)
{
	run_t r = {0};
	r.h = h;
	char *rel = xasprintf("crawls/%s/%s", ph->crawl_id, h->plugin->name);
	int rc = -1;
	if (prepare_run(ph, &r, rel) == 0) {
		conf_t *pc = plugin_config(ph, h->plugin);
		char k[200];
		snprintf(k, sizeof k, "%s_TIMEOUT", h->plugin->key);
		long timeout = conf_seconds(conf_get(pc, k), 300);
		r.argv = xcalloc(6, sizeof(char *));
		r.argv[0] = xstrdup(h->path);
		r.argv[1] = xasprintf("--name=%s", req->name);
		r.argv[2] = xasprintf("--binproviders=%s", req->binproviders);
		r.argv[3] = xasprintf("--plugin-name=%s", ph->requester ? ph->requester : "");
		r.argv[4] = xasprintf("--overrides=%s", req->raw);
		spawn_run(ph, &r, pc, timeout);
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
	release_run(&r);
	free(rel);
	return rc;
}

static int
provider(void *arg, const char *name, const binreq_t *req, char **abspath, char **version)
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
		rc = run_provider_hook(ph, hs[i], req, abspath, version);
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
static void
resolve_binaries(phase_t *ph)
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
		conf_t *pc = plugin_config(ph, p);
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
			emit(ph, &changed[i].rec);
			binres_free(&changed[i]);
		}
	}
	free(changed);
}

/* ------------------------------------------------------------ recording */

static int
load_prior(rec_t *r, void *arg)
{
	phase_t *ph = arg;
	if (!rec_streq(r, "type", "ArchiveResult") || !rec_streq(r, "snapshot_id", ph->snap_id))
		return 0;
	prior_t p = {rec_str(r, "plugin"), rec_str(r, "hook_name"), rec_str(r, "id"), NULL};
	const char *ca = rec_raw(r, "created_at");
	p.created_at = ca ? xstrdup(ca) : NULL;
	if (!p.plugin || !p.hook || !id_valid(p.id)) {
		free(p.plugin), free(p.hook), free(p.id), free(p.created_at);
		return 0;
	}
	ph->prior = xrealloc(ph->prior, (ph->nprior + 1) * sizeof(prior_t));
	ph->prior[ph->nprior++] = p;
	return 0;
}

/* The result id for (plugin, hook): the existing one, else a new one. */
static prior_t *
result_key(phase_t *ph, const hook_t *h)
{
	for (size_t i = ph->nprior; i-- > 0;)
		if (strcmp(ph->prior[i].plugin, h->plugin->name) == 0 &&
		    strcmp(ph->prior[i].hook, h->stem) == 0)
			return &ph->prior[i];
	char id[ID_LEN + 1];
	id_new(id);
	ph->prior = xrealloc(ph->prior, (ph->nprior + 1) * sizeof(prior_t));
	ph->prior[ph->nprior] = (prior_t){xstrdup(h->plugin->name), xstrdup(h->stem), xstrdup(id), NULL};
	return &ph->prior[ph->nprior++];
}

/* Collapse whitespace; NULL if it is no title at all (ArchiveBox's rules). */
static char *
clean_title(const char *t, const char *url)
{
	if (!t)
		return NULL;
	buf_t b = {0};
	int space = 0;
	for (const char *p = t; *p && b.len < 4096; p++) {
		if (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r' || *p == '\f' || *p == '\v') {
			space = b.len > 0;
			continue;
		}
		if (space)
			buf_addc(&b, ' ');
		space = 0;
		buf_addc(&b, *p);
	}
	char *s = buf_cstr(&b);
	size_t n = strlen(s);
	if (!n || strncasecmp(s, "pending", 7) == 0 || strcasecmp(s, "no title found") == 0 ||
	    (url && strcmp(s, url) == 0) || (n > 4 && strcmp(s + n - 4, ".txt") == 0)) {
		free(s);
		return NULL;
	}
	return s;
}

/* A new title for the snapshot from this hook, or NULL. */
static char *
new_title(phase_t *ph, const run_t *r, const hookout_t *o, const char *status, const rec_t *cur)
{
	if (o && o->title)
		return clean_title(o->title, ph->url);
	if (strcmp(r->h->plugin->name, "title") != 0 ||
	    (strcmp(status, "succeeded") != 0 && strcmp(status, "noresults") != 0))
		return NULL;
	buf_t b = {0};
	char *path = xasprintf("%s/title/title.txt", ph->base_rel);
	char *t = NULL;
	if (fs_read(ph->s->dfd, path, &b) == 0 && b.len < 65536)
		t = clean_title(buf_cstr(&b), ph->url);
	free(path);
	buf_free(&b);
	if (!t && o && o->have_ar) {
		char *os = rec_str(&o->ar, "output_str");
		t = clean_title(os, ph->url);
		free(os);
	}
	char *old = rec_str(cur, "title"), *oc = clean_title(old, ph->url);
	int better = !oc || (t && strlen(t) > strlen(oc));
	free(old), free(oc);
	if (!better) {
		free(t);
		t = NULL;
	}
	return t;
}

/* Add tags to the snapshot's comma-separated "tags"; 1 if it changed. */
static int
merge_tags(rec_t *snap, char *const *tags, size_t n)
{
	char *cur = rec_str(snap, "tags");
	buf_t b = {0};
	buf_adds(&b, cur ? cur : "");
	int changed = 0;
	for (size_t i = 0; i < n; i++) {
		int have = 0;
		char *dup = xstrdup(b.p ? buf_cstr(&b) : ""), *save = NULL;
		for (char *t = strtok_r(dup, ",", &save); t && !have; t = strtok_r(NULL, ",", &save))
			have = strcmp(t, tags[i]) == 0;
		free(dup);
		if (have)
			continue;
		if (b.len)
			buf_addc(&b, ',');
		buf_adds(&b, tags[i]);
		changed = 1;
	}
	if (changed)
		rec_set_str(snap, "tags", buf_cstr(&b));
	buf_free(&b);
	free(cur);
	return changed;
}

/* Stage the snapshot's new title and tags; 1 and *out if it changed. */
static int
update_snapshot(phase_t *ph, const run_t *r, const hookout_t *o, const char *status, rec_t *out)
{
	rec_t cur;
	if (!ph->snapshot || store_get(ph->s, ph->snap_id, &cur) < 0)
		return 0;
	int changed = 0;
	char *t = new_title(ph, r, o, status, &cur);
	if (t) {
		char *old = rec_str(&cur, "title");
		if (!old || strcmp(old, t) != 0) {
			rec_set_str(&cur, "title", t);
			changed = 1;
		}
		free(old);
		free(t);
	}
	if (o && o->ntags)
		changed |= merge_tags(&cur, o->tags, o->ntags);
	/* "has_results": the snapshot's journal holds results for it, so the
	 * next phase must look them up (load_prior) to reuse their ids; a
	 * snapshot without it never had any and skips that scan */
	const char *hr = rec_raw(&cur, "has_results");
	if (!hr || strcmp(hr, "true") != 0) {
		rec_set_raw(&cur, "has_results", "true");
		changed = 1;
	}
	if (!changed) {
		rec_free(&cur);
		return 0;
	}
	store_put(ph->s, &cur);
	*out = cur;
	return 1;
}

/* A Binary record a hook printed, as an installed Binary record. */
static void
stdout_binary(const rec_t *in, const char *plugin, binres_t *res)
{
	memset(res, 0, sizeof *res);
	rec_t *r = &res->rec;
	char id[ID_LEN + 1];
	id_new(id);
	char *name = rec_str(in, "name"), *ap = rec_str(in, "abspath");
	char *ver = rec_str(in, "version"), *by = rec_str(in, "binprovider");
	rec_set_str(r, "type", "Binary");
	rec_set_str(r, "id", id);
	rec_set_str(r, "name", name);
	rec_set_str(r, "binprovider", by ? by : plugin);
	rec_set_str(r, "abspath", ap);
	rec_set_str(r, "version", ver);
	rec_set_str(r, "status", "installed");
	rec_set_null(r, "retry_at");
	rec_set_int(r, "num_uses_failed", 0);
	rec_set_time(r, "created_at", clock_now());
	res->changed = 1;
	free(name), free(ap), free(ver), free(by);
}

/* A hook stopped by the size watch: results.c words its reason without the
 * limit, as the first "; "-separated part of the notes; ours takes its
 * place. */
static void
limit_verdict(verdict_t *v, const char *note)
{
	char *old = buf_cstr(&v->notes);
	const char *rest = old;
	if (strncmp(old, "stopped:", 8) == 0) {
		const char *sep = strstr(old, "; ");
		rest = sep ? sep + 2 : "";
	}
	buf_t b = {0};
	buf_adds(&b, note);
	if (*rest)
		buf_addf(&b, "; %s", rest);
	buf_free(&v->notes);
	v->notes = b;
	buf_cstr(&v->notes);
}

/* A hook has finished (or could not start): commit and print its records. */
static void
record_run(phase_t *ph, run_t *r)
{
	hookout_t o;
	outputs_t files;
	buf_t tail = {0};
	verdict_t v;
	memset(&o, 0, sizeof o);
	memset(&files, 0, sizeof files);
	memset(&v, 0, sizeof v);
	r->recorded = 1;
	int ran = r->started && !r->spawn_err;
	int detached = ran && r->p.state == PROC_DETACHED;
	size_t pi = r->h->plugin - ph->ps.v;
	if (ran && !detached) {
		ftree_t after;
		ftree_scan(r->cwdfd, &after);
		ftree_outputs(&r->before, &after, &files);
		ftree_free(&after);
		hookout_read(r->outfd, ph->url, &o);
		log_tail(r->errfd, &tail);
	}
	if (!r->started) {
		v.status = r->not_run ? "skipped" : "failed";
		buf_adds(&v.notes, r->not_run ? r->not_run : ph->binfail[pi] ? ph->binfail[pi] : "not run");
		buf_cstr(&v.notes);
	} else if (detached) {
		v.status = "started";
		buf_adds(&v.notes, "daemon left running until the crawl's cleanup");
		buf_cstr(&v.notes);
	} else {
		result_verdict(&r->p, r->spawn_err, r->h->path, ran ? &o : NULL, tail.p, &v);
		if (r->p.why == WHY_LIMIT && ph->limit_note)
			limit_verdict(&v, ph->limit_note);
	}
	prior_t *key = ph->snapshot ? result_key(ph, r->h) : NULL;
	result_t x = {
		.crawl_id = ph->crawl_id, .snapshot_id = ph->snap_id, .plugin = r->h->plugin->name,
		.hook_name = r->h->stem, .id = key ? key->id : NULL,
		.created_at = key ? key->created_at : NULL, .process_id = ran ? r->process_id : NULL,
		.proc = ran ? &r->p : NULL, .argv = r->argv, .pwd = r->pwd, .out = ran ? &o : NULL,
		.files = ran && !detached ? &files : NULL, .status = v.status, .notes = v.notes.p,
		.now = clock_now(),
	};
	rec_t ar = {0}, pr = {0}, snap = {0};
	binres_t *bins = xcalloc(o.nbins + 1, sizeof(binres_t));
	int have_snap = 0;
	store_lock(ph->s);
	if (ran) {
		result_process(&pr, &x, ph->s->host, detached);
		rec_set_str(&pr, "notes", v.notes.p ? v.notes.p : "");
		store_put(ph->s, &pr);
	}
	if (ph->snapshot) {
		result_archive(&ar, &x);
		store_put(ph->s, &ar);
		have_snap = update_snapshot(ph, r, ran ? &o : NULL, v.status, &snap);
	}
	for (size_t i = 0; i < o.nbins; i++) {
		stdout_binary(&o.bins[i], r->h->plugin->name, &bins[i]);
		binary_commit(ph->s, &bins[i]);
	}
	store_unlock(ph->s);
	if (ran)
		emit(ph, &pr);
	if (have_snap)
		emit(ph, &snap);
	for (size_t i = 0; i < o.nbins; i++) {
		emit(ph, &bins[i].rec);
		binres_free(&bins[i]);
	}
	if (ph->snapshot)
		emit(ph, &ar);
	else if (strcmp(v.status, "failed") == 0)
		warnx_("%s %s: %s", ph->o->family, r->h->stem, v.notes.p ? v.notes.p : "failed");
	free(bins);
	rec_free(&ar), rec_free(&pr), rec_free(&snap);
	hookout_free(&o);
	outputs_free(&files);
	buf_free(&tail);
	buf_free(&v.notes);
}

/* ------------------------------------------------------------ waiting */

static int
running(const run_t *r)
{
	return r->started && !r->spawn_err &&
	       (r->p.state == PROC_RUN || r->p.state == PROC_TERM || r->p.state == PROC_KILL);
}

static int
is_daemon(const hook_t *h)
{
	return h->bg && h->daemon;
}

enum { UNTIL_DONE, UNTIL_FINITE, UNTIL_ALL, UNTIL_EXTRACTORS };

/* Hooks numbered from PARSER_ORDER on read what earlier hooks saved
 * (parse_*_urls at 7x, hashes at 90): before one starts, the finite
 * background extractors numbered below it (wget at 06) are waited for, so
 * a parser never reads a page still being written (ArchiveBox's §8.3). */
#define PARSER_ORDER 50

static int
pending(const phase_t *ph, int what, size_t which)
{
	if (what == UNTIL_DONE)
		return running(&ph->runs[which]);
	if (what == UNTIL_EXTRACTORS) {
		for (size_t i = 0; i < which; i++)
			if (running(&ph->runs[i]) && ph->runs[i].h->bg && !is_daemon(ph->runs[i].h) &&
			    ph->runs[i].h->order < PARSER_ORDER)
				return 1;
		return 0;
	}
	for (size_t i = 0; i < ph->nhooks; i++)
		if (running(&ph->runs[i]) && (what == UNTIL_ALL || !is_daemon(ph->runs[i].h)))
			return 1;
	return 0;
}

/* A signal: stop the hooks as at a timeout; a second one kills them now. */
static void
on_signals(phase_t *ph)
{
	ph->signals = ph->o->stop ? *ph->o->stop : 1;
	ph->interrupted = 1;
	for (size_t i = 0; i < ph->nhooks; i++)
		if (running(&ph->runs[i])) {
			if (ph->signals > 1)
				proc_kill(&ph->runs[i].p, WHY_INTERRUPTED);
			else
				proc_stop(&ph->runs[i].p, WHY_INTERRUPTED);
		}
}

/* The size watch: while hooks run, every SIZE_CHECK_US and whenever one
 * ends, the snapshot's directory is measured; once it is over max_size,
 * the running hooks are stopped as at a timeout (recorded failed, with
 * limit_note) and the remaining ones are not started. */
#define SIZE_CHECK_US 2000000

static void
check_size(phase_t *ph)
{
	if (ph->max_size <= 0 || ph->size_stop)
		return;
	ph->next_size_check = clock_mono() + SIZE_CHECK_US;
	if (fs_du(ph->s->dfd, ph->base_rel) <= ph->max_size)
		return;
	ph->size_stop = 1;
	for (size_t i = 0; i < ph->nhooks; i++)
		if (running(&ph->runs[i]))
			proc_stop(&ph->runs[i].p, WHY_LIMIT);
}

/* The limit and its note: SNAPSHOT_MAX_SIZE, or the part of the crawl's
 * CRAWL_MAX_SIZE left for this snapshot (o->size_budget), the smaller. */
static void
size_limit(phase_t *ph)
{
	const char *v = conf_get(&ph->conf, "SNAPSHOT_MAX_SIZE");
	long long snap = parse_size(v), budget = ph->o->size_budget;
	if (!ph->snapshot || (snap <= 0 && budget <= 0))
		return;
	if (budget > 0 && (snap <= 0 || budget < snap)) {
		const char *c = conf_get(&ph->conf, "CRAWL_MAX_SIZE");
		ph->max_size = budget;
		ph->limit_note = xasprintf("stopped: CRAWL_MAX_SIZE%s%s exceeded (%lld bytes were left "
		    "for this snapshot)", c ? " " : "", c ? c : "", budget);
	} else {
		ph->max_size = snap;
		ph->limit_note = xasprintf("stopped: SNAPSHOT_MAX_SIZE %s exceeded", v);
	}
}

/* proc_wait cannot wait (ppoll failed): end the running hooks now. */
static void
on_wait_error(phase_t *ph)
{
	ph->wait_err = errno;
	warnsys("unable to wait for the hooks of %s %s; killing them", ph->o->family, ph->o->id);
	ph->interrupted = 1;
	for (size_t i = 0; i < ph->nhooks; i++)
		if (running(&ph->runs[i])) {
			proc_reap(&ph->runs[i].p, WHY_INTERRUPTED);
			record_run(ph, &ph->runs[i]);
			release_run(&ph->runs[i]);
		}
}

static void
wait_runs(phase_t *ph, int what, size_t which)
{
	proc_t **ps = xmalloc((ph->nhooks + 1) * sizeof *ps);
	run_t **rs = xmalloc((ph->nhooks + 1) * sizeof *rs);
	while (pending(ph, what, which)) {
		size_t n = 0;
		for (size_t i = 0; i < ph->nhooks; i++)
			if (running(&ph->runs[i])) {
				ps[n] = &ph->runs[i].p;
				rs[n++] = &ph->runs[i];
			}
		int64_t until = ph->max_size > 0 && !ph->size_stop ? ph->next_size_check : 0;
		int k = proc_wait(ps, n, until, ph->o->waitmask, ph->o->stop, ph->signals);
		if (k >= 0) {
			record_run(ph, rs[k]);
			release_run(rs[k]);
			check_size(ph);
		} else if (k == -1) {
			check_size(ph);
		} else if (k == -2) {
			on_signals(ph);
		} else {
			on_wait_error(ph);
		}
	}
	free(ps);
	free(rs);
}

/* ------------------------------------------------------------ the phase */

static void
start_hook(phase_t *ph, size_t i)
{
	run_t *r = &ph->runs[i];
	hook_t *h = ph->hooks[i];
	r->h = h;
	r->cwdfd = r->outfd = r->errfd = -1;
	if (ph->binfail[h->plugin - ph->ps.v]) {
		record_run(ph, r);
		return;
	}
	char *rel = xasprintf("%s/%s", ph->base_rel, h->plugin->name);
	conf_t *pc = plugin_config(ph, h->plugin);
	long t = plugin_timeout(h->plugin, pc);
	r->argv = argv_of(h->path, ph->url);
	if (prepare_run(ph, r, rel) < 0) {
		r->started = 1;
		r->spawn_err = errno ? errno : EIO;
	} else {
		spawn_run(ph, r, pc, is_daemon(h) ? 0 : t);
		r->p.grace = t < 10 ? t : 10;
	}
	if (r->spawn_err) {
		record_run(ph, r);
		release_run(r);
	}
	free(rel);
}

static void
print_plan(phase_t *ph)
{
	for (size_t i = 0; i < ph->nhooks; i++) {
		hook_t *h = ph->hooks[i];
		conf_t *pc = plugin_config(ph, h->plugin);
		rec_t r = {0};
		rec_set_str(&r, "plugin", h->plugin->name);
		rec_set_str(&r, "hook_name", h->stem);
		rec_set_str(&r, "path", h->path);
		rec_set_int(&r, "order", h->order);
		rec_set_int(&r, "timeout", plugin_timeout(h->plugin, pc));
		rec_set_raw(&r, "background", h->bg ? "true" : "false");
		rec_set_raw(&r, "daemon", is_daemon(h) ? "true" : "false");
		emit(ph, &r);
		rec_free(&r);
	}
}

/* Kill the children left: descendants that escaped their group were
 * reparented to us (a subreaper).  Daemons left running are kept. */
static void
reap_orphans(phase_t *ph)
{
	char path[64];
	snprintf(path, sizeof path, "/proc/self/task/%ld/children", (long)getpid());
	for (int round = 0; round < 100; round++) {
		buf_t b = {0};
		int fd = open(path, O_RDONLY | O_CLOEXEC), killed = 0;
		if (fd < 0 || fs_read_fd(fd, &b) < 0) {
			if (fd >= 0)
				close(fd);
			buf_free(&b);
			return;
		}
		close(fd);
		char *save = NULL;
		for (char *t = strtok_r(buf_cstr(&b), " \n", &save); t; t = strtok_r(NULL, " \n", &save)) {
			pid_t pid = atoi(t);
			int keep = pid <= 1;
			for (size_t i = 0; i < ph->nhooks && !keep; i++)
				keep = ph->runs[i].p.state == PROC_DETACHED && ph->runs[i].p.pid == pid;
			if (keep)
				continue;
			if (getpgid(pid) == pid)
				killpg(pid, SIGKILL);
			kill(pid, SIGKILL);
			while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
				;
			killed++;
		}
		buf_free(&b);
		if (!killed)
			return;
	}
}

static void
phase_free(phase_t *ph)
{
	rec_free(&ph->snap);
	rec_free(&ph->crawl);
	free(ph->crawl_id), free(ph->snap_id), free(ph->url);
	free(ph->base_rel), free(ph->base_abs), free(ph->data_abs);
	conf_free(&ph->conf);
	for (size_t i = 0; i < ph->ps.n; i++) {
		if (ph->pconf_ok && ph->pconf_ok[i])
			conf_free(&ph->pconf[i]);
		if (ph->binfail)
			free(ph->binfail[i]);
	}
	free(ph->pconf), free(ph->pconf_ok), free(ph->binfail);
	for (size_t i = 0; i < ph->nbins; i++)
		free(ph->bins[i].name), free(ph->bins[i].abspath), free(ph->bins[i].why);
	free(ph->bins);
	for (size_t i = 0; i < ph->nprior; i++)
		free(ph->prior[i].plugin), free(ph->prior[i].hook), free(ph->prior[i].id),
		    free(ph->prior[i].created_at);
	free(ph->prior);
	free(ph->limit_note);
	runmark_free(&ph->mark);
	free(ph->hooks);
	free(ph->runs);
	if (!ph->borrowed_ps)
		plugins_free(&ph->ps);
}

void
phase_signals(void (*handler)(int), sigset_t *waitmask)
{
	static const int sigs[] = {SIGINT, SIGTERM, SIGHUP};
	/* nothing inherited counts: an ignored SIGCHLD would reap the hooks
	 * for us (and spin a poll on their pidfds), an ignored or blocked
	 * SIGTERM would make us unstoppable */
	for (int sig = 1; sig < NSIG; sig++) {
		struct sigaction old;
		if (sig != SIGKILL && sig != SIGSTOP && sigaction(sig, NULL, &old) == 0 &&
		    !(old.sa_flags & SA_SIGINFO) && old.sa_handler == SIG_IGN)
			signal(sig, SIG_DFL);
	}
	sigset_t block;
	sigemptyset(&block);
	sigemptyset(waitmask);
	struct sigaction sa = {0};
	sa.sa_handler = handler;
	sigemptyset(&sa.sa_mask);
	for (int i = 0; i < 3; i++) {
		sigaddset(&block, sigs[i]);
		sigaction(sigs[i], &sa, NULL);
	}
	signal(SIGPIPE, SIG_IGN);
	signal(SIGCHLD, SIG_DFL);   /* a forked worker may inherit a handler */
	/* the handlers are in place before a pending signal is let through */
	sigprocmask(SIG_SETMASK, &block, NULL);
}

/* Before the first hook starts: end what a dead run of this item left
 * (runmark.h) and mark ours.  The crawl phases keep the recorded daemons
 * (CrawlCleanup stops them itself, gracefully), and CrawlSetup starts the
 * crawl's daemons afresh: ones an earlier run left running (its tick was
 * stopped before the crawl's cleanup) are stopped first, not run twice.
 * Returns 0, or an exit code. */
static int
phase_begin(phase_t *ph, int setup)
{
	char **keep = ph->snapshot ? NULL : crawl_daemon_runs(ph->s, ph->crawl_id);
	int dead = runmark_clear_dead(ph->s, &ph->mark, keep);
	for (char **k = keep; k && *k; k++)
		free(*k);
	free(keep);
	if (dead < 0)
		return EX_TEMPFAIL_;
	if (!ph->nhooks)
		return 0;
	if (setup)
		hook_stop_daemons(ph->s, ph->crawl_id, ph->o->out);
	if (runmark_begin(ph->s, &ph->mark) < 0) {
		warnsys("unable to mark %s/%s as running hooks (its sticky bit)", ph->s->dir, ph->base_rel);
		return EX_CANTCREAT_;
	}
	return 0;
}

/* The crawl's end: its daemons get SIGTERM and their grace; then whatever
 * carries a token of the crawl's runs (what a daemon started in a session
 * of its own) is ended.  Returns the number of daemons stopped. */
static int
stop_crawl_daemons(phase_t *ph)
{
	int n = hook_stop_daemons(ph->s, ph->crawl_id, ph->o->out);
	if (n > 0)
		run_sweep(ph->crawl_id, ph->mark.token, NULL, NULL, 0);
	return n;
}

int
phase_run(store_t *s, const phase_opts_t *o)
{
	phase_t ph;
	memset(&ph, 0, sizeof ph);
	ph.s = s;
	ph.o = o;
	ph.snapshot = strcmp(o->family, "Snapshot") == 0;
	ph.mark.dirfd = -1;
	int cleanup = strcmp(o->family, "CrawlCleanup") == 0;
	int setup = strcmp(o->family, "CrawlSetup") == 0;
	int rc = load_target(&ph);
	if (rc)
		goto out;
	runmark_init(&ph.mark, o->id, ph.base_rel);
	load_config(&ph);
	char **path = plugins_path(ph.data_abs);
	if (o->discovered) {
		/* found once by the caller (abx-tick, per crawl): a forked
		 * worker's private copy, not freed here */
		ph.ps = *o->discovered;
		ph.borrowed_ps = 1;
	} else {
		plugins_discover(&ph.ps, path);
	}
	const char *missing = NULL;
	if (plugins_select(&ph.ps, &ph.conf, o->plugins, &missing) < 0) {
		buf_t b = {0};
		for (char **d = path; *d; d++)
			buf_addf(&b, "%s%s", d == path ? "" : ":", *d);
		warnx_("no plugin named %s in %s", missing, b.p ? b.p : "(no plugin directory)");
		buf_free(&b);
		rc = EX_UNAVAIL_;
	}
	for (char **d = path; *d; d++)
		free(*d);
	free(path);
	if (rc)
		goto out;
	ph.pconf = xcalloc(ph.ps.n + 1, sizeof(conf_t));
	ph.pconf_ok = xcalloc(ph.ps.n + 1, 1);
	ph.binfail = xcalloc(ph.ps.n + 1, sizeof(char *));
	ph.nhooks = plugins_hooks(&ph.ps, o->family, &ph.hooks);
	if (o->dry_run) {
		print_plan(&ph);
		rc = ph.nhooks ? 0 : EX_NOTHING;
		goto out;
	}
	if ((rc = phase_begin(&ph, setup)))
		goto out;
	if (!ph.nhooks) {
		rc = cleanup && stop_crawl_daemons(&ph) > 0 ? 0 : EX_NOTHING;
		goto out;
	}
	if (ph.snapshot) {
		char j[128];
		store_crawl_journal(ph.crawl_id, j, sizeof j);
		const char *hr = rec_raw(&ph.snap, "has_results");
		if (hr && strcmp(hr, "true") == 0)   /* else no result exists */
			store_each(s, j, ph.snap_id, load_prior, &ph);
	}
	resolve_binaries(&ph);
	ph.runs = xcalloc(ph.nhooks, sizeof(run_t));
	size_limit(&ph);
	ph.next_size_check = clock_mono() + SIZE_CHECK_US;
	for (size_t i = 0; i < ph.nhooks; i++) {
		if (o->stop && *o->stop > ph.signals)
			on_signals(&ph);
		if (ph.interrupted)
			break;
		if (!ph.hooks[i]->bg && ph.hooks[i]->order >= PARSER_ORDER)
			wait_runs(&ph, UNTIL_EXTRACTORS, i);
		if (ph.interrupted)
			break;
		if (ph.max_size > 0 && clock_mono() >= ph.next_size_check)
			check_size(&ph);
		if (ph.size_stop) {
			ph.runs[i].h = ph.hooks[i];
			ph.runs[i].not_run = "not run: the snapshot reached SNAPSHOT_MAX_SIZE";
			record_run(&ph, &ph.runs[i]);
			continue;
		}
		start_hook(&ph, i);
		if (!ph.hooks[i]->bg)
			wait_runs(&ph, UNTIL_DONE, i);
	}
	wait_runs(&ph, UNTIL_FINITE, 0);
	for (size_t i = 0; i < ph.nhooks; i++) {
		run_t *r = &ph.runs[i];
		if (!running(r))
			continue;
		if (setup && !ph.interrupted &&
		    crawl_daemon_record(s, r->rel, r->h->stem, &r->p, r->process_id, ph.mark.token) == 0) {
			proc_detach(&r->p);
			record_run(&ph, r);
			release_run(r);
		} else {
			proc_stop(&r->p, WHY_STOPPED);
		}
	}
	wait_runs(&ph, UNTIL_ALL, 0);
	if (cleanup)
		stop_crawl_daemons(&ph);
	if (o->reap_orphans) {
		reap_orphans(&ph);
		runmark_end(&ph.mark);   /* else what escaped is ended by the next run */
	}
	rc = ph.wait_err ? EX_SOFT_ : ph.interrupted ? EX_TEMPFAIL_ : 0;
out:
	phase_free(&ph);
	return rc;
}
