/*
 * favicon.c — the favicon hook: the site's icon, as favicon.<ext>.
 * Built as on_Snapshot__11_favicon.bin beside this file.
 *
 *   on_Snapshot__11_favicon.bin --url=URL      (cwd = <snapshot>/favicon/)
 *
 * A hook by ArchiveBox's contract (settings in the environment, JSONL on
 * stdout, logs on stderr; exit 0 succeeded, 10 skipped, else 1), in C
 * because a shell version started up to twelve programs a run (mktemp,
 * curl, the parser, sed, head, curl, tail, curl, mv, cat, rm): this one
 * starts curl (once for the page, once for each candidate) and the parser.
 *
 * 0. FAVICON_ENABLED false: "skipped".  No --url, or one beginning with
 *    "-": "failed".  Not http(s): "skipped".  The timeout of each curl is
 *    FAVICON_TIMEOUT, else TIMEOUT, else 60 seconds.
 * 1. GET the page (curl as hook.sh's hook_curl ran it, hookcurl.h; any
 *    status); its first <link rel=icon> (any rel with the token "icon"),
 *    resolved against the page's final URL and its <base>, is the first
 *    candidate.  The HTML is read by parse_html_urls --icon, the C parser
 *    of the sibling plugin (../parse_html_urls/ beside this program, found
 *    through /proc/self/exe); without it only step 2 is tried.
 * 2. Then /favicon.ico of the origin of the page's final URL.
 * 3. The first candidate that answers 2xx (curl --fail) with a non-empty
 *    body whose Content-Type is not HTML is saved as favicon.<ext>, ext
 *    from its Content-Type (ico for any "icon", png, gif, jpg, svg, webp;
 *    else ico).  "succeeded", output_str favicon.<ext>.  None: "skipped",
 *    exit 10, "no favicon found"; but if the last candidate that failed
 *    got no answer at all (curl's error other than an HTTP status, (22)),
 *    "failed" with curl's last line.  curl's stderr of every fetch is
 *    copied to ours at the end.
 * SIGTERM or SIGINT stops curl and prints a "failed" result, "interrupted
 * by SIGTERM" (exit 143) or "by SIGINT" (130).
 */
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "base/buf.h"
#include "base/err.h"
#include "base/spawn.h"
#include "hook/hookcurl.h"
#include "hook/hookenv.h"

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
fetch(const char *url, const char *const args[], int fd3)
{
	hcurl_free(&curl);
	int rc = hook_curl_run(url, args, hook_timeout("FAVICON_TIMEOUT"), fd3, &curl);
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
	const char *args[] = {"--fail", "--output", "/dev/fd/3", "--write-out", "%{content_type}", NULL};
	int rc = fetch(cand, args, icon);
	if (rc != 0) {
		hook_last_line(&errs, transport, tn);
		if (strstr(transport, "(22)"))
			transport[0] = 0;   /* an HTTP error: just no icon there */
		close(icon);
		return NULL;
	}
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
	int page = hook_tmpfile();
	if (page < 0) {
		snprintf(msg, sizeof msg, "cannot create a temp file: %s", strerror(errno));
		done("failed", msg, msg);
	}
	const char *pargs[] = {"--output", "/dev/fd/3", "--write-out", "%{url_effective}", NULL};
	int rc = fetch(url, pargs, page);
	buf_t base = {0}, icon = {0};
	buf_add(&base, curl.out.p ? curl.out.p : "", curl.out.len);
	if (rc == 0)
		icon_of(buf_cstr(&base), page, &icon);
	close(page);
	if (!base.len)
		buf_adds(&base, url);

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
	buf_adds(&origin, "/favicon.ico");

	/* 3. the first that answers */
	char transport[1024] = "";
	const char *cands[] = {buf_cstr(&icon), buf_cstr(&origin)};
	const char *saved = NULL;
	for (int i = 0; i < 2 && !saved; i++)
		if (*cands[i])
			saved = try(cands[i], transport, sizeof transport);
	if (saved) {
		snprintf(msg, sizeof msg, "%s", saved);
		buf_free(&base), buf_free(&icon), buf_free(&origin);
		done("succeeded", msg, NULL);
	}
	fwrite(errs.p ? errs.p : "", 1, errs.len, stderr);
	buf_free(&base), buf_free(&icon), buf_free(&origin);
	if (transport[0]) {
		snprintf(msg, sizeof msg, "%s", transport);
		done("failed", msg, msg);
	}
	done("skipped", "no favicon found", NULL);
}
