/*
 * tickbench.c — benchmarks of abx-tick (part of make bench; run by
 * bench/tick.sh and bench/rss.sh).
 *
 *   tickbench overhead [-n SNAPSHOTS] [-r ROUNDS] [-b BINDIR]
 *     Scheduler overhead per snapshot: one crawl of N URLs (depth 0, one
 *     abx-add, --plugins noop: one `#!/bin/sh` + `exit 0` hook each),
 *     timed from abx-tick's start to its exit, with durable commits
 *     (ABX_SYNC unset), at the default CRAWL_MAX_CONCURRENT_SNAPSHOTS (4)
 *     and at 1; against the same hook spawned N times by a C loop
 *     (posix_spawn + waitpid, stdout to /dev/null: the floor) and by a
 *     shell loop (for reference).  Then with outputs made durable: a
 *     "files" hook that writes three small files and names them in its
 *     result, abx-tick durable and with ABX_SYNC=0 (their difference is
 *     what the syncs cost a snapshot), against a C loop that runs that
 *     hook in a new directory each time.  Each variant gets a fresh data dir in
 *     each round, made before the round starts; abx-add is not timed.
 *     Two more lines put the filesystem beside it: the cost of creating
 *     an empty file here, in the same rounds (on a journal-less ext4 it
 *     grows with the inodes deleted in the last minutes, by anyone), and
 *     how many files and dirs each snapshot leaves.
 *
 *   tickbench cost [-n SEALED] [-k DUE] [-r ROUNDS] [-b BINDIR]
 *     Tick cost: a whole `abx-tick` (the repair pass, the crawl of K due
 *     snapshots with the noop hook, the site index) in a data dir holding
 *     SEALED sealed snapshots (1000 sealed crawls x SEALED/1000), against
 *     the same in a data dir holding none.  Each round queues one crawl of
 *     K URLs in each dir with abx-add (not timed), then times both ticks.
 *     A diagnostic line gives the same with a store whose sealed
 *     snapshots have no line in the site index (index.jsonl).
 *
 *   tickbench rss [-n SEALED] [-k DUE] [-r ROUNDS] [-b BINDIR]
 *     Peak RSS of abx-tick passes (K due each) over SEALED sealed
 *     snapshots and over none: its own VmHWM, read from /proc at its exit
 *     (traced for that exit only), and wait4's ru_maxrss, which counts its
 *     children too (the figure /usr/bin/time -f %M prints).
 *
 *   tickbench build DIR [-n SEALED]
 *     Only make the data dir with SEALED sealed snapshots (bench/rss.sh).
 *
 * The sealed store is built through the store API (store_put in batches,
 * non-durable, as bench/claim.c does): each crawl and snapshot written
 * queued, started, sealed; journals compacted and the index rebuilt, as
 * the repair pass would leave them; and a line per sealed snapshot in the
 * data dir's index.jsonl (the site index seal_snapshot appends to).  The
 * snapshots' own directories (index.html …) are not made: no tick reads
 * the directory of a sealed snapshot.
 *
 * Rounds alternate the order of the variants; a figure is the median over
 * the rounds, a ratio the ratio of two medians (the per-round ratios'
 * median and range beside it).  Everything lives in a temp dir under
 * ${TMPDIR:-/tmp}, removed at exit.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/resource.h>
#include <ftw.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "base/buf.h"
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

#define USAGE "usage: tickbench overhead|cost|rss|build [DIR] [-n N] [-k DUE] [-r ROUNDS] [-b BINDIR]"
#define HOUR INT64_C(3600000000)
#define DAY (24 * HOUR)
#define PER_CRAWL 100
#define BATCH 10000

extern char **environ;

static char bindir[4096] = "bin";



static void
cleanup(void)
{
	bench_rmtree(tmproot);
}

static double
mono_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* "LABEL: R x (A ms vs B ms; per-round ...) [target ...]" */
static void
ratio_line(const char *label, const double *a, const double *b, int rounds, double scale,
    const char *unit, double target)
{
	double ma = quantile(a, rounds, 0.5), mb = quantile(b, rounds, 0.5);
	double *r = xmalloc(sizeof(double) * rounds);
	for (int i = 0; i < rounds; i++)
		r[i] = a[i] / b[i];
	printf("tick: %s: %.2fx (%.3g %s vs %.3g %s; per-round ratio median %.2fx, range %.2f-%.2fx, "
	       "%d rounds)",
	    label, ma / mb, ma * scale, unit, mb * scale, unit, quantile(r, rounds, 0.5),
	    quantile(r, rounds, 0), quantile(r, rounds, 1), rounds);
	if (target > 0)
		printf(" [target <= %.2fx: %s]", target, ma / mb <= target ? "ok" : "MISSED");
	printf("\n");
	free(r);
}

/* ------------------------------------------------------------- processes */

/* Run argv (stdin from `in` or /dev/null, stdout to /dev/null, stderr
 * inherited) and wait; returns its exit status, *secs the wall time and
 * *maxrss_kb its peak RSS. */
static int
run(char *const argv[], const char *in, double *secs, long *maxrss_kb)
{
	posix_spawn_file_actions_t fa;
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addopen(&fa, 0, in ? in : "/dev/null", O_RDONLY, 0);
	posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
	pid_t pid;
	double t0 = mono_s();
	int rc = posix_spawn(&pid, argv[0], &fa, NULL, argv, environ);
	posix_spawn_file_actions_destroy(&fa);
	if (rc) {
		errno = rc;
		diesys(EX_UNAVAIL_, "unable to run %s", argv[0]);
	}
	int st;
	struct rusage ru;
	while (wait4(pid, &st, 0, &ru) < 0)
		if (errno != EINTR)
			diesys(EX_SOFT_, "wait4");
	if (secs)
		*secs = mono_s() - t0;
	if (maxrss_kb)
		*maxrss_kb = ru.ru_maxrss;
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

static char *
tool(const char *name)
{
	return xasprintf("%s/%s", bindir, name);
}

/* abx-add -d DIR --plugins PLUGIN [--config K=V] < urls; must exit 0. */
static void
add_crawl_with(const char *dir, const char *urls, const char *config, const char *plugin)
{
	char *add = tool("abx-add");
	char *argv[] = {add, "-d", (char *)dir, "--plugins", (char *)plugin, config ? "--config" : NULL,
	    (char *)config, NULL};
	int rc = run(argv, urls, NULL, NULL);
	if (rc != 0)
		die(EX_SOFT_, "abx-add -d %s exited %d", dir, rc);
	free(add);
}

static void
add_crawl(const char *dir, const char *urls, const char *config)
{
	add_crawl_with(dir, urls, config, "noop");
}

/* abx-tick -d DIR; must exit 0 (or 1, nothing due, if may_idle). */
static double
tick_rc(const char *dir, long *rss, int may_idle)
{
	char *t = tool("abx-tick");
	char *argv[] = {t, "-d", (char *)dir, NULL};
	double secs;
	int rc = run(argv, NULL, &secs, rss);
	if (rc != 0 && !(rc == 1 && may_idle))
		die(EX_SOFT_, "abx-tick -d %s exited %d", dir, rc);
	free(t);
	return secs;
}

static double
tick(const char *dir, long *rss)
{
	return tick_rc(dir, rss, 0);
}

/* Lines of DIR/index.jsonl: one per snapshot sealed. */
static long
sealed_lines(const char *dir)
{
	char *p = xasprintf("%s/index.jsonl", dir);
	FILE *f = fopen(p, "r");
	long n = 0;
	int c;
	while (f && (c = getc(f)) != EOF)
		n += c == '\n';
	if (f)
		fclose(f);
	free(p);
	return n;
}

static void
write_file(const char *path, const char *text, mode_t mode)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode);
	size_t n = strlen(text);
	if (fd < 0 || write(fd, text, n) != (ssize_t)n || close(fd) < 0)
		diesys(EX_CANTCREAT_, "unable to write %s", path);
}

/* The noop plugin (ABX_PLUGINS_DIR) and a file of n URLs; returns the
 * hook's path. */
static char *
setup_common(long n, const char *urlname)
{
	char *p = xasprintf("%s/plugins/noop", tmproot);
	int rfd = open("/", O_RDONLY | O_DIRECTORY);
	if (fs_mkdirs(rfd, p + 1) < 0)
		diesys(EX_CANTCREAT_, "unable to create %s", p);
	close(rfd);
	char *hook = xasprintf("%s/on_Snapshot__10_noop.sh", p);
	write_file(hook, "#!/bin/sh\nexit 0\n", 0755);
	/* the files plugin: three small outputs, named in its result */
	char *fp = xasprintf("%s/plugins/files", tmproot);
	rfd = open("/", O_RDONLY | O_DIRECTORY);
	if (fs_mkdirs(rfd, fp + 1) < 0)
		diesys(EX_CANTCREAT_, "unable to create %s", fp);
	close(rfd);
	char *fh = xasprintf("%s/on_Snapshot__10_files.sh", fp);
	write_file(fh, "#!/bin/sh\necho a >a.txt; echo b >b.txt; echo c >c.txt\n"
	    "echo '{\"type\":\"ArchiveResult\",\"status\":\"succeeded\","
	    "\"output_files\":[\"a.txt\",\"b.txt\",\"c.txt\"]}'\n", 0755);
	free(fh), free(fp);
	char *pd = xasprintf("%s/plugins", tmproot);
	setenv("ABX_PLUGINS_DIR", pd, 1);
	free(pd), free(p);
	char *urls = xasprintf("%s/%s", tmproot, urlname);
	buf_t b = {0};
	for (long i = 0; i < n; i++)
		buf_addf(&b, "https://www.example.localhost/section-%ld/article-%ld.html\n", i / 100, i);
	write_file(urls, buf_cstr(&b), 0644);
	buf_free(&b);
	return hook;
}

/* ------------------------------------------------------------- overhead */

/* The hook n times by posix_spawn + waitpid, stdout to /dev/null; with
 * dir, each time in a new directory under it (as abx runs a hook: a new
 * snapshot's plugin dir), nothing synced. */
static double
spawn_loop_in(const char *hook, long n, const char *dir)
{
	char *argv[] = {(char *)hook, "--url=https://www.example.localhost/", NULL};
	if (dir && mkdir(dir, 0755) < 0)
		diesys(EX_CANTCREAT_, "unable to create %s", dir);
	double t0 = mono_s();
	for (long i = 0; i < n; i++) {
		char *d = dir ? xasprintf("%s/%ld", dir, i) : NULL;
		if (d && mkdir(d, 0755) < 0)
			diesys(EX_CANTCREAT_, "unable to create %s", d);
		posix_spawn_file_actions_t fa;
		posix_spawn_file_actions_init(&fa);
		posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
		if (d)
			posix_spawn_file_actions_addchdir_np(&fa, d);
		pid_t pid;
		int rc = posix_spawn(&pid, hook, &fa, NULL, argv, environ), st;
		posix_spawn_file_actions_destroy(&fa);
		if (rc) {
			errno = rc;
			diesys(EX_UNAVAIL_, "unable to spawn %s", hook);
		}
		while (waitpid(pid, &st, 0) < 0)
			if (errno != EINTR)
				diesys(EX_SOFT_, "waitpid");
		if (!WIFEXITED(st) || WEXITSTATUS(st))
			die(EX_SOFT_, "%s failed", hook);
		free(d);
	}
	return mono_s() - t0;
}

static double
spawn_loop(const char *hook, long n)
{
	return spawn_loop_in(hook, n, NULL);
}

/* The files hook n times, each in a new directory. */
static double
spawn_files_loop(const char *dir, long n)
{
	char *hook = xasprintf("%s/plugins/files/on_Snapshot__10_files.sh", tmproot);
	double t = spawn_loop_in(hook, n, dir);
	free(hook);
	return t;
}

static double
shell_loop(const char *hook, long n)
{
	char *script = xasprintf("i=0; while [ $i -lt %ld ]; do %s --url=https://www.example.localhost/ "
	                         ">/dev/null || exit 1; i=$((i + 1)); done", n, hook);
	char *argv[] = {"/bin/sh", "-c", script, NULL};
	double secs;
	if (run(argv, NULL, &secs, NULL) != 0)
		die(EX_SOFT_, "the shell loop failed");
	free(script);
	return secs;
}

/* Create n empty files in a new dir (kept until the end: deleting them
 * would slow every later creation on a journal-less ext4). */
static double
create_loop(const char *dir, long n)
{
	if (mkdir(dir, 0755) < 0)
		diesys(EX_CANTCREAT_, "unable to create %s", dir);
	int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	double t0 = mono_s();
	for (long i = 0; i < n; i++) {
		char name[32];
		snprintf(name, sizeof name, "f%ld", i);
		int fd = openat(dfd, name, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
		if (fd < 0)
			diesys(EX_CANTCREAT_, "unable to create %s/%s", dir, name);
		close(fd);
	}
	double t = mono_s() - t0;
	close(dfd);
	return t;
}

static long nentries;

static int
count_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)path, (void)st, (void)flag, (void)ftw;
	nentries++;
	return 0;
}

/* Files and dirs under dir (dir itself not counted). */
static long
count_tree(const char *dir)
{
	nentries = 0;
	if (nftw(dir, count_entry, 16, FTW_PHYS) < 0)
		diesys(EX_SOFT_, "unable to walk %s", dir);
	return nentries - 1;
}

enum { O_FLOOR, O_TICK4, O_TICK1, O_SHELL, O_CREATE, O_FFLOOR, O_FILES, O_FILES_NOSYNC, NOV };

static void
overhead(long n, int rounds)
{
	char *hook = setup_common(n, "urls");
	char *urls = xasprintf("%s/urls", tmproot);
	double *t[NOV];
	long before = 0, after = 0;
	for (int i = 0; i < NOV; i++)
		t[i] = xcalloc(rounds, sizeof(double));
	printf("tick: overhead: %ld snapshots (1 crawl, depth 0, 1 abx-add, 1 noop sh hook each), "
	       "durable commits, %d rounds, in %s\n", n, rounds, tmproot);
	for (int r = 0; r < rounds; r++) {
		char *d4 = xasprintf("%s/r%d-c4", tmproot, r), *d1 = xasprintf("%s/r%d-c1", tmproot, r);
		char *dc = xasprintf("%s/r%d-files", tmproot, r);
		char *df = xasprintf("%s/r%d-out", tmproot, r), *dn = xasprintf("%s/r%d-out0", tmproot, r);
		char *dl = xasprintf("%s/r%d-loop", tmproot, r);
		add_crawl(d4, urls, NULL);
		add_crawl(d1, urls, "CRAWL_MAX_CONCURRENT_SNAPSHOTS=1");
		add_crawl_with(df, urls, NULL, "files");
		add_crawl_with(dn, urls, NULL, "files");
		if (r == 0)
			before = count_tree(d4);
		for (int j = 0; j < NOV; j++) {
			int v = r % 2 ? NOV - 1 - j : j;
			check_stop();
			switch (v) {
			case O_FLOOR: t[v][r] = spawn_loop(hook, n); break;
			case O_SHELL: t[v][r] = shell_loop(hook, n); break;
			case O_TICK4: t[v][r] = tick(d4, NULL); break;
			case O_TICK1: t[v][r] = tick(d1, NULL); break;
			case O_CREATE: t[v][r] = create_loop(dc, n); break;
			case O_FFLOOR: t[v][r] = spawn_files_loop(dl, n); break;
			case O_FILES: t[v][r] = tick(df, NULL); break;
			case O_FILES_NOSYNC:
				setenv("ABX_SYNC", "0", 1);
				t[v][r] = tick(dn, NULL);
				unsetenv("ABX_SYNC");
				break;
			}
		}
		long s4 = sealed_lines(d4), s1 = sealed_lines(d1);
		if (s4 != n || s1 != n)
			die(EX_SOFT_, "round %d: %ld and %ld snapshots sealed, expected %ld", r, s4, s1, n);
		if (r == 0)
			after = count_tree(d4);
		if (sealed_lines(df) != n || sealed_lines(dn) != n)
			die(EX_SOFT_, "round %d: the files crawls did not seal %ld snapshots", r, n);
		free(d4), free(d1), free(dc), free(df), free(dn), free(dl);
	}
	double ms = 1e3 / n;
	ratio_line("overhead per snapshot, abx-tick (4 slots, default) / C spawn loop", t[O_TICK4],
	    t[O_FLOOR], rounds, ms, "ms", 2.0);
	ratio_line("overhead per snapshot, abx-tick (1 slot) / C spawn loop", t[O_TICK1], t[O_FLOOR],
	    rounds, ms, "ms", 0);
	ratio_line("shell spawn loop / C spawn loop (reference)", t[O_SHELL], t[O_FLOOR], rounds, ms,
	    "ms", 0);
	ratio_line("creating an empty file (open O_CREAT|O_EXCL + close) / C spawn loop", t[O_CREATE],
	    t[O_FLOOR], rounds, ms, "ms", 0);
	printf("tick: files and dirs a snapshot leaves in the data dir: %.1f (each one an inode created)\n",
	    (double)(after - before) / n);
	ratio_line("overhead per snapshot, outputs made durable (a hook writing 3 files, 4 slots) / C spawn "
	           "loop of that hook", t[O_FILES], t[O_FFLOOR], rounds, ms, "ms", 0);
	ratio_line("the same, ABX_SYNC=0 (nothing synced) / C spawn loop of that hook", t[O_FILES_NOSYNC],
	    t[O_FFLOOR], rounds, ms, "ms", 0);
	double sync = 0;
	for (int r = 0; r < rounds; r++)
		sync += (t[O_FILES][r] - t[O_FILES_NOSYNC][r]) / rounds;
	printf("tick: syncs per snapshot (outputs, index files, journals; syncfs batched on the 250 ms "
	       "clock): %.3f ms (durable minus ABX_SYNC=0, mean of %d rounds)\n", sync * ms, rounds);
	for (int i = 0; i < NOV; i++)
		free(t[i]);
	free(hook), free(urls);
}

/* ------------------------------------------------------------ the store */

typedef struct {
	char id[ID_LEN + 1], crawl[ID_LEN + 1];
	int64_t created;
	long n;
} item_t;

static void
snap_rec(store_t *s, rec_t *r, const item_t *it, int stage)
{
	char url[128];
	memset(r, 0, sizeof *r);
	rec_set_str(r, "type", "Snapshot");
	rec_set_str(r, "id", it->id);
	rec_set_str(r, "crawl_id", it->crawl);
	snprintf(url, sizeof url, "https://www.example.localhost/section-%ld/article-%ld.html", it->n / 100,
	    it->n);
	rec_set_str(r, "url", url);
	rec_set_time(r, "bookmarked_at", it->created);
	rec_set_str(r, "tags", "");
	rec_set_int(r, "depth", 0);
	rec_set_str(r, "status", stage == 0 ? "queued" : stage == 1 ? "started" : "sealed");
	rec_set_time(r, "retry_at", stage == 0 ? it->created : stage == 1 ? it->created + HOUR : -1);
	rec_set_time(r, "created_at", it->created);
	if (stage == 1) {
		buf_t l = {0};
		lease_object(s, &l, it->created, it->created + HOUR, 0);
		rec_set_raw(r, "lease", buf_cstr(&l));
		buf_free(&l);
	}
	if (stage == 2) {
		char title[64];
		snprintf(title, sizeof title, "Article %ld of the example site", it->n);
		rec_set_null(r, "lease");
		rec_set_str(r, "title", title);
		rec_set_time(r, "downloaded_at", it->created + 60000000);
		rec_set_int(r, "output_size", 40000 + it->n % 1000);
	}
}

static void
crawl_rec(rec_t *r, const item_t *it, int stage)
{
	char urls[96];
	memset(r, 0, sizeof *r);
	rec_set_str(r, "type", "Crawl");
	rec_set_str(r, "id", it->id);
	snprintf(urls, sizeof urls, "https://www.example.localhost/section-%ld/", it->n);
	rec_set_str(r, "urls", urls);
	rec_set_int(r, "max_depth", 0);
	rec_set_str(r, "status", stage == 0 ? "queued" : stage == 1 ? "started" : "sealed");
	rec_set_time(r, "retry_at", stage == 0 ? it->created : stage == 1 ? it->created + DAY : -1);
	rec_set_time(r, "created_at", it->created);
}

/* The line seal_snapshot appends to the data dir's index.jsonl. */
static void
site_line(buf_t *b, const rec_t *snap, const item_t *it)
{
	static const char *keys[] = {"id", "crawl_id", "url", "title", "tags", "depth", "bookmarked_at",
	    "downloaded_at", "output_size", NULL};
	rec_t l = {0};
	rec_set_str(&l, "type", "Snapshot");
	for (int i = 0; keys[i]; i++) {
		const char *v = rec_raw(snap, keys[i]);
		rec_set_raw(&l, keys[i], v ? v : "null");
	}
	char path[128];
	snprintf(path, sizeof path, "crawls/%s/%s", it->crawl, it->id);
	rec_set_str(&l, "path", path);
	rec_line(&l, b);
	buf_addc(b, '\n');
	rec_free(&l);
}

/* A data dir with nsealed sealed snapshots in nsealed/PER_CRAWL sealed
 * crawls (none if nsealed is 0). */
static double
build_store(const char *dir, long nsealed, int with_site)
{
	double t0 = mono_s();
	store_t s;
	store_open(&s, dir, 1);
	s.durable = 0;    /* setup only */
	long ncrawls = nsealed / PER_CRAWL;
	int64_t now = clock_now(), base = now - 60 * DAY;
	item_t *cr = xcalloc(ncrawls ? ncrawls : 1, sizeof *cr);
	for (long i = 0; i < ncrawls; i++) {
		id_new(cr[i].id);
		cr[i].created = base + i * HOUR;
		cr[i].n = i;
	}
	int sfd = fs_open(s.dfd, "index.jsonl", O_WRONLY | O_APPEND | O_CREAT, 0644);
	if (sfd < 0)
		diesys(EX_CANTCREAT_, "unable to open %s/index.jsonl", dir);
	long per_batch = BATCH / PER_CRAWL;
	for (long c = 0; c < ncrawls; c += per_batch) {
		check_stop();
		long ce = c + per_batch < ncrawls ? c + per_batch : ncrawls;
		size_t ns = (size_t)(ce - c) * PER_CRAWL;
		item_t *sn = xcalloc(ns, sizeof *sn);
		for (long i = c; i < ce; i++)
			for (long j = 0; j < PER_CRAWL; j++) {
				item_t *it = &sn[(i - c) * PER_CRAWL + j];
				id_new(it->id);
				memcpy(it->crawl, cr[i].id, ID_LEN + 1);
				it->created = cr[i].created + j * 1000000;
				it->n = i * PER_CRAWL + j;
			}
		for (int stage = 0; stage <= 2; stage++) {
			store_lock(&s);
			if (stage < 2)
				for (long i = c; i < ce; i++) {
					rec_t r;
					crawl_rec(&r, &cr[i], stage);
					store_put(&s, &r);
					rec_free(&r);
				}
			buf_t site = {0};
			for (size_t i = 0; i < ns; i++) {
				rec_t r;
				snap_rec(&s, &r, &sn[i], stage);
				if (stage == 2 && with_site)
					site_line(&site, &r, &sn[i]);
				store_put(&s, &r);
				rec_free(&r);
			}
			if (stage == 2) {
				for (long i = c; i < ce; i++) {
					rec_t r;
					crawl_rec(&r, &cr[i], 2);
					store_put(&s, &r);
					rec_free(&r);
				}
			}
			store_unlock(&s);
			if (site.len && write(sfd, site.p, site.len) != (ssize_t)site.len)
				diesys(EX_IOERR_, "unable to write %s/index.jsonl", dir);
			buf_free(&site);
		}
		free(sn);
	}
	close(sfd);
	store_lock(&s);
	store_compact(&s, "crawls.jsonl", 1);
	for (long i = 0; i < ncrawls; i++) {
		char j[128];
		store_crawl_journal(cr[i].id, j, sizeof j);
		store_compact(&s, j, 1);
	}
	store_unlock(&s);
	store_rebuild_index(&s);
	store_close(&s);
	free(cr);
	return mono_s() - t0;
}

/* ----------------------------------------------------------------- cost */

static void
cost(long nsealed, long ndue, int rounds)
{
	char *hook = setup_common(ndue, "urls");
	free(hook);
	char *urls = xasprintf("%s/urls", tmproot);
	char *big = xasprintf("%s/sealed", tmproot), *small = xasprintf("%s/alone", tmproot);
	char *nosite = xasprintf("%s/nosite", tmproot);
	build_store(small, 0, 1);
	double bs = build_store(big, nsealed, 1);
	build_store(nosite, nsealed, 0);
	printf("tick: cost: %ld due snapshots (1 crawl, noop hook) among %ld sealed (%ld crawls x %d) "
	       "vs alone; store built in %.1f s; %d rounds, in %s\n",
	    ndue, nsealed, nsealed / PER_CRAWL, PER_CRAWL, bs, rounds, tmproot);
	/* a first tick on each settles what setup left (repair, lock files) */
	tick_rc(big, NULL, 1);
	tick_rc(small, NULL, 1);
	tick_rc(nosite, NULL, 1);
	const char *dirs[3] = {big, small, nosite};
	double *t[3];
	for (int i = 0; i < 3; i++)
		t[i] = xcalloc(rounds, sizeof(double));
	for (int r = 0; r < rounds; r++) {
		check_stop();
		for (int i = 0; i < 3; i++)
			add_crawl(dirs[i], urls, NULL);
		for (int j = 0; j < 3; j++) {
			int i = r % 2 ? 2 - j : j;
			t[i][r] = tick(dirs[i], NULL);
		}
	}
	long sb = sealed_lines(big), ss = sealed_lines(small), sn = sealed_lines(nosite);
	if (sb != nsealed + ndue * rounds || ss != ndue * rounds || sn != ndue * rounds)
		die(EX_SOFT_, "%ld, %ld and %ld snapshots in the site indexes; expected %ld, %ld and %ld",
		    sb, ss, sn, nsealed + ndue * rounds, ndue * rounds, ndue * rounds);
	char label[200];
	snprintf(label, sizeof label, "tick cost, %ld due among %ldk sealed / %ld due alone", ndue,
	    nsealed / 1000, ndue);
	ratio_line(label, t[0], t[1], rounds, 1e3, "ms", 1.5);
	snprintf(label, sizeof label, "diagnostic: the same %ldk sealed without their lines in the site "
	         "index.jsonl / alone", nsealed / 1000);
	ratio_line(label, t[2], t[1], rounds, 1e3, "ms", 0);
	for (int i = 0; i < 3; i++)
		free(t[i]);
	free(urls), free(big), free(small), free(nosite);
}

/* Run argv traced only for its exit (PTRACE_O_TRACEEXIT, no syscall
 * stops, children not traced): its own peak RSS (VmHWM, kB) read from
 * /proc at the exit stop; *tree_kb is wait4's ru_maxrss (what
 * /usr/bin/time -f %M prints: the largest of it and its children). */
static long
own_hwm(char *const argv[], long *tree_kb, int *rcp)
{
	pid_t pid = fork();
	if (pid < 0)
		diesys(EX_SOFT_, "fork");
	if (pid == 0) {
		int fd = open("/dev/null", O_RDWR);
		dup2(fd, 0);
		dup2(fd, 1);
		ptrace(PTRACE_TRACEME, 0, NULL, NULL);
		execv(argv[0], argv);
		_exit(127);
	}
	int st;
	struct rusage ru;
	long hwm = -1;
	if (waitpid(pid, &st, 0) < 0 || !WIFSTOPPED(st))
		die(EX_SOFT_, "unable to trace %s", argv[0]);
	ptrace(PTRACE_SETOPTIONS, pid, NULL, (void *)(long)(PTRACE_O_TRACEEXIT | PTRACE_O_EXITKILL));
	ptrace(PTRACE_CONT, pid, NULL, NULL);
	for (;;) {
		if (wait4(pid, &st, 0, &ru) < 0) {
			if (errno == EINTR)
				continue;
			diesys(EX_SOFT_, "wait4");
		}
		if (WIFEXITED(st) || WIFSIGNALED(st))
			break;
		int sig = WSTOPSIG(st);
		if (st >> 8 == (SIGTRAP | (PTRACE_EVENT_EXIT << 8))) {
			char path[64], line[256];
			snprintf(path, sizeof path, "/proc/%d/status", (int)pid);
			FILE *f = fopen(path, "r");
			while (f && fgets(line, sizeof line, f))
				if (strncmp(line, "VmHWM:", 6) == 0)
					hwm = atol(line + 6);
			if (f)
				fclose(f);
			sig = 0;
		} else if (sig == SIGTRAP) {
			sig = 0;
		}
		ptrace(PTRACE_CONT, pid, NULL, (void *)(long)sig);
	}
	*tree_kb = ru.ru_maxrss;
	*rcp = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
	return hwm;
}

/* Peak RSS of abx-tick passes over the sealed store (10 due each time). */
static void
rss(long nsealed, long ndue, int rounds)
{
	char *hook = setup_common(ndue, "urls");
	free(hook);
	char *urls = xasprintf("%s/urls", tmproot);
	char *big = xasprintf("%s/sealed", tmproot), *small = xasprintf("%s/alone", tmproot);
	build_store(small, 0, 1);
	double bs = build_store(big, nsealed, 1);
	printf("rss: abx-tick passes with %ld due snapshots (noop hook) among %ld sealed (%ld crawls x "
	       "%d, store built in %.1f s) and alone; %d rounds\n",
	    ndue, nsealed, nsealed / PER_CRAWL, PER_CRAWL, bs, rounds);
	char *t = tool("abx-tick");
	long own[2] = {0, 0}, tree[2] = {0, 0};
	const char *dirs[2] = {big, small};
	for (int r = 0; r < rounds; r++)
		for (int i = 0; i < 2; i++) {
			check_stop();
			add_crawl(dirs[i], urls, NULL);
			char *argv[] = {t, "-d", (char *)dirs[i], NULL};
			long tr;
			int rc;
			long h = own_hwm(argv, &tr, &rc);
			if (rc != 0)
				die(EX_SOFT_, "abx-tick -d %s exited %d", dirs[i], rc);
			if (h > own[i])
				own[i] = h;
			if (tr > tree[i])
				tree[i] = tr;
		}
	printf("rss: peak RSS of abx-tick over %ldk sealed: %.1f MB (VmHWM at exit; alone %.1f MB) "
	       "[target < 16 MB: %s]\n",
	    nsealed / 1000, own[0] / 1024.0, own[1] / 1024.0, own[0] < 16 * 1024 ? "ok" : "MISSED");
	printf("rss: with its children (wait4 ru_maxrss, as /usr/bin/time -f %%M prints): %.1f MB over "
	       "%ldk sealed, %.1f MB alone (max over rounds)\n",
	    tree[0] / 1024.0, nsealed / 1000, tree[1] / 1024.0);
	free(t), free(urls), free(big), free(small);
}

/* ----------------------------------------------------------------- main */

int
main(int argc, char **argv)
{
	err_init(argv[0]);
	if (argc < 2)
		die(EX_USAGE_, "%s", USAGE);
	const char *mode = argv[1], *builddir = NULL;
	optind = 2;
	if (strcmp(mode, "build") == 0) {
		if (argc < 3)
			die(EX_USAGE_, "%s", USAGE);
		builddir = argv[2];
		optind = 3;
	}
	long n = -1, k = 10;
	int rounds = -1, c;
	while ((c = getopt(argc, argv, "n:k:r:b:h")) != -1) {
		switch (c) {
		case 'n': n = atol(optarg); break;
		case 'k': k = atol(optarg); break;
		case 'r': rounds = atoi(optarg); break;
		case 'b': snprintf(bindir, sizeof bindir, "%s", optarg); break;
		case 'h': puts(USAGE); return 0;
		default: fprintf(stderr, "%s\n", USAGE); return EX_USAGE_;
		}
	}
	if (optind != argc || k < 1)
		die(EX_USAGE_, "%s", USAGE);
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (getenv("ABX_SYNC")) {
		printf("tick: note: ABX_SYNC=%s unset: commits are durable here\n", getenv("ABX_SYNC"));
		unsetenv("ABX_SYNC");
	}
	unsetenv("ABX_DIR");

	if (builddir) {
		double t = build_store(builddir, n < 0 ? 100000 : n, 1);
		printf("%.1f\n", t);
		return 0;
	}
	char real[4096];
	if (!realpath(bindir, real))
		diesys(EX_UNAVAIL_, "no such directory: %s", bindir);
	snprintf(bindir, sizeof bindir, "%s", real);
	const char *td = getenv("TMPDIR");
	snprintf(tmproot, sizeof tmproot, "%s/abx-bench-tick.XXXXXX", td && *td ? td : "/tmp");
	if (!mkdtemp(tmproot)) {
		*tmproot = 0;
		diesys(EX_CANTCREAT_, "unable to create a temp dir");
	}
	atexit(cleanup);
	struct sigaction sa = {.sa_handler = bench_on_signal, .sa_flags = SA_RESTART};
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	if (strcmp(mode, "overhead") == 0)
		overhead(n < 0 ? 1000 : n, rounds < 0 ? 3 : rounds);
	else if (strcmp(mode, "cost") == 0)
		cost(n < 0 ? 100000 : n, k, rounds < 0 ? 7 : rounds);
	else if (strcmp(mode, "rss") == 0)
		rss(n < 0 ? 100000 : n, k, rounds < 0 ? 3 : rounds);
	else
		die(EX_USAGE_, "%s", USAGE);
	return 0;
}
