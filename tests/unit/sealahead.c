/*
 * Unit tests of seal_snapshot_ahead() (seal.h, seal.c): abx-tick's seal of
 * a snapshot its worker ran, whose sealed version and index files are made
 * before the store lock from seen, the record as read without it, and
 * committed under the lock only if the stored record is still seen, line
 * for line (store_put_as_is: the files show the modified_at committed).
 * Otherwise it must fall back to the seal made under the lock, so that
 * neither the record nor the files carry a version the store no longer
 * has:
 *   - seen is the stored record: the ahead path (a child armed with
 *     ABX_TEST_FAULT=seal-ahead is killed there, before the lock, leaving
 *     the files written and the record unsealed; a later seal seals it);
 *     SEAL_OK, sealed, index.jsonl's first line has the stored modified_at;
 *   - seen differs (another title; or the store updated after seen was
 *     read): SEAL_OK by the fallback; the record and every index file show
 *     the store's title, never seen's;
 *   - seen paused, or a result still queued: the fallback, taken before any
 *     file is written (the armed child is not killed); the queued result
 *     is settled "skipped" as seal_snapshot_with settles it.
 * With ABX_DURABILITY=perfile, so that the ahead path's fsyncs run too.
 * After a fallback *out is the record committed, and a text.txt written
 * ahead from seen is removed where the fallback's version has none (two
 * bugs this test found in the first version of the change).
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/err.h"
#include "base/fs.h"
#include "seal/seal.h"
#include "store/store.h"
#include "tap.h"

static char crawl[ID_LEN + 1], snap[ID_LEN + 1], res[ID_LEN + 1];
static char *dirs[16];
static int ndirs;
static int keep;

static void
parse(rec_t *r, const char *j)
{
	if (rec_parse(r, j, strlen(j)) < 0) {
		fprintf(stderr, "bad test record: %s\n", j);
		exit(2);
	}
}

static void
put(store_t *s, rec_t *r)
{
	store_lock(s);
	store_put(s, r);
	store_unlock(s);
}

/* A fresh data directory: a started crawl, its started snapshot whose
 * hook wrote tw/out.txt, and that hook's result with status ar_status
 * (in *ar, as a worker gives it).  The store open in s. */
static const char *
setup(store_t *s, const char *ar_status, rec_t *ar)
{
	char tmpl[] = "/tmp/abx-sealahead-test.XXXXXX";
	char *top = mkdtemp(tmpl);
	if (!top || ndirs == 16 || store_open(s, top, 1) < 0) {
		fprintf(stderr, "cannot make a data directory\n");
		exit(2);
	}
	top = dirs[ndirs++] = xstrdup(top);
	id_new(crawl), id_new(snap), id_new(res);
	rec_t r;
	char *j = xasprintf("{\"type\":\"Crawl\",\"id\":\"%s\",\"urls\":\"http://127.0.0.1:9/\",\"max_depth\":0,"
	    "\"status\":\"started\",\"retry_at\":null}", crawl);
	parse(&r, j);
	put(s, &r);
	rec_free(&r), free(j);
	j = xasprintf("{\"type\":\"Snapshot\",\"id\":\"%s\",\"crawl_id\":\"%s\",\"url\":\"http://127.0.0.1:9/\","
	    "\"timestamp\":\"1796270790.729689\",\"title\":null,\"depth\":0,\"status\":\"started\","
	    "\"retry_at\":null,\"has_results\":true}", snap, crawl);
	parse(&r, j);
	put(s, &r);
	rec_free(&r), free(j);
	char *d = xasprintf("crawls/%s/%s/tw", crawl, snap);
	char *f = xasprintf("%s/out.txt", d);
	if (fs_mkdirs(s->dfd, d) < 0 || fs_write_new(s->dfd, f, "written\n", 8) < 0) {
		fprintf(stderr, "cannot write %s\n", f);
		exit(2);
	}
	free(d), free(f);
	j = xasprintf("{\"type\":\"ArchiveResult\",\"id\":\"%s\",\"crawl_id\":\"%s\",\"snapshot_id\":\"%s\","
	    "\"plugin\":\"tw\",\"hook_name\":\"on_Snapshot__10_tw\",\"status\":\"%s\",\"output_str\":"
	    "\"tw/out.txt\",\"start_ts\":\"2026-12-03T04:06:30.781540Z\",\"end_ts\":\"2026-12-03T04:06:30."
	    "782844Z\",\"retry_at\":null}", res, crawl, snap, ar_status);
	parse(ar, j);
	put(s, ar);
	free(j);
	return top;
}

/* The stored snapshot (0), in *r. */
static int
stored(store_t *s, rec_t *r)
{
	return store_get(s, snap, r);
}

/* The first line of the snapshot's index.jsonl, parsed (0), or -1. */
static int
index_first(store_t *s, rec_t *r)
{
	buf_t b = {0};
	char *p = xasprintf("crawls/%s/%s/index.jsonl", crawl, snap);
	int rc = fs_read(s->dfd, p, &b);
	free(p);
	if (rc < 0 || !b.len) {
		buf_free(&b);
		return -1;
	}
	const char *nl = memchr(b.p, '\n', b.len);
	rc = rec_parse(r, b.p, nl ? (size_t)(nl - b.p) : b.len);
	buf_free(&b);
	return rc;
}

/* Whether field key of a and b is the same raw JSON. */
static int
same_field(const rec_t *a, const rec_t *b, const char *key)
{
	const char *x = rec_raw(a, key), *y = rec_raw(b, key);
	return x && y && strcmp(x, y) == 0;
}

/* Whether the snapshot's file name holds text. */
static int
file_has(store_t *s, const char *name, const char *text)
{
	buf_t b = {0};
	char *p = xasprintf("crawls/%s/%s/%s", crawl, snap, name);
	int has = fs_read(s->dfd, p, &b) == 0 && b.len && memmem(b.p, b.len, text, strlen(text));
	free(p), buf_free(&b);
	return has;
}

/* The status of result res in the crawl's journal (its last line), or
 * NULL. */
static char *
result_status(store_t *s)
{
	buf_t b = {0};
	char *p = xasprintf("crawls/%s/snapshots.jsonl", crawl);
	char *st = NULL;
	if (fs_read(s->dfd, p, &b) == 0) {
		buf_addc(&b, 0);
		for (char *l = b.p, *e; l && *l; l = e ? e + 1 : NULL) {
			e = strchr(l, '\n');
			rec_t r;
			if (strstr(l, res) && rec_parse(&r, l, e ? (size_t)(e - l) : strlen(l)) == 0) {
				if (rec_streq(&r, "id", res))
					free(st), st = rec_str(&r, "status");
				rec_free(&r);
			}
		}
	}
	free(p), buf_free(&b);
	return st;
}

/* Run seal_snapshot_ahead in a child armed with ABX_TEST_FAULT=seal-ahead,
 * on the data directory top (its own store): 1 if the child was killed at
 * the fault point (the ahead path: files written, before the lock), 0 if
 * it returned SEAL_OK, -1 otherwise. */
static int
killed_ahead(const char *top, const rec_t *seen, const rec_t *recs, size_t n)
{
	fflush(stdout);
	pid_t pid = fork();
	if (pid == 0) {
		setenv("ABX_TEST_FAULT", "seal-ahead", 1);
		store_t c;
		if (store_open(&c, top, 0) < 0)
			_exit(3);
		int rc = seal_snapshot_ahead(&c, snap, seen, NULL, recs, n, -1);
		store_close(&c);
		_exit(rc == SEAL_OK ? 0 : 4);
	}
	int st;
	if (pid < 0 || waitpid(pid, &st, 0) != pid)
		return -1;
	if (WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL)
		return 1;
	return WIFEXITED(st) && WEXITSTATUS(st) == 0 ? 0 : -1;
}

/* seen is the stored record */
static void
test_same(void)
{
	store_t s;
	rec_t ar, seen, r, first, out = {0};
	/* the path taken: killed at seal-ahead, the files written first */
	setup(&s, "succeeded", &ar);
	stored(&s, &seen);
	int k = killed_ahead(s.dir, &seen, &ar, 1);
	ok(k == 1, "seen is the stored record: the files are made before the lock (killed at seal-ahead: %d)", k);
	ok(stored(&s, &r) == 0 && !rec_streq(&r, "status", "sealed"), "the kill leaves it unsealed");
	rec_free(&r);
	ok(index_first(&s, &first) == 0, "with its index.jsonl written");
	rec_free(&first);
	/* a seal after that kill rewrites them */
	int rc = seal_snapshot_ahead(&s, snap, &seen, NULL, &ar, 1, -1);
	ok(rc == SEAL_OK && stored(&s, &r) == 0 && rec_streq(&r, "status", "sealed"),
	    "a seal after the kill seals it (%d)", rc);
	ok(index_first(&s, &first) == 0 && same_field(&first, &r, "modified_at") &&
	       rec_streq(&first, "status", "sealed"),
	    "and index.jsonl's first line is the sealed record (modified_at)");
	rec_free(&first), rec_free(&r), rec_free(&seen), rec_free(&ar);
	store_close(&s);

	/* a first seal */
	setup(&s, "succeeded", &ar);
	stored(&s, &seen);
	rc = seal_snapshot_ahead(&s, snap, &seen, &out, &ar, 1, -1);
	ok(rc == SEAL_OK, "seal_snapshot_ahead returns SEAL_OK (%d)", rc);
	ok(stored(&s, &r) == 0 && rec_streq(&r, "status", "sealed") && rec_streq(&r, "sealed_reason", "archived"),
	    "the snapshot is sealed (archived)");
	ok(index_first(&s, &first) == 0 && same_field(&first, &r, "modified_at"),
	    "index.jsonl's first line has the stored modified_at");
	ok(rec_streq(&first, "status", "sealed") && same_field(&first, &r, "output_size") &&
	       same_field(&first, &r, "downloaded_at"),
	    "and is the sealed version (status, output_size, downloaded_at)");
	ok(rec_streq(&out, "status", "sealed") && same_field(&out, &r, "modified_at"),
	    "*out is the record committed");
	ok(file_has(&s, "index.json", snap) && file_has(&s, "index.html", "<!doctype html"),
	    "index.json and index.html are written");
	buf_t b = {0};
	ok(fs_read(s.dfd, "index.jsonl", &b) == 0 && b.len && memmem(b.p, b.len, snap, strlen(snap)),
	    "the site's index.jsonl has the snapshot's row");
	buf_free(&b);
	rec_free(&first), rec_free(&r), rec_free(&seen), rec_free(&ar), rec_free(&out);
	store_close(&s);
}

/* seen is not the stored record */
static void
test_changed(void)
{
	store_t s;
	rec_t ar, seen, r, first, out = {0};
	/* seen has a title the store never had */
	setup(&s, "succeeded", &ar);
	stored(&s, &seen);
	rec_set_str(&seen, "title", "seen title");
	int rc = seal_snapshot_ahead(&s, snap, &seen, &out, &ar, 1, -1);
	ok(rc == SEAL_OK, "seen with another title: SEAL_OK by the fallback (%d)", rc);
	ok(stored(&s, &r) == 0 && rec_streq(&r, "status", "sealed") && rec_isnull(&r, "title"),
	    "the stored record is sealed, with the store's title (null), not seen's");
	ok(index_first(&s, &first) == 0 && rec_isnull(&first, "title") && same_field(&first, &r, "modified_at"),
	    "index.jsonl's first line is the stored record (title null, its modified_at)");
	ok(!file_has(&s, "index.json", "seen title") && !file_has(&s, "index.html", "seen title") &&
	       !file_has(&s, "index.jsonl", "seen title"),
	    "index.json, index.html, index.jsonl do not show seen's title");
	/* the fallback has no text.txt to write (no title, no page): the one
	 * written ahead from seen is removed */
	ok(!file_has(&s, "text.txt", "seen title"), "nor does text.txt");
	ok(rec_streq(&out, "status", "sealed") && rec_isnull(&out, "title"),
	    "*out is the record committed, as seal_snapshot_with gives it");
	rec_free(&first), rec_free(&r), rec_free(&seen), rec_free(&ar), rec_free(&out);
	store_close(&s);

	/* the store updated (abx-ctl) after seen was read */
	setup(&s, "succeeded", &ar);
	stored(&s, &seen);
	rec_set_str(&seen, "title", "seen title");
	stored(&s, &r);
	rec_set_str(&r, "title", "store title");
	put(&s, &r);
	rec_free(&r);
	rc = seal_snapshot_ahead(&s, snap, &seen, NULL, &ar, 1, -1);
	ok(rc == SEAL_OK, "the store updated after seen was read: SEAL_OK by the fallback (%d)", rc);
	ok(stored(&s, &r) == 0 && rec_streq(&r, "status", "sealed") && rec_streq(&r, "title", "store title"),
	    "the stored sealed record has the store's title");
	ok(index_first(&s, &first) == 0 && rec_streq(&first, "title", "store title") &&
	       same_field(&first, &r, "modified_at"),
	    "index.jsonl's first line shows the store's title and modified_at");
	ok(file_has(&s, "index.html", "store title") && !file_has(&s, "index.html", "seen title") &&
	       file_has(&s, "text.txt", "store title") && !file_has(&s, "text.txt", "seen title") &&
	       !file_has(&s, "index.json", "seen title"),
	    "index.html, text.txt and index.json show the store's title, not seen's");
	rec_free(&first), rec_free(&r), rec_free(&seen), rec_free(&ar);
	store_close(&s);
}

/* seen paused; a result still queued */
static void
test_fallback(void)
{
	store_t s;
	rec_t ar, seen, r, first;
	setup(&s, "succeeded", &ar);
	stored(&s, &seen);
	rec_set_str(&seen, "status", "paused");
	int k = killed_ahead(s.dir, &seen, &ar, 1);
	ok(k == 0, "seen paused: no file is made before the lock (not killed at seal-ahead: %d)", k);
	ok(stored(&s, &r) == 0 && rec_streq(&r, "status", "sealed") && index_first(&s, &first) == 0 &&
	       same_field(&first, &r, "modified_at"),
	    "the seal under the lock seals the stored (started) record, its files matching it");
	rec_free(&first), rec_free(&r), rec_free(&seen), rec_free(&ar);
	store_close(&s);

	setup(&s, "queued", &ar);
	stored(&s, &seen);
	k = killed_ahead(s.dir, &seen, &ar, 1);
	ok(k == 0, "a result still queued: no file is made before the lock (%d)", k);
	rec_free(&seen), rec_free(&ar);
	store_close(&s);

	setup(&s, "queued", &ar);
	stored(&s, &seen);
	int rc = seal_snapshot_ahead(&s, snap, &seen, NULL, &ar, 1, -1);
	ok(rc == SEAL_OK, "a result still queued: SEAL_OK by the fallback (%d)", rc);
	ok(stored(&s, &r) == 0 && rec_streq(&r, "status", "sealed"), "the snapshot is sealed");
	char *st = result_status(&s);
	is_str(st, "skipped", "the queued result is settled skipped");
	free(st);
	ok(file_has(&s, "index.jsonl", "\"status\":\"skipped\"") && !file_has(&s, "index.jsonl", "\"status\":\"queued\""),
	    "and index.jsonl shows it skipped");
	ok(index_first(&s, &first) == 0 && same_field(&first, &r, "modified_at"),
	    "index.jsonl's first line has the stored modified_at");
	rec_free(&first), rec_free(&r), rec_free(&seen), rec_free(&ar);
	store_close(&s);
}

/* "fallback-durable": for tests/seal-ahead.sh under strace, which checks
 * that the files a fallback makes again are fsync'd after they are made,
 * though the ones written ahead were fsync'd and said so (the tick's case:
 * store_trees_durable); prints the data directory, keeps it. */
static int
fallback_durable(void)
{
	store_t s;
	rec_t ar, seen;
	const char *top = setup(&s, "succeeded", &ar);
	stored(&s, &seen);
	rec_set_str(&seen, "title", "seen title");
	store_trees_durable(&s, snap);
	int rc = seal_snapshot_ahead(&s, snap, &seen, NULL, &ar, 1, -1);
	printf("%s/crawls/%s/%s\n", top, crawl, snap);
	rec_free(&seen), rec_free(&ar);
	store_close(&s);
	return rc == SEAL_OK ? 0 : 1;
}

int
main(int argc, char **argv)
{
	setenv("ABX_DURABILITY", "perfile", 1);
	unsetenv("ABX_TEST_FAULT");
	if (argc > 1 && strcmp(argv[1], "fallback-durable") == 0)
		return fallback_durable();
	plan(30);
	test_same();
	test_changed();
	test_fallback();
	keep = getenv("SEALAHEAD_KEEP") != NULL;   /* to look at them after a failure */
	for (int i = 0; i < ndirs; i++) {
		if (keep) {
			printf("# kept %s\n", dirs[i]);
			continue;
		}
		char *rm = xasprintf("rm -rf '%s'", dirs[i]);
		if (system(rm) != 0)
			fprintf(stderr, "# could not remove %s\n", dirs[i]);
		free(rm), free(dirs[i]);
	}
	return done();
}
