/*
 * What the index knows of lock files (store/nolock.h), on a real data
 * directory, by two stores (as two processes: separate descriptors, so
 * that their flocks conflict):
 *   - a record added with store_put_new is known to have no lock file, in
 *     the index line ("nl":1) that another store reads, and a claim then
 *     takes it without looking for one;
 *   - a lease taken by another store (a hook run by hand: no record says
 *     so) writes its lock line first: the first store then sees it busy;
 *   - an id leased before its record's first commit is not taken as free
 *     of a lock file;
 *   - after a restart of the host (another boot id), a lock file made
 *     without a line (lost to the crash, or made by an older abx): the
 *     old boot's bits are off, and a claim looks, and finds it busy;
 *   - a look under the lock that finds no file sets the bit; a
 *     compaction keeps the bits, a rebuild from the journals has none;
 *   - a lock lease taken on a known-free id makes its file and holds it.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <unistd.h>

#include "base/alloc.h"
#include "base/fs.h"
#include "store/claim.h"
#include "store/lease.h"
#include "store/nolock.h"
#include "store/record.h"
#include "store/store.h"
#include "store/store_int.h"
#include "tap.h"

static const claim_opts_t timelease = {3600 * INT64_C(1000000), 0, 0};

/* the index file's text */
static char *
index_text(const char *dir)
{
	char *p = xasprintf("%s/index/active.jsonl", dir), *t = NULL;
	FILE *f = fopen(p, "r");
	free(p);
	if (!f)
		return xstrdup("");
	size_t n = 0;
	ssize_t r = getdelim(&t, &n, '\0', f);
	fclose(f);
	if (r < 0) {
		free(t);
		return xstrdup("");
	}
	return t;
}

/* does the index have a line naming id that holds text? */
static int
index_line_has(const char *dir, const char *id, const char *text)
{
	char *t = index_text(dir);
	int found = 0;
	for (char *l = strtok(t, "\n"); l && !found; l = strtok(NULL, "\n"))
		found = strstr(l, id) && strstr(l, text);
	free(t);
	return found;
}

static int
known(store_t *s, const char *id)
{
	store_lock(s);
	int k = nolock_known(s, id);
	store_unlock(s);
	return k;
}

int
main(void)
{
	char dir[] = "/tmp/abx-nolock-test.XXXXXX";
	if (!mkdtemp(dir))
		return 1;
	setenv("ABX_SYNC", "0", 1);
	plan(22);
	store_t a, b;
	ok(store_open(&a, dir, 1) == 0, "a data directory");

	/* a crawl and five snapshots, added as abx-add adds them */
	enum { N = 5 };
	char cid[ID_LEN + 1], sid[N][ID_LEN + 1];
	int64_t now = clock_now();
	rec_t r;
	store_lock(&a);
	record_crawl(&r, now, "http://127.0.0.1:1/", 0, "", "{}");
	snprintf(cid, sizeof cid, "%s", rec_raw(&r, "id") + 1);
	store_put_new(&a, &r);
	rec_free(&r);
	for (int i = 0; i < N; i++) {
		char url[64];
		snprintf(url, sizeof url, "http://127.0.0.1:1/%d", i);
		record_snapshot(&r, now + i, cid, url, 0, NULL, "", "");
		snprintf(sid[i], sizeof sid[i], "%s", rec_raw(&r, "id") + 1);
		rec_set_time(&r, "retry_at", now - 1000000 + i);   /* due, in this order */
		store_put_new(&a, &r);
		rec_free(&r);
	}
	ok(store_unlock(&a) == 0, "added");

	ok(known(&a, sid[0]), "a snapshot just added is known to have no lock file");
	ok(index_line_has(dir, sid[0], "\"nl\":1"), "... and its index line says so");
	ok(store_open(&b, dir, 0) == 0 && known(&b, sid[0]), "another process reads that from the index");

	/* b leases S0 as a hook run by hand does (no record says so) */
	int bfd = -1;
	ok(lease_take(&b, sid[0], &bfd) == LEASE_TAKEN && bfd >= 0, "another process takes S0's lease");
	ok(index_line_has(dir, sid[0], "{\"lock\":"), "... its lock line is in the index");
	ok(!known(&a, sid[0]), "the first process learns that S0 has a lock file");
	store_lock(&a);
	ok(lease_busy(&a, sid[0]) == 1, "... and finds S0 busy");
	store_unlock(&a);
	rec_t out;
	int fd = -1;
	int rc = claim_next(&a, "Snapshot", NULL, &timelease, &out, &fd);
	ok(rc == CLAIM_OK && rec_streq(&out, "id", sid[1]), "a claim passes S0 over and takes S1");
	if (rc == CLAIM_OK)
		rec_free(&out);

	/* an id leased before its first commit */
	rec_t late;
	record_snapshot(&late, now, cid, "http://127.0.0.1:1/late", 0, NULL, "", "");
	char lid[ID_LEN + 1];
	snprintf(lid, sizeof lid, "%s", rec_raw(&late, "id") + 1);
	int lfd = -1;
	ok(lease_take(&a, lid, &lfd) == LEASE_TAKEN, "an id made here is leased before its record is committed");
	store_lock(&a);
	store_put_new(&a, &late);
	store_unlock(&a);
	rec_free(&late);
	ok(!known(&a, lid) && !index_line_has(dir, lid, "\"nl\":1"),
	    "... its record is not said to have no lock file");
	lease_drop(lfd);

	/* a lock lease on a known-free id: no look, the file made and held */
	ok(known(&a, sid[4]), "S4 is known to have no lock file");
	claim_opts_t hold = timelease;
	hold.hold = 1;
	fd = -1;
	rc = claim_id(&a, sid[4], &hold, &out, &fd);
	char *p4 = xasprintf("locks/%s", sid[4]);
	int other = fs_open(a.dfd, p4, O_RDWR, 0);
	ok(rc == CLAIM_OK && fd >= 0 && other >= 0 && flock(other, LOCK_EX | LOCK_NB) < 0,
	    "a lock lease on S4 makes its lock file and holds it");
	ok(!known(&b, sid[4]), "... and the other process knows S4 has one now");
	if (other >= 0)
		close(other);
	free(p4);
	if (rc == CLAIM_OK)
		rec_free(&out);
	if (fd >= 0)
		close(fd);

	/* S2: the host restarts (another boot id), and a lock file for S2 is
	 * there without its line (a crash of the host lost the line, not the
	 * file), held: the old boot's lines, checked by their marks, say S2
	 * has none, but no bit of another boot's is trusted */
	ok(known(&a, sid[2]), "S2 is known to have no lock file");
	char *lp = xasprintf("locks/%s", sid[2]);
	int hfd = fs_open(a.dfd, lp, O_RDWR | O_CREAT, 0644);
	ok(hfd >= 0 && flock(hfd, LOCK_EX | LOCK_NB) == 0, "a lock file for S2 made and held without a line");
	free(lp);
	store_t n;
	setenv("ABX_TEST_BOOT_ID", "00000000-0000-4000-8000-000000000000", 1);
	int nok = store_open(&n, dir, 0) == 0;
	unsetenv("ABX_TEST_BOOT_ID");
	ok(nok && !known(&n, sid[2]), "after a restart the old boot's bits are not trusted");
	fd = -1;
	ok(claim_id(&n, sid[2], &timelease, &out, &fd) == CLAIM_BUSY, "a claim of S2 looks, and finds it held");
	store_close(&n);
	close(hfd);

	/* back in the first boot, with the index rebuilt from the journals
	 * (no bit): a look under the lock that finds no file sets a bit,
	 * which a compaction keeps and a rebuild does not */
	store_lock(&a);
	ok(store_rebuild_index(&a) == 0 && !nolock_known(&a, sid[3]) &&
	    lease_busy(&a, sid[3]) == 0 && nolock_known(&a, sid[3]),
	    "a look that finds no lock file for S3 sets its bit");
	index_write_full(&a);
	store_unlock(&a);
	store_t c;
	ok(store_open(&c, dir, 0) == 0 && known(&c, sid[3]) && !known(&c, sid[0]), "a compaction keeps the bits");
	store_lock(&c);
	store_rebuild_index(&c);
	ok(!nolock_known(&c, sid[3]), "a rebuild from the journals has none");
	store_unlock(&c);
	store_close(&c);

	if (bfd >= 0)
		close(bfd);
	store_close(&b);
	store_close(&a);
	int dfd = open("/tmp", O_RDONLY | O_DIRECTORY);
	fs_rmtree(dfd, dir + 5);
	close(dfd);
	return done();
}
