/*
 * keepclient.c — the chrome hook's side of the kept browser (keep.c):
 * find this worker's keeper, start one if there is none, and connect to
 * its browser, over which capture_page runs as over the pipe (chrome.c
 * includes it after keep.c).
 *
 * keep_open(K, DEADLINE, WHY): 0 when this hook may use a kept browser,
 * else -1 with WHY ("": not a serving worker, nothing to say):
 *  - $ABX_WORKER is "PID.STARTTIME" of our parent (hookserve.h; checked
 *    against /proc: a one-shot worker or a hook run by hand has none, or
 *    one that is not its parent's) and $DATA_DIR an absolute path;
 *  - locks/chrome.PID.STARTTIME/ in it is made (0700), or opened, never
 *    through a symlink (locks/ and it, O_NOFOLLOW), and must be ours and
 *    closed to group and others;
 *  - its "lock" is taken (flock, exclusive, waited for until DEADLINE):
 *    we are the keeper's one client until we exit.
 *
 * keep_connect(K, C, ARGV, IDLE, RESTART, DEADLINE, WHY): C connected to
 * the keeper's browser, 0; or -1 with WHY.  The keeper's socket is "sock"
 * in that directory, reached as /proc/self/fd/N/sock (a data directory's
 * path may be longer than the 108 bytes of a socket's address), checked
 * to be a socket first (not a link).  No keeper answering there (none
 * yet, or one that died): a new socket bound and listening there, and a
 * keeper started on it: this program (/proc/self/exe) --keep NAME in a
 * session of its own, its fds 3 the socket, 4 a pidfd of the worker, 5
 * the directory (its cwd too: it moves there), stdin and stdout /dev/null, stderr the
 * directory's "log", our environment without ABX_RUN (the keeper belongs
 * to no run: runmark.h), ABX_GATE and the proxy variables (gone with this
 * phase's gate), with ABX_KEPT=$ABX_WORKER.  Then the hello, ARGV the
 * browser's flags (launch.c), IDLE CHROME_KEEP_IDLE, RESTART a new browser
 * wanted; and Keeper.ready awaited: C's ids start at its idBase,
 * K->started and K->pid say whether the browser was started for us and
 * which it is.  A keeper that closes before it is ready (it was ending)
 * is replaced, once.
 */
#include <sys/file.h>
#include <sys/un.h>

typedef struct {
	int locksfd, dfd, lockfd;
	long wpid;                     /* the worker: our parent */
	long long wstart;              /* its start time */
	char name[64];                 /* chrome.$ABX_WORKER */
	const char *worker;
	const char *argv0;
	const sigset_t *mask;
	volatile sig_atomic_t *stop;
	int started;                   /* the keeper started a browser for us */
	long pid, idbase;
	int ready;                     /* 1 ready, -1 failed */
	char why[512];
} keep_t;

static void
keep_close(keep_t *k)
{
	if (k->lockfd >= 0)
		close(k->lockfd);
	if (k->dfd >= 0)
		close(k->dfd);
	if (k->locksfd >= 0)
		close(k->locksfd);
	k->lockfd = k->dfd = k->locksfd = -1;
}

static int
keep_open(keep_t *k, int64_t deadline, char *why, size_t wn)
{
	k->locksfd = k->dfd = k->lockfd = -1;
	why[0] = 0;
	const char *w = getenv("ABX_WORKER"), *data = getenv("DATA_DIR");
	long pid;
	long long start;
	int used = 0;
	if (!w || sscanf(w, "%ld.%lld%n", &pid, &start, &used) != 2 || w[used] || strlen(w) > 40 ||
	    pid != (long)getppid() || proc_starttime((pid_t)pid) != start)
		return -1;
	k->worker = w;
	k->wpid = pid, k->wstart = start;
	snprintf(k->name, sizeof k->name, "chrome.%s", w);
	if (!data || data[0] != '/') {
		snprintf(why, wn, "DATA_DIR=%.300s is not an absolute path", data ? data : "");
		return -1;
	}
	int ddfd = open(data, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (ddfd < 0) {
		snprintf(why, wn, "cannot open DATA_DIR %.300s: %s", data, strerror(errno));
		return -1;
	}
	k->locksfd = openat(ddfd, "locks", O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	close(ddfd);
	struct stat st;
	if (k->locksfd < 0 || (mkdirat(k->locksfd, k->name, 0700) < 0 && errno != EEXIST) ||
	    (k->dfd = openat(k->locksfd, k->name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)) < 0 ||
	    fstat(k->dfd, &st) < 0) {
		snprintf(why, wn, "cannot open %.300s/locks/%s: %s", data, k->name, strerror(errno));
		keep_close(k);
		return -1;
	}
	if (st.st_uid != geteuid() || (st.st_mode & 077)) {
		snprintf(why, wn, "%.300s/locks/%s is not ours alone (uid %ld, mode %03o)", data, k->name,
		    (long)st.st_uid, (unsigned)(st.st_mode & 0777));
		keep_close(k);
		return -1;
	}
	k->lockfd = openat(k->dfd, "lock", O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (k->lockfd < 0) {
		snprintf(why, wn, "cannot open %.300s/locks/%s/lock: %s", data, k->name, strerror(errno));
		keep_close(k);
		return -1;
	}
	while (flock(k->lockfd, LOCK_EX | LOCK_NB) < 0) {
		struct timespec ts = {0, 20000000};
		if (errno != EWOULDBLOCK || clock_mono() >= deadline || *k->stop) {
			snprintf(why, wn, "cannot lock %.300s/locks/%s/lock: %s", data, k->name,
			    errno == EWOULDBLOCK ? "another hook held it until the timeout" : strerror(errno));
			keep_close(k);
			return -1;
		}
		ppoll(NULL, 0, &ts, k->mask);
	}
	return 0;
}

static void
keep_addr(const keep_t *k, struct sockaddr_un *a)
{
	memset(a, 0, sizeof *a);
	a->sun_family = AF_UNIX;
	snprintf(a->sun_path, sizeof a->sun_path, "/proc/self/fd/%d/sock", k->dfd);
}

/* A connection to the keeper, or -1 (errno). */
static int
keep_dial(keep_t *k)
{
	struct stat st;
	if (fstatat(k->dfd, "sock", &st, AT_SYMLINK_NOFOLLOW) < 0)
		return -1;
	if (!S_ISSOCK(st.st_mode)) {
		errno = ENOTSOCK;
		return -1;
	}
	struct sockaddr_un a;
	keep_addr(k, &a);
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd >= 0 && connect(fd, (struct sockaddr *)&a, sizeof a) < 0) {
		int e = errno;
		close(fd);
		errno = e;
		return -1;
	}
	return fd;
}

/* Our environment for the keeper: without ABX_RUN, ABX_GATE and the
 * proxies, with ABX_KEPT. */
static char **
keeper_env(const keep_t *k, char **kept)
{
	static const char *const drop[] = {"ABX_RUN=", "ABX_GATE=", "ABX_KEPT=", "http_proxy=", "https_proxy=",
	                                   "HTTP_PROXY=", "HTTPS_PROXY=", "ALL_PROXY=", "all_proxy=", NULL};
	size_t n = 0;
	while (environ[n])
		n++;
	char **v = xmalloc((n + 2) * sizeof *v);
	size_t j = 0;
	for (size_t i = 0; i < n; i++) {
		int keep = 1;
		for (int d = 0; drop[d] && keep; d++)
			keep = strncmp(environ[i], drop[d], strlen(drop[d])) != 0;
		if (keep)
			v[j++] = environ[i];
	}
	*kept = xasprintf("ABX_KEPT=%s", k->worker);
	v[j++] = *kept;
	v[j] = NULL;
	return v;
}

/* Start a keeper on a new socket: 0, or -1 with why. */
static int
keep_spawn(keep_t *k, char *why, size_t wn)
{
	struct sockaddr_un a;
	keep_addr(k, &a);
	unlinkat(k->dfd, "sock", 0);
	int s = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (s < 0 || bind(s, (struct sockaddr *)&a, sizeof a) < 0 || listen(s, 8) < 0) {
		snprintf(why, wn, "cannot listen on locks/%s/sock: %s", k->name, strerror(errno));
		if (s >= 0)
			close(s);
		return -1;
	}
	pid_t w = (pid_t)k->wpid;
	int pfd = getppid() == w ? proc_pidfd(w) : -1;
	if (pfd < 0 || getppid() != w || proc_starttime(w) != k->wstart) {
		snprintf(why, wn, "cannot watch the worker %ld: %s", (long)w,
		    getppid() != w || proc_starttime(w) != k->wstart ? "it ended" : strerror(errno));
		if (pfd >= 0)
			close(pfd);
		close(s);
		return -1;
	}
	int logfd = openat(k->dfd, "log", O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0600);
	char *kept;
	char **env = keeper_env(k, &kept);
	char *argv[] = {(char *)k->argv0, "--keep", k->name, NULL};
	spawn_t sp;
	spawn_init(&sp, "/proc/self/exe", argv, env);
	sp.fd[1] = SPAWN_NULL;
	sp.fd[2] = logfd >= 0 ? logfd : SPAWN_NULL;
	sp.fd[3] = s;
	sp.fd[4] = pfd;
	sp.fd[5] = k->dfd;
	sp.nfd = 6;
	sp.session = 1;
	pid_t pid;
	int e = spawn(&sp, &pid);
	free(env), free(kept);
	close(s), close(pfd);
	if (logfd >= 0)
		close(logfd);
	if (e) {
		snprintf(why, wn, "cannot start the keeper (/proc/self/exe --keep): %s", strerror(e));
		return -1;
	}
	return 0;
}

static void
keep_event(cdp_t *c, const char *method, const rec_t *msg, void *arg)
{
	keep_t *k = arg;
	(void)c;
	const char *raw = rec_raw(msg, "params");
	rec_t p;
	if (strncmp(method, "Keeper.", 7) || !raw || rec_parse(&p, raw, strlen(raw)) < 0)
		return;
	if (!strcmp(method, "Keeper.ready")) {
		k->ready = 1;
		k->idbase = (long)rec_int(&p, "idBase", 1);
		k->pid = (long)rec_int(&p, "pid", 0);
		const char *s = rec_raw(&p, "started");
		k->started = s && !strcmp(s, "true");
	} else if (!strcmp(method, "Keeper.failed")) {
		char *why = rec_str(&p, "why");
		snprintf(k->why, sizeof k->why, "%s", why ? why : "?");
		free(why);
		k->ready = -1;
	}
	rec_free(&p);
}

static int
keep_connect(keep_t *k, cdp_t *c, const strv_t *argv, long idle, int restart, int64_t deadline, char *why,
    size_t wn)
{
	buf_t h = {0};
	buf_adds(&h, "{\"keep\":{\"argv\":[");
	for (size_t i = 0; i < argv->n; i++) {
		buf_adds(&h, i ? "," : "");
		buf_json_strz(&h, argv->v[i]);
	}
	buf_addf(&h, "],\"idle\":%ld,\"restart\":%s}}", idle, restart ? "true" : "false");
	buf_addc(&h, 0);
	int rc = -1, spawned = 0;
	for (;;) {
		int fd = keep_dial(k);
		if (fd < 0 && !spawned) {
			if (keep_spawn(k, why, wn) < 0)
				break;
			spawned = 1;
			fd = keep_dial(k);
		}
		if (fd < 0) {
			snprintf(why, wn, "cannot connect to the keeper at locks/%s/sock: %s", k->name, strerror(errno));
			break;
		}
		buf_free(&c->in);
		memset(c, 0, sizeof *c);
		c->wfd = c->rfd = fd;
		c->on_event = keep_event;
		c->arg = k;
		c->mask = k->mask;
		c->stop = k->stop;
		k->ready = 0;
		k->why[0] = 0;
		if (write_all(fd, h.p, h.len) < 0)
			c->dead = 1;
		while (!k->ready && !c->dead && clock_mono() < deadline && cdp_step(c, deadline) == 0)
			;
		if (k->ready == 1) {
			c->next = k->idbase;
			rc = 0;
			break;
		}
		close(fd);
		c->wfd = c->rfd = -1;
		if (k->ready < 0 || *k->stop || clock_mono() >= deadline) {
			snprintf(why, wn, "%s", k->ready < 0 ? k->why : *k->stop ? "interrupted"
			                                               : "the keeper did not answer in time");
			break;
		}
		if (spawned) {
			snprintf(why, wn, "the keeper closed the connection before it was ready (locks/%s/log says why)",
			    k->name);
			break;
		}
		/* the keeper found was ending, or dead: a new one */
		if (keep_spawn(k, why, wn) < 0)
			break;
		spawned = 1;
	}
	buf_free(&h);
	return rc;
}
