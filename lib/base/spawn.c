/* spawn.c — see spawn.h. */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/spawn.h"

void
spawn_init(spawn_t *sp, const char *path, char *const *argv, char *const *envp)
{
	memset(sp, 0, sizeof *sp);
	sp->path = path;
	sp->argv = argv;
	sp->envp = envp;
	sp->fd[0] = SPAWN_NULL;
	sp->fd[1] = 1;
	sp->fd[2] = 2;
	sp->nfd = 3;
	sp->cwdfd = -1;
}

/* Every signal a child sets to its default: all but SIGKILL and SIGSTOP. */
static void
all_signals(sigset_t *all)
{
	sigfillset(all);
	sigdelset(all, SIGKILL);
	sigdelset(all, SIGSTOP);
#ifdef __GLIBC__
	/* glibc's sigfillset leaves out the two real-time signals it keeps
	 * for itself (32, 33), and its posix_spawn then sets them to SIG_IGN
	 * in the child, which execve keeps: name them by hand */
	for (int sig = 32; sig < SIGRTMIN; sig++) {
		size_t w = 8 * sizeof all->__val[0];
		all->__val[(sig - 1) / w] |= 1UL << ((sig - 1) % w);
	}
#endif
}

static int
setup(const spawn_t *sp, const int *src, posix_spawnattr_t *a, posix_spawn_file_actions_t *fa)
{
	sigset_t none, all;
	sigemptyset(&none);
	all_signals(&all);
	short flags = POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF;
	if (sp->session)
		flags |= POSIX_SPAWN_SETSID;
	int rc = posix_spawnattr_setflags(a, flags);
	if (!rc)
		rc = posix_spawnattr_setsigmask(a, &none);
	if (!rc)
		rc = posix_spawnattr_setsigdefault(a, &all);
	for (int i = 0; !rc && i < sp->nfd; i++)
		rc = src[i] == SPAWN_NULL
		         ? posix_spawn_file_actions_addopen(fa, i, "/dev/null", i ? O_WRONLY : O_RDONLY, 0)
		         : posix_spawn_file_actions_adddup2(fa, src[i], i);
	if (!rc && sp->cwdfd >= 0)
		rc = posix_spawn_file_actions_addfchdir_np(fa, sp->cwdfd);
	else if (!rc && sp->cwd)
		rc = posix_spawn_file_actions_addchdir_np(fa, sp->cwd);
	if (!rc && !sp->inherit)
		rc = posix_spawn_file_actions_addclosefrom_np(fa, sp->nfd);
	return rc;
}

int
spawn(const spawn_t *sp, pid_t *pid)
{
	if (sp->nfd < 3 || sp->nfd > SPAWN_NFD)
		return EINVAL;
	/* sources below nfd copied above it: see spawn.h, 3 */
	int src[SPAWN_NFD], rc = 0;
	for (int i = 0; i < sp->nfd; i++) {
		src[i] = sp->fd[i];
		if (!rc && src[i] >= 0 && src[i] < sp->nfd &&
		    (src[i] = fcntl(sp->fd[i], F_DUPFD_CLOEXEC, sp->nfd)) < 0)
			rc = errno;
	}
	posix_spawnattr_t a;
	posix_spawn_file_actions_t fa;
	if (!rc && (rc = posix_spawnattr_init(&a)) == 0) {
		if ((rc = posix_spawn_file_actions_init(&fa)) == 0) {
			rc = setup(sp, src, &a, &fa);
			if (!rc)
				rc = strchr(sp->path, '/') ? posix_spawn(pid, sp->path, &fa, &a, sp->argv, sp->envp)
				                           : posix_spawnp(pid, sp->path, &fa, &a, sp->argv, sp->envp);
			posix_spawn_file_actions_destroy(&fa);
		}
		posix_spawnattr_destroy(&a);
	}
	for (int i = 0; i < sp->nfd; i++)
		if (src[i] >= 0 && src[i] != sp->fd[i])
			close(src[i]);
	return rc;
}

int
spawn_code(int status)
{
	if (WIFEXITED(status))
		return WEXITSTATUS(status);
	if (WIFSIGNALED(status))
		return 128 + WTERMSIG(status);
	return -1;
}

int
spawn_wait(pid_t pid)
{
	int st;
	pid_t w;
	while ((w = waitpid(pid, &st, 0)) < 0 && errno == EINTR)
		;
	return w < 0 ? -1 : spawn_code(st);
}
