/*
 * wakebench.c — daemon wake-up benchmark (part of make bench; run by
 * bench/daemon.sh).
 *
 *   wakebench [-r ROUNDS] [-w WARMUP] [-b BINDIR] [-s STAMP]
 *
 * Prints, as ratios of medians measured in the same rounds:
 *   1. wake-up: from the exit of `abx-add -d DIR --plugins stamp URL` (its
 *      durable commit done) to the moment the hook starts under a running
 *      `abx-tick --daemon`, against the time from posix_spawn of that same
 *      hook (directly, by this program) to the moment it starts;
 *   2. the same from abx-add's start: abx-add is itself a process spawn
 *      and a durable commit, so this one cannot be below 2x.
 * If the daemon does not run a crawl queued before it started within 10
 * s, that is reported (MISSED) and the rounds measure a proxy instead: a
 * one-shot abx-tick spawned as soon as abx-add exits; exit status 1.
 *
 * The hook is bench/stamp (libc only; symlinked as
 * plugins/stamp/on_Snapshot__10_stamp): it appends its start time
 * (CLOCK_MONOTONIC) to $ABX_BENCH_STAMP.  Before each round the daemon
 * must be idle: asleep with no child, twice 20 ms apart.  The rounds
 * alternate which of the two is measured first; the first WARMUP rounds
 * are not counted.  Each abx-add queues one new crawl of one URL (depth
 * 0); commits are durable (ABX_SYNC unset).  Everything lives in a temp
 * dir under ${TMPDIR:-/tmp}, removed at exit; the daemon is stopped with
 * SIGTERM.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "benchlib.h"
#include "base/err.h"
#include "die.h"
#include "base/exitcodes.h"
#include "base/fs.h"

#define USAGE "usage: wakebench [-r ROUNDS] [-w WARMUP] [-b BINDIR] [-s STAMP]"

extern char **environ;

static pid_t daemon_pid;

static void
cleanup(void)
{
	if (daemon_pid > 0) {
		kill(daemon_pid, SIGTERM);
		waitpid(daemon_pid, NULL, 0);
		daemon_pid = 0;
	}
	bench_rmtree(tmproot);
}

static void
on_signal(int sig)
{
	(void)sig;
	exit(130);   /* atexit: the daemon stopped, the temp dir removed */
}

static double
mono_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void
sleep_s(double s)
{
	struct timespec ts = {(time_t)s, (long)((s - (long)s) * 1e9)};
	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
}

static pid_t
spawn(char *const argv[], const char *cwd)
{
	posix_spawn_file_actions_t fa;
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
	posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
	if (cwd)
		posix_spawn_file_actions_addchdir_np(&fa, cwd);
	pid_t pid;
	int rc = posix_spawn(&pid, argv[0], &fa, NULL, argv, environ);
	posix_spawn_file_actions_destroy(&fa);
	if (rc) {
		errno = rc;
		diesys(EX_UNAVAIL_, "unable to run %s", argv[0]);
	}
	return pid;
}

static int
wait_exit(pid_t pid)
{
	int st;
	while (waitpid(pid, &st, 0) < 0)
		if (errno != EINTR)
			diesys(EX_SOFT_, "waitpid");
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

/* The stamps written so far (the last one in *last). */
static int
read_stamps(const char *path, double *last)
{
	FILE *f = fopen(path, "r");
	int n = 0;
	double t;
	while (f && fscanf(f, "%lf", &t) == 1) {
		*last = t;
		n++;
	}
	if (f)
		fclose(f);
	return n;
}

/* Wait (on inotify, up to tmo seconds) until the stamp file holds more
 * than `have` lines; returns the newest stamp, or -1 on a timeout. */
static double
wait_stamp(int ifd, const char *path, int have, double tmo)
{
	double last = 0, until = mono_s() + tmo;
	for (;;) {
		if (read_stamps(path, &last) > have)
			return last;
		double left = until - mono_s();
		if (left <= 0)
			return -1;
		struct pollfd p = {ifd, POLLIN, 0};
		if (poll(&p, 1, (int)(left * 1000) + 1) > 0) {
			char ev[4096];
			ssize_t n = read(ifd, ev, sizeof ev);
			(void)n;
		}
	}
}

/* The daemon is asleep (state S) with no child process. */
static int
daemon_idle(pid_t pid)
{
	char path[64], buf[512];
	snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		die(EX_SOFT_, "the daemon (pid %d) is gone", (int)pid);
	ssize_t n = read(fd, buf, sizeof buf - 1);
	close(fd);
	if (n <= 0)
		return 0;
	buf[n] = 0;
	char *rp = strrchr(buf, ')');
	if (!rp || rp[1] != ' ' || rp[2] != 'S')
		return 0;
	snprintf(path, sizeof path, "/proc/%d/task/%d/children", (int)pid, (int)pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	n = read(fd, buf, sizeof buf - 1);
	close(fd);
	return n == 0;
}

static void
wait_idle(pid_t pid)
{
	double until = mono_s() + 30;
	int ok = 0;
	while (ok < 2) {
		if (mono_s() > until)
			die(EX_SOFT_, "the daemon did not go idle within 30 s");
		sleep_s(0.02);
		ok = daemon_idle(pid) ? ok + 1 : 0;
	}
}

int
main(int argc, char **argv)
{
	int rounds = 15, warm = 2, c;
	const char *bindir = "bin", *stamp = "bench/stamp";
	err_init(argv[0]);
	while ((c = getopt(argc, argv, "r:w:b:s:h")) != -1) {
		switch (c) {
		case 'r': rounds = atoi(optarg); break;
		case 'w': warm = atoi(optarg); break;
		case 'b': bindir = optarg; break;
		case 's': stamp = optarg; break;
		case 'h': puts(USAGE); return 0;
		default: fprintf(stderr, "%s\n", USAGE); return EX_USAGE_;
		}
	}
	if (optind != argc || rounds < 1 || warm < 0)
		die(EX_USAGE_, "%s", USAGE);
	setvbuf(stdout, NULL, _IOLBF, 0);
	char bin[4096], hookbin[4096];
	if (!realpath(bindir, bin))
		diesys(EX_UNAVAIL_, "no such directory: %s", bindir);
	if (!realpath(stamp, hookbin))
		diesys(EX_UNAVAIL_, "%s is not built (run make bench)", stamp);
	unsetenv("ABX_SYNC");
	unsetenv("ABX_DIR");

	const char *td = getenv("TMPDIR");
	snprintf(tmproot, sizeof tmproot, "%s/abx-bench-daemon.XXXXXX", td && *td ? td : "/tmp");
	if (!mkdtemp(tmproot)) {
		*tmproot = 0;
		diesys(EX_CANTCREAT_, "unable to create a temp dir");
	}
	atexit(cleanup);
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);

	char *plug = xasprintf("%s/plugins/stamp", tmproot), *stamps = xasprintf("%s/stamps", tmproot);
	char *hook = xasprintf("%s/on_Snapshot__10_stamp", plug);
	char *data = xasprintf("%s/data", tmproot), *sdir = xasprintf("%s/stamps", tmproot);
	char *cwd = xasprintf("%s/cwd", tmproot);
	int rfd = open("/", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fs_mkdirs(rfd, plug + 1) < 0 || fs_mkdirs(rfd, sdir + 1) < 0 || fs_mkdirs(rfd, cwd + 1) < 0)
		diesys(EX_CANTCREAT_, "unable to create dirs in %s", tmproot);
	close(rfd);
	if (symlink(hookbin, hook) < 0)
		diesys(EX_CANTCREAT_, "unable to create %s", hook);
	char *file = xasprintf("%s/t", sdir);
	free(stamps);
	setenv("ABX_BENCH_STAMP", file, 1);
	char *pd = xasprintf("%s/plugins", tmproot);
	setenv("ABX_PLUGINS_DIR", pd, 1);
	int ifd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
	if (ifd < 0 || inotify_add_watch(ifd, sdir, IN_MODIFY | IN_CREATE | IN_CLOSE_WRITE) < 0)
		diesys(EX_SOFT_, "inotify");

	char *add = xasprintf("%s/abx-add", bin), *tick = xasprintf("%s/abx-tick", bin);
	/* make the data dir with a first crawl, then start the daemon: it
	 * must run that crawl on its own */
	char *add0[] = {add, "-d", data, "--plugins", "stamp", "https://www.example.localhost/warm-up", NULL};
	if (wait_exit(spawn(add0, NULL)) != 0)
		die(EX_SOFT_, "abx-add failed");
	char *dargv[] = {tick, "-d", data, "--daemon", NULL};
	daemon_pid = spawn(dargv, NULL);
	int have = 0, proxy = 0;
	double last;
	if (wait_stamp(ifd, file, have, 10) < 0) {
		printf("daemon: wake-up: abx-tick --daemon did not run a crawl queued before it started "
		       "within 10 s [target < 2.00x: MISSED]\n");
		kill(daemon_pid, SIGTERM);
		wait_exit(daemon_pid);
		daemon_pid = 0;
		proxy = 1;
		char *t1[] = {tick, "-d", data, NULL};
		if (wait_exit(spawn(t1, NULL)) != 0 || wait_stamp(ifd, file, have, 10) < 0)
			die(EX_SOFT_, "abx-tick did not run the crawl either");
	}
	have++;
	if (!proxy)
		wait_idle(daemon_pid);

	double *dw = xcalloc(rounds, sizeof(double)), *dx = xcalloc(rounds, sizeof(double));
	double *dd = xcalloc(rounds, sizeof(double));
	char *hargv[] = {hook, "--url=https://www.example.localhost/direct", NULL};
	for (int r = -warm; r < rounds; r++) {
		for (int j = 0; j < 2; j++) {
			if ((j + r + warm) % 2 == 0) {
				double t0 = mono_s();
				pid_t p = spawn(hargv, cwd);
				last = wait_stamp(ifd, file, have++, 10);
				if (wait_exit(p) != 0 || last < 0)
					die(EX_SOFT_, "the hook failed");
				if (r >= 0)
					dd[r] = last - t0;
				continue;
			}
			char url[128];
			snprintf(url, sizeof url, "https://www.example.localhost/page-%d", r + warm);
			char *aargv[] = {add, "-d", data, "--plugins", "stamp", url, NULL};
			double t0 = mono_s();
			if (wait_exit(spawn(aargv, NULL)) != 0)
				die(EX_SOFT_, "abx-add failed");
			double t1 = mono_s();
			pid_t tp = 0;
			if (proxy) {
				/* no daemon: a one-shot pass started at once */
				char *targv[] = {tick, "-d", data, NULL};
				tp = spawn(targv, NULL);
			}
			last = wait_stamp(ifd, file, have++, 10);
			if (last < 0)
				die(EX_SOFT_, "the hook did not start within 10 s of abx-add");
			if (r >= 0) {
				dw[r] = last - t0;
				dx[r] = last - t1;
			}
			if (proxy)
				wait_exit(tp);
			else
				wait_idle(daemon_pid);
		}
	}
	double mw = quantile(dw, rounds, 0.5), mx = quantile(dx, rounds, 0.5), md = quantile(dd, rounds, 0.5);
	double *r1 = xcalloc(rounds, sizeof(double)), *r2 = xcalloc(rounds, sizeof(double));
	for (int i = 0; i < rounds; i++) {
		r1[i] = dx[i] / dd[i];
		r2[i] = dw[i] / dd[i];
	}
	const char *what = proxy ? "PROXY (no working daemon): a one-shot abx-tick spawned on abx-add's exit"
	                         : "abx-tick --daemon";
	printf("daemon: wake-up, abx-add's exit (its durable commit done) -> hook started under %s / "
	       "direct spawn -> hook started: %.2fx (%.2f ms vs %.2f ms; per-round ratio median %.2fx, "
	       "range %.2f-%.2fx, %d rounds)",
	    what, mx / md, mx * 1e3, md * 1e3, quantile(r1, rounds, 0.5), quantile(r1, rounds, 0),
	    quantile(r1, rounds, 1), rounds);
	if (!proxy)
		printf(" [target < 2.00x: %s]", mx / md < 2 ? "ok" : "MISSED");
	printf("\ndaemon: the same from abx-add's start (abx-add is a process and a durable commit "
	       "itself, %.2f ms): %.2fx (%.2f ms; per-round ratio median %.2fx, range %.2f-%.2fx)",
	    (mw - mx) * 1e3, mw / md, mw * 1e3, quantile(r2, rounds, 0.5), quantile(r2, rounds, 0),
	    quantile(r2, rounds, 1));
	if (!proxy)
		printf(" [target < 2.00x: %s]", mw / md < 2 ? "ok" : "MISSED");
	printf("\n");
	free(r2);
	free(r1), free(dw), free(dx), free(dd);
	free(plug), free(hook), free(data), free(sdir), free(cwd), free(file), free(pd);
	free(add), free(tick);
	return proxy;
}
