/*
 * claimrun.c — a command run holding an item's flock lease: see
 * claimrun.h.
 *
 *  1. catch SIGINT, SIGTERM and SIGHUP with the caller's handler; build
 *     cmd's environment: ours, less any ABX_DIR, ABX_KIND, ABX_ID,
 *     ABX_LEASE_FD and ABX_HINT, plus the item's;
 *  2. spawn() (spawn.h, as a user's command: stdio and the fds the user
 *     gave us); a file the kernel will not run (ENOEXEC) is found in
 *     $PATH and handed to /bin/sh, as execvp(3) does;
 *  3. wait on a pidfd (or poll every 100 ms without one), renewing and
 *     forwarding signals between waits;
 *  4. release, drop the lock, return the status.
 */
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/clock.h"
#include "base/err.h"
#include "base/spawn.h"
#include "ctl/claimrun.h"
#include "store/claim.h"
#include "store/lease.h"

extern char **environ;

static char **
child_env(const store_t *s, const char *kind, const char *id, int fd, const char *hint)
{
	static const char *const ours[] = {
		"ABX_DIR=", "ABX_KIND=", "ABX_ID=", "ABX_LEASE_FD=", "ABX_HINT=", NULL,
	};
	size_t n = 0, k = 0;
	while (environ[n])
		n++;
	char **env = xcalloc(n + 6, sizeof *env);
	for (size_t i = 0; i < n; i++) {
		int mine = 0;
		for (int j = 0; ours[j] && !mine; j++)
			mine = strncmp(environ[i], ours[j], strlen(ours[j])) == 0;
		if (!mine)
			env[k++] = xstrdup(environ[i]);
	}
	env[k++] = xasprintf("ABX_DIR=%s", s->dir);
	env[k++] = xasprintf("ABX_KIND=%s", kind);
	env[k++] = xasprintf("ABX_ID=%s", id);
	env[k++] = xasprintf("ABX_LEASE_FD=%d", fd);
	if (hint)
		env[k++] = xasprintf("ABX_HINT=%s", hint);
	env[k] = NULL;
	return env;
}

static void
env_free(char **env)
{
	for (size_t i = 0; env[i]; i++)
		free(env[i]);
	free(env);
}

/* The file execvp would run for name: the first executable in $PATH. */
static char *
path_of(const char *name, const char *const *env)
{
	if (strchr(name, '/'))
		return xstrdup(name);
	const char *path = NULL;
	for (size_t i = 0; env[i] && !path; i++)
		if (strncmp(env[i], "PATH=", 5) == 0)
			path = env[i] + 5;
	if (!path)
		path = "/bin:/usr/bin";
	for (const char *p = path;; p++) {
		const char *e = strchr(p, ':');
		size_t n = e ? (size_t)(e - p) : strlen(p);
		char *f = n ? xasprintf("%.*s/%s", (int)n, p, name) : xstrdup(name);
		if (access(f, X_OK) == 0)
			return f;
		free(f);
		if (!e)
			return NULL;
		p = e;
	}
}

/* Spawn cmd as execvp would run it, as the user's own command (spawn.h,
 * 7: it keeps the fds the user gave us); 0, or an errno value. */
static int
spawn_cmd(pid_t *pid, char **cmd, char **env)
{
	spawn_t sp;
	spawn_init(&sp, cmd[0], cmd, env);
	sp.fd[0] = 0;
	sp.inherit = 1;
	int e = spawn(&sp, pid);
	char *f;
	if (e == ENOEXEC && (f = path_of(cmd[0], (const char *const *)env))) {
		size_t n = 0;
		while (cmd[n])
			n++;
		char **v = xcalloc(n + 2, sizeof *v);
		v[0] = "/bin/sh";
		v[1] = f;
		for (size_t i = 1; i < n; i++)
			v[i + 1] = cmd[i];
		sp.path = "/bin/sh";
		sp.argv = v;
		e = spawn(&sp, pid);
		free(v);
		free(f);
	}
	return e;
}

/* Wait for pid, renewing the lease and forwarding signals; 0 and *status,
 * or -1 if waitpid failed. */
static int
wait_renewing(store_t *s, const char *id, pid_t pid, int64_t lease_us,
    volatile sig_atomic_t *forward, int *status)
{
	int pidfd = syscall(SYS_pidfd_open, pid, 0);
	int64_t every = lease_us / 3 / 1000;   /* ms */
	int64_t next = clock_mono() / 1000 + every;
	int renewing = 1;
	for (;;) {
		if (*forward) {
			kill(pid, *forward);
			*forward = 0;
		}
		pid_t w = waitpid(pid, status, WNOHANG);
		if (w == pid)
			break;
		if (w < 0 && errno != EINTR)
			return -1;
		int64_t now = clock_mono() / 1000;
		if (renewing && now >= next) {
			/* the record's expiry is the fallback where locks are
			 * not trusted; the flock is the truth */
			renewing = claim_renew(s, id, lease_us) == 0;
			next = now + every;
		}
		int wait_ms = renewing ? (int)(next - now) : 1000;
		if (wait_ms < 1)
			wait_ms = 1;
		if (pidfd >= 0) {
			struct pollfd p = {pidfd, POLLIN, 0};
			poll(&p, 1, wait_ms);
		} else {
			poll(NULL, 0, wait_ms < 100 ? wait_ms : 100);
		}
	}
	if (pidfd >= 0)
		close(pidfd);
	return 0;
}

int
claim_run(store_t *s, const char *kind, const char *id, int fd, int64_t lease_us, char **cmd,
    void (*on_signal)(int), volatile sig_atomic_t *forward, buf_t *why)
{
	struct sigaction sa = {0};
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	/* where its records are, from our index (store.h: Lean mode) */
	buf_t hint = {0};
	int hinted = store_hint(s, id, &hint) == 0;
	char **env = child_env(s, kind, id, fd, hinted ? buf_cstr(&hint) : NULL);
	buf_free(&hint);
	fflush(stdout);
	pid_t pid;
	int e = spawn_cmd(&pid, cmd, env);
	env_free(env);
	int status = 0;
	if (e == EAGAIN || e == ENOMEM) {
		buf_addf(why, "unable to fork: %s", strerror(e));
		return -1;
	}
	if (e) {
		errno = e;
		warnsys("unable to run %s", cmd[0]);
		status = (e == ENOENT ? 127 : 126) << 8;   /* as a child that exited so */
	} else if (wait_renewing(s, id, pid, lease_us, forward, &status) < 0) {
		buf_addf(why, "waitpid: %s", strerror(errno));
		return -1;
	}
	claim_release(s, id, (long)getpid());
	lease_drop(fd);
	if (WIFEXITED(status))
		return WEXITSTATUS(status);
	return 128 + WTERMSIG(status);
}
