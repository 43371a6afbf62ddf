/*
 * toolspawn.h — start one of the toolkit's own tools (abx-hook) as a
 * worker: a fresh process image, exec'd, never forked from a running tool.
 *
 * A worker is started by spawn() (spawn.h: the one policy of every
 * child), and gets exactly:
 *   fd 0  /dev/null, or in (tool_spawn_in: a serving worker's socket)
 *   fd 1  out (a pipe to the caller: the records it prints)
 *   fd 2  the caller's stderr
 *   fd 3  the item's lease (flock on locks/<id>), named by $ABX_LEASE_FD=3
 *         and $ABX_ID (lease.h: lease_inherited)
 * and no other descriptor, so neither the store lock, nor the index, nor
 * the pipes and leases of sibling workers reach it.  Every signal is at its
 * default and none is blocked (an abx-tick started with SIGCHLD ignored
 * does not hand that on).  It stays in the caller's process group: a kill
 * of the group reaches it, a kill of the caller alone does not (the worker
 * then finishes, or stops at $ABX_PARENT_PID's death if it asks the kernel
 * to tell it: PR_SET_PDEATHSIG).
 *
 * The tool is looked for beside the running executable (/proc/self/exe),
 * then in $PATH: an installed abx-tick runs the abx-hook installed with it.
 */
#ifndef ABX_TOOLSPAWN_H
#define ABX_TOOLSPAWN_H

#include <sys/types.h>

/* The path of tool `name` (malloc'd): beside /proc/self/exe if there, else
 * the bare name (looked up in $PATH when spawned). */
char *tool_path(const char *name);
/*
 * Spawn path with argv; env: NULL-terminated "K=V" strings that replace or
 * add to the environment (the lease's $ABX_LEASE_FD and $ABX_ID are set
 * here when lease_fd >= 0; an inherited $ABX_HINT is dropped: a worker's
 * comes in env).  Returns 0 and *pid, or an errno value.
 */
int tool_spawn(const char *path, char *const argv[], char *const env[], int out, int lease_fd,
    const char *id, pid_t *pid);
/* The same with fd 0 in (when >= 0) instead of /dev/null. */
int tool_spawn_in(const char *path, char *const argv[], char *const env[], int in, int out, int lease_fd,
    const char *id, pid_t *pid);

#endif
