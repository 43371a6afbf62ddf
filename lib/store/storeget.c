/*
 * storeget.c — the reads: a record by id (what this transaction staged,
 * then a lean hint, the active index, the location hints, the top-level
 * journals and at last every crawl's journal), and the active items of
 * the index, in due order.  Part of the store (store_int.h).
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/err.h"
#include "base/fsretry.h"
#include "store/store_int.h"
#include "store/storefd.h"

static pending_t *
pending_find(store_t *s, const char *id)
{
	for (size_t i = s->npend; i-- > 0;)
		if (strcmp(s->pend[i].id, id) == 0)
			return &s->pend[i];
	return NULL;
}

int
store_get_in(store_t *s, const char *id, const char *journal, rec_t *out)
{
	if (!id_valid(id))
		return -1;
	pending_t *p = pending_find(s, id);
	if (p) {
		rec_copy(out, &p->rec);
		return 0;
	}
	if (s->lean && lean_get(s, id, out) == 0)
		return 0;
	if (store_unlean(s) < 0)
		return -1;
	if (!s->locked)
		index_refresh(s);   /* what other processes committed since */
	ient_t *e = index_slot(s, id, 0);
	char j[128];
	if (e && e->live) {
		entry_journal(e, j, sizeof j);
		journal_sync(s, j);
		e = index_slot(s, id, 0);   /* the replay may have grown the table */
	}
	if (e && e->live) {
		int fd = jfd_open(s, j, 0, FSR_EXISTED, NULL);
		buf_t line = {0};
		if (fd >= 0 && e->off >= 0 && read_line_at(fd, e->off, &line) == 0) {
			char lid[ID_LEN + 1];
			if (line_id(line.p, line.len, lid) == 0 && strcmp(lid, id) == 0 &&
			    rec_parse(out, line.p, line.len) == 0) {
				buf_free(&line);
				return 0;
			}
		}
		buf_free(&line);
		/* a stale hint: rescan that journal for this id */
		int64_t off;
		unsigned nerr = s->nerr;
		int found = journal_find(s, j, id, out, &off) == 0;
		if (!found && s->nerr != nerr)
			return -1;   /* unreadable: the hint may be right; keep it */
		if (s->locked) {
			/* correct the hint, or drop a ghost (an index line
			 * whose journal write never happened) */
			if (found)
				index_set_from(s, out, off);
			else
				s->nlive -= e->live, e->live = 0;
			buf_t b = {0};
			index_line(s, &b, index_slot(s, id, 0));
			index_append(s, &b);
			buf_free(&b);
		}
		if (found)
			return 0;
	}
	if (journal && journal_find(s, journal, id, out, NULL) == 0)
		return 0;
	return -1;
}

typedef struct {
	store_t *s;
	const char *id;
	rec_t *out;
	int found;
} findctx_t;

static int
find_in_crawl(rec_t *crawl, void *arg)
{
	findctx_t *f = arg;
	char *cid = rec_str(crawl, "id");
	char j[128];
	if (id_valid(cid)) {
		store_crawl_journal(cid, j, sizeof j);
		if (journal_find(f->s, j, f->id, f->out, NULL) == 0)
			f->found = 1;
	}
	free(cid);
	return f->found;
}

int
store_get(store_t *s, const char *id, rec_t *out)
{
	static const char *tops[] = {"crawls.jsonl", "schedules.jsonl", "binaries.jsonl", NULL};
	if (store_get_in(s, id, NULL, out) == 0)
		return 0;
	if (!id_valid(id))
		return -1;
	if (crawl_loc_get(s, id, out) == 0)
		return 0;
	for (int i = 0; tops[i]; i++)
		if (journal_find(s, tops[i], id, out, NULL) == 0)
			return 0;
	if (snap_loc_get(s, id, out) == 0)
		return 0;
	/* not active and not a top-level record: a final snapshot or result;
	 * look through every crawl (the slow path, for by-hand lookups) */
	if (getenv("ABX_DEBUG_SLOW"))
		info("slow lookup of %s", id);
	findctx_t f = {s, id, out, 0};
	store_each(s, "crawls.jsonl", NULL, find_in_crawl, &f);
	return f.found ? 0 : -1;
}

/* (retry_at, created_at, id) order: when an item became due, then FIFO. */
int
ient_cmp(const void *a, const void *b)
{
	const ient_t *x = a, *y = b;
	if (x->retry_at != y->retry_at)
		return x->retry_at < y->retry_at ? -1 : 1;
	if (x->created_at != y->created_at)
		return x->created_at < y->created_at ? -1 : 1;
	return strcmp(x->id, y->id);
}

size_t
store_active_unordered(store_t *s, const char *type, ient_t **out)
{
	store_unlean(s);
	if (!s->tab && !s->locked)
		index_refresh(s);
	size_t n = 0;
	*out = xmalloc(sizeof(ient_t) * (s->nlive + 1));
	for (size_t i = 0; i < s->tabcap; i++) {
		ient_t *e = &s->tab[i];
		if (e->used && e->live && (!type || strcmp(e->type, type) == 0))
			(*out)[n++] = *e;
	}
	return n;
}

size_t
store_active(store_t *s, const char *type, ient_t **out)
{
	size_t n = store_active_unordered(s, type, out);
	qsort(*out, n, sizeof(ient_t), ient_cmp);
	return n;
}
