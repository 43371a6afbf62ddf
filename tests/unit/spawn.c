/* spawn.c — what a child of spawn() inherits, as spawn.h says: every
 * signal at its default and none blocked, only the fds named (even in
 * crossed order, even close-on-exec), exactly the environment given, the
 * cwd and process group asked for; errors returned. */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/spawn.h"
#include "tap.h"

extern char **environ;

/* sh -c script, with sp's other fields from fill; its exit code. */
static int
sh(const char *script, void (*fill)(spawn_t *))
{
	char *argv[] = {"sh", "-c", (char *)script, NULL};
	spawn_t sp;
	spawn_init(&sp, "sh", argv, environ);
	if (fill)
		fill(&sp);
	pid_t pid;
	int e = spawn(&sp, &pid);
	return e ? -100 - e : spawn_wait(pid);
}

static void
quiet(spawn_t *sp)
{
	sp->fd[1] = sp->fd[2] = SPAWN_NULL;
}

static void
crossed(spawn_t *sp)
{
	sp->fd[3] = 4, sp->fd[4] = 3, sp->nfd = 5;
}

static void
env_only(spawn_t *sp)
{
	static char *env[] = {"ABX_SPAWN_T=1", NULL};
	sp->path = "/bin/sh";
	sp->envp = env;
}

static void
at_root(spawn_t *sp)
{
	sp->cwd = "/";
}

static char *
slurp(int fd)
{
	static char b[64];
	ssize_t n = pread(fd, b, sizeof b - 1, 0);
	b[n > 0 ? n : 0] = 0;
	return b;
}

int
main(void)
{
	plan(11);
	/* 1. signals: ours ignored and blocked, the child's at default */
	signal(SIGPIPE, SIG_IGN);
	signal(SIGUSR1, SIG_IGN);
	sigset_t block;
	sigemptyset(&block);
	sigaddset(&block, SIGTERM);
	sigaddset(&block, SIGCHLD);
	sigprocmask(SIG_BLOCK, &block, NULL);
	ok(sh("grep -q '^SigIgn:[[:space:]]*0*$' /proc/self/status", NULL) == 0,
	    "no signal ignored in the child");
	ok(sh("grep -q '^SigBlk:[[:space:]]*0*$' /proc/self/status", NULL) == 0,
	    "no signal blocked in the child");

	/* 2. fds: named ones, crossed, close-on-exec; nothing else */
	FILE *fa = tmpfile(), *fb = tmpfile();
	int a = fileno(fa), b = fileno(fb);
	dup2(a, 3), dup2(b, 4);
	fcntl(3, F_SETFD, FD_CLOEXEC);
	int stray = open("/dev/null", O_RDONLY);   /* no close-on-exec */
	char script[128];
	snprintf(script, sizeof script, "echo to3 >&3; echo to4 >&4; ! [ -e /dev/fd/%d ]", stray);
	ok(sh(script, crossed) == 0, "an fd not named is closed in the child");
	is_str(slurp(b), "to3\n", "the child's 3 is our 4");
	is_str(slurp(a), "to4\n", "the child's 4 is our 3 (close-on-exec)");
	ok(sh("[ -e /dev/fd/0 ] && [ ! -e /dev/fd/3 ] && read x; [ -z \"$x\" ]", NULL) == 0,
	    "stdin /dev/null and nothing on 3 by default");

	/* 3. environment and cwd */
	ok(sh("[ \"$ABX_SPAWN_T\" = 1 ] && [ -z \"$HOME\" ]", env_only) == 0, "exactly envp");
	ok(sh("[ \"$(pwd)\" = / ]", at_root) == 0, "cwd");

	/* 4. process group */
	char *argv[] = {"sleep", "5", NULL};
	spawn_t sp;
	spawn_init(&sp, "sleep", argv, environ);
	pid_t ours, own;
	int e1 = spawn(&sp, &ours);
	sp.session = 1;
	int e2 = spawn(&sp, &own);
	ok(!e1 && !e2 && getpgid(ours) == getpgrp() && getsid(own) == own && getpgid(own) == own,
	    "session 0: our group; session 1: its own");
	kill(ours, SIGKILL);
	killpg(own, SIGKILL);
	int c1 = spawn_wait(ours), c2 = spawn_wait(own);
	ok(c1 == 128 + SIGKILL && c2 == 128 + SIGKILL, "killed: 128 + signal");

	/* 5. errors are returned */
	sp.path = "/nonexistent/abx";
	pid_t pid;
	int enoent = spawn(&sp, &pid);
	sp.nfd = SPAWN_NFD + 1;
	int einval = spawn(&sp, &pid);
	ok(enoent == ENOENT && einval == EINVAL && sh("exit 3", quiet) == 3,
	    "ENOENT, EINVAL, and the exit code");
	fclose(fa);
	fclose(fb);
	return done();
}
