/*
 * spawn.h — start a child program: the one place that says what every
 * process abx starts inherits from it.  Hooks (hookrun.h), the toolkit's
 * own abx-hook as a tick's worker (toolspawn.h), a binary's --version
 * (binary.c), curl for robots.txt (robots.c) and for the C hooks
 * (hookcurl.h), wget and the outlink parser in the C hooks, a user's
 * command under abx-claim's lease (claimrun.h): all of them go through
 * spawn().
 *
 * Calling sequence:
 *
 *   spawn_t sp;
 *   spawn_init(&sp, path, argv, envp);     stdin /dev/null, our 1 and 2
 *   sp.fd[1] = out;                        what the caller changes
 *   sp.fd[3] = lock, sp.nfd = 4;
 *   if ((e = spawn(&sp, &pid)) != 0) ...   an errno value: it did not start
 *   ... code = spawn_wait(pid);            or the caller's own wait
 *
 * The policy (one for every child):
 *   1. Program: path with a '/' is run as it is; without one it is looked
 *      up in our $PATH (posix_spawnp).  Never a shell.
 *   2. Environment: exactly envp (environ for ours as it is).
 *   3. Descriptors: its fd i is our fd[i] for i < nfd (SPAWN_NULL:
 *      /dev/null, read-only for 0, write-only above); every other fd is
 *      closed in it (closefrom(nfd)), whatever its close-on-exec flag, so
 *      no lock, lease, pipe or index of ours reaches it unless named.  A
 *      source below nfd is first copied above nfd in the parent (and that
 *      copy closed after), so that one dup2 cannot overwrite another's
 *      source and none keeps close-on-exec by a dup2 onto itself.
 *   4. Signals: every catchable signal at its default (glibc's two
 *      internal real-time signals too, which its posix_spawn would leave
 *      ignored) and an empty signal mask, whatever we ignore, catch or
 *      block: a caller that blocks SIGTERM to wait for it (the C hooks), or
 *      ignores SIGPIPE, or was started with SIGCHLD ignored, does not hand
 *      that on.
 *   5. Process group: session 0 keeps it in ours, so a kill of our group
 *      reaches it and a kill of us alone does not (workers, curl, wget);
 *      session 1 makes it the leader of a new session and process group
 *      (setsid), its pid the group id (hooks, --version), so that it and
 *      all it forks are stopped together.
 *   6. Cwd: cwdfd (a directory fd) or cwd (a path) if set, else ours.
 *   7. One exception to 3, for a user's own command run as flock(1) runs
 *      one (abx-claim CMD): inherit 1 leaves every fd above nfd as exec
 *      leaves it, so that what the user handed abx-claim (3<file) reaches
 *      the command.  abx's own fds are close-on-exec, and the caller names
 *      what it hands on (the lease, $ABX_LEASE_FD).
 *
 * Stopping is the caller's, by the group it chose: a child in its own
 * session is stopped as a group, killpg(pid) (hookrun.h: SIGTERM at the
 * deadline or proc_stop, SIGKILL after the grace, then the group reaped);
 * one in our group by kill(pid, SIGTERM) (the C hooks stop curl and wget
 * so when they get SIGTERM or SIGINT).
 *
 * It is posix_spawn(3): glibc runs the child with clone(CLONE_VM |
 * CLONE_VFORK), so the cost does not grow with our memory (a tick with a
 * large index, a hook on the hot path of a crawl), and an exec that fails
 * is returned here as its errno (ENOENT, EACCES, ENOEXEC ...) rather than
 * as a child that exits 127.  Nothing here exits, in the parent or in the
 * child.
 */
#ifndef ABX_SPAWN_H
#define ABX_SPAWN_H

#include <sys/types.h>

#define SPAWN_NFD 132        /* fds a child can be given: stdio + 129 (the gate: gate.h) */
#define SPAWN_NULL (-1)      /* fd[i]: /dev/null */

typedef struct {
	const char *path;
	char *const *argv;
	char *const *envp;
	int fd[SPAWN_NFD];       /* its fd i is our fd[i] */
	int nfd;                 /* 3 <= nfd <= SPAWN_NFD */
	int cwdfd;               /* -1: not used */
	const char *cwd;         /* NULL: not used; cwdfd wins */
	int session;             /* 1: its own session and group */
	int inherit;             /* 1: fds above nfd as exec leaves them (7) */
} spawn_t;

/* path, argv, envp; fd {SPAWN_NULL, 1, 2}, nfd 3, no cwd, session 0. */
void spawn_init(spawn_t *sp, const char *path, char *const *argv, char *const *envp);
/* Start it: 0 and *pid, or an errno value (EINVAL for a bad nfd). */
int spawn(const spawn_t *sp, pid_t *pid);
/* Wait for pid (EINTR retried): its exit code, or 128 + N if signal N
 * ended it; -1 if it cannot be waited for (errno set). */
int spawn_wait(pid_t pid);
/* A waitpid status as abx records it: the code, or 128 + signal; -1 if
 * it is neither (stopped, continued). */
int spawn_code(int status);

#endif
