/*
 * Which journals a lock replays (index.c, index_mark_needed): the
 * top-level journals always; a crawl's journal while the crawl is active,
 * or while a snapshot of it is (a retried snapshot of a sealed crawl); not
 * the journal of a finished crawl whose snapshots are all finished.  Each
 * case among several finished crawls, so that the table walk that finds a
 * sealed crawl's active snapshot meets the others' journals too, and one
 * walk marks two such crawls.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/err.h"
#include "store/store.h"
#include "store/store_int.h"
#include "tap.h"

static void
put(store_t *s, const char *fmt, const char *a, const char *b, const char *status)
{
	char *j = xasprintf(fmt, a, b, status);
	rec_t r;
	if (rec_parse(&r, j, strlen(j)) < 0) {
		fprintf(stderr, "bad test record: %s\n", j);
		exit(2);
	}
	store_lock(s);
	store_put(s, &r);
	store_unlock(s);
	rec_free(&r);
	free(j);
}

static const char crawl_fmt[] =
    "{\"type\":\"Crawl\",\"id\":\"%s\",\"urls\":\"http://127.0.0.1:9/%s\",\"status\":\"%s\","
    "\"retry_at\":null}";
static const char snap_fmt[] =
    "{\"type\":\"Snapshot\",\"id\":\"%s\",\"crawl_id\":\"%s\",\"url\":\"http://127.0.0.1:9/\","
    "\"status\":\"%s\",\"retry_at\":null}";

/* need of crawl id's journal after a lock: 1, 0, or -1 if the index no
 * longer knows it (a compaction drops the journals no lock replays) */
static int
need_of(store_t *s, const char *id)
{
	char j[128];
	store_crawl_journal(id, j, sizeof j);
	jstate_t *st = jstate(s, j, 0);
	return st ? st->need : -1;
}

int
main(void)
{
	char tmpl[] = "/tmp/abx-indexneed-test.XXXXXX";
	char *top = mkdtemp(tmpl);
	if (!top)
		return 1;
	setenv("ABX_SYNC", "0", 1);
	plan(7);
	store_t s;
	if (store_open(&s, top, 1) < 0)
		return 1;
	char run[ID_LEN + 1], sealed[ID_LEN + 1], retried[ID_LEN + 1], snap[ID_LEN + 1];
	id_new(run);
	id_new(sealed);
	id_new(retried);
	/* a running crawl with a queued snapshot */
	put(&s, crawl_fmt, run, "a", "started");
	id_new(snap);
	put(&s, snap_fmt, snap, run, "queued");
	/* two sealed crawls, each with 200 sealed snapshots */
	put(&s, crawl_fmt, sealed, "b", "started");
	put(&s, crawl_fmt, retried, "c", "started");
	for (int i = 0; i < 200; i++) {
		id_new(snap);
		put(&s, snap_fmt, snap, sealed, "sealed");
		id_new(snap);
		put(&s, snap_fmt, snap, retried, "sealed");
	}
	put(&s, crawl_fmt, sealed, "b", "sealed");
	put(&s, crawl_fmt, retried, "c", "sealed");
	store_lock(&s);
	ok(need_of(&s, run) == 1, "a running crawl's journal is replayed at each lock");
	ok(need_of(&s, sealed) != 1, "a sealed crawl's is not");
	ok(need_of(&s, retried) != 1, "nor that of another sealed crawl");
	ok(jstate(&s, "crawls.jsonl", 0) && jstate(&s, "crawls.jsonl", 0)->need == 1,
	    "crawls.jsonl always is");
	store_unlock(&s);
	/* a snapshot of the second sealed crawl is queued again */
	id_new(snap);
	put(&s, snap_fmt, snap, retried, "queued");
	store_lock(&s);
	ok(need_of(&s, retried) == 1, "a sealed crawl with a queued snapshot: its journal is replayed");
	ok(need_of(&s, sealed) != 1, "while the other sealed crawl's still is not");
	store_unlock(&s);
	/* and one of the first: both journals are marked by one walk */
	id_new(snap);
	put(&s, snap_fmt, snap, sealed, "queued");
	store_lock(&s);
	ok(need_of(&s, sealed) == 1 && need_of(&s, retried) == 1,
	    "two sealed crawls with a queued snapshot each: both journals are replayed");
	store_unlock(&s);
	store_close(&s);
	char *rm = xasprintf("rm -rf '%s'", top);
	if (system(rm) != 0)
		fprintf(stderr, "# could not remove %s\n", top);
	free(rm);
	return done();
}
