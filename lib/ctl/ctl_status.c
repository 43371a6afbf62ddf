/*
 * ctl_status.c — abx-ctl status (ctl_verbs.h): one pass over every
 * journal, counting records by type and status (and sealed_reason, where
 * a record says why it was sealed; a schedule's template crawl counts as
 * "template"; removed records are not counted), summing
 * output_size, counting the sealed snapshots the site answered with a
 * 4xx or 5xx by code (their http_status), keeping the started crawls and
 * snapshots, the latest failed results and the latest of those
 * snapshots.  It costs a read of the archive, as abx-ls without -s does.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ctl/ctl_verbs.h"
#include "base/err.h"

typedef struct {
	char type[16], status[16];
	char reason[32];      /* a sealed item's sealed_reason, if it has one */
	long long count, size;
} count_t;

typedef struct {
	char end[40];
	rec_t r;
} failed_t;

/* The latest records of a kind, newest first: at most max. */
typedef struct {
	failed_t *v;
	size_t n, max;
} latest_t;

typedef struct {
	long long code, count;
} httpcount_t;

typedef struct {
	store_t *s;
	count_t *c;
	size_t nc;
	rec_t *running;
	size_t nrunning;
	latest_t f;           /* failed results */
	latest_t h;           /* sealed snapshots answered 4xx/5xx */
	httpcount_t *hc;      /* those by code, in code order */
	size_t nhc;
} st_t;

static void
count(st_t *st, const rec_t *r, const char *type)
{
	char *status = rec_str(r, "status"), *reason = rec_str(r, "sealed_reason");
	const char *rs = reason ? reason : "";
	const char *tpl = rec_raw(r, "is_template");
	const char *sts = tpl && strcmp(tpl, "true") == 0 ? "template" : status ? status : "-";
	count_t *c = NULL;
	for (size_t i = 0; i < st->nc && !c; i++)
		if (strcmp(st->c[i].type, type) == 0 && strcmp(st->c[i].status, sts) == 0 &&
		    strncmp(st->c[i].reason, rs, sizeof st->c[i].reason - 1) == 0)
			c = &st->c[i];
	if (!c) {
		st->c = xrealloc(st->c, (st->nc + 1) * sizeof *st->c);
		c = &st->c[st->nc++];
		memset(c, 0, sizeof *c);
		snprintf(c->type, sizeof c->type, "%s", type);
		snprintf(c->status, sizeof c->status, "%s", sts);
		snprintf(c->reason, sizeof c->reason, "%s", rs);
	}
	c->count++;
	if (strcmp(type, "Snapshot") == 0)
		c->size += rec_int(r, "output_size", 0);
	free(status), free(reason);
}

/* Keep r among the latest by its time key (else modified_at). */
static void
keep_latest(latest_t *l, const rec_t *r, const char *key)
{
	char *end = rec_str(r, key);
	if (!end)
		end = rec_str(r, "modified_at");
	if (!end)
		return;
	size_t i = l->n;
	while (i > 0 && strcmp(l->v[i - 1].end, end) < 0)
		i--;
	if (i >= l->max) {
		free(end);
		return;
	}
	if (l->n == l->max) {
		rec_free(&l->v[--l->n].r);
	}
	memmove(l->v + i + 1, l->v + i, (l->n - i) * sizeof *l->v);
	snprintf(l->v[i].end, sizeof l->v[i].end, "%s", end);
	rec_copy(&l->v[i].r, r);
	l->n++;
	free(end);
}

/* A sealed snapshot the site answered with a 4xx or 5xx (abx(7), HTTP
 * status): counted by its code and kept among the latest. */
static void
http_error(st_t *st, const rec_t *r)
{
	long long code = rec_int(r, "http_status", 0);
	if (code < 400 || code > 999 || !rec_streq(r, "status", "sealed"))
		return;
	size_t i = 0;
	while (i < st->nhc && st->hc[i].code < code)
		i++;
	if (i == st->nhc || st->hc[i].code != code) {
		st->hc = xrealloc(st->hc, (st->nhc + 1) * sizeof *st->hc);
		memmove(st->hc + i + 1, st->hc + i, (st->nhc - i) * sizeof *st->hc);
		st->hc[i] = (httpcount_t){code, 0};
		st->nhc++;
	}
	st->hc[i].count++;
	if (st->h.max)
		keep_latest(&st->h, r, "downloaded_at");
}

static int
each(rec_t *r, void *arg)
{
	st_t *st = arg;
	char *type = rec_str(r, "type");
	if (!type || !rec_isnull(r, "deleted_at")) {
		free(type);
		return 0;
	}
	count(st, r, type);
	if ((!strcmp(type, "Crawl") || !strcmp(type, "Snapshot")) && rec_streq(r, "status", "started")) {
		st->running = xrealloc(st->running, (st->nrunning + 1) * sizeof *st->running);
		rec_copy(&st->running[st->nrunning++], r);
	}
	if (!strcmp(type, "ArchiveResult") && rec_streq(r, "status", "failed") && st->f.max)
		keep_latest(&st->f, r, "end_ts");
	if (!strcmp(type, "Snapshot"))
		http_error(st, r);
	free(type);
	return 0;
}

static int
each_crawl(rec_t *r, void *arg)
{
	st_t *st = arg;
	char *id = rec_str(r, "id");
	if (id_valid(id) && rec_isnull(r, "deleted_at")) {
		char j[128];
		store_crawl_journal(id, j, sizeof j);
		store_each(st->s, j, NULL, each, st);
	}
	free(id);
	return 0;
}

/* The first line of a result's reason, cut at 200 bytes. */
static char *
first_line(const rec_t *r)
{
	char *n = rec_str(r, "notes");
	if (!n || !*n) {
		free(n);
		n = rec_str(r, "output_str");
	}
	if (!n)
		return xstrdup("");
	size_t l = strcspn(n, "\r\n");
	if (l > 200)
		l = 200;
	n[l] = 0;
	return n;
}

int
ctl_status(store_t *s, int nfailed, ctl_emit_fn emit, void *arg)
{
	size_t last = nfailed > 0 ? (size_t)nfailed : 0;
	st_t st = {s, NULL, 0, NULL, 0, {NULL, 0, last}, {NULL, 0, last}, NULL, 0};
	st.f.v = xcalloc(last + 1, sizeof *st.f.v);
	st.h.v = xcalloc(last + 1, sizeof *st.h.v);
	store_each(s, "schedules.jsonl", NULL, each, &st);
	store_each(s, "binaries.jsonl", NULL, each, &st);
	store_each(s, "crawls.jsonl", NULL, each, &st);
	store_each(s, "crawls.jsonl", NULL, each_crawl, &st);
	for (size_t i = 0; i < st.nc; i++) {
		rec_t line = {0};
		rec_set_str(&line, "type", "Count");
		rec_set_str(&line, "kind", st.c[i].type);
		rec_set_str(&line, "status", st.c[i].status);
		if (st.c[i].reason[0])
			rec_set_str(&line, "sealed_reason", st.c[i].reason);
		rec_set_int(&line, "count", st.c[i].count);
		if (strcmp(st.c[i].type, "Snapshot") == 0)
			rec_set_int(&line, "output_size", st.c[i].size);
		emit(arg, &line);
		rec_free(&line);
	}
	for (size_t i = 0; i < st.nhc; i++) {
		rec_t line = {0};
		rec_set_str(&line, "type", "HttpStatus");
		rec_set_str(&line, "kind", "Snapshot");
		rec_set_int(&line, "http_status", st.hc[i].code);
		rec_set_int(&line, "count", st.hc[i].count);
		emit(arg, &line);
		rec_free(&line);
	}
	for (size_t i = 0; i < st.nrunning; i++) {
		rec_t *r = &st.running[i], line = {0};
		char *t = rec_str(r, "type"), *id = rec_str(r, "id"), *u = rec_str(r, "url");
		if (!u)
			u = rec_str(r, "urls");
		rec_set_str(&line, "type", "Running");
		rec_set_str(&line, "kind", t);
		rec_set_str(&line, "id", id);
		rec_set_str(&line, "url", u);
		const char *lease = rec_raw(r, "lease");
		rec_set_raw(&line, "lease", lease ? lease : "null");
		emit(arg, &line);
		rec_free(&line);
		free(t), free(id), free(u);
		rec_free(r);
	}
	for (size_t i = 0; i < st.f.n; i++) {
		rec_t *r = &st.f.v[i].r, line = {0}, sn;
		char *sid = rec_str(r, "snapshot_id"), *pl = rec_str(r, "plugin"), *why = first_line(r);
		char *url = NULL, *cid = rec_str(r, "crawl_id"), j[128];
		store_crawl_journal(id_valid(cid) ? cid : "", j, sizeof j);
		free(cid);
		if (id_valid(sid) && store_get_in(s, sid, j, &sn) == 0) {
			url = rec_str(&sn, "url");
			rec_free(&sn);
		}
		rec_set_str(&line, "type", "Failed");
		rec_set_str(&line, "at", st.f.v[i].end);
		rec_set_str(&line, "snapshot_id", sid);
		rec_set_str(&line, "url", url);
		rec_set_str(&line, "plugin", pl);
		rec_set_str(&line, "reason", why);
		emit(arg, &line);
		rec_free(&line);
		free(sid), free(pl), free(why), free(url);
		rec_free(r);
	}
	for (size_t i = 0; i < st.h.n; i++) {
		rec_t *r = &st.h.v[i].r, line = {0};
		char *sid = rec_str(r, "id"), *cid = rec_str(r, "crawl_id"), *url = rec_str(r, "url");
		rec_set_str(&line, "type", "HttpError");
		rec_set_str(&line, "at", st.h.v[i].end);
		rec_set_int(&line, "http_status", rec_int(r, "http_status", 0));
		rec_set_str(&line, "snapshot_id", sid);
		rec_set_str(&line, "crawl_id", cid);
		rec_set_str(&line, "url", url);
		emit(arg, &line);
		rec_free(&line);
		free(sid), free(cid), free(url);
		rec_free(r);
	}
	free(st.c);
	free(st.running);
	free(st.f.v);
	free(st.h.v);
	free(st.hc);
	return CTL_OK;
}
