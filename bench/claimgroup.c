/*
 * claimgroup — the group-committed claim of abx-tick's refill against an
 * ArchiveBox-style SQLite claim, measured in one run.
 *
 * abx-tick claims the free slots of a crawl (CRAWL_MAX_CONCURRENT_SNAPSHOTS,
 * 4 by default) in one durable commit (claim_ids / claim_next_batch); the
 * ArchiveBox runner claims one row per transaction.  This prints the cost
 * per claimed item of abx claiming 4 at a time, durably, against SQLite
 * (WAL, synchronous=FULL, SELECT next due + guarded UPDATE, one transaction
 * per claim), interleaved round by round, medians of per-round means.
 */
#include <fcntl.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "benchlib.h"
#include "store/claim.h"
#include "base/err.h"
#include "die.h"
#include "base/exitcodes.h"
#include "base/fs.h"
#include "store/record.h"
#include "store/store.h"

#define NDUE 4000
#define ROUNDS 15
#define PER 40            /* claims per round and side */
#define BATCH 4

static void
sq(sqlite3 *db, const char *sql)
{
	char *err = NULL;
	if (sqlite3_exec(db, sql, NULL, NULL, &err) != SQLITE_OK)
		die(EX_SOFT_, "sqlite: %s: %s", sql, err);
}

int
main(void)
{
	err_init("claimgroup");
	char root[] = "/tmp/abx-claimgroup.XXXXXX";
	if (!mkdtemp(root))
		diesys(EX_CANTCREAT_, "mkdtemp");
	char dir[256], dbp[256];
	snprintf(dir, sizeof dir, "%s/data", root);
	snprintf(dbp, sizeof dbp, "%s/q.sqlite3", root);

	store_t s;
	store_open(&s, dir, 1);
	int64_t past = clock_now() - 3600 * 1000000LL;
	rec_t crawl;
	record_crawl(&crawl, past, "http://127.0.0.1/\n", 0, "", "{}");
	char *cid = rec_str(&crawl, "id");
	s.durable = 0;
	store_lock(&s);
	store_put(&s, &crawl);
	for (int i = 0; i < NDUE; i++) {
		rec_t r;
		char url[64];
		snprintf(url, sizeof url, "http://127.0.0.1/%d", i);
		record_snapshot(&r, past + i, cid, url, 0, NULL, NULL, "");
		store_put(&s, &r);
		rec_free(&r);
	}
	store_unlock(&s);
	s.durable = 1;

	sqlite3 *db;
	if (sqlite3_open(dbp, &db) != SQLITE_OK)
		die(EX_SOFT_, "sqlite3_open");
	sq(db, "PRAGMA journal_mode=WAL; PRAGMA synchronous=FULL;"
	       "CREATE TABLE snapshot(id TEXT PRIMARY KEY, status TEXT, retry_at TEXT, created_at TEXT);"
	       "CREATE INDEX due ON snapshot(retry_at, created_at);");
	sq(db, "BEGIN");
	for (int i = 0; i < NDUE; i++) {
		char sql[256];
		snprintf(sql, sizeof sql, "INSERT INTO snapshot VALUES('s%06d','queued','2000-01-01T00:00:00Z','%06d')",
		    i, i);
		sq(db, sql);
	}
	sq(db, "COMMIT");
	sqlite3_stmt *sel, *upd;
	sqlite3_prepare_v2(db, "SELECT id, retry_at FROM snapshot WHERE retry_at <= ?1 ORDER BY retry_at, "
	                       "created_at LIMIT 1", -1, &sel, NULL);
	sqlite3_prepare_v2(db, "UPDATE snapshot SET status='started', retry_at=?1 WHERE id=?2 AND retry_at=?3",
	    -1, &upd, NULL);

	double a[ROUNDS], q[ROUNDS];
	claim_opts_t o = {3600 * 1000000LL, 0, 0};
	rec_t out[BATCH];
	int fds[BATCH];
	for (int r = -1; r < ROUNDS; r++) {   /* round -1 warms up */
		double t0 = bench_mono_us();
		int claimed = 0;
		while (claimed < PER) {
			int got = claim_next_batch(&s, "Snapshot", NULL, &o, BATCH, out, fds);
			if (got <= 0)
				die(EX_SOFT_, "the pool ran out");
			for (int k = 0; k < got; k++)
				rec_free(&out[k]);
			claimed += got;
		}
		double t1 = bench_mono_us();
		for (int i = 0; i < PER; i++) {
			sq(db, "BEGIN");
			sqlite3_bind_text(sel, 1, "2100-01-01", -1, SQLITE_STATIC);
			if (sqlite3_step(sel) != SQLITE_ROW)
				die(EX_SOFT_, "sqlite: nothing due");
			char id[32], ra[64];
			snprintf(id, sizeof id, "%s", (const char *)sqlite3_column_text(sel, 0));
			snprintf(ra, sizeof ra, "%s", (const char *)sqlite3_column_text(sel, 1));
			sqlite3_reset(sel);
			sqlite3_bind_text(upd, 1, "2200-01-01", -1, SQLITE_STATIC);
			sqlite3_bind_text(upd, 2, id, -1, SQLITE_TRANSIENT);
			sqlite3_bind_text(upd, 3, ra, -1, SQLITE_TRANSIENT);
			if (sqlite3_step(upd) != SQLITE_DONE || sqlite3_changes(db) != 1)
				die(EX_SOFT_, "sqlite: the guarded update failed");
			sqlite3_reset(upd);
			sq(db, "COMMIT");
		}
		double t2 = bench_mono_us();
		if (r >= 0) {
			a[r] = (t1 - t0) / claimed;
			q[r] = (t2 - t1) / PER;
		}
	}
	double am = quantile(a, ROUNDS, 0.5), qm = quantile(q, ROUNDS, 0.5);
	printf("claim: durable, group commit of %d (abx-tick's refill) / sqlite FULL one per transaction: "
	       "%.2fx (%.1f us vs %.1f us per claim) [target <= 0.75x: %s]\n",
	    BATCH, am / qm, am, qm, am / qm <= 0.75 ? "ok" : "MISSED");
	sqlite3_finalize(sel);
	sqlite3_finalize(upd);
	sqlite3_close(db);
	rec_free(&crawl);
	free(cid);
	store_close(&s);
	bench_rmtree(root);
	return 0;
}
