/* listing.c — the records abx-ls lists, filtered, in order: see listing.h. */
#include <stdlib.h>
#include <string.h>

#include "base/err.h"
#include "ctl/listing.h"

typedef struct {
	store_t *s;
	filter_t *f;
	ctl_emit_fn emit;
	void *arg;
} list_t;

static void
list_rec(list_t *l, const rec_t *r)
{
	if (filter_match(l->f, r))
		l->emit(l->arg, r);
}

static int
each_list(rec_t *r, void *arg)
{
	list_rec(arg, r);
	return 0;
}

static void
list_journal_of(list_t *l, const char *crawl_id)
{
	char j[128];
	store_crawl_journal(crawl_id, j, sizeof j);
	const char *pre = l->f->type && strcmp(l->f->type, "Snapshot") == 0 ? "\"Snapshot\"" : NULL;
	store_each(l->s, j, filter_by_content(l->f) ? NULL : pre, each_list, l);
	l->f->nsnaps = 0;   /* a journal's results follow its own snapshots */
}

static int
each_crawl(rec_t *crawl, void *arg)
{
	char *id = rec_str(crawl, "id");
	/* a removed crawl's records are history, even if its files stay */
	if (id_valid(id) && rec_isnull(crawl, "deleted_at"))
		list_journal_of(arg, id);
	free(id);
	return 0;
}

/* Is r a record of a removed crawl's journal (kept with its files)? */
static int
in_removed_crawl(store_t *s, const rec_t *r)
{
	char *cid = rec_str(r, "crawl_id");
	rec_t cr;
	int gone = 0;
	if (id_valid(cid) && !rec_streq(r, "type", "Crawl") && store_get(s, cid, &cr) == 0) {
		gone = !rec_isnull(&cr, "deleted_at");
		rec_free(&cr);
	}
	free(cid);
	return gone;
}

static int
is_active_status(const char *st)
{
	return st && (!strcmp(st, "queued") || !strcmp(st, "started") || !strcmp(st, "paused"));
}

int
listing_ids(store_t *s, filter_t *f, char **ids, int n, ctl_emit_fn emit, void *arg)
{
	list_t l = {s, f, emit, arg};
	int bad = 0;
	for (int i = 0; i < n; i++) {
		rec_t r;
		if (!id_valid(ids[i])) {
			errorx("not an id: %s", ids[i]);
			bad = 1;
		} else if (store_get(s, ids[i], &r) < 0) {
			if (!s->nerr)
				errorx("no record with id %s", ids[i]);
			bad = 1;
		} else {
			if (!in_removed_crawl(s, &r))
				list_rec(&l, &r);   /* else history, as in listings */
			rec_free(&r);
		}
	}
	return bad;
}

/* --crawl ID: the crawl, then its journal. */
static int
list_crawl(list_t *l, int kids)
{
	rec_t r;
	if (store_get(l->s, l->f->crawl, &r) == 0) {
		list_rec(l, &r);
		if (kids && rec_isnull(&r, "deleted_at"))
			list_journal_of(l, l->f->crawl);
		rec_free(&r);
	} else if (!l->s->nerr) {
		errorx("--crawl: no crawl with id %s", l->f->crawl);
		return 1;
	}
	return 0;
}

int
listing_all(store_t *s, filter_t *f, ctl_emit_fn emit, void *arg)
{
	list_t l = {s, f, emit, arg};
	const char *type = f->type;
	int kids = !type || !strcmp(type, "Snapshot") || !strcmp(type, "ArchiveResult") ||
	           !strcmp(type, "Process");
	if (f->crawl)
		return list_crawl(&l, kids);
	if (is_active_status(f->status) && type && strcmp(type, "ArchiveResult") != 0 &&
	    strcmp(type, "Process") != 0 && !filter_by_content(f)) {
		ient_t *v;
		size_t n = store_active(s, type, &v);
		for (size_t i = 0; i < n; i++) {
			rec_t r;
			if (strcmp(v[i].status, f->status) == 0 && store_get(s, v[i].id, &r) == 0) {
				list_rec(&l, &r);
				rec_free(&r);
			}
		}
		free(v);
		return 0;
	}
	if (!type || strcmp(type, "CrawlSchedule") == 0)
		store_each(s, "schedules.jsonl", NULL, each_list, &l);
	if (!type || strcmp(type, "Binary") == 0)
		store_each(s, "binaries.jsonl", NULL, each_list, &l);
	if (!type || strcmp(type, "Crawl") == 0)
		store_each(s, "crawls.jsonl", NULL, each_list, &l);
	if (kids)
		store_each(s, "crawls.jsonl", NULL, each_crawl, &l);
	return 0;
}
