/*
 * hook.c — benchmark of what abx-hook adds per hook (part of make bench).
 *
 * Prints, as a ratio measured in one run:
 *
 *   hook: abx-hook per hook / direct spawn: R x (A ms vs B ms)
 *
 * where B is posix_spawn + waitpid of a no-op hook (a symlink to
 * /bin/true), and A is one `abx-hook -d DIR SNAPSHOT` running N such hooks
 * of one snapshot, one per plugin as real plugins mostly have (the whole process: startup, plugin discovery, config,
 * lease, per-hook cwd, logs, before/after scans, stdout parsing, one
 * durable commit of the ArchiveResult + Process records per hook), divided
 * by N.  A second line gives the same with ABX_SYNC=0 (no fdatasync), to
 * show what durability costs.
 *
 * Method: a data dir with one crawl and one snapshot (through the store
 * API), a plugins dir with N hooks.  Each round runs, in turn (forward
 * and backward in alternate rounds), N direct spawns, one abx-hook, one
 * abx-hook with ABX_SYNC=0; the first round is a warm-up.  A figure is
 * the median over the rounds of that round's per-hook time.
 *
 * usage: hook [-n HOOKS] [-r ROUNDS] [-b ABX_HOOK] [-t TMPDIR]
 */
#include <errno.h>
#include <fcntl.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "base/clock.h"
#include "base/err.h"
#include "die.h"
#include "base/fs.h"
#include "store/record.h"
#include "store/store.h"

extern char **environ;

static double
now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static int
run(const char *path, char *const argv[], char *const envp[])
{
	pid_t pid;
	posix_spawn_file_actions_t fa;
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
	int rc = posix_spawn(&pid, path, &fa, NULL, argv, envp);
	posix_spawn_file_actions_destroy(&fa);
	if (rc) {
		errno = rc;
		diesys(70, "unable to spawn %s", path);
	}
	int st;
	while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

static int
dbl_cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

static double
median(double *v, int n)
{
	qsort(v, n, sizeof *v, dbl_cmp);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* A data dir with one crawl and its snapshot; the snapshot id into sid. */
static void
make_data(const char *dir, char *sid)
{
	store_t s;
	rec_t c, sn;
	int64_t now = clock_now();
	store_open(&s, dir, 1);
	record_crawl(&c, now, "http://127.0.0.1:9/bench\n", 0, "", "{}");
	char *cid = rec_str(&c, "id");
	record_snapshot(&sn, now, cid, "http://127.0.0.1:9/bench", 0, NULL, NULL, "");
	char *id = rec_str(&sn, "id");
	snprintf(sid, ID_LEN + 1, "%s", id);
	store_lock(&s);
	store_put(&s, &c);
	store_put(&s, &sn);
	store_unlock(&s);
	free(cid), free(id);
	rec_free(&c), rec_free(&sn);
	store_close(&s);
}

int
main(int argc, char **argv)
{
	int n = 50, rounds = 11, c;
	const char *abxhook = "bin/abx-hook", *tmp = "bench/out";
	err_init(argv[0]);
	while ((c = getopt(argc, argv, "n:r:b:t:h")) != -1) {
		switch (c) {
		case 'n': n = atoi(optarg); break;
		case 'r': rounds = atoi(optarg); break;
		case 'b': abxhook = optarg; break;
		case 't': tmp = optarg; break;
		default:
			fprintf(stderr, "usage: hook [-n HOOKS] [-r ROUNDS] [-b ABX_HOOK] [-t TMPDIR]\n");
			return c == 'h' ? 0 : 64;
		}
	}
	if (n < 1 || rounds < 2 || access(abxhook, X_OK) < 0)
		die(64, "need -n >= 1, -r >= 2 and an executable %s (run make)", abxhook);
	mkdir(tmp, 0755);
	char *base = xasprintf("%s/hook.XXXXXX", tmp);
	if (!mkdtemp(base))
		diesys(73, "unable to create %s", base);
	char real[4096];
	if (!realpath(base, real))
		diesys(73, "unable to resolve %s", base);
	char *dir = xasprintf("%s/data", real), *plugins = xasprintf("%s/plugins", real);
	char sid[ID_LEN + 1];
	make_data(dir, sid);
	mkdir(plugins, 0755);
	char **hooks = xcalloc(n, sizeof(char *));
	for (int i = 0; i < n; i++) {
		char *pdir = xasprintf("%s/noop%d", plugins, i);
		mkdir(pdir, 0755);
		hooks[i] = xasprintf("%s/on_Snapshot__%02d_noop%d.bin", pdir, i % 100, i);
		if (symlink("/bin/true", hooks[i]) < 0)
			diesys(73, "unable to create %s", hooks[i]);
		free(pdir);
	}

	/* environments: the caller's, plus the plugin search path */
	size_t ne = 0;
	while (environ[ne])
		ne++;
	char **env = xcalloc(ne + 4, sizeof(char *)), **env0 = xcalloc(ne + 5, sizeof(char *));
	size_t k = 0;
	for (size_t i = 0; i < ne; i++)
		if (strncmp(environ[i], "ABX_", 4) != 0)
			env[k] = env0[k] = environ[i], k++;
	env[k] = env0[k] = xasprintf("ABX_PLUGINS_DIR=%s", plugins), k++;
	env[k] = env0[k] = xasprintf("ABX_SHARE_DIR=%s/noshare", real), k++;
	env0[k] = "ABX_SYNC=0";

	char *url = "--url=http://127.0.0.1:9/bench";
	char *hargv[] = {(char *)abxhook, "-d", dir, sid, NULL};
	double *direct = xcalloc(rounds, sizeof(double)), *viahook = xcalloc(rounds, sizeof(double));
	double *nosync = xcalloc(rounds, sizeof(double));
	for (int r = 0; r < rounds; r++) {
		for (int step = 0; step < 3; step++) {
			int which = r % 2 ? 2 - step : step;
			double t0 = now_ms();
			if (which == 0) {
				for (int i = 0; i < n; i++) {
					char *a[] = {hooks[i], url, NULL};
					run(hooks[i], a, env);
				}
				direct[r] = (now_ms() - t0) / n;
			} else {
				int rc = run(abxhook, hargv, which == 1 ? env : env0);
				if (rc != 0)
					die(70, "%s exited %d", abxhook, rc);
				(which == 1 ? viahook : nosync)[r] = (now_ms() - t0) / n;
			}
		}
	}
	/* round 0 is the warm-up */
	double d = median(direct + 1, rounds - 1), h = median(viahook + 1, rounds - 1);
	double h0 = median(nosync + 1, rounds - 1);
	printf("hook: abx-hook per hook / direct spawn: %.2fx (%.3f ms vs %.3f ms; %d hooks, %d rounds)\n",
	    h / d, h, d, n, rounds - 1);
	printf("hook: same with ABX_SYNC=0 (no fdatasync): %.2fx (%.3f ms vs %.3f ms)\n", h0 / d, h0, d);
	fflush(stdout);
	int tfd = open(tmp, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (tfd < 0 || fs_rmtree(tfd, strrchr(base, '/') + 1) < 0)
		warnsys("unable to remove %s", base);
	if (tfd >= 0)
		close(tfd);
	return 0;
}
