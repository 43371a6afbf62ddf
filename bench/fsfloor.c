/*
 * fsfloor.c — what a durable claim costs on a filesystem against that
 * filesystem's own floor (part of make bench: bench/gluster.sh runs it on
 * the two-mount GlusterFS rig, and on the local disk for comparison).
 *
 * Usage: fsfloor -d DIR [-r rounds] [-k claims-per-round] [-w warmup] [-p CMD]
 *
 * In a fresh data directory under DIR (removed at exit): one crawl with
 * (r + w) * k due snapshots, written through the store.  Each round makes
 * k durable claims (claim_next, a time lease, fdatasync on: what abx-claim
 * does once the tool is running; in one process that arms its journals as
 * abx-tick does, store.h) interleaved with k rounds of the floor
 * the claim stands on: flock(LOCK_EX) on a file in the same directory, a
 * 512-byte O_APPEND write, fdatasync, flock(LOCK_UN) — one locked durable
 * append, the least a claim that commits a line under a lock can cost
 * there.  A figure is the median over the rounds (after w warm-up rounds)
 * of the round's mean; the ratio is claim / floor.  At the end every claim
 * must have claimed a distinct snapshot, or the run fails.
 *
 * -p CMD: after the rounds, k more durable claims alone, then k floor
 * operations alone, each run between two runs of CMD through sh -c: just
 * before (FSFLOOR_PHASE=before in its environment) and just after
 * (FSFLOOR_PHASE=after), with FSFLOOR_WHAT=claim or floor and FSFLOOR_N=k:
 * bench/gluster.sh clears and reads the brick's `gluster volume profile`
 * there, to count the brick operations of a claim and of the floor.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/vfs.h>
#include <time.h>
#include <unistd.h>

#include "benchlib.h"
#include "store/claim.h"
#include "base/clock.h"
#include "base/err.h"
#include "die.h"
#include "base/exitcodes.h"
#include "base/ids.h"
#include "base/json.h"
#include "store/store.h"

#define USAGE "usage: fsfloor -d DIR [-r rounds] [-k claims-per-round] [-w warmup] [-p CMD]"

static void
cleanup(void)
{
	bench_rmtree(tmproot);
}

/* One durable claim; remember what it claimed in seen[*nseen]. */
static void
claim1(store_t *s, char (*seen)[ID_LEN + 1], int *nseen)
{
	static const claim_opts_t o = {3600 * INT64_C(1000000), 0, 0};
	rec_t out;
	int lfd;
	if (claim_next(s, "Snapshot", NULL, &o, &out, &lfd) != 0)
		die(s->err ? s->err : EX_SOFT_, "claim %d found nothing due: %s", *nseen, s->errmsg);
	char *id = rec_str(&out, "id");
	snprintf(seen[(*nseen)++], ID_LEN + 1, "%s", id ? id : "");
	free(id);
	rec_free(&out);
}

/* One floor operation on ffd: a locked durable append of line. */
static void
floor1(int ffd, const char *path, const char *line, size_t n)
{
	if (flock(ffd, LOCK_EX) < 0 || write(ffd, line, n) != (ssize_t)n || fdatasync(ffd) < 0 ||
	    flock(ffd, LOCK_UN) < 0)
		diesys(EX_IOERR_, "unable to append to %s", path);
}

/* Run CMD with FSFLOOR_PHASE, FSFLOOR_WHAT, FSFLOOR_N; fail if it fails. */
static void
hook(const char *cmd, const char *phase, const char *what, int k)
{
	char n[16];
	snprintf(n, sizeof n, "%d", k);
	setenv("FSFLOOR_PHASE", phase, 1);
	setenv("FSFLOOR_WHAT", what, 1);
	setenv("FSFLOOR_N", n, 1);
	fflush(stdout);
	int rc = system(cmd);
	if (rc != 0)
		die(EX_SOFT_, "-p %s (%s the %s operations) failed: status %d", cmd, phase, what, rc);
}

static void
queue(store_t *s, int n)
{
	char crawl[ID_LEN + 1];
	int64_t t0 = clock_now() - 3600 * INT64_C(1000000);
	id_new(crawl);
	store_lock(s);
	rec_t r = {0};
	rec_set_str(&r, "type", "Crawl");
	rec_set_str(&r, "id", crawl);
	rec_set_str(&r, "urls", "http://127.0.0.1:1/");
	rec_set_str(&r, "status", "started");
	rec_set_time(&r, "retry_at", t0 + 30 * 86400 * INT64_C(1000000));
	rec_set_time(&r, "created_at", t0);
	store_put_new(s, &r);
	rec_free(&r);
	for (int i = 0; i < n; i++) {
		char id[ID_LEN + 1], url[64];
		id_new(id);
		memset(&r, 0, sizeof r);
		rec_set_str(&r, "type", "Snapshot");
		rec_set_str(&r, "id", id);
		rec_set_str(&r, "crawl_id", crawl);
		snprintf(url, sizeof url, "http://127.0.0.1:1/page/%d", i);
		rec_set_str(&r, "url", url);
		rec_set_str(&r, "status", "queued");
		rec_set_time(&r, "retry_at", t0 + i);
		rec_set_time(&r, "created_at", t0 + i);
		rec_set_int(&r, "depth", 0);
		store_put_new(s, &r);
		rec_free(&r);
	}
	if (store_unlock(s) < 0)
		die(s->err, "unable to queue: %s", s->errmsg);
}

int
main(int argc, char **argv)
{
	const char *dir = NULL, *prof = NULL;
	int rounds = 7, k = 20, warm = 1, c;
	err_init(argv[0]);
	while ((c = getopt(argc, argv, "d:r:k:w:p:h")) != -1) {
		switch (c) {
		case 'd': dir = optarg; break;
		case 'r': rounds = atoi(optarg); break;
		case 'k': k = atoi(optarg); break;
		case 'w': warm = atoi(optarg); break;
		case 'p': prof = optarg; break;
		default: fprintf(stderr, "%s\n", USAGE); return c == 'h' ? 0 : EX_USAGE_;
		}
	}
	if (!dir || rounds < 1 || k < 1 || warm < 0) {
		fprintf(stderr, "%s\n", USAGE);
		return EX_USAGE_;
	}
	snprintf(tmproot, sizeof tmproot, "%s/fsfloor.%ld", dir, (long)getpid());
	atexit(cleanup);
	signal(SIGINT, bench_on_signal);
	signal(SIGTERM, bench_on_signal);
	unsetenv("ABX_SYNC");   /* durable */
	store_t s;
	if (store_open(&s, tmproot, 1) < 0)
		die(s.err, "%s", s.errmsg);
	s.arm = 1;   /* many claims in one process, as abx-tick makes them */
	int total = (rounds + warm + (prof != NULL)) * k;
	queue(&s, total);
	char floorp[4200];
	snprintf(floorp, sizeof floorp, "%s/floor.jsonl", tmproot);
	int ffd = open(floorp, O_RDWR | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
	if (ffd < 0)
		diesys(EX_CANTCREAT_, "unable to create %s", floorp);
	char line[512];
	memset(line, 'x', sizeof line - 1);
	line[sizeof line - 1] = '\n';
	double *cl = xcalloc(rounds, sizeof *cl), *fl = xcalloc(rounds, sizeof *fl);
	char (*seen)[ID_LEN + 1] = xcalloc(total, sizeof *seen);
	int nseen = 0;
	for (int r = 0; r < rounds + warm; r++) {
		double tc = 0, tf = 0;
		for (int i = 0; i < k; i++) {
			check_stop();
			double t = bench_mono_us();
			claim1(&s, seen, &nseen);
			tc += bench_mono_us() - t;
			t = bench_mono_us();
			floor1(ffd, floorp, line, sizeof line);
			tf += bench_mono_us() - t;
		}
		if (r >= warm) {
			cl[r - warm] = tc / k;
			fl[r - warm] = tf / k;
		}
	}
	if (prof) {
		hook(prof, "before", "claim", k);
		for (int i = 0; i < k; i++)
			claim1(&s, seen, &nseen);
		hook(prof, "after", "claim", k);
		hook(prof, "before", "floor", k);
		for (int i = 0; i < k; i++)
			floor1(ffd, floorp, line, sizeof line);
		hook(prof, "after", "floor", k);
	}
	for (int i = 0; i < nseen; i++)
		for (int j = i + 1; j < nseen; j++)
			if (strcmp(seen[i], seen[j]) == 0)
				die(EX_SOFT_, "snapshot %s was claimed twice", seen[i]);
	struct statfs sf;
	char fstype[32] = "?";
	if (statfs(tmproot, &sf) == 0)
		snprintf(fstype, sizeof fstype, "0x%lx", (unsigned long)sf.f_type);
	double mc = quantile(cl, rounds, 0.5), mf = quantile(fl, rounds, 0.5);
	printf("fsfloor: %s (f_type %s): durable claim %.0f us, floor (flock + append + fdatasync) "
	    "%.0f us: claim/floor %.2f (median of %d rounds of %d)\n", dir, fstype, mc, mf, mc / mf,
	    rounds, k);
	close(ffd);
	store_close(&s);
	free(cl);
	free(fl);
	free(seen);
	return 0;
}
