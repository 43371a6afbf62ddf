/* toolspawn.c — see toolspawn.h. */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/err.h"
#include "base/spawn.h"
#include "base/toolspawn.h"

extern char **environ;

char *
tool_path(const char *name)
{
	char self[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
	if (n > 0) {
		self[n] = 0;
		char *sl = strrchr(self, '/');
		if (sl) {
			sl[1] = 0;
			char *p = xasprintf("%s%s", self, name);
			if (access(p, X_OK) == 0)
				return p;
			free(p);
		}
	}
	return xstrdup(name);
}

/* environ with env's keys replaced (and the lease's names dropped). */
static char **
child_env(char *const env[])
{
	size_t n = 0, m = 0;
	while (environ[n])
		n++;
	while (env && env[m])
		m++;
	char **e = xcalloc(n + m + 1, sizeof *e);
	size_t k = 0;
	for (size_t i = 0; i < n; i++) {
		const char *eq = strchr(environ[i], '=');
		size_t kl = eq ? (size_t)(eq - environ[i]) : strlen(environ[i]);
		int replaced = (kl == 12 && !strncmp(environ[i], "ABX_LEASE_FD", 12)) ||
		               (kl == 6 && !strncmp(environ[i], "ABX_ID", 6)) ||
		               (kl == 8 && !strncmp(environ[i], "ABX_HINT", 8));
		for (size_t j = 0; j < m && !replaced; j++)
			replaced = !strncmp(env[j], environ[i], kl) && env[j][kl] == '=';
		if (!replaced)
			e[k++] = environ[i];
	}
	for (size_t j = 0; j < m; j++)
		e[k++] = env[j];
	e[k] = NULL;
	return e;
}

int
tool_spawn(const char *path, char *const argv[], char *const env[], int out, int lease_fd,
    const char *id, pid_t *pid)
{
	return tool_spawn_in(path, argv, env, -1, out, lease_fd, id, pid);
}

int
tool_spawn_in(const char *path, char *const argv[], char *const env[], int in, int out, int lease_fd,
    const char *id, pid_t *pid)
{
	char *extra[16 + 2];
	size_t ne = 0;
	char lease_env[32], id_env[96];
	while (env && env[ne] && ne < 16) {
		extra[ne] = env[ne];
		ne++;
	}
	if (lease_fd >= 0) {
		snprintf(lease_env, sizeof lease_env, "ABX_LEASE_FD=3");
		snprintf(id_env, sizeof id_env, "ABX_ID=%s", id ? id : "");
		extra[ne++] = lease_env;
		extra[ne++] = id_env;
	}
	extra[ne] = NULL;
	char **envp = child_env(extra);
	spawn_t sp;
	spawn_init(&sp, path, argv, envp);
	if (in >= 0)
		sp.fd[0] = in;
	sp.fd[1] = out;
	if (lease_fd >= 0)
		sp.fd[3] = lease_fd, sp.nfd = 4;
	int rc = spawn(&sp, pid);
	free(envp);
	return rc;
}
