/* runmark.c — see runmark.h. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "base/err.h"
#include "base/fs.h"
#include "base/hookrun.h"
#include "base/json.h"
#include "hook/runmark.h"

#define TERM_GRACE_MS 2000    /* SIGTERM → SIGKILL */
#define KILL_WAIT_MS 2000     /* how long a SIGKILLed process may take */
#define KILL_ROUNDS 20        /* walks of /proc after the SIGTERM one */

typedef struct {
	pid_t pid;
	long long start;
	int pidfd;                /* -1: no pidfd_open (old kernel) */
} victim_t;

typedef struct {
	const char *prefix;       /* "<item>/": the item's tokens start so */
	const char *ours;
	char *const *keep;
	victim_t *v;
	size_t n, cap;
	pid_t *sids;
	size_t nsids, capsids;
	buf_t env;                /* a process's environment, reused */
} sweep_t;

static void
sleep_ms(long ms)
{
	struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
}

/* ------------------------------------------------------------ /proc */

/* State, session and start time from /proc/PID/stat; -1 if gone. */
static int
stat_of(pid_t pid, char *state, long *sid, long long *start)
{
	proc_stat_t st;
	if (proc_stat(pid, &st) < 0)
		return -1;
	*state = st.state, *sid = st.sid, *start = st.start;
	return 0;
}

/* The value of ABX_RUN in the environment of pid: 1 found (*val points
 * into sw->env), 0 none, -1 unreadable (gone, or not ours to read). */
static int
env_token(sweep_t *sw, pid_t pid, const char **val)
{
	static const char needle[] = "ABX_RUN=";
	char path[64];
	snprintf(path, sizeof path, "/proc/%ld/environ", (long)pid);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	buf_reset(&sw->env);
	int rc = fs_read_fd(fd, &sw->env);
	close(fd);
	if (rc < 0 || !sw->env.len)
		return rc < 0 ? -1 : 0;
	size_t nl = sizeof needle - 1;
	const char *p = sw->env.p, *end = sw->env.p + sw->env.len;
	while (p < end) {
		size_t l = strnlen(p, end - p);
		if (l >= nl && memcmp(p, needle, nl) == 0) {
			*val = p + nl;
			return 1;
		}
		p += l + 1;
	}
	return 0;
}

/* ------------------------------------------------------------ victims */

static int
pidfd_signal(int pidfd, int sig)
{
#ifdef SYS_pidfd_send_signal
	return syscall(SYS_pidfd_send_signal, pidfd, sig, NULL, 0);
#else
	errno = ENOSYS;
	return -1;
#endif
}

static void
sid_add(sweep_t *sw, pid_t sid)
{
	if (sid <= 1 || sid == getsid(0))
		return;
	for (size_t i = 0; i < sw->nsids; i++)
		if (sw->sids[i] == sid)
			return;
	if (sw->nsids == sw->capsids) {
		sw->capsids = sw->capsids ? sw->capsids * 2 : 8;
		sw->sids = xrealloc(sw->sids, sw->capsids * sizeof *sw->sids);
	}
	sw->sids[sw->nsids++] = sid;
}

/* Hold on to pid with a pidfd, if it is still the process that matched. */
static void
victim_add(sweep_t *sw, pid_t pid, long long start)
{
	if (pid <= 1 || pid == getpid())
		return;
	for (size_t i = 0; i < sw->n; i++)
		if (sw->v[i].pid == pid)
			return;
	int fd = proc_pidfd(pid);
	if (fd < 0 && errno == ESRCH)
		return;
	if (proc_starttime(pid) != start) {   /* gone, or the pid reused */
		if (fd >= 0)
			close(fd);
		return;
	}
	if (sw->n == sw->cap) {
		sw->cap = sw->cap ? sw->cap * 2 : 16;
		sw->v = xrealloc(sw->v, sw->cap * sizeof *sw->v);
	}
	sw->v[sw->n++] = (victim_t){pid, start, fd};
}

static void
victims_clear(sweep_t *sw)
{
	for (size_t i = 0; i < sw->n; i++)
		if (sw->v[i].pidfd >= 0)
			close(sw->v[i].pidfd);
	sw->n = 0;
}

/* Is token one of a dead run of the item (not ours, not kept)? */
static int
dead_token(const sweep_t *sw, const char *token)
{
	if (strncmp(token, sw->prefix, strlen(sw->prefix)) != 0 ||
	    (sw->ours && strcmp(token, sw->ours) == 0))
		return 0;
	for (char *const *k = sw->keep; k && *k; k++)
		if (strcmp(token, *k) == 0)
			return 0;
	return 1;
}

/* Walk /proc: the processes of other runs of the item, then everything in
 * their sessions and in sw->sids. */
static void
find(sweep_t *sw)
{
	DIR *d = opendir("/proc");
	if (!d) {
		warnsys("unable to read /proc: hooks of a dead run cannot be looked for");
		return;
	}
	for (struct dirent *e; (e = readdir(d));) {
		if (e->d_name[0] < '1' || e->d_name[0] > '9')
			continue;
		pid_t pid = atoi(e->d_name);
		const char *val;
		char st;
		long sid;
		long long start;
		if (pid == getpid() || env_token(sw, pid, &val) != 1 || !dead_token(sw, val) ||
		    stat_of(pid, &st, &sid, &start) < 0 || st == 'Z')
			continue;
		victim_add(sw, pid, start);
		sid_add(sw, sid);
	}
	if (sw->nsids) {
		rewinddir(d);
		for (struct dirent *e; (e = readdir(d));) {
			if (e->d_name[0] < '1' || e->d_name[0] > '9')
				continue;
			pid_t pid = atoi(e->d_name);
			char st;
			long sid;
			long long start;
			if (stat_of(pid, &st, &sid, &start) < 0 || st == 'Z')
				continue;
			for (size_t i = 0; i < sw->nsids; i++)
				if (sw->sids[i] == sid) {
					victim_add(sw, pid, start);
					break;
				}
		}
	}
	closedir(d);
}

static int
victim_alive(const victim_t *v)
{
	if (v->pidfd >= 0) {
		struct pollfd p = {.fd = v->pidfd, .events = POLLIN};
		return poll(&p, 1, 0) == 0;
	}
	char st;
	long sid;
	long long start;
	return stat_of(v->pid, &st, &sid, &start) == 0 && start == v->start && st != 'Z';
}

/* Signal every victim; one we may not signal is reported and dropped. */
static void
signal_all(sweep_t *sw, int sig)
{
	for (size_t i = 0; i < sw->n;) {
		victim_t *v = &sw->v[i];
		int rc = v->pidfd >= 0 ? pidfd_signal(v->pidfd, sig) : victim_alive(v) ? kill(v->pid, sig) : 0;
		if (rc < 0 && errno == EPERM) {
			warnx_("process %ld, left by a dead run, is not ours to signal; leaving it",
			    (long)v->pid);
			if (v->pidfd >= 0)
				close(v->pidfd);
			*v = sw->v[--sw->n];
			continue;
		}
		i++;
	}
}

/* Wait up to ms for every victim to be gone; 1 if they are. */
static int
wait_gone(sweep_t *sw, long ms)
{
	for (long t = 0;; t += 10) {
		int left = 0;
		for (size_t i = 0; i < sw->n && !left; i++)
			left = victim_alive(&sw->v[i]);
		if (!left)
			return 1;
		if (t >= ms)
			return 0;
		sleep_ms(10);
	}
}

static void
list_pids(const sweep_t *sw, buf_t *b)
{
	for (size_t i = 0; i < sw->n && i < 20; i++)
		buf_addf(b, "%s%ld", i ? " " : "", (long)sw->v[i].pid);
	if (sw->n > 20)
		buf_adds(b, " ...");
}

int
run_sweep(const char *item, const char *ours, char *const *keep, const pid_t *sids, size_t nsids)
{
	sweep_t sw;
	memset(&sw, 0, sizeof sw);
	char *prefix = xasprintf("%s/", item);
	sw.prefix = prefix;
	sw.ours = ours;
	sw.keep = keep;
	for (size_t i = 0; i < nsids; i++)
		sid_add(&sw, sids[i]);
	find(&sw);
	int found = sw.n, rc = found;
	if (sw.n) {
		buf_t b = {0};
		list_pids(&sw, &b);
		warnx_("ending %zu process%s left running by an earlier run of %s (pid %s)", sw.n,
		    sw.n == 1 ? "" : "es", item, buf_cstr(&b));
		buf_free(&b);
		signal_all(&sw, SIGTERM);
		wait_gone(&sw, TERM_GRACE_MS);
		victims_clear(&sw);
		for (int round = 0;; round++) {
			find(&sw);
			if (!sw.n)
				break;
			if (round == KILL_ROUNDS) {
				buf_t b2 = {0};
				list_pids(&sw, &b2);
				warnx_("processes left by an earlier run of %s would not die (pid %s); "
				    "not running beside them", item, buf_cstr(&b2));
				buf_free(&b2);
				rc = -1;
				break;
			}
			signal_all(&sw, SIGKILL);
			wait_gone(&sw, KILL_WAIT_MS);
			victims_clear(&sw);
		}
	}
	victims_clear(&sw);
	free(sw.v);
	free(sw.sids);
	buf_free(&sw.env);
	free(prefix);
	return rc;
}

/* ------------------------------------------------------------ pid files */

void
pidfile_write(int dirfd, const char *stem, pid_t pid)
{
	char name[300], line[64];
	snprintf(name, sizeof name, "%s.pid", stem);
	int n = snprintf(line, sizeof line, "%ld %lld\n", (long)pid, proc_starttime(pid));
	int fd = openat(dirfd, name, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0644);
	if (fd >= 0) {
		if (write(fd, line, n) != n) {
			/* a hint only: the token and the mark find the hook */
		}
		close(fd);
	}
}

void
pidfile_remove(int dirfd, const char *stem)
{
	char name[300];
	snprintf(name, sizeof name, "%s.pid", stem);
	unlinkat(dirfd, name, 0);
}

/* The session a pid file names, if its hook still runs and belongs to
 * item's runs (a provider hook of another item may share the directory). */
static pid_t
pidfile_session(int dfd, const char *name, const char *item)
{
	char buf[64];
	int fd = openat(dfd, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return 0;
	ssize_t n = read(fd, buf, sizeof buf - 1);
	close(fd);
	if (n <= 0)
		return 0;
	buf[n] = 0;
	long pid = 0;
	long long st = -1;
	if (sscanf(buf, "%ld %lld", &pid, &st) != 2 || pid <= 1 || st <= 0 || proc_starttime(pid) != st)
		return 0;
	/* a daemon recorded in <stem>.daemon.json is kept (crawldaemons.h) */
	char daemon[300];
	snprintf(daemon, sizeof daemon, "%.*s.daemon.json", (int)strlen(name) - 4, name);
	if (faccessat(dfd, daemon, F_OK, AT_SYMLINK_NOFOLLOW) == 0)
		return 0;
	/* no ABX_RUN left (it wrote over its environment): the file says */
	sweep_t sw;
	memset(&sw, 0, sizeof sw);
	const char *val;
	int r = env_token(&sw, pid, &val);
	size_t il = strlen(item);
	int mine = r != 1 || (strncmp(val, item, il) == 0 && val[il] == '/');
	buf_free(&sw.env);
	return mine ? pid : 0;
}

/* Collect the sessions of the pid files under the item's plugin
 * directories, and remove those files: their run is dead. */
static void
pidfile_sessions(runmark_t *m, pid_t **sids, size_t *n)
{
	int fd = openat(m->dirfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	DIR *d = fd >= 0 ? fdopendir(fd) : NULL;
	if (!d) {
		if (fd >= 0)
			close(fd);
		return;
	}
	for (struct dirent *e; (e = readdir(d));) {
		if (!name_valid(e->d_name) || id_valid(e->d_name))   /* a crawl's snapshots */
			continue;
		int pfd = openat(dirfd(d), e->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		DIR *pd = pfd >= 0 ? fdopendir(pfd) : NULL;
		if (!pd) {
			if (pfd >= 0)
				close(pfd);
			continue;
		}
		for (struct dirent *f; (f = readdir(pd));) {
			size_t l = strlen(f->d_name);
			if (l <= 4 || strcmp(f->d_name + l - 4, ".pid") != 0 || strncmp(f->d_name, "on_", 3) != 0)
				continue;
			pid_t sid = pidfile_session(dirfd(pd), f->d_name, m->item);
			if (sid > 0) {
				*sids = xrealloc(*sids, (*n + 1) * sizeof **sids);
				(*sids)[(*n)++] = sid;
			}
			unlinkat(dirfd(pd), f->d_name, 0);
		}
		closedir(pd);
	}
	closedir(d);
}

/* ------------------------------------------------------------ the mark */

void
runmark_init(runmark_t *m, const char *item, const char *dir)
{
	memset(m, 0, sizeof *m);
	char run[ID_LEN + 1];
	id_new(run);
	snprintf(m->item, sizeof m->item, "%s", item);
	snprintf(m->token, sizeof m->token, "%s/%s", item, run);
	m->dir = xstrdup(dir);
	m->dirfd = -1;
}

void
runmark_free(runmark_t *m)
{
	if (m->dirfd >= 0)
		close(m->dirfd);
	m->dirfd = -1;
	free(m->dir);
	m->dir = NULL;
}

/* The mark: the sticky bit of the item's directory (a mode bit: setting
 * and clearing it writes no block and creates no inode).  1 marked, 0 not,
 * -1 unknown (errno). */
static int
marked(runmark_t *m)
{
	struct stat st;
	if (fstat(m->dirfd, &st) < 0)
		return -1;
	m->mode = st.st_mode & 07777;
	m->have_mode = 1;
	return (m->mode & S_ISVTX) != 0;
}

int
runmark_clear_dead(store_t *s, runmark_t *m, char *const *keep)
{
	if (m->dirfd < 0)
		m->dirfd = fs_opendir(s->dfd, m->dir);
	int mark = m->dirfd < 0 ? 0 : marked(m);
	if (mark == 0)
		return 0;   /* no run ever started a hook here, or the last ended cleanly */
	pid_t *sids = NULL;
	size_t nsids = 0;
	pidfile_sessions(m, &sids, &nsids);
	int rc = run_sweep(m->item, m->token, keep, sids, nsids) < 0 ? -1 : 0;
	free(sids);
	if (rc == 0 && mark > 0 && fchmod(m->dirfd, m->mode & ~S_ISVTX) < 0)
		warnsys("unable to clear the mark (sticky bit) of %s/%s", s->dir, m->dir);
	m->mode &= ~S_ISVTX;
	return rc;
}

int
runmark_begin(store_t *s, runmark_t *m)
{
	if (m->dirfd < 0 && (m->dirfd = fs_opendir(s->dfd, m->dir)) < 0 && errno == ENOENT)
		m->dirfd = fs_mkdirs_open(s->dfd, m->dir);
	if (m->dirfd < 0 || (!m->have_mode && marked(m) < 0) || fchmod(m->dirfd, m->mode | S_ISVTX) < 0)
		return -1;
	m->marked = 1;
	return 0;
}

void
runmark_end(runmark_t *m)
{
	if (m->marked && fchmod(m->dirfd, m->mode & ~S_ISVTX) < 0)
		warnsys("unable to clear the mark (sticky bit) of %s", m->dir);
	m->marked = 0;
}
