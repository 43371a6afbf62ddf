/*
 * keep.c — the kept browser: one headless chromium kept up across the
 * snapshots of one serving worker (abx-hook --serve), for the chrome hooks
 * it runs one after another (chrome.c includes it after cdp.c and
 * launch.c; keepclient.c is the hook's side).
 *
 *   on_Snapshot__29_chrome.bin --keep NAME
 *     fd 3: a listening unix socket, locks/NAME/sock in the data directory
 *     fd 4: a pidfd of the worker;  fd 5 and the cwd: locks/NAME/
 *     $ABX_KEPT: the worker's $ABX_WORKER, NAME "chrome.$ABX_KEPT"
 *     stderr: locks/NAME/log
 * Started by the first chrome hook of the worker that finds no keeper, in
 * a session of its own; abx-hook leaves it running between phases for its
 * ABX_KEPT (phase.h, step 9).
 *
 * One client at a time (the hooks take locks/NAME/lock first; a second
 * waits in the listen queue); every message a JSON object and a NUL, as
 * on chromium's pipe:
 *  1. the client: {"keep":{"argv":[BINARY,FLAG...],"idle":S,"restart":B}},
 *     the browser it wants (launch.c's browser_flags), how many seconds an
 *     idle one is kept, and whether the running one is to be replaced;
 *  2. if no browser runs, or it runs with other flags, or restart: the old
 *     one stopped, a new one started with those flags and the network
 *     flags below; then {"method":"Keeper.ready","params":{"idBase":N,
 *     "pid":PID,"started":B}}, or {"method":"Keeper.failed","params":
 *     {"why":...}} and the connection closed;
 *  3. every whole message of the client on to the browser and every whole
 *     message of the browser on to the client, as they come (whole: a
 *     client that left halfway through one never garbles the next).  The
 *     client numbers its commands from idBase, a block of 2^20 ids of its
 *     own: a late reply to another client's command is never taken for one
 *     of its own;
 *  4. the client gone, every browser context left is disposed of
 *     (Target.getBrowserContexts: one a client killed mid-capture left); a
 *     browser that does not answer within 5 s is stopped.
 * The browser dies (its pipe closes, or it exits): the client gets
 * {"method":"Keeper.died","params":{"why":...}} (its exit status and the
 * last ERROR line of its log) and the connection is closed; the next
 * hello starts a new browser.
 *
 * The browser has no network of its own (launch.c browser_no_network):
 * its --proxy-server is 127.0.0.1:PORT, a TCP port the keeper has bound
 * and never listens on (every connection refused), loopback not bypassed,
 * QUIC off, WebRTC kept to proxied connections, and --host-resolver-rules
 * resolve no name but 127.0.0.1 (the gates').  A page loads only in a
 * context whose proxy is a snapshot's gate (capture.c, CP->proxy).
 *
 * Lifetime:
 *  - SIGTERM (what the worker sends at its end: phase_end_kept, phase.h)
 *    or SIGINT, or the worker gone (its pidfd: a worker killed): the
 *    browser is stopped (its group killed, its profile removed), then
 *    locks/NAME/ removed (a hook of a worker that lives on makes a new
 *    one); exit 0;
 *  - no client for IDLE seconds (CHROME_KEEP_IDLE; 0: never): the browser
 *    is stopped, and the keeper, a sleeping process, waits on;
 *  - at start, what a keeper killed by SIGKILL left: the browser that
 *    locks/NAME/browser records ("PID STARTTIME PROFILE") is killed with
 *    its group if that pid still has that start time, and its profile
 *    removed; so is every locks/chrome.W/ whose worker is gone (W's pid
 *    no longer has W's start time), with the browser it records.
 * The browser's environment is the keeper's without ABX_KEPT: orphaned by
 * a keeper's SIGKILL, it is reaped by abx-hook at the end of the phase.
 */
#include <dirent.h>
#include <errno.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <netinet/in.h>
#include <arpa/inet.h>

#include "base/hookrun.h"

#define KEEP_CLEAN_US 5000000     /* the browser answers the clean-up within this */
#define KEEP_HELLO_US 10000000    /* the client says what it wants within this */
#define KEEP_IDS (1L << 20)       /* ids a connection may use */

extern char **environ;

typedef struct {
	int lfd, wpfd, dfd;        /* fds 3, 4, 5 */
	int cfd;                   /* the client, or -1 */
	buf_t cin;                 /* from the client, not yet a whole message */
	browser_t b;               /* b.pid 0: none */
	int bpfd;                  /* a pidfd of the browser, or -1 */
	cdp_t c;                   /* its pipe: c.in, what it wrote and was not passed on */
	char *spec;                /* the argv (JSON) it runs with */
	long idle, nextid;
	int64_t idle_since;
	int portfd, port;          /* the port nobody answers on */
	char **envp;               /* the browser's */
	const char *name;
	const sigset_t *mask;      /* the signals let in while waiting */
	volatile sig_atomic_t *stop;
} keeper_t;

static int
write_all(int fd, const void *p, size_t n)
{
	const char *s = p;
	while (n) {
		ssize_t w = write(fd, s, n);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return -1;
		s += w, n -= w;
	}
	return 0;
}

static long
keep_ids(keeper_t *k)
{
	long base = k->nextid;
	k->nextid += KEEP_IDS;
	if (k->nextid > 0x7fffffffL - KEEP_IDS)
		k->nextid = 1;
	return base;
}

/* An event of ours to the client: METHOD with PARAMS (a JSON object). */
static void
keep_tell(keeper_t *k, const char *method, const char *params)
{
	buf_t m = {0};
	buf_adds(&m, "{\"method\":");
	buf_json_strz(&m, method);
	buf_adds(&m, ",\"params\":");
	buf_adds(&m, params);
	buf_adds(&m, "}");
	buf_addc(&m, 0);
	if (k->cfd >= 0 && write_all(k->cfd, m.p, m.len) < 0) {
		close(k->cfd);
		k->cfd = -1;
	}
	buf_free(&m);
}

static void
keep_tell_why(keeper_t *k, const char *method, const char *why)
{
	buf_t p = {0};
	buf_adds(&p, "{\"why\":");
	buf_json_strz(&p, why);
	buf_adds(&p, "}");
	keep_tell(k, method, buf_cstr(&p));
	buf_free(&p);
}

/* The "PID STARTTIME PROFILE" of locks/<dir>/browser: kill that browser's
 * group if it is still that process, remove its profile, the file. */
static void
keep_reap_record(int dirfd)
{
	buf_t s = {0};
	long pid;
	long long start;
	int off = 0;
	if (fs_read(dirfd, "browser", &s) == 0 && sscanf(buf_cstr(&s), "%ld %lld %n", &pid, &start, &off) == 2 &&
	    pid > 1 && off > 0) {
		if (proc_starttime((pid_t)pid) == start)
			proc_group_stop((pid_t)pid, 0, 2000);
		char *prof = s.p + off, *nl = strchr(prof, '\n');
		if (nl)
			*nl = 0;
		const char *base = strrchr(prof, '/');
		if (prof[0] == '/' && base && !strncmp(base + 1, "abx-chrome.", 11) && !strstr(prof, "/../"))
			profile_remove(prof);
	}
	buf_free(&s);
	unlinkat(dirfd, "browser", 0);
}

/* The locks/chrome.PID.START/ of workers that are gone, and their browsers. */
static void
keep_sweep(keeper_t *k)
{
	keep_reap_record(k->dfd);
	int lfd = openat(k->dfd, "..", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	DIR *d = lfd >= 0 ? fdopendir(lfd) : NULL;
	if (!d) {
		if (lfd >= 0)
			close(lfd);
		return;
	}
	struct dirent *e;
	while ((e = readdir(d))) {
		long pid;
		long long start;
		char extra;
		if (strncmp(e->d_name, "chrome.", 7) || !strcmp(e->d_name, k->name) ||
		    sscanf(e->d_name + 7, "%ld.%lld%c", &pid, &start, &extra) != 2 || proc_starttime((pid_t)pid) == start)
			continue;
		int fd = openat(dirfd(d), e->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (fd < 0)
			continue;
		keep_reap_record(fd);
		close(fd);
		fs_rmtree(dirfd(d), e->d_name);
	}
	closedir(d);
}

/* Stop the browser (if any), forget it; its exit code, or -1. */
static int
keep_stop_browser(keeper_t *k, const char *why)
{
	if (!k->b.pid)
		return -1;
	long pid = k->b.pid;
	int code = browser_stop(&k->b);
	fprintf(stderr, "keeper: chromium %ld stopped (%d): %s\n", pid, code, why);
	if (k->b.logfd >= 0)
		close(k->b.logfd);
	k->b.logfd = -1;
	if (k->bpfd >= 0)
		close(k->bpfd);
	k->bpfd = -1;
	buf_free(&k->c.in);
	free(k->spec);
	k->spec = NULL;
	unlinkat(k->dfd, "browser", 0);
	k->idle_since = clock_mono();
	return code;
}

/* The browser died (how, unless it exited): the client told, and let go. */
static void
keep_died(keeper_t *k, const char *how)
{
	char lw[512], why[1024];
	struct pollfd p = {k->bpfd, POLLIN, 0};
	/* its pipe closes as it exits, a moment before its pidfd says so */
	int exited = k->bpfd >= 0 && poll(&p, 1, 1000) == 1;
	browser_log_error(&k->b, lw, sizeof lw);
	int code = keep_stop_browser(k, how);
	if (exited)
		snprintf(why, sizeof why, "chromium exited (%d)", code);
	else
		snprintf(why, sizeof why, "%s", how);
	size_t n = strlen(why);
	snprintf(why + n, sizeof why - n, "%s%.400s", lw[0] ? "; " : "", lw);
	if (k->cfd >= 0) {
		keep_tell_why(k, "Keeper.died", why);
		if (k->cfd >= 0)
			close(k->cfd);
		k->cfd = -1;
		buf_reset(&k->cin);
	}
}

static int
keep_launch(keeper_t *k, const char *spec_raw, const strv_t *argv, char *why, size_t wn)
{
	strv_t a = {0};
	for (size_t i = 0; i < argv->n; i++)
		strv_add(&a, argv->v[i]);
	browser_no_network(&a, k->port);
	int rc = browser_launch(&k->b, &a, k->envp, why, wn);
	strv_free(&a);
	if (rc < 0)
		return -1;
	k->bpfd = proc_pidfd(k->b.pid);
	memset(&k->c, 0, sizeof k->c);
	k->c.wfd = k->b.wfd;
	k->c.rfd = k->b.rfd;
	k->c.mask = k->mask;
	k->c.stop = k->stop;
	k->spec = xstrdup(spec_raw);
	char rec[4200];
	int n = snprintf(rec, sizeof rec, "%ld %lld %s\n", (long)k->b.pid, proc_starttime(k->b.pid), k->b.profile);
	fs_replace(k->dfd, "browser", rec, (size_t)n, 0);
	fprintf(stderr, "keeper: chromium %ld started\n", (long)k->b.pid);
	return 0;
}

static int
argv_elem(const char *raw, size_t len, void *arg)
{
	if (len < 2 || raw[0] != '"')
		return -1;
	buf_t s = {0};
	json_unescape(raw + 1, len - 2, &s);
	strv_add(arg, buf_cstr(&s));
	buf_free(&s);
	return 0;
}

/* The client's hello, parsed: 0, or -1 with why. */
static int
keep_hello(keeper_t *k, char *why, size_t wn)
{
	int64_t end = clock_mono() + KEEP_HELLO_US;
	char *nul;
	while (!(nul = k->cin.len ? memchr(k->cin.p, 0, k->cin.len) : NULL)) {
		struct pollfd p = {k->cfd, POLLIN, 0};
		int64_t left = end - clock_mono();
		if (left <= 0 || poll(&p, 1, (int)(left / 1000) + 1) <= 0) {
			snprintf(why, wn, "the client said nothing in %d s", KEEP_HELLO_US / 1000000);
			return -1;
		}
		buf_grow(&k->cin, 4096);
		ssize_t r = read(k->cfd, k->cin.p + k->cin.len, k->cin.cap - k->cin.len - 1);
		if (r <= 0) {
			snprintf(why, wn, "the client left before its hello");
			return -1;
		}
		k->cin.len += r;
	}
	size_t hl = nul - k->cin.p;
	rec_t r, h;
	strv_t argv = {0};
	int rc = -1;
	const char *kr, *ar;
	if (rec_parse(&r, k->cin.p, hl) < 0) {
		snprintf(why, wn, "a hello that is not a JSON object");
		goto out0;
	}
	if (!(kr = rec_raw(&r, "keep")) || rec_parse(&h, kr, strlen(kr)) < 0) {
		snprintf(why, wn, "a hello without \"keep\"");
		goto out1;
	}
	ar = rec_raw(&h, "argv");
	if (!ar || json_array_each(ar, argv_elem, &argv) != 0 || argv.n < 1 || argv.v[0][0] != '/') {
		snprintf(why, wn, "a hello whose argv is not a list of strings, a path first");
		goto out2;
	}
	k->idle = rec_int(&h, "idle", k->idle);
	if (k->idle < 0)
		k->idle = 0;
	const char *rs = rec_raw(&h, "restart");
	int started = 0;
	if (k->b.pid && ((rs && !strcmp(rs, "true")) || strcmp(k->spec, ar)))
		keep_stop_browser(k, rs && !strcmp(rs, "true") ? "its client asked for a new one"
		                                                : "a snapshot wants other flags");
	if (!k->b.pid) {
		if (keep_launch(k, ar, &argv, why, wn) < 0)
			goto out2;
		started = 1;
	}
	char params[160];
	snprintf(params, sizeof params, "{\"idBase\":%ld,\"pid\":%ld,\"started\":%s}", keep_ids(k),
	    (long)k->b.pid, started ? "true" : "false");
	keep_tell(k, "Keeper.ready", params);
	rc = k->cfd >= 0 ? 0 : -1;
	if (rc < 0)
		snprintf(why, wn, "the client left");
out2:
	rec_free(&h);
out1:
	rec_free(&r);
out0:
	strv_free(&argv);
	memmove(k->cin.p, nul + 1, k->cin.len - hl - 1);
	k->cin.len -= hl + 1;
	return rc;
}

static int
ctx_dispose(const char *raw, size_t len, void *arg)
{
	keeper_t *k = arg;
	buf_t b = {0};
	rec_t res;
	buf_adds(&b, "{\"browserContextId\":");
	buf_add(&b, raw, len);
	buf_adds(&b, "}");
	int rc = cdp_call(&k->c, NULL, "Target.disposeBrowserContext", buf_cstr(&b), clock_mono() + KEEP_CLEAN_US, &res);
	buf_free(&b);
	if (rc == 0)
		rec_free(&res);
	return rc == -1 ? 0 : rc;   /* one already gone is no failure */
}

/* The client gone: the contexts it left disposed of. */
static void
keep_client_gone(keeper_t *k)
{
	close(k->cfd);
	k->cfd = -1;
	buf_reset(&k->cin);
	k->idle_since = clock_mono();
	if (!k->b.pid)
		return;
	k->c.next = keep_ids(k);
	rec_t res;
	int rc = cdp_call(&k->c, NULL, "Target.getBrowserContexts", NULL, clock_mono() + KEEP_CLEAN_US, &res);
	if (rc == 0) {
		const char *ids = rec_raw(&res, "browserContextIds");
		char *copy = xstrdup(ids ? ids : "[]");
		rec_free(&res);
		rc = json_array_each(copy, ctx_dispose, k);
		free(copy);
	}
	if (rc != 0)
		keep_stop_browser(k, k->c.why[0] ? k->c.why : "it did not answer the clean-up");
}

/* What the browser wrote: whole messages to the client, if any; 0, or
 * -1 when its pipe closed. */
static int
keep_from_browser(keeper_t *k)
{
	buf_t *in = &k->c.in;
	buf_grow(in, 1 << 16);
	ssize_t r = read(k->c.rfd, in->p + in->len, in->cap - in->len - 1);
	if (r < 0 && (errno == EINTR || errno == EAGAIN))
		return 0;
	if (r <= 0)
		return -1;
	size_t from = in->len;
	in->len += r;
	char *last = NULL;
	for (size_t i = in->len; i-- > from;)
		if (in->p[i] == 0) {
			last = in->p + i;
			break;
		}
	if (!last)
		return 0;
	size_t n = last + 1 - in->p;
	int lost = k->cfd >= 0 && write_all(k->cfd, in->p, n) < 0;
	memmove(in->p, in->p + n, in->len - n);
	in->len -= n;
	if (lost)
		keep_client_gone(k);   /* after: its clean-up reads the pipe */
	return 0;
}

/* What the client wrote: whole messages to the browser; 0, or -1 when
 * the browser cannot take them. */
static int
keep_from_client(keeper_t *k)
{
	buf_grow(&k->cin, 1 << 16);
	ssize_t r = read(k->cfd, k->cin.p + k->cin.len, k->cin.cap - k->cin.len - 1);
	if (r < 0 && (errno == EINTR || errno == EAGAIN))
		return 0;
	if (r <= 0) {
		keep_client_gone(k);
		return 0;
	}
	k->cin.len += r;
	char *last = NULL;
	for (size_t i = k->cin.len; i-- > k->cin.len - r;)
		if (k->cin.p[i] == 0) {
			last = k->cin.p + i;
			break;
		}
	if (!last)
		return 0;
	size_t n = last + 1 - k->cin.p;
	if (!k->b.pid || write_all(k->b.wfd, k->cin.p, n) < 0)
		return -1;
	memmove(k->cin.p, k->cin.p + n, k->cin.len - n);
	k->cin.len -= n;
	return 0;
}

static void
keep_accept(keeper_t *k)
{
	k->cfd = accept4(k->lfd, NULL, NULL, SOCK_CLOEXEC);
	if (k->cfd < 0)
		return;
	char why[1024];
	if (keep_hello(k, why, sizeof why) < 0) {
		fprintf(stderr, "keeper: %s\n", why);
		keep_tell_why(k, "Keeper.failed", why);
		if (k->cfd >= 0)
			close(k->cfd);
		k->cfd = -1;
		buf_reset(&k->cin);
	}
}

/* The browser's environment: ours without ABX_KEPT. */
static char **
keep_env(void)
{
	size_t n = 0;
	while (environ[n])
		n++;
	char **v = xmalloc((n + 1) * sizeof *v);
	size_t j = 0;
	for (size_t i = 0; i < n; i++)
		if (strncmp(environ[i], "ABX_KEPT=", 9))
			v[j++] = environ[i];
	v[j] = NULL;
	return v;
}

/* The end: the browser stopped, our directory removed. */
static int
keep_end(keeper_t *k, const char *why)
{
	unlinkat(k->dfd, "sock", 0);
	close(k->lfd);
	if (k->cfd >= 0)
		close(k->cfd);
	keep_stop_browser(k, why);
	int lfd = openat(k->dfd, "..", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	struct stat a, b;
	if (lfd >= 0 && fstat(k->dfd, &a) == 0 && fstatat(lfd, k->name, &b, AT_SYMLINK_NOFOLLOW) == 0 &&
	    a.st_dev == b.st_dev && a.st_ino == b.st_ino)
		fs_rmtree(lfd, k->name);
	if (lfd >= 0)
		close(lfd);
	buf_free(&k->cin);
	free(k->envp);
	return 0;
}

static int
keep_main(int argc, char **argv, volatile sig_atomic_t *stop, const sigset_t *mask)
{
	keeper_t k = {.lfd = 3, .wpfd = 4, .dfd = 5, .cfd = -1, .bpfd = -1, .idle = 60, .nextid = 1,
	              .mask = mask, .stop = stop};
	const char *w = getenv("ABX_KEPT");
	struct stat st;
	if (argc != 3 || !w || strncmp(argv[2], "chrome.", 7) || strcmp(argv[2] + 7, w) || fstat(5, &st) < 0 ||
	    !S_ISDIR(st.st_mode) || fstat(3, &st) < 0 || !S_ISSOCK(st.st_mode)) {
		fprintf(stderr, "usage: %s --keep chrome.$ABX_KEPT, fds 3 a listening socket, 4 the worker's pidfd, "
		                "5 the socket's directory: only the chrome hook starts it\n", argv[0]);
		return 64;
	}
	k.name = argv[2];
	if (fchdir(k.dfd) < 0)
		fprintf(stderr, "keeper: cannot move into locks/%s: %s\n", k.name, strerror(errno));
	char pwhy[200];
	k.portfd = browser_dead_port(&k.port, pwhy, sizeof pwhy);
	if (k.portfd < 0) {
		fprintf(stderr, "keeper: %s\n", pwhy);
		keep_end(&k, "the keeper failed");
		return 71;
	}
	k.envp = keep_env();
	keep_sweep(&k);
	k.idle_since = clock_mono();
	for (;;) {
		if (*stop)
			return keep_end(&k, *stop == SIGTERM ? "SIGTERM (its worker ends)" : "SIGINT");
		struct pollfd p[5] = {
			{k.cfd < 0 ? k.lfd : -1, POLLIN, 0}, {k.wpfd, POLLIN, 0},
			{k.b.pid ? k.bpfd : -1, POLLIN, 0}, {k.b.pid ? k.c.rfd : -1, POLLIN, 0}, {k.cfd, POLLIN, 0},
		};
		struct timespec ts, *tp = NULL;
		if (k.cfd < 0 && k.b.pid && k.idle > 0) {
			int64_t left = k.idle_since + k.idle * 1000000LL - clock_mono();
			if (left <= 0) {
				keep_stop_browser(&k, "idle for CHROME_KEEP_IDLE seconds");
				continue;
			}
			ts.tv_sec = left / 1000000, ts.tv_nsec = (left % 1000000) * 1000;
			tp = &ts;
		}
		int n = ppoll(p, 5, tp, mask);
		if (n < 0 && errno != EINTR) {
			fprintf(stderr, "keeper: cannot wait: %s\n", strerror(errno));
			keep_end(&k, "the keeper failed");
			return 71;
		}
		if (n <= 0 || *stop)
			continue;
		if (p[1].revents)
			return keep_end(&k, "its worker is gone");
		if (p[3].revents && keep_from_browser(&k) < 0)
			keep_died(&k, "chromium closed its end of the pipe");
		else if (p[2].revents && k.b.pid)
			keep_died(&k, "chromium exited");
		if (p[4].revents && k.cfd >= 0 && keep_from_client(&k) < 0)
			keep_died(&k, "chromium stopped reading its pipe");
		if (p[0].revents && k.cfd < 0)
			keep_accept(&k);
	}
}
