/*
 * chrome.c — the chrome hook: one headless chromium, one load of the page,
 * and from it the DOM, a screenshot, a PDF, the title, the main document's
 * headers and a WARC of every response the browser loaded.  Built as
 * on_Snapshot__29_chrome.bin beside this file, from this file and the
 * four it includes: cdp.c (the pipe protocol), warcwrite.c (WARC
 * records, base64), capture.c (the page's load and what is kept of it),
 * zonerules.c (the private zones, without the egress gate), launch.c
 * (starting and stopping chromium), keep.c and keepclient.c (a browser
 * kept up across a serving worker's snapshots: `--keep`, below).
 *
 *   on_Snapshot__29_chrome.bin --url=URL      (cwd = <snapshot>/chrome/)
 *
 * A hook by ArchiveBox's contract (settings in the environment, JSONL on
 * stdout, logs on stderr; exit 0 succeeded, 10 skipped, else 1).  The
 * screenshot, pdf and dom hooks, which run after it, take its files
 * instead of starting a browser each (their on_Snapshot__3*.sh): a page
 * is loaded in a browser once a snapshot, not three times.
 *
 * 0. CHROME_ENABLED false: "skipped".  No --url, or one beginning with
 *    "-": "failed".  Not http(s): "skipped".  $CHROME_BINARY (default
 *    chromium; a name is looked up in PATH; a distribution's launcher
 *    script in /usr/bin is passed over for the program it starts:
 *    find_binary) absent: "skipped", "chromium
 *    not found (CHROME_BINARY=...)", as the shell hooks' chrome_find.  The
 *    timeout is CHROME_TIMEOUT, else TIMEOUT, else 60 seconds; the browser
 *    gets 90% of it (at least 5 s), both attempts together.  The files of
 *    an earlier run (the names below, and .run) are removed first.
 * 1. The browser.  In a serving worker (abx-hook --serve: $ABX_WORKER
 *    names our parent) whose snapshots go through the egress gate
 *    ($ABX_GATE), and unless CHROME_KEEP is false: the worker's kept
 *    browser (keep.c, keepclient.c), started by the first snapshot that
 *    wants one and kept up for the next, each snapshot loading its page
 *    in a browser context of its own whose proxy is its own gate; a
 *    browser idle for CHROME_KEEP_IDLE seconds (default 60; 0: kept until
 *    the worker ends) is stopped.  Otherwise (a one-shot worker, a hook run
 *    by hand, a crawl that may enter every zone and so has no gate), or
 *    if the kept one cannot be had (the notes say why): a browser of our
 *    own for this snapshot, as the shell hooks' chrome_run starts one
 *    (launch.c: --remote-debugging-pipe, GPU off, no first run, no
 *    background networking, component updates or sync, a fresh profile
 *    in a temp dir, removed after).  Both get the user agent $USER_AGENT
 *    else abx's, --ignore-certificate-errors when CHECK_SSL_VALIDITY is
 *    false, the window CHROME_WINDOW_SIZE (default 1280,2000), chromium's
 *    sandbox unless CHROME_SANDBOX is false or the hook runs as root (the
 *    result's notes then say why, as chrome_sandbox says it).  Our own
 *    browser's network: with $ABX_GATE (abx-hook's egress gate,
 *    lib/net/gate.h), as a kept one's: none of its own (launch.c
 *    browser_no_network: a proxy that refuses, so that what chromium
 *    fetches for itself goes nowhere), the page loaded in a browser
 *    context whose proxy is the gate, loopback not bypassed, QUIC off,
 *    WebRTC kept to proxied connections; without a gate,
 *    --host-resolver-rules instead, as the
 *    shell hooks give theirs (zonerules.c): those rules are the page's,
 *    so such a browser is never kept.  It runs in a session of its own,
 *    its whole process group killed when done; its stderr goes to a temp
 *    file, and what is not D-Bus noise is copied to ours at the end.
 * 2. capture_page (capture.c): a tab, the page loaded once, then the
 *    title, the DOM, the screenshot, the PDF and the response bodies (the
 *    kept browser's context disposed of after).  If the browser dies
 *    first (its pipe closes, the process ends, the renderer crashes, the
 *    keeper dies), it is started once more (a fresh profile; a kept one
 *    is replaced) and the page loaded once more: the result's notes say
 *    so.  A second death, or any other failure, is "failed" with the
 *    reason.
 * 3. Into the cwd, each written to a temp name (".NAME.PID", O_NOFOLLOW |
 *    O_CREAT | O_EXCL) and renamed: output.html (the DOM), screenshot.png,
 *    output.pdf, title.txt (if the page has a title), icon.txt (the URL
 *    of its first <link rel~=icon>, if it has one: the favicon hook reads
 *    it instead of parsing the page again), headers.json (the
 *    main document's final response, as the headers plugin writes it),
 *    capture.warc.gz (cap_warc: request and response records, one gzip
 *    member each: abx-seal --pack finds it as <plugin>/NAME.warc.gz), and
 *    last .run, holding $ABX_RUN: the derived hooks take the files only
 *    when it names their own run.
 * 4. "succeeded", output_str the files' names (headers.json with the
 *    main document's status, the WARC with its count of responses).  No
 *    Snapshot record: the title hook's stays the snapshot's title.
 * SIGTERM or SIGINT kills the browser (our own; a kept one disposes of
 * our context when we are gone), removes the temp files and prints a
 * "failed" result, "interrupted by SIGTERM" (exit 143) or "by SIGINT"
 * (130).
 *
 *   on_Snapshot__29_chrome.bin --keep NAME
 * is the keeper itself (keep.c), as the hook starts it.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/alloc.h"
#include "base/buf.h"
#include "base/config.h"
#include "base/err.h"
#include "base/fs.h"
#include "base/spawn.h"
#include "hook/hookcurl.h"
#include "hook/hookenv.h"
#include "hook/launcher.h"

#include "cdp.c"
#include "warcwrite.c"
#include "capture.c"
#include "zonerules.c"
#include "launch.c"
#include "keep.c"
#include "keepclient.c"

#define KEEP_IDLE_DEFAULT 60     /* CHROME_KEEP_IDLE: seconds */

static volatile sig_atomic_t got_sig;
static sigset_t waitmask;          /* the mask while waiting: the signals let in */
static char note[1024], binpath[4096];
static cap_t cap = {.width = 1280, .height = 2000};
static browser_t own = {.wfd = -1, .rfd = -1, .logfd = -1};   /* ours, when not kept */
static int own_portfd = -1, own_port;   /* its dead proxy (launch.c browser_no_network), with a gate */
static keep_t kept = {.locksfd = -1, .dfd = -1, .lockfd = -1};
static cdp_t c = {.wfd = -1, .rfd = -1};   /* to the browser: our own's pipes, or the keeper's socket */

static const char *const outputs[] = {"output.html", "screenshot.png", "output.pdf", "title.txt", "icon.txt",
                                      "headers.json", "capture.warc.gz", ".run", NULL};

static void
on_signal(int sig)
{
	got_sig = sig;
}

/* A sentence more in the result's notes. */
static void
note_add(const char *fmt, ...)
{
	size_t k = strlen(note);
	if (k && k + 2 < sizeof note)
		k += snprintf(note + k, sizeof note - k, "; ");
	va_list ap;
	va_start(ap, fmt);
	if (k < sizeof note)
		vsnprintf(note + k, sizeof note - k, fmt, ap);
	va_end(ap);
}

/* Let go of the browser: our pipes or the keeper's socket closed. */
static void
conn_close(void)
{
	if (c.rfd >= 0 && c.rfd != c.wfd)
		close(c.rfd);
	if (c.wfd >= 0)
		close(c.wfd);
	c.wfd = c.rfd = -1;
}

static noreturn void
done(const char *status, const char *output_str, const char *error)
{
	conn_close();
	browser_stop(&own);
	browser_copy_log(&own);
	keep_close(&kept);
	char err[2048];
	if (note[0]) {
		snprintf(err, sizeof err, "%s%s%s", error && *error ? error : "", error && *error ? "; " : "",
		    note);
		error = err;
	}
	hook_print(status, output_str, error);
	cap_free(&cap);
	cdp_free(&c);
	exit(hook_exit_code(status, got_sig));
}

static noreturn void
interrupted(void)
{
	for (int i = 0; outputs[i]; i++) {
		char t[256];
		snprintf(t, sizeof t, ".%s.%ld", outputs[i], (long)getpid());
		unlink(t);
	}
	done("failed", got_sig == SIGINT ? "interrupted by SIGINT" : "interrupted by SIGTERM", NULL);
}

/* Whether path is an executable regular file. */
static int
is_program(const char *path)
{
	struct stat st;
	return stat(path, &st) == 0 && S_ISREG(st.st_mode) && access(path, X_OK) == 0;
}

/*
 * CHROME_BINARY, default chromium, into binpath: 0, or -1.  A name is
 * looked up in PATH (abx-hook's binary check has usually made it a path
 * already); a distribution's launcher passed over for the program it
 * starts (launcher.h).
 */
static int
find_binary(const char *name)
{
	if (strchr(name, '/')) {
		snprintf(binpath, sizeof binpath, "%s", name);
		if (access(binpath, X_OK) < 0)
			return -1;
		launcher_program(binpath, binpath, sizeof binpath);
		return 0;
	}
	const char *path = getenv("PATH");
	if (!path || !*path)
		path = "/usr/local/bin:/usr/bin:/bin";
	while (*path) {
		size_t n = strcspn(path, ":");
		snprintf(binpath, sizeof binpath, "%.*s%s%s", (int)n, path, n ? "/" : "", name);
		if (is_program(binpath)) {
			launcher_program(binpath, binpath, sizeof binpath);
			return 0;
		}
		path += n + (path[n] == ':');
	}
	return -1;
}

/* CHROME_KEEP_IDLE: seconds, 0 for as long as the worker lives. */
static long
keep_idle(void)
{
	const char *v = getenv("CHROME_KEEP_IDLE");
	long long s;
	if (!v || !*v)
		return KEEP_IDLE_DEFAULT;
	if (conf_parse_seconds(v, &s) == 0)
		return (long)s;
	fprintf(stderr, "CHROME_KEEP_IDLE=%.100s: want whole seconds up to 2592000 (30 days), or 0; %d used\n", v,
	    KEEP_IDLE_DEFAULT);
	return KEEP_IDLE_DEFAULT;
}

/* A browser of our own, with flags and the network's: 0, or -1 with why. */
static int
own_start(const strv_t *flags, const char *url, char *why, size_t wn)
{
	const char *gate = getenv("ABX_GATE");
	strv_t a = {0};
	for (size_t i = 0; i < flags->n; i++)
		strv_add(&a, flags->v[i]);
	if (gate && *gate) {
		if (own_portfd < 0 && (own_portfd = browser_dead_port(&own_port, why, wn)) < 0) {
			strv_free(&a);
			return -1;
		}
		browser_no_network(&a, own_port);
	} else {
		buf_t rules = {0};
		zone_rules(url, &rules);
		if (rules.len) {
			char *r = xasprintf("--host-resolver-rules=%s", buf_cstr(&rules));
			strv_add(&a, r);
			free(r);
		}
		buf_free(&rules);
	}
	int rc = browser_launch(&own, &a, environ, why, wn);
	strv_free(&a);
	if (rc < 0)
		return -1;
	buf_free(&c.in);
	memset(&c, 0, sizeof c);
	c.wfd = own.wfd, c.rfd = own.rfd;   /* ours to close now */
	own.wfd = own.rfd = -1;
	c.pid = own.pid;
	return 0;
}

/* The temp file .NAME.PID in the cwd, new (one a dead run left is
 * replaced), its name in t: the fd, or -1 with msg set. */
static int
open_temp(const char *name, char *t, size_t tn, char *msg, size_t mn)
{
	snprintf(t, tn, ".%s.%ld", name, (long)getpid());
	int fd = open(t, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
	if (fd < 0 && errno == EEXIST && unlink(t) == 0)
		fd = open(t, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
	if (fd < 0)
		snprintf(msg, mn, "cannot create %s: %s", t, strerror(errno));
	return fd;
}

/* NAME in the cwd made to hold p (n bytes): a temp name, then rename. */
static int
put_file(const char *name, const void *p, size_t n, char *msg, size_t mn)
{
	char t[256];
	int fd = open_temp(name, t, sizeof t, msg, mn);
	if (fd < 0)
		return -1;
	const char *s = p;
	for (size_t off = 0; off < n;) {
		ssize_t w = write(fd, s + off, n - off);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0) {
			snprintf(msg, mn, "cannot write %s: %s", name, strerror(w < 0 ? errno : ENOSPC));
			close(fd), unlink(t);
			return -1;
		}
		off += w;
	}
	if (close(fd) < 0 || rename(t, name) < 0) {
		snprintf(msg, mn, "cannot write %s: %s", name, strerror(errno));
		unlink(t);
		return -1;
	}
	return 0;
}

/* capture.warc.gz: a temp name, the records, then rename; the count, or -1. */
static int
put_warc(char *msg, size_t mn)
{
	char t[256];
	int fd = open_temp("capture.warc.gz", t, sizeof t, msg, mn);
	if (fd < 0)
		return -1;
	int n = cap_warc(&cap, fd);
	int e = errno;
	if (close(fd) < 0 && n >= 0)
		n = -1, e = errno;
	if (n >= 0 && rename(t, "capture.warc.gz") < 0)
		n = -1, e = errno;
	if (n < 0) {
		snprintf(msg, mn, "cannot write capture.warc.gz: %s", strerror(e));
		unlink(t);
	}
	return n;
}

/* 1, 2: the browser and the page, twice if it dies; the capture's code. */
static int
load(const char *url, const strv_t *flags, int64_t deadline)
{
	const char *gate = getenv("ABX_GATE"), *ck = getenv("CHROME_KEEP");
	int keeping = gate && *gate && !(ck && *ck && hook_false(ck)), rc = -1;
	char why[1024];
	long idle = keep_idle();
	kept.mask = &waitmask, kept.stop = &got_sig;
	if (keeping && keep_open(&kept, deadline, why, sizeof why) < 0) {
		keeping = 0;
		if (why[0])
			note_add("the worker's kept browser could not be used (%.400s): one started for this snapshot", why);
	}
	for (int attempt = 0; attempt < 2; attempt++) {
		if (keeping && keep_connect(&kept, &c, flags, idle, attempt > 0, deadline, why, sizeof why) < 0) {
			if (got_sig)
				interrupted();
			note_add("the worker's kept browser could not be used (%.400s): one started for this snapshot", why);
			keeping = 0;
			keep_close(&kept);
		}
		if (keeping) {
			fprintf(stderr, "chromium %ld, kept by this worker (started for %s)\n", kept.pid,
			    kept.started ? "this snapshot" : "an earlier one");
			c.on_event = cap_event, c.arg = &cap;
			cap.proxy = gate;
		} else {
			if (own_start(flags, url, why, sizeof why) < 0)
				done("failed", why, why);
			c.on_event = cap_event, c.arg = &cap, c.mask = &waitmask, c.stop = &got_sig;
			cap.proxy = gate && *gate ? gate : NULL;
		}
		rc = capture_page(&c, &cap, url, deadline);
		if (got_sig)
			interrupted();
		if (keeping && rc != -2) {
			/* the context goes (the keeper would dispose of it anyway);
			 * the capture's failure, if any, is what is said */
			char why2[sizeof c.why];
			memcpy(why2, c.why, sizeof why2);
			cap_dispose(&c, &cap, clock_mono() + 2000000);
			memcpy(c.why, why2, sizeof why2);
		}
		if (rc == -2 && !c.dead)
			snprintf(c.why, sizeof c.why, "chromium stopped answering");
		else if (rc == -2 && keeping && !c.told && !strncmp(c.why, "chromium closed its pipe", 24))
			snprintf(c.why, sizeof c.why, "the keeper closed its connection: it died");
		if (rc == 0 || rc == -1 || attempt == 1 || clock_mono() >= deadline)
			break;
		/* it died: once more, in a fresh browser */
		char lw[512] = "";
		if (!keeping)
			browser_log_error(&own, lw, sizeof lw);
		note_add("chromium died during the capture (%.300s%s%.300s): started again, the page loaded once more",
		    c.why, lw[0] ? "; " : "", lw);
		fprintf(stderr, "chromium died during the capture (%s): starting it again\n", c.why);
		conn_close();
		browser_stop(&own);
		browser_copy_log(&own);
		cap_free(&cap);
	}
	return rc;
}

int
main(int argc, char **argv)
{
	err_init(argv[0]);
	signal(SIGPIPE, SIG_IGN);
	/* SIGTERM and SIGINT: blocked but while waiting on the browser */
	struct sigaction sa = {0};
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	sigset_t block;
	sigemptyset(&block);
	sigaddset(&block, SIGTERM);
	sigaddset(&block, SIGINT);
	sigprocmask(SIG_BLOCK, &block, &waitmask);
	sigdelset(&waitmask, SIGTERM);
	sigdelset(&waitmask, SIGINT);
	if (argc > 1 && !strcmp(argv[1], "--keep"))
		return keep_main(argc, argv, &got_sig, &waitmask);

	char msg[1024];
	hook_verdict_t v;
	const char *url = hook_start(argc, argv, "CHROME", 1, &v);
	if (!url)
		done(v.status, v.out, v.err);
	const char *bin = getenv("CHROME_BINARY");
	if (!bin || !*bin)
		bin = "chromium";
	if (find_binary(bin) < 0) {
		snprintf(msg, sizeof msg, "chromium not found (CHROME_BINARY=%s)", bin);
		done("skipped", msg, NULL);
	}
	const char *win = getenv("CHROME_WINDOW_SIZE");
	int w, h;
	char extra;
	if (win && *win && sscanf(win, "%d,%d%c", &w, &h, &extra) == 2 && w > 0 && h > 0 && w <= 10000 &&
	    h <= 20000)
		cap.width = w, cap.height = h;
	const char *sandbox_off = NULL;
	const char *sb = getenv("CHROME_SANDBOX"), *ssl = getenv("CHECK_SSL_VALIDITY");
	if (sb && hook_false(sb))
		sandbox_off = "chromium ran without its sandbox: CHROME_SANDBOX is false";
	else if (geteuid() == 0)
		sandbox_off = "chromium ran without its sandbox: the hook runs as root, where chromium cannot "
		              "have one (run abx as an unprivileged user: abx(7) SECURITY)";
	if (sandbox_off) {
		note_add("%s", sandbox_off);
		fprintf(stderr, "%s\n", sandbox_off);
	}
	for (int i = 0; outputs[i]; i++)
		unlinkat(AT_FDCWD, outputs[i], 0);
	long timeout = hook_timeout("CHROME_TIMEOUT");
	long budget = timeout * 9 / 10 > 5 ? timeout * 9 / 10 : 5;
	int64_t deadline = clock_mono() + (int64_t)budget * 1000000;
	bspec_t spec = {.bin = binpath, .ua = getenv("USER_AGENT"), .sandbox_off = sandbox_off != NULL,
	                .insecure = ssl && hook_false(ssl), .width = cap.width, .height = cap.height};
	strv_t flags = {0};
	browser_flags(&flags, &spec);
	kept.argv0 = argv[0];

	/* 1, 2 */
	int rc = load(url, &flags, deadline);
	strv_free(&flags);
	conn_close();
	keep_close(&kept);
	if (rc < 0) {
		char lw[512] = "";
		if (rc == -2)
			browser_log_error(&own, lw, sizeof lw);
		snprintf(msg, sizeof msg, "%s%.500s%s%.400s", rc == -2 ? "chromium died: " : "", c.why, lw[0] ? "; " : "", lw);
		done("failed", msg, msg);
	}
	cdp_free(&c);
	browser_stop(&own);
	if (cap.note[0])
		note_add("%s", cap.note);

	/* 3. the files */
	buf_t files = {0}, hj = {0};
	if (put_file("output.html", cap.dom.p ? cap.dom.p : "", cap.dom.len, msg, sizeof msg) < 0 ||
	    put_file("screenshot.png", cap.png.p, cap.png.len, msg, sizeof msg) < 0 ||
	    put_file("output.pdf", cap.pdf.p, cap.pdf.len, msg, sizeof msg) < 0)
		done("failed", msg, msg);
	buf_adds(&files, "output.html screenshot.png output.pdf");
	if (cap.title.len) {
		if (put_file("title.txt", cap.title.p, cap.title.len, msg, sizeof msg) < 0)
			done("failed", msg, msg);
		buf_adds(&files, " title.txt");
	}
	if (cap.icon.len) {
		if (put_file("icon.txt", cap.icon.p, cap.icon.len, msg, sizeof msg) < 0)
			done("failed", msg, msg);
		buf_adds(&files, " icon.txt");
	}
	if (cap_headers(&cap, &hj) == 0) {
		if (put_file("headers.json", hj.p, hj.len, msg, sizeof msg) < 0)
			done("failed", msg, msg);
		buf_addf(&files, " headers.json (HTTP %d)", cap_main(&cap)->status);
	}
	buf_free(&hj);
	int nrec = put_warc(msg, sizeof msg);
	if (nrec < 0)
		done("failed", msg, msg);
	buf_addf(&files, " capture.warc.gz (%d responses)", nrec);
	const char *run = getenv("ABX_RUN");
	if (put_file(".run", run ? run : "", run ? strlen(run) : 0, msg, sizeof msg) < 0)
		done("failed", msg, msg);

	/* 4. the result */
	snprintf(msg, sizeof msg, "%s", buf_cstr(&files));
	buf_free(&files);
	done("succeeded", msg, NULL);
}
