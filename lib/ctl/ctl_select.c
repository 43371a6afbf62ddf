/*
 * ctl_select.c — abx-ctl retry by filter (ctl_retry_select(), ctl_verbs.h):
 * the snapshots of a crawl or of every crawl, and the plugins of each whose
 * last result failed, each retried by ctl_retry().
 *
 * One pass over a crawl's journal (store_each: latest versions, a snapshot
 * before its results) collects the sealed snapshots and, per plugin, the
 * status of its latest result (by modified_at); then each chosen snapshot
 * is retried in its own commit.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ctl/ctl_verbs.h"
#include "base/err.h"

typedef struct {
	char *plugin;
	char mod[40];
	int failed;
} pstat_t;

typedef struct {
	char id[ID_LEN + 1], crawl[ID_LEN + 1];
	int eligible;        /* sealed and not removed */
	pstat_t *p;
	size_t np;
} snap_t;

typedef struct {
	snap_t *v;           /* sorted by id */
	size_t n, cap;
} snaps_t;

static snap_t *
find(snaps_t *ss, const char *id, int add)
{
	size_t lo = 0, hi = ss->n;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		int c = strcmp(ss->v[mid].id, id);
		if (c == 0)
			return &ss->v[mid];
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!add)
		return NULL;
	if (ss->n == ss->cap) {
		ss->cap = ss->cap ? 2 * ss->cap : 64;
		ss->v = xrealloc(ss->v, ss->cap * sizeof *ss->v);
	}
	memmove(ss->v + lo + 1, ss->v + lo, (ss->n - lo) * sizeof *ss->v);
	memset(&ss->v[lo], 0, sizeof ss->v[lo]);
	snprintf(ss->v[lo].id, sizeof ss->v[lo].id, "%s", id);
	ss->n++;
	return &ss->v[lo];
}

static int
collect(rec_t *r, void *arg)
{
	snaps_t *ss = arg;
	if (rec_streq(r, "type", "Snapshot")) {
		char *id = rec_str(r, "id"), *cid = rec_str(r, "crawl_id");
		if (id_valid(id) && id_valid(cid)) {
			snap_t *sn = find(ss, id, 1);
			snprintf(sn->crawl, sizeof sn->crawl, "%s", cid);
			sn->eligible = record_is_final(r) && rec_isnull(r, "retry_at") &&
			               rec_isnull(r, "deleted_at");
		}
		free(id), free(cid);
	} else if (rec_streq(r, "type", "ArchiveResult") && rec_isnull(r, "deleted_at")) {
		char *sid = rec_str(r, "snapshot_id"), *pl = rec_str(r, "plugin");
		char *mod = rec_str(r, "modified_at");
		snap_t *sn = sid && pl ? find(ss, sid, 0) : NULL;
		if (sn) {
			pstat_t *p = NULL;
			for (size_t i = 0; i < sn->np && !p; i++)
				if (strcmp(sn->p[i].plugin, pl) == 0)
					p = &sn->p[i];
			if (!p) {
				sn->p = xrealloc(sn->p, (sn->np + 1) * sizeof *sn->p);
				p = &sn->p[sn->np++];
				memset(p, 0, sizeof *p);
				p->plugin = pl;
				pl = NULL;
			}
			/* a plugin's latest result says whether it failed */
			if (!mod || strcmp(mod, p->mod) >= 0) {
				snprintf(p->mod, sizeof p->mod, "%s", mod ? mod : "");
				p->failed = rec_streq(r, "status", "failed");
			}
		}
		free(sid), free(pl), free(mod);
	}
	return 0;
}

static int
named(char **plugins, const char *p)
{
	for (char **q = plugins; q && *q; q++)
		if (strcmp(*q, p) == 0)
			return 1;
	return 0;
}

static void
retry_one(store_t *s, snap_t *sn, int failed, char **plugins, ctl_emit_fn emit, void *arg,
    unsigned *count)
{
	char **list = plugins;
	size_t k = 0;
	if (failed) {
		list = xcalloc(sn->np + 1, sizeof *list);
		for (size_t i = 0; i < sn->np; i++)
			if (sn->p[i].failed && (!plugins || named(plugins, sn->p[i].plugin)))
				list[k++] = sn->p[i].plugin;
		if (!k) {
			free(list);
			return;
		}
	}
	unsigned nerr = s->nerr;
	if (ctl_retry(s, sn->id, list) == CTL_OK && s->nerr == nerr) {
		rec_t line = {0};
		buf_t pl = {0};
		for (char **q = list; q && *q; q++)
			buf_addf(&pl, "%s%s", pl.len ? "," : "", *q);
		rec_set_str(&line, "type", "Retry");
		rec_set_str(&line, "snapshot_id", sn->id);
		rec_set_str(&line, "crawl_id", sn->crawl);
		rec_set_str(&line, "plugins", pl.len ? buf_cstr(&pl) : "");
		emit(arg, &line);
		rec_free(&line);
		buf_free(&pl);
		(*count)++;
	}
	if (failed)
		free(list);
}

static void
retry_crawl(store_t *s, const char *crawl_id, const char *only, int failed, char **plugins,
    ctl_emit_fn emit, void *arg, unsigned *count)
{
	snaps_t ss = {0};
	char j[128];
	store_crawl_journal(crawl_id, j, sizeof j);
	store_each(s, j, NULL, collect, &ss);
	for (size_t i = 0; i < ss.n; i++) {
		snap_t *sn = &ss.v[i];
		if (only ? strcmp(sn->id, only) == 0 : sn->eligible)
			retry_one(s, sn, failed, plugins, emit, arg, count);
	}
	for (size_t i = 0; i < ss.n; i++) {
		for (size_t k = 0; k < ss.v[i].np; k++)
			free(ss.v[i].p[k].plugin);
		free(ss.v[i].p);
	}
	free(ss.v);
}

typedef struct {
	store_t *s;
	int failed;
	char **plugins;
	ctl_emit_fn emit;
	void *arg;
	unsigned *count;
} every_t;

static int
each_crawl(rec_t *r, void *arg)
{
	every_t *e = arg;
	const char *tpl = rec_raw(r, "is_template");
	char *id = rec_str(r, "id");
	if (id_valid(id) && rec_isnull(r, "deleted_at") && !(tpl && strcmp(tpl, "true") == 0))
		retry_crawl(e->s, id, NULL, e->failed, e->plugins, e->emit, e->arg, e->count);
	free(id);
	return 0;
}

int
ctl_retry_select(store_t *s, const char *id, int failed, char **plugins, ctl_emit_fn emit,
    void *arg, unsigned *count)
{
	*count = 0;
	if (!id) {
		every_t e = {s, failed, plugins, emit, arg, count};
		store_each(s, "crawls.jsonl", NULL, each_crawl, &e);
		return CTL_OK;
	}
	rec_t r;
	if (store_get(s, id, &r) < 0)
		return CTL_NOTFOUND;
	int rc = CTL_OK;
	if (rec_streq(&r, "type", "Crawl")) {
		retry_crawl(s, id, NULL, failed, plugins, emit, arg, count);
	} else if (rec_streq(&r, "type", "Snapshot")) {
		char *cid = rec_str(&r, "crawl_id");
		if (!failed) {
			/* one snapshot, as ever: whatever its state */
			snap_t sn = {0};
			snprintf(sn.id, sizeof sn.id, "%s", id);
			snprintf(sn.crawl, sizeof sn.crawl, "%s", cid ? cid : "");
			retry_one(s, &sn, 0, plugins, emit, arg, count);
		} else if (id_valid(cid)) {
			retry_crawl(s, cid, id, failed, plugins, emit, arg, count);
		}
		free(cid);
	} else {
		rc = CTL_BADSTATE;
	}
	rec_free(&r);
	return rc;
}
