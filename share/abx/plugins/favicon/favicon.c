/*
 * favicon.c — the favicon hook: the site's icon, as favicon.<ext>.
 * Built as on_Snapshot__56_favicon.bin beside this file.
 *
 *   on_Snapshot__56_favicon.bin --url=URL      (cwd = <snapshot>/favicon/)
 *
 * A hook by ArchiveBox's contract (settings in the environment, JSONL on
 * stdout, logs on stderr; exit 0 succeeded, 10 skipped, else 1), in C
 * because a shell version started up to twelve programs a run (mktemp,
 * curl, the parser, sed, head, curl, tail, curl, mv, cat, rm): this one
 * starts the parser only for a page the browser did not load, and curl
 * only for what the snapshot did not capture, once per site and crawl.
 *
 * Numbered 56: after the chrome hook (29) and the finite background wget
 * hook (06; a hook numbered 50 or more waits for it, phase.h), whose
 * captures it reads: the icon link comes from the captured HTML, the icon
 * from what the browser or wget loaded, and the site is asked for it at
 * most once per crawl (issue 28, "Capture once").  (abx-plugins 1.10.71
 * runs its favicon hook as 11, fetching the page and the icons itself.)
 *
 * 0. FAVICON_ENABLED false: "skipped".  No --url, or one beginning with
 *    "-": "failed".  Not http(s): "skipped".  The timeout of each curl is
 *    FAVICON_TIMEOUT, else TIMEOUT, else 60 seconds.
 * 1. The page: from the snapshot's capture (../_lib/capture.c: the chrome
 *    hook's WARC of this run, else wget's; redirects followed in it), else
 *    fetched (curl as hook.sh's hook_curl ran it, hookcurl.h, through the
 *    egress gate; any status).  Its first <link rel=icon> (any rel with the
 *    token "icon"), resolved against the page's final URL and its <base>,
 *    is the first candidate.  When the page comes from the chrome hook's
 *    capture, the browser read it: ../chrome/icon.txt (chrome.c; none:
 *    the page has no icon link), and nothing is started.  Else the HTML is
 *    read by parse_html_urls --icon, the C parser of the sibling plugin
 *    (../parse_html_urls/ beside this program, found through
 *    /proc/self/exe); without it only the second is tried.
 * 2. Then /favicon.ico of the origin of the page's final URL.
 * 3. A candidate the capture holds (cap_response: the browser or wget
 *    loaded it): a 2xx answer with a body whose Content-Type is not HTML is
 *    saved as favicon.<ext> (ext below); any other answer means there is
 *    nothing there, and it is not asked for again.
 * 4. The others come from the crawl's cache, $CRAWL_DIR/favicon/ (its
 *    files opened without following a symlink), one file per origin (KEY
 *    <scheme>_<host>_<port>: its icon as KEY.<ext>, or KEY.none when the
 *    site has none), under an flock(2) on KEY.lock, so that two snapshots
 *    of one site at once ask it once: a cached icon is hard-linked (else copied) into the
 *    cwd; KEY.none is "no favicon found".  On a miss, under the lock, the
 *    first candidate that answers 2xx (curl --fail) with a non-empty body
 *    whose Content-Type is not HTML is saved as favicon.<ext>, ext from its
 *    Content-Type (ico for any "icon", png, gif, jpg, svg, webp; else ico),
 *    and hard-linked (else copied) into the cache; none that answered:
 *    KEY.none.  No $CRAWL_DIR (a hook run by hand): no cache.
 * 5. Saved: "succeeded", output_str favicon.<ext>.  None: "skipped", exit
 *    10, "no favicon found"; but if the last candidate that failed got no
 *    answer at all (curl's error other than an HTTP status, (22)), "failed"
 *    with curl's last line, and nothing is cached; so too when the status
 *    was the egress gate's own (hook_gate_answer, hookcurl.h: X-Abx-Gate
 *    in the heads curl dumped), "failed" with the gate's cause.  curl's stderr of every
 *    fetch is copied to ours at the end.
 * SIGTERM or SIGINT stops curl and prints a "failed" result, "interrupted
 * by SIGTERM" (exit 143) or "by SIGINT" (130).
 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/buf.h"
#include "base/err.h"
#include "base/spawn.h"
#include "hook/hookcurl.h"
#include "hook/hookenv.h"

#include "../_lib/capture.c"

extern char **environ;

static hcurl_t curl;
static buf_t errs;   /* every curl's stderr */
static int got_sig;

static noreturn void
done(const char *status, const char *output_str, const char *error)
{
	hook_print(status, output_str, error);
	hcurl_free(&curl);
	buf_free(&errs);
	exit(hook_exit_code(status, got_sig));
}

/* curl URL with args, its stderr kept; stops us with a result on a signal. */
static int
fetch(const char *url, const char *const args[], int fd3, int fd4)
{
	hcurl_free(&curl);
	int rc = hook_curl_run2(url, args, hook_timeout("FAVICON_TIMEOUT"), fd3, fd4, &curl);
	if (curl.err.len)
		buf_add(&errs, curl.err.p, curl.err.len);
	if (rc < 0) {
		buf_adds(&errs, curl.why);
		buf_addc(&errs, '\n');
	}
	if (curl.sig) {
		got_sig = curl.sig;
		fwrite(errs.p ? errs.p : "", 1, errs.len, stderr);
		done("failed", hook_curl_interrupted(got_sig), NULL);
	}
	return rc;
}

/* The parser's --icon answer for the page in fd (its stdout, trailing
 * newlines dropped), into out; "" if there is none or no parser. */
static void
icon_of(const char *base, int page, buf_t *out)
{
	char self[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
	if (n <= 0)
		return;
	self[n] = 0;
	char *sl = strrchr(self, '/');
	if (!sl)
		return;
	*sl = 0;
	char *parser = xasprintf("%s/../parse_html_urls/on_Snapshot__75_parse_html_urls.bin", self);
	char *urlarg = xasprintf("--url=%s", base);
	int res = hook_tmpfile();
	if (access(parser, X_OK) == 0 && res >= 0 && page >= 0) {
		/* stderr /dev/null, the page on 3; spawn.h: our blocked
		 * signals and ignored SIGPIPE are not the parser's */
		char *argv[] = {parser, "--icon", urlarg, "--html=/dev/fd/3", NULL};
		spawn_t sp;
		spawn_init(&sp, parser, argv, environ);
		sp.fd[1] = res, sp.fd[2] = SPAWN_NULL, sp.fd[3] = page, sp.nfd = 4;
		pid_t pid;
		if (spawn(&sp, &pid) == 0) {
			spawn_wait(pid);
			hook_slurp(res, out, 0);
			while (out->len && out->p[out->len - 1] == '\n')
				out->p[--out->len] = 0;
		}
	}
	if (res >= 0)
		close(res);
	free(parser);
	free(urlarg);
}

/* The extension for a Content-Type, or NULL for HTML (not an icon). */
static const char *
ext_of(const char *ct)
{
	if (!strncmp(ct, "text/html", 9) || !strncmp(ct, "application/xhtml", 17))
		return NULL;
	static const struct {
		const char *prefix, *ext;
	} map[] = {{"image/png", "png"}, {"image/gif", "gif"}, {"image/jpeg", "jpg"},
	           {"image/svg", "svg"}, {"image/webp", "webp"}};
	if (strstr(ct, "icon"))
		return "ico";
	for (size_t i = 0; i < sizeof map / sizeof map[0]; i++)
		if (!strncmp(ct, map[i].prefix, strlen(map[i].prefix)))
			return map[i].ext;
	return "ico";
}

/* Fetch one candidate into favicon.<ext>: its name, or NULL (*transport
 * set when curl got no answer, cleared when it got an HTTP error). */
static const char *
try(const char *cand, char *transport, size_t tn)
{
	static char name[32];
	int icon = hook_tmpfile();
	if (icon < 0)
		return NULL;
	int hd = hook_tmpfile();
	const char *args[] = {"--fail", "--output", "/dev/fd/3", "--write-out", "%{content_type}",
	                      hd >= 0 ? "--dump-header" : NULL, "/dev/fd/4", NULL};
	int rc = fetch(cand, args, icon, hd);
	if (rc != 0) {
		hook_last_line(&errs, transport, tn);
		buf_t head = {0};
		if (hd >= 0)
			hook_slurp(hd, &head, 0);
		/* an HTTP error is just no icon there; but the egress gate's own
		 * answer is no answer from the site */
		if (strstr(transport, "(22)") && !hook_gate_answer(&head, NULL, cand, transport, tn))
			transport[0] = 0;
		buf_free(&head);
		if (hd >= 0)
			close(hd);
		close(icon);
		return NULL;
	}
	if (hd >= 0)
		close(hd);
	buf_t body = {0};
	hook_slurp(icon, &body, 0);
	close(icon);
	const char *ext = ext_of(buf_cstr(&curl.out));
	int ok = 0;
	if (body.len && ext) {
		snprintf(name, sizeof name, "favicon.%s", ext);
		ok = hook_write_file(name, body.p, body.len) == 0;
	}
	buf_free(&body);
	return ok ? name : NULL;
}

/* Save the icon the capture holds for cand as favicon.<ext>: its name, or
 * NULL (*asked set when the capture holds the site's answer). */
static const char *
from_capture(const cpage_t *cp, const char *cand, int *asked)
{
	static char name[32];
	buf_t body = {0};
	char ct[256];
	const char *ext = NULL;
	int rc = cap_response(cp, cand, &body, ct, sizeof ct);
	*asked = rc >= 0;
	if (rc == 0 && (ext = ext_of(ct)))
		snprintf(name, sizeof name, "favicon.%s", ext);
	int ok = ext && hook_write_file(name, body.p, body.len) == 0;
	buf_free(&body);
	return ok ? name : NULL;
}

static const char *const exts[] = {"ico", "png", "gif", "jpg", "svg", "webp", NULL};

/* The crawl's icon cache: $CRAWL_DIR/favicon/, opened without following
 * a symlink; -1 if there is none (a hook run by hand). */
static int
cache_dir(void)
{
	const char *cd = getenv("CRAWL_DIR");
	if (!cd || !*cd)
		return -1;
	int crawl = open(cd, O_RDONLY | O_DIRECTORY | O_CLOEXEC);   /* abx-hook's */
	if (crawl < 0)
		return -1;
	if (mkdirat(crawl, "favicon", 0755) < 0 && errno != EEXIST) {
		close(crawl);
		return -1;
	}
	int d = fs_opendir(crawl, "favicon");
	close(crawl);
	return d;
}

/* The cache's key for the origin of base: scheme_host_port, other bytes as _. */
static void
cache_key(const char *origin, char *key, size_t n)
{
	size_t k = 0;
	for (const char *p = origin; *p && k + 1 < n; p++) {
		if (p[0] == ':' && p[1] == '/' && p[2] == '/')
			p += 2;
		key[k++] = (isalnum((unsigned char)*p) || *p == '.' || *p == '-') ? *p : '_';
	}
	key[k] = 0;
}

/* The cached icon of key into the cwd as favicon.<ext> (a hard link, else
 * a copy): its name; "" if the cache says the site has none; NULL if the
 * cache has no word on it. */
static const char *
cache_get(int d, const char *key)
{
	static char name[32];
	char c[512], t[64];
	snprintf(c, sizeof c, "%s.none", key);
	if (fs_exists(d, c) > 0)
		return "";
	for (int i = 0; exts[i]; i++) {
		snprintf(c, sizeof c, "%s.%s", key, exts[i]);
		int fd = openat(d, c, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
		if (fd < 0)
			continue;
		struct stat st;
		snprintf(name, sizeof name, "favicon.%s", exts[i]);
		snprintf(t, sizeof t, ".%s.%d", name, (int)getpid());
		unlink(t);
		int ok = fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0;
		if (ok && linkat(d, c, AT_FDCWD, t, 0) == 0) {
			struct stat lt;
			ok = lstat(t, &lt) == 0 && lt.st_ino == st.st_ino && rename(t, name) == 0;
			if (!ok)
				unlink(t);
		} else if (ok) {
			buf_t b = {0};
			ok = fs_read_fd(fd, &b) == 0 && hook_write_file(name, b.p, b.len) == 0;
			buf_free(&b);
		}
		close(fd);
		if (ok)
			return name;
	}
	return NULL;
}

/* Put what this snapshot found for key in the cache: favicon.<ext> from
 * the cwd (a hard link, else a copy), or the "none" marker (saved NULL). */
static void
cache_put(int d, const char *key, const char *saved)
{
	char c[512], t[600];
	if (!saved) {
		snprintf(c, sizeof c, "%s.none", key);
		fs_replace(d, c, "", 0, 0);
		return;
	}
	snprintf(c, sizeof c, "%s.%s", key, strrchr(saved, '.') + 1);
	snprintf(t, sizeof t, ".%s.%d", c, (int)getpid());
	unlinkat(d, t, 0);
	if (linkat(AT_FDCWD, saved, d, t, 0) == 0 && renameat(d, t, d, c) == 0)
		return;
	unlinkat(d, t, 0);
	buf_t b = {0};
	if (fs_read(AT_FDCWD, saved, &b) == 0)
		fs_replace(d, c, b.p, b.len, 0);
	buf_free(&b);
}

/* The page from the capture, into fd page, its final URL into base;
 * else fetched as before.  The icon link of its HTML into icon. */
static void
page_icon(const char *url, cpage_t *cp, buf_t *base, buf_t *icon)
{
	char msg[1024];
	int page = hook_tmpfile();
	if (page < 0) {
		snprintf(msg, sizeof msg, "cannot create a temp file: %s", strerror(errno));
		done("failed", msg, msg);
	}
	int rc = 0;
	if (cap_page(url, hook_timeout("FAVICON_TIMEOUT") * 0.8, cp) == 0) {
		buf_adds(base, cp->url);
		if (cp->body.len && write(page, cp->body.p, cp->body.len) != (ssize_t)cp->body.len)
			rc = -1;
	} else {
		const char *pargs[] = {"--output", "/dev/fd/3", "--write-out", "%{url_effective}", NULL};
		rc = fetch(url, pargs, page, -1);
		buf_add(base, curl.out.p ? curl.out.p : "", curl.out.len);
	}
	if (rc == 0 && cp->src && !strcmp(cp->src, "chrome")) {
		/* the browser read the page's icon link: chrome/icon.txt (none: no link) */
		if (cap_file("chrome/icon.txt", icon) < 0)
			buf_reset(icon);
		while (icon->len && (icon->p[icon->len - 1] == '\n' || icon->p[icon->len - 1] == '\r'))
			icon->p[--icon->len] = 0;
		if (strchr(buf_cstr(icon), '\n') || strncasecmp(buf_cstr(icon), "http", 4))
			buf_reset(icon);
	} else if (rc == 0) {
		icon_of(buf_cstr(base), page, icon);
	}
	close(page);
	if (!base->len)
		buf_adds(base, url);
}

int
main(int argc, char **argv)
{
	err_init(argv[0]);
	hook_curl_block();   /* a signal from now on gets its result */
	signal(SIGPIPE, SIG_IGN);
	char msg[1024];
	hook_verdict_t v;
	const char *url = hook_start(argc, argv, "FAVICON", 1, &v);
	if (!url)
		done(v.status, v.out, v.err);

	/* 1. the page, and its icon link */
	cpage_t cp = {0};
	buf_t base = {0}, icon = {0};
	page_icon(url, &cp, &base, &icon);

	/* 2. the origin's /favicon.ico */
	const char *b = buf_cstr(&base), *s = strstr(b, "://");
	buf_t origin = {0};
	if (s && s > b) {
		size_t sl = s - b;
		int scheme = (b[0] >= 'A' && b[0] <= 'Z') || (b[0] >= 'a' && b[0] <= 'z');
		for (size_t i = 1; i < sl && scheme; i++)
			scheme = strchr("+.-", b[i]) || (b[i] >= '0' && b[i] <= '9') ||
			         (b[i] >= 'A' && b[i] <= 'Z') || (b[i] >= 'a' && b[i] <= 'z');
		if (scheme)
			buf_add(&origin, b, sl + 3 + strcspn(s + 3, "/?#"));
	}
	char key[256];
	cache_key(buf_cstr(&origin), key, sizeof key);
	buf_adds(&origin, "/favicon.ico");
	const char *cands[] = {buf_cstr(&icon), buf_cstr(&origin)};
	const char *saved = NULL;

	/* 3. what the capture loaded (a candidate it asked for is not asked again) */
	int asked[2] = {0, 0};
	for (int i = 0; i < 2 && !saved && cp.src; i++)
		if (*cands[i])
			saved = from_capture(&cp, cands[i], &asked[i]);
	int left = !saved && ((*cands[0] && !asked[0]) || !asked[1]);

	/* 4. the crawl's cache, under its lock: else the first candidate
	 * that answers, fetched once for the crawl */
	int d = left && *key ? cache_dir() : -1, lk = -1;
	if (d >= 0) {
		char ln[300];
		snprintf(ln, sizeof ln, "%s.lock", key);
		lk = openat(d, ln, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0644);
		if (lk < 0 || flock(lk, LOCK_EX) < 0) {
			close(d);
			d = -1;
		} else {
			saved = cache_get(d, key);
		}
	}
	char transport[1024] = "";
	if (saved && !*saved) {
		saved = NULL;    /* the cache: this site has none */
	} else if (!saved && left) {
		for (int i = 0; i < 2 && !saved; i++)
			if (*cands[i] && !asked[i])
				saved = try(cands[i], transport, sizeof transport);
		if (d >= 0 && (saved || !transport[0]))
			cache_put(d, key, saved);
	}
	if (lk >= 0)
		close(lk);
	if (d >= 0)
		close(d);
	cpage_free(&cp);
	buf_free(&base), buf_free(&icon), buf_free(&origin);
	if (saved) {
		snprintf(msg, sizeof msg, "%s", saved);
		done("succeeded", msg, NULL);
	}
	fwrite(errs.p ? errs.p : "", 1, errs.len, stderr);
	if (transport[0]) {
		snprintf(msg, sizeof msg, "%s", transport);
		done("failed", msg, msg);
	}
	done("skipped", "no favicon found", NULL);
}
