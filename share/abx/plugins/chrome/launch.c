/*
 * launch.c — one headless chromium over --remote-debugging-pipe, started
 * and stopped: for the chrome hook's own browser (chrome.c) and for the
 * kept one (keep.c), which include it after cdp.c.
 *
 *   strv_t a = {0};
 *   browser_flags(&a, &spec);           the flags a snapshot asks for
 *   strv_add(&a, "--proxy-server=...")  the network's, the caller's
 *   browser_t b;
 *   if (browser_launch(&b, &a, envp, why, sizeof why) < 0) ...
 *   ... b.wfd (its fd 3), b.rfd (its fd 4), b.pid ...
 *   browser_stop(&b);
 *
 * browser_flags: argv[0] the binary (spec->bin, a path), then the flags
 * the shell hooks' chrome_run gives: --headless, --no-sandbox when
 * spec->sandbox_off, --ignore-certificate-errors when spec->insecure, GPU
 * off and its process in the browser's (--in-process-gpu: one process
 * a browser fewer), no first run, no background networking, component
 * updates or sync, no crash reporter (--disable-crashpad-for-testing:
 * chromium's crashpad handler is two processes a browser, in a session of
 * their own that outlives the browser's group, writing to the user's
 * ~/.config/chromium), the network service in the browser's process
 * (NetworkServiceInProcess2: one process fewer; a crash of it ends the
 * browser, which a kept browser's next snapshot restarts), one zygote
 * (--no-unsandboxed-zygote: the second one, for the helpers that run
 * without a sandbox, would have none to start once the GPU and the network
 * service are in the browser's process; --no-zygote, which would spare
 * the other, makes the browser start its helpers itself, and they inherit
 * the debugging pipe's fds 3 and 4 and die at once of an "FD ownership
 * violation"), no spare renderer (SpareRendererForSitePerProcess: chromium keeps
 * a renderer started ahead for the next navigation; in a browser context
 * a snapshot disposes of after one page it is never used, one process a
 * snapshot more, measured with bench/procs.sh), no WebUI omnibox popup
 * (WebUIOmniboxPopup, WebUIOmniboxAimPopup, WebUIOmniboxFullPopup: the
 * address bar's popup of every new window, a browser context's first tab
 * among them, made ready in a renderer of its own: one more a snapshot,
 * for a window nobody sees), no network time (NetworkTimeServiceQuerying:
 * clients2.google.com asked at every start), the user agent spec->ua, the window
 * spec->width x spec->height.
 * Nothing about the network: the caller adds its own (chrome.c: the
 * egress gate or the resolver rules; keep.c: a proxy nobody answers).
 *
 * browser_launch: the flags, then --remote-debugging-pipe, a fresh
 * profile (--user-data-dir, a temp dir "abx-chrome.XXXXXX" in $TMPDIR,
 * else /tmp) and no window (--no-startup-window: the first tab, which
 * capture.c never uses, took two renderers a browser; a capture opens
 * its own); started by spawn() in a session of its own
 * (its process group is its pid: browser_stop kills the group), with
 * exactly envp, stdin /dev/null, stdout and stderr an unlinked temp file
 * (b->logfd), its fds 3 and 4 our pipes.  0, or -1 with why.
 *
 * browser_stop: SIGKILL to the group and to the browser (a browser that
 * exited on its own is a zombie until reaped here, so its pid, and its
 * group's, are still its own), the browser reaped, the profile removed,
 * the pipes closed; its exit code (spawn_code: 137 if our SIGKILL ended
 * it), or -1 if none ran.  Harmless on a browser never started or
 * already stopped.
 *
 * browser_log_error: the last ERROR line of its log that is not D-Bus's
 * (a machine without a session bus) nor its pipe's end (which ours makes).
 * browser_copy_log: the log to our stderr, without the D-Bus lines.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <netinet/in.h>
#include <unistd.h>

#include "base/alloc.h"
#include "base/buf.h"
#include "base/fs.h"
#include "base/spawn.h"
#include "hook/hookcurl.h"

#define DEFAULT_UA "Mozilla/5.0 (compatible; abx/0.1; +https://github.com/ArchiveBox/ArchiveBox)"

typedef struct {
	char **v;                /* NULL-terminated, each malloc'd */
	size_t n;
} strv_t;

typedef struct {
	const char *bin;         /* the binary, a path */
	const char *ua;          /* NULL: abx's */
	int sandbox_off, insecure;
	int width, height;
} bspec_t;

typedef struct {
	pid_t pid;               /* 0: none */
	int wfd, rfd;            /* to its fd 3, from its fd 4 */
	int logfd;               /* its stdout and stderr */
	char profile[4096];      /* its --user-data-dir; "": none */
} browser_t;

static void
strv_add(strv_t *a, const char *s)
{
	a->v = xrealloc(a->v, (a->n + 2) * sizeof *a->v);
	a->v[a->n++] = xstrdup(s);
	a->v[a->n] = NULL;
}

static void
strv_free(strv_t *a)
{
	for (size_t i = 0; i < a->n; i++)
		free(a->v[i]);
	free(a->v);
	memset(a, 0, sizeof *a);
}

static void
browser_flags(strv_t *a, const bspec_t *sp)
{
	static const char *const fixed[] = {"--disable-gpu", "--in-process-gpu", "--disable-dev-shm-usage",
	                                    "--no-first-run", "--disable-background-networking",
	                                    "--disable-component-update", "--disable-sync",
	                                    "--disable-crashpad-for-testing", "--no-unsandboxed-zygote",
	                                    "--enable-features=NetworkServiceInProcess2",
	                                    "--disable-features=SpareRendererForSitePerProcess,"
	                                    "WebUIOmniboxPopup,WebUIOmniboxAimPopup,WebUIOmniboxFullPopup,"
	                                    "NetworkTimeServiceQuerying",
	                                    NULL};
	strv_add(a, sp->bin);
	strv_add(a, "--headless");
	if (sp->sandbox_off)
		strv_add(a, "--no-sandbox");
	if (sp->insecure)
		strv_add(a, "--ignore-certificate-errors");
	for (int i = 0; fixed[i]; i++)
		strv_add(a, fixed[i]);
	char *s = xasprintf("--user-agent=%s", sp->ua && *sp->ua ? sp->ua : DEFAULT_UA);
	strv_add(a, s);
	free(s);
	s = xasprintf("--window-size=%d,%d", sp->width, sp->height);
	strv_add(a, s);
	free(s);
}

/* Remove the profile directory, without following a link on the way. */
static void
profile_remove(char *profile)
{
	char *slash = strrchr(profile, '/');
	if (!profile[0] || !slash)
		return;
	*slash = 0;
	int dfd = open(profile[0] ? profile : "/", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	*slash = '/';
	if (dfd >= 0) {
		fs_rmtree(dfd, slash + 1);
		close(dfd);
	}
	profile[0] = 0;
}

static int
browser_stop(browser_t *b)
{
	int st = 0, code = -1;
	if (b->pid > 0) {
		killpg(b->pid, SIGKILL);
		kill(b->pid, SIGKILL);
		while (waitpid(b->pid, &st, 0) < 0 && errno == EINTR)
			;
		code = spawn_code(st);
		b->pid = 0;
	}
	if (b->wfd > 0)
		close(b->wfd);
	if (b->rfd > 0)
		close(b->rfd);
	b->wfd = b->rfd = -1;
	profile_remove(b->profile);
	return code;
}

static int
browser_launch(browser_t *b, const strv_t *flags, char *const *envp, char *why, size_t wn)
{
	memset(b, 0, sizeof *b);
	b->wfd = b->rfd = b->logfd = -1;
	const char *t = getenv("TMPDIR");
	snprintf(b->profile, sizeof b->profile, "%s/abx-chrome.XXXXXX", t && *t ? t : "/tmp");
	if (!mkdtemp(b->profile)) {
		snprintf(why, wn, "cannot create a profile dir in %s: %s", t && *t ? t : "/tmp", strerror(errno));
		b->profile[0] = 0;
		return -1;
	}
	int to[2], from[2];
	if (pipe2(to, O_CLOEXEC) < 0) {
		snprintf(why, wn, "cannot make a pipe: %s", strerror(errno));
		profile_remove(b->profile);
		return -1;
	}
	if (pipe2(from, O_CLOEXEC) < 0) {
		snprintf(why, wn, "cannot make a pipe: %s", strerror(errno));
		close(to[0]), close(to[1]);
		profile_remove(b->profile);
		return -1;
	}
	b->logfd = hook_tmpfile();
	strv_t a = {0};
	for (size_t i = 0; i < flags->n; i++)
		strv_add(&a, flags->v[i]);
	strv_add(&a, "--remote-debugging-pipe");
	char *prof = xasprintf("--user-data-dir=%s", b->profile);
	strv_add(&a, prof);
	free(prof);
	strv_add(&a, "--no-startup-window");
	spawn_t sp;
	spawn_init(&sp, a.v[0], a.v, envp);
	sp.fd[1] = b->logfd >= 0 ? b->logfd : 2;
	sp.fd[2] = b->logfd >= 0 ? b->logfd : 2;
	sp.fd[3] = to[0];
	sp.fd[4] = from[1];
	sp.nfd = 5;
	sp.session = 1;
	int e = spawn(&sp, &b->pid);
	close(to[0]);
	close(from[1]);
	if (e) {
		snprintf(why, wn, "cannot run %.900s: %s", a.v[0], strerror(e));
		strv_free(&a);
		b->pid = 0;
		close(to[1]), close(from[0]);
		profile_remove(b->profile);
		return -1;
	}
	strv_free(&a);
	b->wfd = to[1];
	b->rfd = from[0];
	return 0;
}

/*
 * browser_dead_port: a TCP socket bound on 127.0.0.1 and never listened
 * on (every connection to it refused), for browser_no_network; its fd (the
 * caller keeps it open while the browser runs, then closes it) and *port,
 * or -1 with why.
 */
static int
browser_dead_port(int *port, char *why, size_t wn)
{
	struct sockaddr_in sin = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
	socklen_t sl = sizeof sin;
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0 || bind(fd, (struct sockaddr *)&sin, sizeof sin) < 0 ||
	    getsockname(fd, (struct sockaddr *)&sin, &sl) < 0) {
		snprintf(why, wn, "cannot bind a port on 127.0.0.1: %s", strerror(errno));
		if (fd >= 0)
			close(fd);
		return -1;
	}
	*port = ntohs(sin.sin_port);
	return fd;
}

/*
 * browser_no_network: the flags that leave a browser no network of its
 * own: --proxy-server 127.0.0.1:PORT (browser_dead_port's), loopback not
 * bypassed, QUIC off, WebRTC kept to proxied connections, and no name
 * resolved but 127.0.0.1 (a gate's).  A page then loads only in a browser
 * context whose proxy is a snapshot's gate (capture.c, CP->proxy), and
 * what chromium fetches for itself, in the browser's own context, goes
 * nowhere: with the gate as --proxy-server, each start asked it for
 * accounts.google.com, update.googleapis.com (a component's on-demand
 * install, --disable-component-update notwithstanding) and
 * clients2.google.com's time, which a crawl allows as any public host.
 */
static void
browser_no_network(strv_t *a, int port)
{
	char *s = xasprintf("--proxy-server=http://127.0.0.1:%d", port);
	strv_add(a, s);
	free(s);
	strv_add(a, "--proxy-bypass-list=<-loopback>");
	strv_add(a, "--disable-quic");
	strv_add(a, "--force-webrtc-ip-handling-policy=disable_non_proxied_udp");
	strv_add(a, "--host-resolver-rules=MAP * ~NOTFOUND , EXCLUDE 127.0.0.1");
}

/* A line of chromium's log that says nothing: a machine's missing D-Bus. */
static int
dbus_noise(const char *l, size_t len)
{
	return memmem(l, len, "dbus", 4) || memmem(l, len, "bus.cc", 6) || memmem(l, len, "object_proxy", 12);
}

static void
browser_log_error(const browser_t *b, char *out, size_t n)
{
	out[0] = 0;
	if (b->logfd < 0)
		return;
	buf_t s = {0};
	hook_slurp(b->logfd, &s, 1 << 20);
	const char *p = buf_cstr(&s);
	for (const char *l = p; l && *l;) {
		const char *nl = strchr(l, '\n');
		size_t len = nl ? (size_t)(nl - l) : strlen(l);
		if (memmem(l, len, "ERROR", 5) && !dbus_noise(l, len) && !memmem(l, len, "devtools_pipe_handler", 21))
			snprintf(out, n, "%.*s", (int)len, l);
		l = nl ? nl + 1 : NULL;
	}
	buf_free(&s);
}

static void
browser_copy_log(browser_t *b)
{
	if (b->logfd < 0)
		return;
	buf_t s = {0};
	hook_slurp(b->logfd, &s, 1 << 20);
	const char *p = buf_cstr(&s);
	for (const char *l = p; l && *l;) {
		const char *nl = strchr(l, '\n');
		size_t len = nl ? (size_t)(nl - l) + 1 : strlen(l);
		if (!dbus_noise(l, len))
			fwrite(l, 1, len, stderr);
		l = nl ? nl + 1 : NULL;
	}
	buf_free(&s);
	close(b->logfd);
	b->logfd = -1;
}
