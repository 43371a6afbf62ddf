/*
 * Armed journal descriptors (store/storefd.h): from its second commit on,
 * a process holds a shared flock on each journal it writes, and a commit
 * that writes armed journals only does not re-assert the store lock.
 *
 * Here, on a local directory (no lock is ever lost there, so the loss is
 * made by hand, as GlusterFS's client.strict-locks makes it: the store
 * lock taken by another, the armed descriptor failing every call):
 *   - the first commit arms nothing, the second arms the crawl's journal
 *     (another descriptor can share it, not take it);
 *   - a commit of armed journals only does not re-assert the store lock
 *     (shown with the lock taken by another and the descriptor still good:
 *     the commit goes through, trusting the descriptor);
 *   - with the descriptor failing too, the commit writes nothing and
 *     fails 75 ("lost the store lock");
 *   - a process's first commit re-asserts: a lost lock fails it (75).
 *
 * With $ABX_ARMED_DIR (tests/gluster-armed.sh, on a GlusterFS volume),
 * the loss is the real one, a brick restarted, at two moments; the test
 * waits for $ABX_ARMED_DIR/../go.N after writing ../ready.N:
 *   1. between two transactions: the next commit goes through, once (the
 *      dead descriptor is opened again);
 *   2. inside a transaction: its commit writes nothing and fails 75.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "base/alloc.h"
#include "base/exitcodes.h"
#include "base/fs.h"
#include "store/claim.h"
#include "store/record.h"
#include "store/store.h"
#include "store/store_int.h"
#include "tap.h"

static const claim_opts_t timelease = {3600 * INT64_C(1000000), 0, 0};
static char cid[ID_LEN + 1], journal[128];

/* a crawl and n due snapshots, added as abx-add adds them */
static void
add(store_t *s, int n)
{
	int64_t now = clock_now();
	rec_t r;
	store_lock(s);
	record_crawl(&r, now, "http://127.0.0.1:1/", 0, "", "{}");
	snprintf(cid, sizeof cid, "%s", rec_raw(&r, "id") + 1);
	store_put_new(s, &r);
	rec_free(&r);
	for (int i = 0; i < n; i++) {
		char url[64];
		snprintf(url, sizeof url, "http://127.0.0.1:1/%d", i);
		record_snapshot(&r, now, cid, url, 0, NULL, "", "");
		rec_set_time(&r, "retry_at", now - 1000000 + i);
		store_put_new(s, &r);
		rec_free(&r);
	}
	store_unlock(s);
	store_crawl_journal(cid, journal, sizeof journal);
}

static int
claim1(store_t *s)
{
	rec_t out;
	int fd = -1;
	int rc = claim_next(s, "Snapshot", NULL, &timelease, &out, &fd);
	if (rc == CLAIM_OK)
		rec_free(&out);
	return rc;
}

/* the kept descriptor of the crawl's journal, and whether it is armed */
static int
jfd_of(store_t *s, int *armed)
{
	for (int i = 0; i < s->njfd; i++)
		if (strcmp(s->jfd[i].j, journal) == 0) {
			*armed = s->jfd[i].armed;
			return s->jfd[i].fd;
		}
	*armed = 0;
	return -1;
}

/* the journal's size (a client reconnecting to a restarted brick fails
 * calls for a moment: tried for up to 30 s) */
static off_t
jsize(store_t *s)
{
	struct stat st;
	struct timespec ts = {0, 100000000};
	for (int i = 0; i < 300; i++) {
		if (fstatat(s->dfd, journal, &st, 0) == 0)
			return st.st_size;
		nanosleep(&ts, NULL);
	}
	return -1;
}

/* another process takes the store lock from under s */
static int
steal(store_t *s)
{
	flock(s->lockfd, LOCK_UN);
	int o = fs_open(s->dfd, "locks/store.lock", O_RDWR, 0);
	if (o >= 0 && flock(o, LOCK_EX | LOCK_NB) < 0) {
		close(o);
		o = -1;
	}
	return o;
}

/* the first snapshot's record, read under the lock: 0, or -1 */
static int
first(store_t *s, rec_t *r)
{
	ient_t *v;
	size_t n = store_active(s, "Snapshot", &v);
	int rc = n > 0 && store_get(s, v[0].id, r) == 0 ? 0 : -1;
	free(v);
	return rc;
}

/* a new version of it, staged and committed: 0, or the store's exit code */
static int
commit(store_t *s, rec_t *r)
{
	rec_set_str(r, "notes", "armed");
	store_put(s, r);
	rec_free(r);
	return store_unlock(s) < 0 ? s->err : 0;
}

static int
commit_one(store_t *s)
{
	rec_t r;
	return first(s, &r) < 0 ? EX_SOFT_ : commit(s, &r);
}

static void
await(const char *dir, int k)
{
	char *ready = xasprintf("%s/../ready.%d", dir, k), *go = xasprintf("%s/../go.%d", dir, k);
	close(open(ready, O_WRONLY | O_CREAT, 0644));
	struct timespec ts = {0, 100000000};
	for (int i = 0; i < 1800 && access(go, F_OK) < 0; i++)
		nanosleep(&ts, NULL);
	free(ready);
	free(go);
}

static int
rig(const char *dir)
{
	plan(8);
	store_t s;
	ok(store_open(&s, dir, 1) == 0, "a data directory on the volume");
	s.arm = 1;
	add(&s, 4);
	int armed;
	ok(claim1(&s) == CLAIM_OK && jfd_of(&s, &armed) >= 0 && armed,
	    "an add and a claim: the crawl's journal is armed");

	/* 1. the brick restarts between two transactions (meanwhile the
	 * journal cannot even be stat'ed on this host: its armed descriptor
	 * is open, and failing) */
	off_t before = jsize(&s);
	await(dir, 1);
	ok(before > 0 && claim1(&s) == CLAIM_OK, "after a restart between transactions a claim goes through");
	ok(jsize(&s) > before, "... its line is in the journal, which can be stat'ed again");
	ok(claim1(&s) == CLAIM_OK && jfd_of(&s, &armed) >= 0 && armed,
	    "the journal, opened again, is armed again by the next claim");

	/* 2. the brick restarts inside a transaction, before its commit */
	store_lock(&s);
	before = jsize(&s);
	rec_t r;
	int rc = first(&s, &r);
	await(dir, 2);
	if (rc == 0)
		rc = commit(&s, &r);
	ok(rc == EX_TEMPFAIL_ && strstr(s.errmsg, "lost the store lock"),
	    "after a restart inside a transaction its commit fails 75 (%d: %s)", rc, s.errmsg);
	ok(strstr(s.errmsg, "a write to"), "... found by its write to the armed journal");
	ok(jsize(&s) == before, "... and writes nothing to the journal (which can be stat'ed again)");
	store_close(&s);
	return done();
}

int
main(void)
{
	setenv("ABX_SYNC", "0", 1);
	const char *rd = getenv("ABX_ARMED_DIR");
	if (rd)
		return rig(rd);
	char dir[] = "/tmp/abx-armed-test.XXXXXX";
	if (!mkdtemp(dir))
		return 1;
	plan(11);
	store_t s;
	ok(store_open(&s, dir, 1) == 0, "a data directory");
	s.arm = 1;
	add(&s, 6);
	int armed, fd;
	ok((fd = jfd_of(&s, &armed)) >= 0 && !armed, "a process's first commit (the add) arms nothing");
	ok(claim1(&s) == CLAIM_OK && (fd = jfd_of(&s, &armed)) >= 0 && armed,
	    "its second (a claim) arms the crawl's journal");
	int o = fs_open(s.dfd, journal, O_RDONLY, 0);
	ok(o >= 0 && flock(o, LOCK_EX | LOCK_NB) < 0 && errno == EWOULDBLOCK,
	    "... which another descriptor cannot lock alone");
	ok(flock(o, LOCK_SH | LOCK_NB) == 0, "... and can share");
	close(o);

	/* the lock taken by another, the descriptor still good: no re-assert */
	store_lock(&s);
	int other = steal(&s);
	off_t before = jsize(&s);
	ok(other >= 0 && commit_one(&s) == 0 && jsize(&s) > before,
	    "a commit of armed journals only does not re-assert the store lock");
	close(other);

	/* the lock taken by another, and the descriptor failing as one whose
	 * lock was lost: nothing written, 75 */
	store_lock(&s);
	other = steal(&s);
	fd = jfd_of(&s, &armed);
	int ro = fs_open(s.dfd, journal, O_RDONLY, 0);
	ok(armed && ro >= 0 && dup2(ro, fd) == fd, "the armed descriptor made to fail writes");
	close(ro);
	before = jsize(&s);
	int rc = commit_one(&s);
	ok(rc == EX_TEMPFAIL_ && strstr(s.errmsg, "lost the store lock") && strstr(s.errmsg, "a write to"),
	    "a commit whose armed journal fails, the lock lost, fails 75 (%d: %s)", rc, s.errmsg);
	ok(jsize(&s) == before, "... and writes nothing");
	close(other);
	store_close(&s);

	/* a process's first commit re-asserts */
	store_t t;
	ok(store_open(&t, dir, 0) == 0, "another process");
	t.arm = 1;
	store_lock(&t);
	other = steal(&t);
	before = jsize(&t);
	rc = commit_one(&t);
	ok(rc == EX_TEMPFAIL_ && jsize(&t) == before, "its first commit under a lost lock fails 75, writing nothing");
	close(other);
	store_close(&t);
	int dfd = open("/tmp", O_RDONLY | O_DIRECTORY);
	fs_rmtree(dfd, dir + 5);
	close(dfd);
	return done();
}
