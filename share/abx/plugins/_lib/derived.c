/*
 * derived.c — the hooks that take one file of the chrome hook's load
 * (screenshot, pdf, dom): included by their <plugin>.c, which defines
 *   DERIVED_PREFIX  the settings' prefix ("SCREENSHOT": SCREENSHOT_ENABLED)
 *   DERIVED_FILE    the file, the same name in ../chrome/ and here
 * and is built as the hook, on_Snapshot__3N_<plugin>.bin.
 *
 *   on_Snapshot__3N_<plugin>.bin --url=URL      (cwd = <snapshot>/<plugin>/)
 *
 * In C, so that the usual path starts no program at all: as shell hooks
 * they started sh, rm, ln and mv, four processes a hook and twelve a
 * snapshot, for one hard link each (issue 28, "Capture once").
 *
 * 0. hook_start (hookenv.h): <PREFIX>_ENABLED false "skipped", no --url
 *    or one beginning with "-" "failed", not http(s) "skipped".
 * 1. When the chrome hook loaded the page in this run (its ../chrome/.run
 *    holds our $ABX_RUN; the chrome hook runs before us, as 29, and loads
 *    the page once for the three), and ../chrome/FILE is a regular file,
 *    not empty (../chrome and FILE opened without following a symlink):
 *    FILE is hard-linked (else copied) to ".FILE.<pid>" here and renamed
 *    over FILE (a symlink or hard link planted at FILE is replaced, what
 *    it points to untouched): "succeeded", output_str FILE.
 * 2. Else (no $ABX_RUN, chrome not selected, or its load failed): exec
 *    /bin/sh on browser.sh beside this program (found through
 *    /proc/self/exe) with our arguments: the plugin's own browser, as
 *    before (its header says how).  exec, not fork: still one process.
 *    It cannot be run: "failed", naming it and why.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/buf.h"
#include "base/err.h"
#include "base/fs.h"
#include "hook/hookenv.h"

/* ../chrome/.run holds $ABX_RUN, and ../chrome/FILE is a regular,
 * non-empty file: take it; 0 done, -1 not ours to take. */
static int
take(int chrome)
{
	const char *run = getenv("ABX_RUN");
	buf_t b = {0};
	int ours = run && *run && fs_read(chrome, ".run", &b) == 0 && b.len == strlen(run) &&
	           !memcmp(b.p, run, b.len);
	buf_free(&b);
	struct stat st;
	if (!ours || fstatat(chrome, DERIVED_FILE, &st, AT_SYMLINK_NOFOLLOW) < 0 || !S_ISREG(st.st_mode) ||
	    st.st_size == 0)
		return -1;
	char t[64];
	snprintf(t, sizeof t, ".%s.%d", DERIVED_FILE, (int)getpid());
	unlink(t);
	if (linkat(chrome, DERIVED_FILE, AT_FDCWD, t, 0) == 0 && rename(t, DERIVED_FILE) == 0)
		return 0;
	unlink(t);
	/* a copy (a filesystem without hard links) */
	int ok = fs_read(chrome, DERIVED_FILE, &b) == 0 && b.len && hook_write_file(t, b.p, b.len) == 0 &&
	         rename(t, DERIVED_FILE) == 0;
	buf_free(&b);
	if (ok)
		return 0;
	unlink(t);
	fprintf(stderr, "cannot take ../chrome/%s: %s; starting a browser of our own\n", DERIVED_FILE,
	    strerror(errno));
	return -1;
}

int
main(int argc, char **argv)
{
	err_init(argv[0]);
	hook_verdict_t v;
	const char *url = hook_start(argc, argv, DERIVED_PREFIX, 1, &v);
	if (!url) {
		hook_print(v.status, v.out, v.err);
		return hook_exit_code(v.status, 0);
	}
	int snap = open("..", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	int chrome = snap < 0 ? -1 : fs_opendir(snap, "chrome");
	int done = chrome >= 0 && take(chrome) == 0;
	if (chrome >= 0)
		close(chrome);
	if (snap >= 0)
		close(snap);
	if (done) {
		hook_print("succeeded", DERIVED_FILE, NULL);
		return 0;
	}

	/* 2. the plugin's own browser */
	char self[PATH_MAX], msg[PATH_MAX + 256];
	ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
	char *sl = n > 0 ? (self[n] = 0, strrchr(self, '/')) : NULL;
	if (!sl) {
		snprintf(msg, sizeof msg, "cannot find browser.sh: /proc/self/exe: %s", strerror(errno));
		hook_print("failed", msg, msg);
		return 1;
	}
	snprintf(sl + 1, sizeof self - (sl + 1 - self), "browser.sh");
	char **av = calloc(argc + 2, sizeof *av);
	if (!av)
		return 1;
	av[0] = "sh", av[1] = self;
	for (int i = 1; i < argc; i++)
		av[i + 1] = argv[i];
	execv("/bin/sh", av);
	snprintf(msg, sizeof msg, "cannot run /bin/sh %s: %s", self, strerror(errno));
	free(av);
	hook_print("failed", msg, msg);
	return 1;
}
