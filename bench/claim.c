/*
 * claim.c — benchmark of the due queue (part of make bench).
 *
 * Prints, as ratios measured in the same run (the VM is noisy, so absolute
 * microseconds mean little; see reference/limits.md):
 *
 *   1. a durable claim_next() (time lease, hold = 0, fdatasync on) in a
 *      data dir holding 100k sealed snapshots against one holding none:
 *        spread   1000 sealed crawls x 100 sealed snapshots;
 *        one      the crawl that holds the due snapshots also holds the
 *                 100k sealed ones (the hard case for a per-crawl journal);
 *        one-raw  the same, with the journal and the index as a long-lived
 *                 dir leaves them when nothing compacts them (every sealed
 *                 snapshot left a queued, a started and a "gone" line);
 *   2. the same claim against ArchiveBox's: SELECT the next due row, then
 *      the guarded UPDATE, one transaction, SQLite WAL, synchronous=FULL,
 *      prepared statements, 100k sealed rows plus the due ones, an index
 *      on (retry_at, created_at);
 *   3. the floors both stand on, in the same rounds: a 512-byte O_APPEND
 *      write + fdatasync (what a durable journal append costs), and a
 *      512-byte pwrite into a preallocated file + fdatasync (what a WAL
 *      that is overwritten in place costs).
 *
 * Method.
 *   1. Setup goes through the real store (store_put in batches of 10k,
 *      non-durable): each sealed snapshot (and crawl) is written three
 *      times, queued, started with a lease, sealed, as a real one is.
 *      spread and one are then compacted (store_compact) and their index
 *      rebuilt (store_rebuild_index), as the repair pass would; one-raw
 *      is left as it is.
 *   2. Each variant has its own pool of due snapshots (created an hour ago,
 *      retry_at = created_at) and claims k of them per round; a claimed
 *      one leaves the pool (its lease lasts an hour).
 *   3. Rounds interleave the variants claim by claim (one claim of each,
 *      in turn forward and backward, k times), so that all of them see the
 *      same state of a noisy machine; the first w rounds are a warm-up.  A
 *      figure is the median over r rounds of the round's mean; a ratio is
 *      the ratio of two such medians (the median and spread of the
 *      per-round ratios are printed beside it).
 *
 * Nothing is spawned.  Everything lives in a temp dir under ${TMPDIR:-/tmp}
 * (about 250 MB at the defaults), removed at exit and on SIGINT/SIGTERM;
 * its filesystem is printed, since fdatasync on tmpfs costs nothing.  At
 * the end each store must hold exactly the claims made (started) and the
 * rest of its pool (queued), or the run fails.
 *
 * Usage: claim [-r rounds] [-k claims-per-round] [-w warmup-rounds] [-n sealed]
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <signal.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/vfs.h>
#include <time.h>
#include <unistd.h>

#include "base/buf.h"
#include "store/claim.h"
#include "base/clock.h"
#include "benchlib.h"
#include "base/err.h"
#include "die.h"
#include "base/exitcodes.h"
#include "base/fs.h"
#include "base/ids.h"
#include "base/json.h"
#include "store/lease.h"
#include "store/store.h"

#define USAGE "usage: claim [-r rounds] [-k claims-per-round] [-w warmup-rounds] [-n sealed]"
#define HOUR INT64_C(3600000000)
#define DAY (24 * HOUR)
#define BATCH 10000
#define SPREAD_PER 100          /* sealed snapshots per sealed crawl */

enum { V_NONE, V_SPREAD, V_ONE, V_RAW, V_SQL, V_APPEND, V_INPLACE, NVAR };
#define IS_ABX(i) ((i) < V_SQL)
#define FLOOR_LINE 512
#define FLOOR_FILE (16 << 20)

typedef struct {
	const char *name;
	char what[128];
	char dir[4200];
	store_t s;
	int fd;                         /* the floors' file */
	int64_t off;
	sqlite3 *db;
	sqlite3_stmt *begin, *sel, *upd, *commit;
	double *mean;                   /* µs per claim, per timed round */
	double first_us;                /* the first claim after opening */
	size_t idxlines, jbytes;        /* index lines and journal bytes at open */
	size_t idxafter;                /* index lines after the first claim */
	double setup_s;
} variant_t;

typedef struct {
	char id[ID_LEN + 1];
	char crawl[ID_LEN + 1];
	int64_t created;
	long n;
} item_t;




static void
cleanup(void)
{
	bench_rmtree(tmproot);
}

static double
mono_us(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

/* ------------------------------------------------------------ records */

static const char *
stage_status(int stage)
{
	return stage == 0 ? "queued" : stage == 1 ? "started" : "sealed";
}

/* A snapshot as it is at a stage of its life: 0 queued (due), 1 started
 * (leased for an hour), 2 sealed (final, retry_at null). */
static void
snapshot_rec(store_t *s, rec_t *r, const item_t *it, int stage)
{
	char url[128], title[64];
	buf_t l = {0};
	memset(r, 0, sizeof *r);
	rec_set_str(r, "type", "Snapshot");
	rec_set_str(r, "id", it->id);
	rec_set_str(r, "crawl_id", it->crawl);
	snprintf(url, sizeof url, "https://www.example.com/section-%ld/article-%ld.html",
	    it->n / 100, it->n);
	rec_set_str(r, "url", url);
	rec_set_str(r, "status", stage_status(stage));
	rec_set_time(r, "retry_at", stage == 0 ? it->created : stage == 1 ? it->created + HOUR : -1);
	rec_set_time(r, "created_at", it->created);
	rec_set_int(r, "depth", 1);
	if (stage == 1) {
		lease_object(s, &l, it->created, it->created + HOUR, 0);
		rec_set_raw(r, "lease", buf_cstr(&l));
		buf_free(&l);
	}
	if (stage == 2) {
		snprintf(title, sizeof title, "Article %ld of the example site", it->n);
		rec_set_null(r, "lease");
		rec_set_str(r, "title", title);
		rec_set_time(r, "downloaded_at", it->created + 60000000);
	}
}

static void
crawl_rec(rec_t *r, const item_t *it, int stage)
{
	char urls[96];
	memset(r, 0, sizeof *r);
	rec_set_str(r, "type", "Crawl");
	rec_set_str(r, "id", it->id);
	snprintf(urls, sizeof urls, "https://www.example.com/section-%ld/", it->n);
	rec_set_str(r, "urls", urls);
	rec_set_int(r, "max_depth", 1);
	rec_set_str(r, "status", stage_status(stage));
	rec_set_time(r, "retry_at", stage == 0 ? it->created : stage == 1 ? it->created + 30 * DAY : -1);
	rec_set_time(r, "created_at", it->created);
}

/* Write the records of items through the store, in batches, taking each
 * through stages first..last (one commit per stage per batch). */
static void
put_items(store_t *s, const item_t *v, size_t n, int crawl, int first, int last)
{
	for (size_t b = 0; b < n; b += BATCH) {
		size_t e = b + BATCH < n ? b + BATCH : n;
		check_stop();
		for (int stage = first; stage <= last; stage++) {
			store_lock(s);
			for (size_t i = b; i < e; i++) {
				rec_t r;
				if (crawl)
					crawl_rec(&r, &v[i], stage);
				else
					snapshot_rec(s, &r, &v[i], stage);
				if (stage == first)
					store_put_new(s, &r);   /* ids made by this run */
				else
					store_put(s, &r);
				rec_free(&r);
			}
			store_unlock(s);
		}
	}
}

static item_t *
new_items(size_t n, const char *crawl, int64_t t0, int64_t step, long n0)
{
	item_t *v = xcalloc(n ? n : 1, sizeof *v);
	for (size_t i = 0; i < n; i++) {
		id_new(v[i].id);
		if (crawl)
			snprintf(v[i].crawl, sizeof v[i].crawl, "%s", crawl);
		v[i].created = t0 + (int64_t)i * step;
		v[i].n = n0 + (long)i;
	}
	return v;
}

static size_t
count_lines(int dfd, const char *rel, size_t *bytes)
{
	buf_t b = {0};
	size_t n = 0;
	if (fs_read(dfd, rel, &b) == 0)
		for (size_t i = 0; i < b.len; i++)
			n += b.p[i] == '\n';
	if (bytes)
		*bytes = b.len;
	buf_free(&b);
	return n;
}

/* ---------------------------------------------------------------- setup */

/*
 * A data dir: nsealed sealed snapshots (in ncrawls sealed crawls, or, if
 * ncrawls is 0, in the active crawl itself), then an active crawl with
 * ndue due snapshots.  compact: compact every journal and rebuild the
 * index afterwards.
 */
static void
build_dir(variant_t *v, size_t nsealed, size_t ncrawls, size_t ndue, int compact)
{
	store_t s;
	double t0 = mono_us();
	int64_t now = clock_now();
	store_open(&s, v->dir, 1);
	s.durable = 0;                  /* setup only */

	item_t *active = new_items(1, NULL, now - 2 * HOUR, 0, 0);
	item_t *crawls = new_items(ncrawls, NULL, now - 60 * DAY, HOUR, 1);
	if (ncrawls) {
		size_t per = nsealed / ncrawls;
		put_items(&s, crawls, ncrawls, 1, 0, 1);
		for (size_t c = 0; c < ncrawls; c += BATCH / per) {
			size_t ce = c + BATCH / per < ncrawls ? c + BATCH / per : ncrawls;
			item_t *sn = xcalloc((ce - c) * per, sizeof *sn);
			for (size_t i = c; i < ce; i++)
				for (size_t j = 0; j < per; j++) {
					item_t *it = &sn[(i - c) * per + j];
					id_new(it->id);
					memcpy(it->crawl, crawls[i].id, ID_LEN + 1);
					it->created = crawls[i].created + (int64_t)j * 1000000;
					it->n = (long)(i * per + j);
				}
			put_items(&s, sn, (ce - c) * per, 0, 0, 2);
			free(sn);
		}
		put_items(&s, crawls, ncrawls, 1, 2, 2);
		put_items(&s, active, 1, 1, 0, 1);
	} else {
		put_items(&s, active, 1, 1, 0, 1);
		item_t *sn = new_items(nsealed, active->id, now - 40 * DAY, 20000000, 0);
		put_items(&s, sn, nsealed, 0, 0, 2);
		free(sn);
	}
	item_t *due = new_items(ndue, active->id, now - HOUR, 1000, (long)nsealed);
	put_items(&s, due, ndue, 0, 0, 0);
	free(due);

	if (compact) {
		char j[128];
		store_lock(&s);
		store_compact(&s, "crawls.jsonl", 1);
		for (size_t i = 0; i < ncrawls; i++) {
			store_crawl_journal(crawls[i].id, j, sizeof j);
			store_compact(&s, j, 1);
		}
		store_crawl_journal(active->id, j, sizeof j);
		store_compact(&s, j, 1);
		store_unlock(&s);
		store_rebuild_index(&s);
	}
	char j[128];
	store_crawl_journal(active->id, j, sizeof j);
	v->idxlines = count_lines(s.dfd, "index/active.jsonl", NULL);
	count_lines(s.dfd, j, &v->jbytes);
	store_close(&s);
	free(active);
	free(crawls);
	v->setup_s = (mono_us() - t0) / 1e6;
}

static void
sql_exec(sqlite3 *db, const char *sql)
{
	char *msg = NULL;
	if (sqlite3_exec(db, sql, NULL, NULL, &msg) != SQLITE_OK)
		die(EX_SOFT_, "sqlite: %s: %s", sql, msg ? msg : "?");
}

static sqlite3_stmt *
sql_prep(sqlite3 *db, const char *sql)
{
	sqlite3_stmt *st;
	if (sqlite3_prepare_v3(db, sql, -1, SQLITE_PREPARE_PERSISTENT, &st, NULL) != SQLITE_OK)
		die(EX_SOFT_, "sqlite: %s: %s", sql, sqlite3_errmsg(db));
	return st;
}

static void
sql_step(sqlite3 *db, sqlite3_stmt *st, int want)
{
	int rc = sqlite3_step(st);
	if (rc != want)
		die(EX_SOFT_, "sqlite: %s: %s", sqlite3_sql(st), sqlite3_errmsg(db));
}

/* ArchiveBox's core_snapshot, reduced to what a claim reads and writes. */
static void
build_sql(variant_t *v, size_t nsealed, size_t ndue)
{
	double t0 = mono_us();
	int64_t now = clock_now();
	if (sqlite3_open(v->dir, &v->db) != SQLITE_OK)
		die(EX_CANTCREAT_, "sqlite: unable to open %s: %s", v->dir, sqlite3_errmsg(v->db));
	sqlite3_busy_timeout(v->db, 5000);
	sql_exec(v->db, "PRAGMA journal_mode=WAL; PRAGMA synchronous=OFF;"
	    "CREATE TABLE snapshot (id char(36) NOT NULL PRIMARY KEY, crawl_id char(36) NOT NULL,"
	    " url text NOT NULL, status varchar(15) NOT NULL, retry_at datetime NULL,"
	    " created_at datetime NOT NULL, modified_at datetime NOT NULL, depth integer NOT NULL,"
	    " title text NULL, downloaded_at datetime NULL);"
	    "CREATE INDEX snapshot_retry_at_created_at ON snapshot (retry_at, created_at);"
	    "BEGIN");
	sqlite3_stmt *ins = sql_prep(v->db, "INSERT INTO snapshot VALUES (?,?,?,?,?,?,?,1,?,?)");
	char crawl[ID_LEN + 1], id[ID_LEN + 1], url[128], title[64];
	char ca[ISO_LEN + 1], ra[ISO_LEN + 1], da[ISO_LEN + 1];
	for (size_t i = 0; i < nsealed + ndue; i++) {
		int sealed = i < nsealed;
		if (i % SPREAD_PER == 0 && sealed)
			id_new(crawl);
		else if (i == nsealed)
			id_new(crawl);
		id_new(id);
		int64_t c = sealed ? now - 60 * DAY + (int64_t)i * 20000000 : now - HOUR + (int64_t)(i - nsealed) * 1000;
		clock_iso(c, ca);
		clock_iso(c, ra);
		clock_iso(c + 60000000, da);
		snprintf(url, sizeof url, "https://www.example.com/section-%zu/article-%zu.html", i / 100, i);
		snprintf(title, sizeof title, "Article %zu of the example site", i);
		sqlite3_bind_text(ins, 1, id, -1, SQLITE_TRANSIENT);
		sqlite3_bind_text(ins, 2, crawl, -1, SQLITE_TRANSIENT);
		sqlite3_bind_text(ins, 3, url, -1, SQLITE_TRANSIENT);
		sqlite3_bind_text(ins, 4, sealed ? "sealed" : "queued", -1, SQLITE_STATIC);
		if (sealed)
			sqlite3_bind_null(ins, 5);
		else
			sqlite3_bind_text(ins, 5, ra, -1, SQLITE_TRANSIENT);
		sqlite3_bind_text(ins, 6, ca, -1, SQLITE_TRANSIENT);
		sqlite3_bind_text(ins, 7, ca, -1, SQLITE_TRANSIENT);
		if (sealed) {
			sqlite3_bind_text(ins, 8, title, -1, SQLITE_TRANSIENT);
			sqlite3_bind_text(ins, 9, da, -1, SQLITE_TRANSIENT);
		} else {
			sqlite3_bind_null(ins, 8);
			sqlite3_bind_null(ins, 9);
		}
		sql_step(v->db, ins, SQLITE_DONE);
		sqlite3_reset(ins);
		if (i % BATCH == 0)
			check_stop();
	}
	sqlite3_finalize(ins);
	sql_exec(v->db, "COMMIT; ANALYZE; PRAGMA wal_checkpoint(TRUNCATE); PRAGMA synchronous=FULL");
	v->begin = sql_prep(v->db, "BEGIN IMMEDIATE");
	v->sel = sql_prep(v->db, "SELECT id, retry_at FROM snapshot WHERE retry_at <= ? "
	                         "ORDER BY retry_at, created_at LIMIT 1");
	v->upd = sql_prep(v->db, "UPDATE snapshot SET status='started', retry_at=? "
	                         "WHERE id=? AND retry_at=?");
	v->commit = sql_prep(v->db, "COMMIT");
	v->setup_s = (mono_us() - t0) / 1e6;
}

/* ---------------------------------------------------------------- claims */

static void
claim_abx(variant_t *v)
{
	claim_opts_t o = {.lease_us = HOUR, .hold = 0, .by_name = 0};
	rec_t r;
	int fd;
	int rc = claim_next(&v->s, "Snapshot", NULL, &o, &r, &fd);
	if (rc != CLAIM_OK)
		die(EX_SOFT_, "%s: claim_next returned %d: the pool of due snapshots ran out", v->name, rc);
	if (!rec_streq(&r, "status", "started") || fd != -1)
		die(EX_SOFT_, "%s: claim_next returned a record that is not started", v->name);
	rec_free(&r);
}

static void
claim_sql(variant_t *v)
{
	char now[ISO_LEN + 1], until[ISO_LEN + 1];
	int64_t t = clock_now();
	clock_iso(t, now);
	clock_iso(t + HOUR, until);
	sql_step(v->db, v->begin, SQLITE_DONE);
	sqlite3_reset(v->begin);
	sqlite3_bind_text(v->sel, 1, now, -1, SQLITE_STATIC);
	if (sqlite3_step(v->sel) != SQLITE_ROW)
		die(EX_SOFT_, "%s: nothing due: %s", v->name, sqlite3_errmsg(v->db));
	sqlite3_bind_text(v->upd, 1, until, -1, SQLITE_STATIC);
	sqlite3_bind_text(v->upd, 2, (const char *)sqlite3_column_text(v->sel, 0), -1, SQLITE_TRANSIENT);
	sqlite3_bind_text(v->upd, 3, (const char *)sqlite3_column_text(v->sel, 1), -1, SQLITE_TRANSIENT);
	sqlite3_reset(v->sel);
	sql_step(v->db, v->upd, SQLITE_DONE);
	if (sqlite3_changes(v->db) != 1)
		die(EX_SOFT_, "%s: the guarded UPDATE matched %d rows", v->name, sqlite3_changes(v->db));
	sqlite3_reset(v->upd);
	sql_step(v->db, v->commit, SQLITE_DONE);
	sqlite3_reset(v->commit);
}

static void
build_floor(variant_t *v, int inplace)
{
	char *z = xcalloc(1, 1 << 20);
	v->fd = open(v->dir, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC | (inplace ? 0 : O_APPEND), 0644);
	if (v->fd < 0)
		diesys(EX_CANTCREAT_, "unable to create %s", v->dir);
	for (int i = 0; inplace && i < FLOOR_FILE >> 20; i++)
		if (write(v->fd, z, 1 << 20) != 1 << 20)
			diesys(EX_IOERR_, "unable to write %s", v->dir);
	if (fsync(v->fd) < 0)
		diesys(EX_IOERR_, "unable to sync %s", v->dir);
	free(z);
}

static void
floor_op(variant_t *v, int inplace)
{
	char line[FLOOR_LINE];
	memset(line, 'x', sizeof line - 1);
	line[sizeof line - 1] = '\n';
	ssize_t w = inplace ? pwrite(v->fd, line, sizeof line, v->off) : write(v->fd, line, sizeof line);
	if (w != (ssize_t)sizeof line || fdatasync(v->fd) < 0)
		diesys(EX_IOERR_, "unable to write %s", v->dir);
	v->off = (v->off + FLOOR_LINE) % FLOOR_FILE;
}

static void
claim_one(variant_t *v, int i)
{
	if (IS_ABX(i))
		claim_abx(v);
	else if (i == V_SQL)
		claim_sql(v);
	else
		floor_op(v, i == V_INPLACE);
}

/* The claims a store holds must be exactly those made, the rest of its pool
 * still queued: a benchmark of a claim that lost or duplicated work would
 * measure nothing. */
static void
verify(variant_t *v, int i, size_t ndue, size_t claimed)
{
	size_t n = 0, started = 0;
	if (IS_ABX(i)) {
		ient_t *e;
		store_lock(&v->s);
		n = store_active(&v->s, "Snapshot", &e);
		store_unlock(&v->s);
		for (size_t j = 0; j < n; j++)
			started += strcmp(e[j].status, "started") == 0;
		free(e);
	} else if (i == V_SQL) {
		sqlite3_stmt *st = sql_prep(v->db, "SELECT count(retry_at), total(status = 'started') "
		                                   "FROM snapshot");
		sql_step(v->db, st, SQLITE_ROW);
		n = sqlite3_column_int64(st, 0);
		started = sqlite3_column_int64(st, 1);
		sqlite3_finalize(st);
	} else {
		return;
	}
	if (n != ndue || started != claimed)
		die(EX_SOFT_, "%s: %zu snapshots due or leased, %zu started after %zu claims; "
		    "expected %zu and %zu", v->name, n, started, claimed, ndue, claimed);
}

/* The filesystem of path, by statfs magic. */
static const char *
fs_kind(const char *path)
{
	static const struct {
		unsigned long magic;
		const char *name;
	} fs[] = {
		{0xEF53, "ext4"}, {0x01021994, "tmpfs"}, {0x58465342, "xfs"}, {0x9123683E, "btrfs"},
		{0x6969, "nfs"}, {0x65735546, "fuse"}, {0x794c7630, "overlayfs"}, {0xF2F52010, "f2fs"},
		{0x2fc12fc1, "zfs"},
	};
	struct statfs st;
	if (statfs(path, &st) < 0)
		return "unknown";
	for (size_t i = 0; i < sizeof fs / sizeof fs[0]; i++)
		if ((unsigned long)st.f_type == fs[i].magic)
			return fs[i].name;
	return "other";
}

static void
ratio_line(const char *label, const variant_t *a, const variant_t *b, int rounds, double target)
{
	double ma = quantile(a->mean, rounds, 0.5), mb = quantile(b->mean, rounds, 0.5);
	double *r = xmalloc(sizeof(double) * rounds);
	for (int i = 0; i < rounds; i++)
		r[i] = a->mean[i] / b->mean[i];
	printf("claim: %s: %.2fx (%.1f us vs %.1f us; per-round ratio median %.2fx, p10-p90 %.2f-%.2fx)",
	    label, ma / mb, ma, mb, quantile(r, rounds, 0.5), quantile(r, rounds, 0.1),
	    quantile(r, rounds, 0.9));
	if (target > 0)
		printf(" [target <= %.2fx: %s]", target, ma / mb <= target ? "ok" : "MISSED");
	printf("\n");
	free(r);
}

/* ----------------------------------------------------------------- main */

static void
name_variants(variant_t *var, long nsealed, char label[4][160])
{
	static const char *names[NVAR] = {
		[V_NONE] = "none", [V_SPREAD] = "spread", [V_ONE] = "one", [V_RAW] = "one-raw",
		[V_SQL] = "sqlite", [V_APPEND] = "append", [V_INPLACE] = "inplace",
	};
	char ns[32];
	if (nsealed % 1000 == 0)
		snprintf(ns, sizeof ns, "%ldk", nsealed / 1000);
	else
		snprintf(ns, sizeof ns, "%ld", nsealed);
	for (int i = 0; i < NVAR; i++) {
		var[i].name = names[i];
		var[i].fd = -1;
		snprintf(var[i].dir, sizeof var[i].dir, "%s/%s%s", tmproot, names[i],
		    i == V_SQL ? ".sqlite3" : "");
	}
	snprintf(var[V_NONE].what, sizeof var[V_NONE].what, "no sealed snapshots");
	snprintf(var[V_SPREAD].what, sizeof var[V_SPREAD].what, "%s sealed in %ld crawls x %d", ns,
	    nsealed / SPREAD_PER, SPREAD_PER);
	snprintf(var[V_ONE].what, sizeof var[V_ONE].what, "%s sealed in the due crawl", ns);
	snprintf(var[V_RAW].what, sizeof var[V_RAW].what, "%s sealed in the due crawl, never compacted", ns);
	snprintf(var[V_SQL].what, sizeof var[V_SQL].what, "SQLite WAL synchronous=FULL, %s sealed rows", ns);
	snprintf(label[0], 160, "durable, %s sealed (%ld crawls x %d) / none", ns, nsealed / SPREAD_PER,
	    SPREAD_PER);
	snprintf(label[1], 160, "durable, %s sealed (1 crawl) / none", ns);
	snprintf(label[2], 160, "durable, %s sealed (1 crawl, index never compacted) / none", ns);
	snprintf(label[3], 160, "durable abx / sqlite FULL");
}

static void
build_all(variant_t *var, long nsealed, size_t ndue)
{
	/* Make every data dir before filling any, so that ext4 places their
	 * locks/ dirs alike (in one block group, if it can): creating a lock
	 * file costs what its group's inode allocator costs. */
	for (int i = 0; IS_ABX(i); i++) {
		store_t s;
		store_open(&s, var[i].dir, 1);
		store_close(&s);
	}
	build_dir(&var[V_NONE], 0, 0, ndue, 1);
	build_dir(&var[V_SPREAD], nsealed, nsealed / SPREAD_PER, ndue, 1);
	build_dir(&var[V_ONE], nsealed, 0, ndue, 1);
	build_dir(&var[V_RAW], nsealed, 0, ndue, 0);
	build_sql(&var[V_SQL], nsealed, ndue);
	build_floor(&var[V_APPEND], 0);
	build_floor(&var[V_INPLACE], 1);
	for (int i = 0; i <= V_SQL; i++) {
		printf("claim: setup: %-8s %s, %zu due: %.1f s", var[i].name, var[i].what, ndue,
		    var[i].setup_s);
		if (IS_ABX(i))
			printf("; index %zu lines, due crawl's journal %.1f MB", var[i].idxlines,
			    var[i].jbytes / 1e6);
		printf("\n");
	}
}

/* Open each store as a fresh process would and time its first claim, which
 * loads (and may compact) the index. */
static void
open_all(variant_t *var)
{
	for (int i = 0; IS_ABX(i); i++) {
		store_open(&var[i].s, var[i].dir, 0);
		var[i].s.durable = 1;
		double t0 = mono_us();
		claim_abx(&var[i]);
		var[i].first_us = mono_us() - t0;
		var[i].idxafter = count_lines(var[i].s.dfd, "index/active.jsonl", NULL);
	}
}

static void
run_rounds(variant_t *var, int rounds, int warm, int k)
{
	for (int round = -warm; round < rounds; round++) {
		double sum[NVAR] = {0};
		check_stop();
		for (int n = 0; n < k; n++)
			for (int j = 0; j < NVAR; j++) {
				int i = (round + warm + n) % 2 ? NVAR - 1 - j : j;
				double t0 = mono_us();
				claim_one(&var[i], i);
				sum[i] += mono_us() - t0;
			}
		for (int i = 0; round >= 0 && i < NVAR; i++)
			var[i].mean[round] = sum[i] / k;
	}
}

static void
report(variant_t *var, char label[4][160], int rounds, int k)
{
	ratio_line(label[0], &var[V_SPREAD], &var[V_NONE], rounds, 1.2);
	ratio_line(label[1], &var[V_ONE], &var[V_NONE], rounds, 1.2);
	ratio_line(label[2], &var[V_RAW], &var[V_NONE], rounds, 1.2);
	ratio_line(label[3], &var[V_SPREAD], &var[V_SQL], rounds, 0.75);
	ratio_line("floor: durable abx / (append + fdatasync)", &var[V_SPREAD], &var[V_APPEND], rounds, 0);
	ratio_line("floor: sqlite FULL / (pwrite in place + fdatasync)", &var[V_SQL], &var[V_INPLACE], rounds, 0);
	for (int i = 0; i < NVAR; i++) {
		printf("claim: raw: %-8s median %.1f us/%s (p10 %.1f, p90 %.1f), %d rounds x %d",
		    var[i].name, quantile(var[i].mean, rounds, 0.5), i <= V_SQL ? "claim" : "op",
		    quantile(var[i].mean, rounds, 0.1), quantile(var[i].mean, rounds, 0.9), rounds, k);
		if (IS_ABX(i))
			printf("; first claim after open %.0f us (index %zu -> %zu lines)", var[i].first_us,
			    var[i].idxlines, var[i].idxafter);
		printf("\n");
	}
}

int
main(int argc, char **argv)
{
	int rounds = 21, k = 100, warm = 2, c;
	long nsealed = 100000;
	err_init(argv[0]);
	while ((c = getopt(argc, argv, "r:k:w:n:h")) != -1) {
		switch (c) {
		case 'r': rounds = atoi(optarg); break;
		case 'k': k = atoi(optarg); break;
		case 'w': warm = atoi(optarg); break;
		case 'n': nsealed = atol(optarg); break;
		case 'h': puts(USAGE); return 0;
		default: fprintf(stderr, "%s\n", USAGE); return EX_USAGE_;
		}
	}
	if (optind != argc || rounds < 1 || k < 1 || warm < 0 || nsealed < SPREAD_PER)
		die(EX_USAGE_, "%s", USAGE);
	setvbuf(stdout, NULL, _IOLBF, 0);
	size_t ndue = (size_t)(rounds + warm) * k + k;   /* one round spare */

	const char *td = getenv("TMPDIR");
	snprintf(tmproot, sizeof tmproot, "%s/abx-bench-claim.XXXXXX", td && *td ? td : "/tmp");
	if (!mkdtemp(tmproot)) {
		char t[sizeof tmproot];
		int e = errno;
		memcpy(t, tmproot, sizeof t);
		*tmproot = 0;
		errno = e;
		diesys(EX_CANTCREAT_, "unable to create %s", t);
	}
	atexit(cleanup);
	struct sigaction sa = {.sa_handler = bench_on_signal, .sa_flags = SA_RESTART};
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	printf("claim: %s on %s; %d rounds x %d claims after %d warm-up rounds\n", tmproot,
	    fs_kind(tmproot), rounds, k, warm);

	variant_t var[NVAR] = {0};
	char label[4][160];
	name_variants(var, nsealed, label);
	for (int i = 0; i < NVAR; i++)
		var[i].mean = xcalloc(rounds, sizeof(double));
	build_all(var, nsealed, ndue);
	open_all(var);
	run_rounds(var, rounds, warm, k);
	for (int i = 0; i < NVAR; i++)
		verify(&var[i], i, ndue, (size_t)(rounds + warm) * k + IS_ABX(i));
	report(var, label, rounds, k);

	for (int i = 0; i < NVAR; i++) {
		if (IS_ABX(i))
			store_close(&var[i].s);
		if (i == V_SQL) {
			sqlite3_finalize(var[i].begin);
			sqlite3_finalize(var[i].sel);
			sqlite3_finalize(var[i].upd);
			sqlite3_finalize(var[i].commit);
			sqlite3_close(var[i].db);
		}
		if (var[i].fd >= 0)
			close(var[i].fd);
		free(var[i].mean);
	}
	return 0;
}
