/*
 * hashes.c — the hashes hook: SHA-256 of the snapshot's output files, as
 * hashes.json.  Built as on_Snapshot__90_hashes.bin beside this file.
 *
 *   on_Snapshot__90_hashes.bin --url=URL      (cwd = $SNAP_DIR/hashes/)
 *
 * A hook by ArchiveBox's contract (settings in the environment, JSONL on
 * stdout, logs on stderr; exit 0 succeeded, 10 skipped, else 1), in C
 * because a shell version started ten programs a run (basename, mktemp,
 * flock, find, sort, xargs, sha256sum, jq, mv, rm) to hash a few small
 * files: this one starts none.  Its SHA-256 (lib/wacz_sha256.c) hashes
 * about 220 MB/s on the machine it was measured on, sha256sum(1) 365: a
 * page's files cost less than the processes did; a 100 MB WARC costs
 * 0.2 s more.
 *
 * 0. HASHES_ENABLED false: "skipped".  No --url, or one beginning with
 *    "-": "failed".  $SNAP_DIR not a directory: "failed".  The timeout is
 *    HASHES_TIMEOUT, else TIMEOUT, else 60 seconds.
 * 1. Wait (at most 80% of the timeout in all) for hooks still writing a
 *    plugin dir: a running wget hook holds an exclusive flock on its dir
 *    (hookenv.h: hook_wait_dir); one still held is read as it is, and
 *    named on stderr.
 * 2. Hash every regular file (symlinks are not followed) in the plugin
 *    dirs of $SNAP_DIR: not the files at its top (index.jsonl and the
 *    like), not our own dir (the cwd's name), not hidden files or dirs,
 *    not the runner's hook logs, pid and argv files (*.log, *.pid,
 *    on_*.sh).  A file that cannot be read: "failed", named.
 * 3. hashes.json = {"<path relative to SNAP_DIR>":"<sha256 hex>",...},
 *    sorted by path (bytewise), two-space indented as jq(1) writes it;
 *    "succeeded", output_str "hashes.json (N files)".  Names that are not
 *    UTF-8 get U+FFFD in the JSON.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/buf.h"
#include "base/err.h"
#include "hook/hookenv.h"
#include "pack/wacz_sha256.h"

typedef struct {
	char **v;
	size_t n, cap;
} list_t;

static list_t files;
static char msg[PATH_MAX + 512];

static void
list_add(list_t *l, char *s)
{
	if (l->n == l->cap) {
		l->cap = l->cap ? l->cap * 2 : 64;
		l->v = xrealloc(l->v, l->cap * sizeof *l->v);
	}
	l->v[l->n++] = s;
}

static noreturn void
done(const char *status, const char *output_str, const char *error)
{
	hook_print(status, output_str, error);
	for (size_t i = 0; i < files.n; i++)
		free(files.v[i]);
	free(files.v);
	exit(hook_exit_code(status, 0));
}

/* The files under dfd/rel (rel: "x/y", a plugin dir or below it), into files. */
static void
walk(int dfd, const char *rel)
{
	int fd = openat(dfd, rel, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	DIR *d = fd >= 0 ? fdopendir(fd) : NULL;
	if (!d) {
		if (fd >= 0)
			close(fd);
		return;
	}
	struct dirent *e;
	while ((e = readdir(d))) {
		if (e->d_name[0] == '.')
			continue;   /* hidden, and . and .. */
		char *p = xasprintf("%s/%s", rel, e->d_name);
		struct stat st;
		if (fstatat(dfd, p, &st, AT_SYMLINK_NOFOLLOW) < 0) {
			free(p);
			continue;
		}
		if (S_ISDIR(st.st_mode)) {
			walk(dfd, p);
			free(p);
		} else if (S_ISREG(st.st_mode) && fnmatch("*.log", e->d_name, 0) &&
		           fnmatch("*.pid", e->d_name, 0) && fnmatch("on_*.sh", e->d_name, 0)) {
			list_add(&files, p);
		} else {
			free(p);
		}
	}
	closedir(d);
}

static int
cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The SHA-256 of dfd/rel in hex; 0, or -1 (errno). */
static int
hash_file(int dfd, const char *rel, char hex[65])
{
	int fd = openat(dfd, rel, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return -1;
	static char chunk[1 << 16];
	sha256_t h;
	sha256_init(&h);
	ssize_t n;
	while ((n = read(fd, chunk, sizeof chunk)) > 0)
		sha256_add(&h, chunk, n);
	int e = errno;
	close(fd);
	if (n < 0)
		return errno = e, -1;
	sha256_hex(&h, hex);
	return 0;
}

int
main(int argc, char **argv)
{
	err_init(argv[0]);
	signal(SIGPIPE, SIG_IGN);
	hook_verdict_t v;
	if (!hook_start(argc, argv, "HASHES", 0, &v))
		done(v.status, v.out, v.err);
	const char *snap = getenv("SNAP_DIR");
	struct stat st;
	if (!snap || !*snap || stat(snap, &st) < 0 || !S_ISDIR(st.st_mode))
		done("failed", "SNAP_DIR is not a directory", NULL);
	char cwd[PATH_MAX];
	if (!getcwd(cwd, sizeof cwd))
		done("failed", "cannot tell the current directory", NULL);
	const char *own = strrchr(cwd, '/') ? strrchr(cwd, '/') + 1 : cwd;
	int dfd = open(snap, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	DIR *d = dfd >= 0 ? fdopendir(dup(dfd)) : NULL;
	if (!d) {
		snprintf(msg, sizeof msg, "cannot enter %s", snap);
		done("failed", msg, NULL);
	}

	/* 1. the plugin dirs, once no hook writes them (sorted: as a glob) */
	list_t dirs = {0};
	struct dirent *e;
	while ((e = readdir(d)))
		if (e->d_name[0] != '.' && strcmp(e->d_name, own) &&
		    fstatat(dfd, e->d_name, &st, 0) == 0 && S_ISDIR(st.st_mode))
			list_add(&dirs, xstrdup(e->d_name));
	closedir(d);
	qsort(dirs.v, dirs.n, sizeof *dirs.v, cmp_str);
	double left = 0.8 * hook_timeout("HASHES_TIMEOUT");
	for (size_t i = 0; i < dirs.n; i++) {
		char *path = xasprintf("%s/%s", snap, dirs.v[i]);
		if (hook_wait_dir(path, &left) < 0)
			fprintf(stderr, "still being written, read as it is: %s/\n", dirs.v[i]);
		free(path);
	}

	/* 2. their files (a symlinked plugin dir is not entered: O_NOFOLLOW) */
	for (size_t i = 0; i < dirs.n; i++) {
		walk(dfd, dirs.v[i]);
		free(dirs.v[i]);
	}
	free(dirs.v);
	qsort(files.v, files.n, sizeof *files.v, cmp_str);
	buf_t json = {0};
	buf_adds(&json, files.n ? "{\n" : "{}\n");
	for (size_t i = 0; i < files.n; i++) {
		char hex[65];
		if (hash_file(dfd, files.v[i], hex) < 0) {
			int err = errno;
			snprintf(msg, sizeof msg, "cannot read %s/%s: %s", snap, files.v[i], strerror(err));
			buf_free(&json);
			done("failed", msg, msg);
		}
		buf_adds(&json, "  ");
		buf_json_strz(&json, files.v[i]);
		buf_addf(&json, ": \"%s\"%s\n", hex, i + 1 < files.n ? "," : "");
	}
	if (files.n)
		buf_adds(&json, "}\n");
	close(dfd);

	/* 3. hashes.json */
	int ok = hook_write_file("hashes.json", json.p, json.len) == 0, err = errno;
	buf_free(&json);
	if (!ok) {
		snprintf(msg, sizeof msg, "cannot write hashes.json: %s", strerror(err));
		done("failed", msg, msg);
	}
	snprintf(msg, sizeof msg, "hashes.json (%zu files)", files.n);
	done("succeeded", msg, NULL);
}
