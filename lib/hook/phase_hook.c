/*
 * phase_hook.c — one hook's run: its working directory, its logs, its
 * environment and argv, its pid file; starting it and letting go of it.
 *
 *  1. run_prepare: the cwd (<item dir>/<plugin>, created), the files there
 *     before it runs (outfiles.h), and its output: for a daemon,
 *     <hook_name>.stdout.log and .stderr.log opened (truncated), since it
 *     outlives the phase; for any other hook, two memory files
 *     (memfd_create), written out as those logs when it has ended only if
 *     not empty (an empty log costs an inode, which costs more than the
 *     hook's bookkeeping: most hooks print nothing on stderr);
 *  2. run_spawn: EXTRA_CONTEXT set for it, a Process id drawn, posix_spawn
 *     (hookrun.h) with the plugin's config as its environment, then its
 *     pid file (runmark.h; the fault point "hook-after-spawn" lies between
 *     the two), and "start <hook_name>" on $ABX_PROGRESS_FD;
 *  3. run_release: its logs written out (or an old run's removed), its fds
 *     closed, its pid file removed (a CrawlSetup daemon left running keeps
 *     it, beside its .daemon.json, until the crawl's cleanup stops it), its
 *     argv freed.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/sendfile.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/err.h"
#include "base/fs.h"
#include "hook/outdir.h"
#include "hook/phase_int.h"

static int
open_log(int cwdfd, const char *stem, const char *kind)
{
	char name[300];
	snprintf(name, sizeof name, "%s.%s.log", stem, kind);
	int fd = openat(cwdfd, name, O_RDWR | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0644);
	if (fd < 0)
		warnsys("unable to open %s", name);
	return fd;
}

/* The hook's cwd, logs and the files there before it runs; -1 on error. */
int
run_prepare(phase_t *ph, run_t *r, const char *rel)
{
	r->cwdfd = r->outfd = r->errfd = -1;
	r->rel = xstrdup(rel);
	r->pwd = xasprintf("%s/%s", ph->data_abs, rel);
	/* a symlink refused (outdir.h); a plugin's directory is opened below
	 * the item's, which the run holds open (runmark.h): one component, not
	 * a path from the data directory (each a round trip on a network
	 * filesystem) */
	size_t bl = strlen(ph->base_rel);
	if (ph->mark.dirfd >= 0 && strncmp(rel, ph->base_rel, bl) == 0 && rel[bl] == '/' && rel[bl + 1] &&
	    !strchr(rel + bl + 1, '/')) {
		char *in = xasprintf("%s/%s", ph->s->dir, ph->base_rel);
		r->cwdfd = outdir_open(ph->mark.dirfd, in, rel + bl + 1);
		free(in);
	} else {
		r->cwdfd = outdir_open(ph->s->dfd, ph->s->dir, rel);
	}
	if (r->cwdfd < 0)
		return -1;
	ftree_scan(r->cwdfd, &r->before);
	if (!hook_is_daemon(r->h)) {
		r->outfd = memfd_create("stdout", MFD_CLOEXEC);
		r->errfd = memfd_create("stderr", MFD_CLOEXEC);
		r->memlogs = r->outfd >= 0 && r->errfd >= 0;
		if (r->memlogs)
			return 0;
		if (r->outfd >= 0)
			close(r->outfd);
		if (r->errfd >= 0)
			close(r->errfd);
	}
	r->outfd = open_log(r->cwdfd, r->h->stem, "stdout");
	r->errfd = open_log(r->cwdfd, r->h->stem, "stderr");
	return r->outfd < 0 || r->errfd < 0 ? -1 : 0;
}

/* A memory log written out as <stem>.<kind>.log if not empty; an empty one
 * removes the log an earlier run left, so no log ever belongs to another
 * run. */
static void
write_log(int cwdfd, int memfd, const char *stem, const char *kind)
{
	char name[300];
	snprintf(name, sizeof name, "%s.%s.log", stem, kind);
	struct stat st;
	if (fstat(memfd, &st) < 0 || st.st_size == 0) {
		if (unlinkat(cwdfd, name, 0) < 0 && errno != ENOENT)
			warnsys("unable to remove %s", name);
		return;
	}
	int fd = openat(cwdfd, name, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0644);
	off_t off = 0;
	while (fd >= 0 && off < st.st_size) {
		ssize_t n = sendfile(fd, memfd, &off, st.st_size - off);
		if (n <= 0)
			break;
	}
	if (fd < 0 || off < st.st_size)
		warnsys("unable to write %s", name);
	if (fd >= 0)
		close(fd);
}

void
run_release(run_t *r)
{
	/* a CrawlSetup daemon left running keeps its pid file until the
	 * crawl's cleanup stops it (crawldaemons.h) */
	if (r->cwdfd >= 0 && r->h && r->started && !r->spawn_err && r->p.state != PROC_DETACHED)
		pidfile_remove(r->cwdfd, r->h->stem);
	if (r->memlogs && r->cwdfd >= 0 && r->h) {
		write_log(r->cwdfd, r->outfd, r->h->stem, "stdout");
		write_log(r->cwdfd, r->errfd, r->h->stem, "stderr");
	}
	r->memlogs = 0;
	if (r->cwdfd >= 0)
		close(r->cwdfd);
	if (r->outfd >= 0)
		close(r->outfd);
	if (r->errfd >= 0)
		close(r->errfd);
	r->cwdfd = r->outfd = r->errfd = -1;
	ftree_free(&r->before);
	for (char **a = r->argv; a && *a; a++)
		free(*a);
	free(r->argv);
	free(r->rel), free(r->pwd), free(r->interp_note);
	r->argv = NULL;
	r->rel = r->pwd = r->interp_note = NULL;
}

/* "start <hook>" on $ABX_PROGRESS_FD, for abx-tick's live display. */
static void
progress_note(const char *stem)
{
	const char *f = getenv("ABX_PROGRESS_FD");
	if (!f || !*f)
		return;
	char line[256];
	int n = snprintf(line, sizeof line, "start %s\n", stem);
	if (n > 0 && n < (int)sizeof line && write(atoi(f), line, n) < 0) {
		/* the display is a nicety: never fail a hook for it */
	}
}

static char *
extra_context(phase_t *ph, const conf_t *pc, const hook_t *h)
{
	rec_t r = {0};
	const char *user = conf_get(pc, "EXTRA_CONTEXT");
	if (!user || rec_parse(&r, user, strlen(user)) < 0)
		memset(&r, 0, sizeof r);
	rec_set_str(&r, "snapshot_id", ph->snap_id);
	rec_set_int(&r, "snapshot_depth", ph->depth);
	rec_set_str(&r, "plugin", h->plugin->name);
	rec_set_str(&r, "hook_name", h->stem);
	buf_t b = {0};
	rec_line(&r, &b);
	rec_free(&r);
	return buf_cstr(&b);
}

void
run_spawn(phase_t *ph, run_t *r, conf_t *pc, long timeout)
{
	char *ec = extra_context(ph, pc, r->h);
	conf_set(pc, "EXTRA_CONTEXT", ec, CONF_FORCED);
	free(ec);
	phase_gate_env(ph, (size_t)(r - ph->runs), pc);
	id_new(r->process_id);
	r->started = 1;
	/* a #! interpreter not on the hook's PATH (uv for abx-plugins'
	 * Python hooks): not run, failed with a note naming it, instead of
	 * env's bare exit 127 */
	char *interp = hook_interpreter(r->h->path);
	if (interp && !interpreter_found(interp, conf_get(pc, "PATH"))) {
		r->interp_note = interpreter_missing_note(interp);
		r->spawn_err = ENOENT;
		free(interp);
		return;
	}
	free(interp);
	char **envp = conf_envp(pc);
	spawn_t sp;
	spawn_init(&sp, r->h->path, r->argv, envp);
	sp.fd[1] = r->outfd, sp.fd[2] = r->errfd, sp.cwdfd = r->cwdfd;
	r->spawn_err = proc_spawn(&r->p, &sp, timeout);
	conf_envp_free(envp);
	fault_point("hook-after-spawn");   /* the mark and ABX_RUN find it */
	if (!r->spawn_err)
		pidfile_write(r->cwdfd, r->h->stem, r->p.pid);
	progress_note(r->h->stem);
}

char **
run_argv(const char *path, const char *url)
{
	char **a = xcalloc(3, sizeof(char *));
	a[0] = xstrdup(path);
	a[1] = xasprintf("--url=%s", url);
	return a;
}
