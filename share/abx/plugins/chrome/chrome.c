/*
 * chrome.c — the chrome hook: one headless chromium, one load of the page,
 * and from it the DOM, a screenshot, a PDF, the title, the main document's
 * headers and a WARC of every response the browser loaded.  Built as
 * on_Snapshot__29_chrome.bin beside this file, from this file and the
 * four it includes: cdp.c (the pipe protocol), warcwrite.c (WARC
 * records, base64), capture.c (the page's load and what is kept of it),
 * zonerules.c (the private zones, without the egress gate).
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
 *    chromium; a name is looked up in PATH) absent: "skipped", "chromium
 *    not found (CHROME_BINARY=...)", as the shell hooks' chrome_find.  The
 *    timeout is CHROME_TIMEOUT, else TIMEOUT, else 60 seconds; the browser
 *    gets 90% of it (at least 5 s), both attempts together.  The files of
 *    an earlier run (the names below, and .run) are removed first.
 * 1. chromium --headless --remote-debugging-pipe (cdp.c: its fds 3 and 4
 *    are our pipes), as the shell hooks' chrome_run starts it: GPU off,
 *    no first run, no background networking, component updates or sync,
 *    a fresh profile in a temp dir (removed after), the user agent
 *    $USER_AGENT else abx's, --ignore-certificate-errors when
 *    CHECK_SSL_VALIDITY is false, the window CHROME_WINDOW_SIZE (default
 *    1280,2000); its sandbox kept unless CHROME_SANDBOX is false or the
 *    hook runs as root (the result's notes then say why, as chrome_sandbox
 *    says it).  The network: with $ABX_GATE (abx-hook's egress gate,
 *    lib/net/gate.h), every connection through it (--proxy-server,
 *    loopback not bypassed, QUIC off, WebRTC kept to proxied
 *    connections).  Without a gate (the crawl may enter every zone, or a
 *    hook run by hand), --host-resolver-rules instead, as the shell hooks
 *    give theirs (zonerules.c).  Started in a
 *    session of its own: its whole process group is killed when done.
 *    Its stderr goes to a temp file; what is not D-Bus noise is copied to
 *    ours at the end.
 * 2. capture_page (capture.c): a tab, the page loaded once, then the
 *    title, the DOM, the screenshot, the PDF and the response bodies.  If
 *    the browser dies first (its pipe closes, the process ends, the
 *    renderer crashes), it is started once more (a fresh profile) and the
 *    page loaded once more: the result's notes say so.  A second death,
 *    or any other failure, is "failed" with the reason.
 * 3. Into the cwd, each written to a temp name (".NAME.PID", O_NOFOLLOW |
 *    O_CREAT | O_EXCL) and renamed: output.html (the DOM), screenshot.png,
 *    output.pdf, title.txt (if the page has a title), headers.json (the
 *    main document's final response, as the headers plugin writes it),
 *    capture.warc.gz (cap_warc: request and response records, one gzip
 *    member each: abx-seal --pack finds it as <plugin>/NAME.warc.gz), and
 *    last .run, holding $ABX_RUN: the derived hooks take the files only
 *    when it names their own run.
 * 4. "succeeded", output_str the files' names (headers.json with the
 *    main document's status, the WARC with its count of responses).  No
 *    Snapshot record: the title hook's stays the snapshot's title.
 * SIGTERM or SIGINT kills the browser, removes the temp files and prints
 * a "failed" result, "interrupted by SIGTERM" (exit 143) or "by SIGINT"
 * (130).
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/alloc.h"
#include "base/buf.h"
#include "base/err.h"
#include "base/fs.h"
#include "base/spawn.h"
#include "hook/hookcurl.h"
#include "hook/hookenv.h"

#include "cdp.c"
#include "warcwrite.c"
#include "capture.c"
#include "zonerules.c"

#define DEFAULT_UA "Mozilla/5.0 (compatible; abx/0.1; +https://github.com/ArchiveBox/ArchiveBox)"

extern char **environ;

static volatile sig_atomic_t got_sig;
static sigset_t waitmask;          /* the mask while waiting: the signals let in */
static char note[1024], tmpdir[4096], binpath[4096];
static cap_t cap = {.width = 1280, .height = 2000};
static pid_t browser;
static int logfd = -1;

static const char *const outputs[] = {"output.html", "screenshot.png", "output.pdf", "title.txt",
                                      "headers.json", "capture.warc.gz", ".run", NULL};

static void
on_signal(int sig)
{
	got_sig = sig;
}

/* Kill the browser's process group, reap it, remove its profile. */
static void
browser_stop(void)
{
	if (browser > 0) {
		killpg(browser, SIGKILL);
		kill(browser, SIGKILL);
		waitpid(browser, NULL, 0);
		browser = 0;
	}
	if (tmpdir[0]) {
		char *slash = strrchr(tmpdir, '/');
		*slash = 0;
		int dfd = open(tmpdir[0] ? tmpdir : "/", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		*slash = '/';
		if (dfd >= 0) {
			fs_rmtree(dfd, slash + 1);
			close(dfd);
		}
		tmpdir[0] = 0;
	}
}

/* Chromium's stderr to ours, without a machine's D-Bus noise. */
static void
copy_log(void)
{
	if (logfd < 0)
		return;
	buf_t b = {0};
	hook_slurp(logfd, &b, 1 << 20);
	const char *p = b.p ? b.p : "";
	for (size_t i = 0; i < b.len;) {
		const char *nl = memchr(p + i, '\n', b.len - i);
		size_t e = nl ? (size_t)(nl - p) + 1 : b.len;
		buf_t l = {0};
		buf_add(&l, p + i, e - i);
		const char *s = buf_cstr(&l);
		if (!strstr(s, "ERROR:dbus/") && !strstr(s, "ERROR:bus.cc") && !strstr(s, "ERROR:object_proxy.cc"))
			fwrite(l.p, 1, l.len, stderr);
		buf_free(&l);
		i = e;
	}
	buf_free(&b);
	close(logfd);
	logfd = -1;
}

static noreturn void
done(const char *status, const char *output_str, const char *error)
{
	browser_stop();
	copy_log();
	char err[2048];
	if (note[0]) {
		snprintf(err, sizeof err, "%s%s%s", error && *error ? error : "", error && *error ? "; " : "",
		    note);
		error = err;
	}
	hook_print(status, output_str, error);
	cap_free(&cap);
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

/* CHROME_BINARY, default chromium, into binpath: 0, or -1. */
static int
find_binary(const char *name)
{
	if (strchr(name, '/')) {
		snprintf(binpath, sizeof binpath, "%s", name);
		return access(binpath, X_OK);
	}
	const char *path = getenv("PATH");
	if (!path || !*path)
		path = "/usr/local/bin:/usr/bin:/bin";
	while (*path) {
		size_t n = strcspn(path, ":");
		snprintf(binpath, sizeof binpath, "%.*s%s%s", (int)n, path, n ? "/" : "", name);
		struct stat st;
		if (stat(binpath, &st) == 0 && S_ISREG(st.st_mode) && access(binpath, X_OK) == 0)
			return 0;
		path += n + (path[n] == ':');
	}
	return -1;
}

/* Start the browser: 0 and c's pipes, or -1 with why. */
static int
browser_start(cdp_t *c, const char *url, const char *sandbox_off, char *why, size_t wn)
{
	const char *t = getenv("TMPDIR");
	snprintf(tmpdir, sizeof tmpdir, "%s/abx-chrome.XXXXXX", t && *t ? t : "/tmp");
	if (!mkdtemp(tmpdir)) {
		snprintf(why, wn, "cannot create a profile dir in %s: %s", t && *t ? t : "/tmp", strerror(errno));
		tmpdir[0] = 0;
		return -1;
	}
	int to[2], from[2];
	if (pipe2(to, O_CLOEXEC) < 0 || pipe2(from, O_CLOEXEC) < 0) {
		snprintf(why, wn, "cannot make a pipe: %s", strerror(errno));
		return -1;
	}
	if (logfd < 0)
		logfd = hook_tmpfile();
	const char *ua = getenv("USER_AGENT");
	const char *gate = getenv("ABX_GATE");
	const char *win = getenv("CHROME_WINDOW_SIZE");
	const char *ssl = getenv("CHECK_SSL_VALIDITY");
	char *profile = xasprintf("--user-data-dir=%s", tmpdir);
	char *uaarg = xasprintf("--user-agent=%s", ua && *ua ? ua : DEFAULT_UA);
	char *winarg = xasprintf("--window-size=%d,%d", cap.width, cap.height);
	char *proxy = gate && *gate ? xasprintf("--proxy-server=http://%s", gate) : NULL;
	buf_t rules = {0};
	char *rulesarg = NULL;
	if (!proxy) {
		zone_rules(url, &rules);
		if (rules.len)
			rulesarg = xasprintf("--host-resolver-rules=%s", buf_cstr(&rules));
		buf_free(&rules);
	}
	(void)win;
	const char *argv[32];
	int n = 0;
	argv[n++] = binpath;
	argv[n++] = "--headless";
	if (sandbox_off)
		argv[n++] = "--no-sandbox";
	if (ssl && hook_false(ssl))
		argv[n++] = "--ignore-certificate-errors";
	if (proxy) {
		argv[n++] = proxy;
		argv[n++] = "--proxy-bypass-list=<-loopback>";
		argv[n++] = "--disable-quic";
		argv[n++] = "--force-webrtc-ip-handling-policy=disable_non_proxied_udp";
	} else if (rulesarg) {
		argv[n++] = rulesarg;
	}
	argv[n++] = "--disable-gpu";
	argv[n++] = "--disable-dev-shm-usage";
	argv[n++] = "--no-first-run";
	argv[n++] = "--disable-background-networking";
	argv[n++] = "--disable-component-update";
	argv[n++] = "--disable-sync";
	argv[n++] = "--remote-debugging-pipe";
	argv[n++] = profile;
	argv[n++] = uaarg;
	argv[n++] = winarg;
	argv[n++] = "about:blank";
	argv[n] = NULL;
	spawn_t sp;
	spawn_init(&sp, binpath, (char *const *)argv, environ);
	sp.fd[1] = logfd >= 0 ? logfd : 2;
	sp.fd[2] = logfd >= 0 ? logfd : 2;
	sp.fd[3] = to[0];
	sp.fd[4] = from[1];
	sp.nfd = 5;
	sp.session = 1;
	int e = spawn(&sp, &browser);
	free(profile), free(uaarg), free(winarg), free(proxy), free(rulesarg);
	close(to[0]);
	close(from[1]);
	if (e) {
		browser = 0;
		close(to[1]), close(from[0]);
		snprintf(why, wn, "cannot run %.900s: %s", binpath, strerror(e));
		return -1;
	}
	buf_free(&c->in);
	memset(c, 0, sizeof *c);
	c->wfd = to[1];
	c->rfd = from[0];
	c->on_event = cap_event;
	c->arg = &cap;
	c->mask = &waitmask;
	c->stop = &got_sig;
	c->pid = browser;
	return 0;
}

/* The last ERROR line of chromium's log that is not D-Bus's (nor its
 * pipe's end, which ours makes), into out. */
static void
log_error(char *out, size_t n)
{
	out[0] = 0;
	if (logfd < 0)
		return;
	buf_t b = {0};
	hook_slurp(logfd, &b, 1 << 20);
	const char *p = buf_cstr(&b);
	for (const char *l = p; l && *l;) {
		const char *nl = strchr(l, '\n');
		size_t len = nl ? (size_t)(nl - l) : strlen(l);
		if (memmem(l, len, "ERROR", 5) && !memmem(l, len, "dbus", 4) && !memmem(l, len, "bus.cc", 6) &&
		    !memmem(l, len, "object_proxy", 12) && !memmem(l, len, "devtools_pipe_handler", 21))
			snprintf(out, n, "%.*s", (int)len, l);
		l = nl ? nl + 1 : NULL;
	}
	buf_free(&b);
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

	char msg[1024], why[1024];
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
	const char *sb = getenv("CHROME_SANDBOX");
	if (sb && hook_false(sb))
		sandbox_off = "chromium ran without its sandbox: CHROME_SANDBOX is false";
	else if (geteuid() == 0)
		sandbox_off = "chromium ran without its sandbox: the hook runs as root, where chromium cannot "
		              "have one (run abx as an unprivileged user: abx(7) SECURITY)";
	if (sandbox_off) {
		snprintf(note, sizeof note, "%s", sandbox_off);
		fprintf(stderr, "%s\n", sandbox_off);
	}
	for (int i = 0; outputs[i]; i++)
		unlinkat(AT_FDCWD, outputs[i], 0);
	long timeout = hook_timeout("CHROME_TIMEOUT");
	long budget = timeout * 9 / 10 > 5 ? timeout * 9 / 10 : 5;
	int64_t deadline = clock_mono() + (int64_t)budget * 1000000;

	/* 1, 2: the browser and the page, twice if it dies */
	cdp_t c = {0};
	int rc = -1;
	for (int attempt = 0; attempt < 2; attempt++) {
		if (browser_start(&c, url, sandbox_off, why, sizeof why) < 0)
			done("failed", why, why);
		rc = capture_page(&c, &cap, url, deadline);
		if (got_sig)
			interrupted();
		if (rc == -2 && !c.dead)
			snprintf(c.why, sizeof c.why, "chromium stopped answering");
		if (rc == 0 || rc == -1 || attempt == 1 || clock_mono() >= deadline)
			break;
		/* it died: once more, in a fresh browser */
		char lw[512];
		log_error(lw, sizeof lw);
		size_t k = strlen(note);
		snprintf(note + k, sizeof note - k, "%schromium died during the capture (%.300s%s%.300s): started again, the page loaded once more",
		    k ? "; " : "", c.why, lw[0] ? "; " : "", lw);
		fprintf(stderr, "chromium died during the capture (%s): starting it again\n", c.why);
		close(c.wfd), close(c.rfd);
		browser_stop();
		cap_free(&cap);
	}
	close(c.wfd), close(c.rfd);
	cdp_free(&c);
	if (rc < 0) {
		char lw[512] = "";
		if (rc == -2)
			log_error(lw, sizeof lw);
		snprintf(msg, sizeof msg, "%s%.500s%s%.400s", rc == -2 ? "chromium died: " : "", c.why, lw[0] ? "; " : "", lw);
		done("failed", msg, msg);
	}
	browser_stop();
	if (cap.note[0]) {
		size_t k = strlen(note);
		snprintf(note + k, sizeof note - k, "%s%s", k ? "; " : "", cap.note);
	}

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
