/*
 * The store's index of expiries (expire.h): a crawl committed sealed gets
 * a line in index/sealed.jsonl at its modified_at, or, with its own
 * DELETE_AFTER, in index/expire/DAY.jsonl at its expiry; a crawl still
 * queued, a template, one whose own DELETE_AFTER is 0 or malformed gets
 * none; the line is written before the crawl's journal line (a commit
 * killed between the two leaves it); and
 * expire_rebuild() writes the same lines from crawls.jsonl, the position
 * at 0.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/err.h"
#include "base/fs.h"
#include "store/expire.h"
#include "store/store.h"
#include "tap.h"

/* Commit a Crawl with this status and these extra keys; its id in id. */
static void
put_crawl(store_t *s, char id[ID_LEN + 1], const char *status, const char *extra)
{
	id_new(id);
	char *j = xasprintf("{\"type\":\"Crawl\",\"id\":\"%s\",\"urls\":\"http://127.0.0.1:9/\","
	    "\"status\":\"%s\",\"retry_at\":null%s}", id, status, extra);
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

/* The line a crawl should have: at its modified_at plus secs. */
static char *
want_line(store_t *s, const char *id, long long secs, char day[11])
{
	rec_t r;
	if (store_get(s, id, &r) < 0)
		return xstrdup("(no record)");
	char iso[ISO_LEN + 1];
	clock_iso(rec_time(&r, "modified_at") + secs * 1000000, iso);
	rec_free(&r);
	snprintf(day, 11, "%.10s", iso);
	return xasprintf("{\"id\":\"%s\",\"at\":\"%s\"}\n", id, iso);
}

static char *
slurp(store_t *s, const char *rel)
{
	buf_t b = {0};
	if (fs_read(s->dfd, rel, &b) < 0) {
		buf_free(&b);
		return xstrdup("(none)");
	}
	char *t = xstrdup(buf_cstr(&b));
	buf_free(&b);
	return t;
}

/* The names in index/expire/, sorted, one a line. */
static char *
buckets(const char *dir)
{
	char *cmd = xasprintf("ls %s/index/expire 2>/dev/null | sort", dir);
	FILE *p = popen(cmd, "r");
	free(cmd);
	buf_t b = {0};
	char line[256];
	while (p && fgets(line, sizeof line, p))
		buf_adds(&b, line);
	if (p)
		pclose(p);
	char *t = xstrdup(buf_cstr(&b));
	buf_free(&b);
	return t;
}

int
main(void)
{
	char tmpl[] = "/tmp/abx-expire-test.XXXXXX";
	char *dir = mkdtemp(tmpl);
	if (!dir)
		return 1;
	setenv("ABX_SYNC", "0", 1);
	plan(9);
	store_t s;
	if (store_open(&s, dir, 1) < 0) {
		printf("Bail out! %s\n", s.errmsg);
		return 1;
	}
	char queued[ID_LEN + 1], plain[ID_LEN + 1], own[ID_LEN + 1], never[ID_LEN + 1];
	char tpl[ID_LEN + 1], bad[ID_LEN + 1], plain2[ID_LEN + 1];
	put_crawl(&s, queued, "queued", "");
	ok(!fs_exists(s.dfd, EXPIRE_SEALED_LOG) && !fs_exists(s.dfd, EXPIRE_DIR),
	   "a queued crawl gets no line");
	put_crawl(&s, plain, "sealed", ",\"config\":{}");
	put_crawl(&s, own, "sealed", ",\"config\":{\"DELETE_AFTER\":\"2d\"}");
	put_crawl(&s, never, "sealed", ",\"config\":{\"DELETE_AFTER\":\"0\"}");
	put_crawl(&s, tpl, "sealed", ",\"is_template\":true");
	put_crawl(&s, plain2, "sealed", "");
	fprintf(stderr, "# a warning of DELETE_AFTER=soon follows\n");
	put_crawl(&s, bad, "sealed", ",\"config\":{\"DELETE_AFTER\":\"soon\"}");

	char day[11], day2[11];
	char *l1 = want_line(&s, plain, 0, day2), *l2 = want_line(&s, plain2, 0, day2);
	char *want = xasprintf("%s%s", l1, l2);
	char *got = slurp(&s, EXPIRE_SEALED_LOG);
	is_str(got, want, "index/sealed.jsonl: the crawls without their own DELETE_AFTER, at their seal, "
	       "in order (no template, no DELETE_AFTER=0 or malformed)");
	free(got);
	char *lo = want_line(&s, own, 2 * 86400, day);
	char *rel = xasprintf("%s/%s.jsonl", EXPIRE_DIR, day);
	got = slurp(&s, rel);
	is_str(got, lo, "index/expire/%s.jsonl: the crawl with DELETE_AFTER=2d, at its expiry", day);
	free(got);
	char *bk = buckets(dir), *wbk = xasprintf("%s.jsonl\n", day);
	is_str(bk, wbk, "no other bucket");
	free(bk);

	/* the line before the journal line: a commit killed just before
	 * its journal write (the crash tests' fault point) leaves the line */
	buf_t jb = {0};
	fs_read(s.dfd, "crawls.jsonl", &jb);
	size_t jlen = jb.len;
	buf_free(&jb);
	fflush(stdout);
	pid_t pid = fork();
	if (pid == 0) {
		setenv("ABX_TEST_FAULT", "journal-before-write", 1);
		rec_t r;
		store_lock(&s);
		if (store_get(&s, queued, &r) == 0) {
			rec_set_str(&r, "status", "sealed");
			store_put(&s, &r);
		}
		store_unlock(&s);
		_exit(0);   /* not reached: the fault point kills it */
	}
	int st = 0;
	waitpid(pid, &st, 0);
	jb = (buf_t){0};
	fs_read(s.dfd, "crawls.jsonl", &jb);
	ok(WIFSIGNALED(st) && jb.len == jlen, "a commit killed before its journal write wrote no journal line");
	buf_free(&jb);
	got = slurp(&s, EXPIRE_SEALED_LOG);
	char *pfx = xasprintf("{\"id\":\"%s\",\"at\":", queued);
	ok(strncmp(got, want, strlen(want)) == 0 && strncmp(got + strlen(want), pfx, strlen(pfx)) == 0,
	   "but its crawl's line in index/sealed.jsonl is there: an extra line, never a missing one");
	free(pfx);
	free(got);

	/* the rebuild writes the same lines, and the position 0 */
	store_lock(&s);
	fs_rmtree(s.dfd, EXPIRE_DIR);
	unlinkat(s.dfd, EXPIRE_SEALED_LOG, 0);
	ok(expire_rebuild(&s) == 0, "expire_rebuild under the lock");
	store_unlock(&s);
	got = slurp(&s, EXPIRE_SEALED_LOG);
	char *got2 = slurp(&s, rel), *pos = slurp(&s, EXPIRE_SEALED_POS);
	is_str(got, want, "rebuilt: the same sealed log");
	ok(strcmp(got2, lo) == 0 && strcmp(pos, "0\n") == 0, "rebuilt: the same bucket, the position 0");
	free(got);
	free(got2);
	free(pos);
	free(l1);
	free(l2);
	free(lo);
	free(want);
	free(rel);
	free(wbk);
	store_close(&s);
	int tmp = open("/tmp", O_RDONLY | O_DIRECTORY);
	if (tmp >= 0) {
		fs_rmtree(tmp, dir + 5);
		close(tmp);
	}
	return done();
}
