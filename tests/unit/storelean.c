/*
 * Lean mode (store.h, storelean.c): a store given hints answers store_get
 * as the index would, without loading it.  The latest version of a
 * snapshot is found after a hint that is behind it wherever the 64 KB
 * reading windows cut its line; a line that names the id only inside (an
 * "id" key far into another record) is not taken for its version; a line
 * written by hand ("id": "...", with spaces) is; a torn last line of the
 * id is not taken for a version.  And, for every store: a version a
 * reader replayed without the lock (its index line lost to a crash) is
 * written to the index by the next locker, not skipped.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/err.h"
#include "base/fs.h"
#include "store/store.h"
#include "tap.h"

static char crawl[ID_LEN + 1], snap[ID_LEN + 1];
static size_t overhead = 300;

/* Stage and commit one record made from a JSON text. */
static void
put(store_t *s, const char *json)
{
	rec_t r;
	if (rec_parse(&r, json, strlen(json)) < 0) {
		fprintf(stderr, "bad test record: %s\n", json);
		exit(2);
	}
	store_lock(s);
	store_put(s, &r);
	store_unlock(s);
	rec_free(&r);
}

static void
put_snap(store_t *s, const char *id, const char *title, size_t pad)
{
	char *filler = xmalloc(pad + 1);
	memset(filler, 'x', pad);
	filler[pad] = 0;
	char *j = xasprintf("{\"type\":\"Snapshot\",\"id\":\"%s\",\"crawl_id\":\"%s\",\"url\":\"http://"
	    "127.0.0.1:9/\",\"status\":\"queued\",\"retry_at\":null,\"title\":\"%s\",\"pad\":\"%s\"}",
	    id, crawl, title, filler);
	put(s, j);
	free(j);
	free(filler);
}

/* The title store_get gives a lean store with hint; *lean: still lean. */
static char *
lean_title(const char *dir, const char *hint, int *lean)
{
	store_t s;
	if (store_open(&s, dir, 0) < 0 || store_lean(&s, hint) < 0)
		return NULL;
	rec_t r;
	char *t = store_get(&s, snap, &r) == 0 ? rec_str(&r, "title") : NULL;
	if (t)
		rec_free(&r);
	*lean = s.lean;
	store_close(&s);
	return t;
}

/* A data directory with snapshot snap at version "v1", its hint in *hint,
 * then filler lines of another snapshot up to about `at` bytes past the
 * end of v1's line (where the search after the hint starts). */
static store_t *
setup(const char *dir, size_t at, buf_t *hint, size_t *from)
{
	static store_t s;
	if (store_open(&s, dir, 1) < 0)
		return NULL;
	char *j = xasprintf("{\"type\":\"Crawl\",\"id\":\"%s\",\"status\":\"queued\",\"retry_at\":null,"
	    "\"urls\":\"http://127.0.0.1:9/\"}", crawl);
	put(&s, j);
	free(j);
	put_snap(&s, snap, "v1", 10);
	store_lock(&s);   /* the index is loaded: the hint is the claimer's */
	store_unlock(&s);
	buf_reset(hint);
	store_hint(&s, snap, hint);
	char other[ID_LEN + 1], jn[128];
	id_new(other);
	store_crawl_journal(crawl, jn, sizeof jn);
	struct stat st;
	if (fstatat(s.dfd, jn, &st, 0) < 0)
		return NULL;
	*from = st.st_size;
	for (;;) {
		if (fstatat(s.dfd, jn, &st, 0) < 0 || (size_t)st.st_size + 1200 > *from + at)
			break;
		put_snap(&s, other, "filler", 900);
		struct stat after;
		if (fstatat(s.dfd, jn, &after, 0) == 0)
			overhead = after.st_size - st.st_size - 900;   /* a line's bytes but its pad */
	}
	return &s;
}

int
main(void)
{
	char tmpl[] = "/tmp/abx-lean-test.XXXXXX";
	char *top = mkdtemp(tmpl);
	if (!top)
		return 1;
	setenv("ABX_SYNC", "0", 1);
	id_new(crawl);
	id_new(snap);
	plan(12);
	buf_t hint = {0};
	int lean = 0, all = 1, stayed = 1;

	/* the latest line placed at every offset around the first 64 KB
	 * window's end: its "id" key before, across and after the cut */
	size_t from = 0;
	for (int k = 0; k < 100; k += 2) {
		char *dir = xasprintf("%s/w%d", top, k);
		store_t *s = setup(dir, 65536 - 200, &hint, &from);
		if (!s)
			return 1;
		struct stat st;
		char jn[128];
		store_crawl_journal(crawl, jn, sizeof jn);
		fstatat(s->dfd, jn, &st, 0);
		/* pad so that v2's line starts k - 70 bytes from the window's
		 * end: its "id" key (bytes 19 to 61 of the line) is cut there
		 * for k from 9 to 50 */
		size_t want = from + 65536 - 70 + k, cur = st.st_size;
		if (cur + overhead < want) {
			char other[ID_LEN + 1];
			id_new(other);
			put_snap(s, other, "filler", want - cur - overhead);
		}
		fstatat(s->dfd, jn, &st, 0);
		if ((size_t)st.st_size != want)
			printf("# v2 at %lld, not %zu\n", (long long)st.st_size, want);
		put_snap(s, snap, "v2", 10);
		store_close(s);
		char *t = lean_title(dir, hint.p, &lean);
		if (!t || strcmp(t, "v2") != 0) {
			all = 0;
			printf("# at %zu: got %s\n", want, t ? t : "(none)");
		}
		stayed &= lean;
		free(t);
		free(dir);
	}
	ok(all, "the latest version is found wherever the reading windows cut its line");
	ok(stayed, "and the store stayed lean (it never loaded the index)");

	/* a hint that is right: the same, lean */
	char *dir = xasprintf("%s/plain", top);
	store_t *s = setup(dir, 0, &hint, &from);
	store_close(s);
	char *t = lean_title(dir, hint.p, &lean);
	is_str(t, "v1", "a hint at the latest line gives it");
	ok(lean, "lean");
	free(t);

	/* a later line that names the id inside (an "id" key past its head) */
	s = setup(dir, 0, &hint, &from);
	char other[ID_LEN + 1];
	id_new(other);
	char *j = xasprintf("{\"type\":\"Snapshot\",\"id\":\"%s\",\"crawl_id\":\"%s\",\"url\":\"http://"
	    "127.0.0.1:9/x\",\"status\":\"queued\",\"retry_at\":null,\"title\":\"inner\",\"ref\":{\"id\":\"%s\"}}",
	    other, crawl, snap);
	put(s, j);
	free(j);
	store_close(s);
	t = lean_title(dir, hint.p, &lean);
	is_str(t, "v1", "a line naming the id inside is not taken for its version");
	ok(lean, "and the store stayed lean");
	free(t);

	/* a later version written by hand, as json.dumps writes it */
	free(dir);
	dir = xasprintf("%s/hand", top);
	s = setup(dir, 0, &hint, &from);
	char jn0[128];
	store_crawl_journal(crawl, jn0, sizeof jn0);
	int hfd = fs_open(s->dfd, jn0, O_WRONLY | O_APPEND, 0);
	char *hand = xasprintf("{\"type\": \"Snapshot\", \"id\": \"%s\", \"crawl_id\": \"%s\", "
	    "\"url\": \"http://127.0.0.1:9/\", \"status\": \"queued\", \"title\": \"by hand\"}\n", snap, crawl);
	ok(hfd >= 0 && write(hfd, hand, strlen(hand)) == (ssize_t)strlen(hand), "a version is appended by hand");
	close(hfd);
	free(hand);
	store_close(s);
	t = lean_title(dir, hint.p, &lean);
	is_str(t, "by hand", "a version written by hand, spaces and all, is the latest");
	free(t);

	/* a torn last line of the id (a writer killed mid-write) */
	free(dir);
	dir = xasprintf("%s/torn", top);
	s = setup(dir, 0, &hint, &from);
	char jn[128];
	store_crawl_journal(crawl, jn, sizeof jn);
	int fd = fs_open(s->dfd, jn, O_WRONLY | O_APPEND, 0);
	char *half = xasprintf("{\"type\":\"Snapshot\",\"id\":\"%s\",\"crawl_id\":\"%s\",\"title\":\"torn", snap,
	    crawl);
	ok(fd >= 0 && write(fd, half, strlen(half)) == (ssize_t)strlen(half), "a torn line is appended");
	close(fd);
	free(half);
	store_close(s);
	t = lean_title(dir, hint.p, &lean);
	is_str(t, "v1", "a torn last line is not a version");
	free(t);
	free(dir);

	/* a commit whose index line a crash lost: a reader replays it without
	 * the lock; then the same process commits to that journal */
	dir = xasprintf("%s/lost", top);
	s = setup(dir, 0, &hint, &from);
	store_crawl_journal(crawl, jn0, sizeof jn0);
	hfd = fs_open(s->dfd, jn0, O_WRONLY | O_APPEND, 0);
	hand = xasprintf("{\"type\":\"Snapshot\",\"id\":\"%s\",\"crawl_id\":\"%s\",\"url\":\"http://"
	    "127.0.0.1:9/\",\"status\":\"queued\",\"retry_at\":null,\"title\":\"lost\"}\n", snap, crawl);
	ok(hfd >= 0 && write(hfd, hand, strlen(hand)) == (ssize_t)strlen(hand), "a version without its index line");
	close(hfd);
	free(hand);
	rec_t r;
	if (store_get(s, snap, &r) == 0)   /* unlocked: replayed into memory */
		rec_free(&r);
	char other2[ID_LEN + 1];
	id_new(other2);
	put_snap(s, other2, "later", 10);  /* a locked commit to that journal */
	store_close(s);
	store_t fresh;
	t = NULL;
	if (store_open(&fresh, dir, 0) == 0) {
		if (store_get(&fresh, snap, &r) == 0) {
			t = rec_str(&r, "title");
			rec_free(&r);
		}
		store_close(&fresh);
	}
	is_str(t, "lost", "the next locker wrote what a reader had replayed: a fresh store sees it");
	free(t);
	free(dir);

	buf_free(&hint);
	int dfd = open("/tmp", O_RDONLY | O_DIRECTORY);
	fs_rmtree(dfd, top + 5);
	close(dfd);
	return done();
}
