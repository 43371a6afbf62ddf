/*
 * wget.c — the wget hook: the page and its requisites with wget, and a WARC.
 * Built as on_Snapshot__06_wget.finite.bg.bin beside this file.
 *
 *   on_Snapshot__06_wget.finite.bg.bin --url=URL      (cwd = <snapshot>/wget/)
 *
 * A hook by ArchiveBox's contract (argv --url=URL, other arguments ignored;
 * settings in the environment; JSONL on stdout, logs on stderr; exit 0
 * succeeded, 10 skipped, else failed), in C because on a crawl it runs once
 * a page and a shell version started seven helper programs around wget
 * (flock, mktemp, mkdir, date, sed, cat, rm): measured in bench/crawl.sh,
 * together they cost more CPU than wget's own fetch of a small page
 * (abx-internals(7), "The cost of a page").  This program starts wget and
 * nothing else.
 *
 * 1. WGET_ENABLED false: "skipped", exit 10.  No --url, or one beginning
 *    with "-": "failed".  Not http(s): "skipped".  The timeout is
 *    WGET_TIMEOUT, else TIMEOUT, else 60 (seconds, a positive integer).
 * 2. Hold an exclusive flock(2) on the cwd until exit, inherited by wget
 *    as its fd 3 (so it outlives us if we are killed): parse_html_urls and
 *    hashes wait for a shared one before they read what we wrote.  Held
 *    by another: "skipped".  Then every symlink and hard link in the
 *    cwd's tree is removed, each said on stderr (wget writes through them:
 *    one planted by another hook would have it write outside the
 *    snapshot); one that cannot be removed: "failed".
 * 3. Run $WGET_BINARY (default wget, looked up in PATH) with WGET_ARGS (a
 *    JSON array, else words split at spaces; default: the config.json
 *    beside this program), then --verbose --no-show-progress (the log
 *    step 4 reads: each URL tried, and why it failed), --reject-regex=<zones>
 *    (below), WGET_ARGS_EXTRA,
 *    --timeout=T, --user-agent=USER_AGENT, --no-check-certificate if
 *    CHECK_SSL_VALIDITY is false, --load-cookies=COOKIES_FILE if that is
 *    readable, and unless WGET_SAVE_WARC is false (unset is true; the empty
 *    string is false) --warc-file=warc/<unix time> --warc-cdx (warc/ is
 *    created); then "--" and the URL.  wget is started by spawn()
 *    (spawn.h: nothing of ours but the fds named here, every signal at its
 *    default), its stdin /dev/null, its stdout our stderr, its stderr (its
 *    log) read by us through a pipe and copied to our stderr as it comes.
 *    wget's environment is ours with
 *    glibc's malloc told not to give memory back while wget runs
 *    (WGET_MALLOC_TUNABLES, below): GLIBC_TUNABLES gets it in front of
 *    any value it has, so a person's own settings still win, and with
 *    GNUTLS_NO_IMPLICIT_INIT=1 unless it is set (wget_tls_env, below),
 *    and LANGUAGE=en (its log untranslated).
 *    Retries: the default WGET_ARGS try each URL 3 times, 0.1 s apart,
 *    after no answer, a refused connection, a 502, 503 or 504 (a server
 *    that drops a kept-alive connection loses requisites to a single try:
 *    wget's second request on it gets "No data received"); every try goes
 *    through the egress gate, as the first.
 *    Zones (abx(7) SECURITY): a requisite whose host is an address literal
 *    in a private network zone other than the page's own zones and those
 *    ALLOW_PRIVATE_NETWORKS names, or numeric in a form a browser reads
 *    but no person writes (2130706433, 0x7f.1, 127.1, [::ffff:a.b.c.d]),
 *    is rejected by a POSIX ERE (wget lower-cases the host); true allows
 *    every zone and adds no regex.  WGET_ARGS_EXTRA may replace it.
 * 4. The page is the first file wget's log says it saved (-nv: "URL:<url>
 *    [n/n] -> "<path>" [1]"; verbose: "Saving to: '<path>'" and then
 *    "... saved [n/n]", not a write that failed).  If it is a
 *    regular file: "succeeded" with output_str wget/<path> (a requisite
 *    that failed does not fail the page); the requisites still missing
 *    (requisites_missing: each URL tried after the page's, never saved,
 *    whose last try got no answer, a 5xx, or could not be written; a 4xx
 *    is the site's answer, kept as the page's is) make the result's error
 *    (its notes) "N of M page requisites missing after wget's retries: URL
 *    (reason); ..." and its output_json {"incomplete":true,
 *    "missing_requisites":[{"url","reason"},...]}, which the seal turns into
 *    the snapshot's "incomplete" (snappage.h).  Else, when wget exited 8 (the
 *    server's error response) and its log's first "ERROR <code>: <reason>"
 *    has a code of 400 or above, the page was answered with that code and
 *    wget saves no error page: "succeeded", output_str "HTTP <code>
 *    <reason>: no page saved", unless hook_http_fails (hookcurl.h: a seed,
 *    or FAIL_ON_HTTP_ERROR) makes it "failed" as below; either way the code
 *    is printed as the snapshot's http_status (hook_print_http).  Else
 *    "failed" with the last log line that holds ERROR, failed:, [Uu]nable
 *    or "Cannot write" (a full disk), its date stripped (e.g. "ERROR 404:
 *    Not Found."), else "wget exited N".
 * 5. The ArchiveResult is printed over $EXTRA_CONTEXT's members (when it is
 *    a JSON object), as ArchiveBox's emit helpers do.
 * SIGTERM or SIGINT stops wget (SIGTERM), copies the rest of its log, and
 * still prints a "failed" result: exit 143 or 130.
 */
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <netdb.h>
#include <poll.h>
#include <regex.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "base/buf.h"
#include "base/err.h"
#include "base/spawn.h"
#include "hook/hookcurl.h"
#include "hook/hookenv.h"
#include "base/json.h"
#include "net/netzone.h"

extern char **environ;

enum { EXIT_SKIPPED = 10 };

static const char default_ua[] =
    "Mozilla/5.0 (compatible; abx/0.1; +https://github.com/ArchiveBox/ArchiveBox)";

static volatile sig_atomic_t got_signal;

/* What main builds, freed by done() before exit (so that a leak checker
 * finds nothing left), and a message's buffer. */
typedef struct {
	char **v;
	size_t n, cap;
} argv_t;

/* One URL wget fetched (verbose log: "--DATE--  [(try: N)  ]URL"). */
typedef struct {
	char *url;
	char *why;        /* its last failure's words, NULL if none */
	long code;        /* that failure's HTTP code, else 0 */
	int saved;        /* saved, or redirected ("[following]") */
} fetch_t;

typedef struct {
	buf_t line;       /* the line being read */
	fetch_t *f;       /* every URL fetched, in the order first tried */
	size_t nf, capf;
	long cur;         /* the one being fetched, -1 before the first */
	long page_fetch;  /* the one that saved the page, -1 before */
	char *page;       /* the first file it saved */
	char *saving;     /* the file it is writing (verbose), not saved yet */
	char *why;        /* the last line that says why it failed */
	long http;        /* the first "ERROR <code>:" line's code, else 0 */
	char reason[128]; /* and its words ("Not Found") */
	regex_t nv;       /* -nv: ... -> "<path>" [n] */
	int compiled;
} log_t;

static argv_t cmd;
static log_t wlog = {.cur = -1, .page_fetch = -1};
static buf_t missing;     /* output_json's missing_requisites, a JSON array's members */
static char msg[PATH_MAX + 512], msg2[PATH_MAX + 512];
static long http_code;   /* the page's HTTP status, when the log told it */

static void
release(void)
{
	for (size_t i = 0; i < cmd.n; i++)
		free(cmd.v[i]);
	free(cmd.v);
	buf_free(&wlog.line);
	free(wlog.page);
	free(wlog.saving);
	free(wlog.why);
	for (size_t i = 0; i < wlog.nf; i++)
		free(wlog.f[i].url), free(wlog.f[i].why);
	free(wlog.f);
	buf_free(&missing);
	if (wlog.compiled)
		regfree(&wlog.nv);
}

static void
on_signal(int sig)
{
	if (!got_signal)
		got_signal = sig;
}

/* ---- the result ---- */

/* The ArchiveResult (and the page's status, hook_print_http); with
 * requisites missing, its output_json says so and names them. */
static void
print_result(const char *status, const char *output_str, const char *error)
{
	if (!missing.len) {
		hook_print_http(status, output_str, error, http_code, NULL);
		return;
	}
	buf_t line = {0}, oj = {0};
	hook_result_line(&line, status, output_str, error);
	rec_t r;
	if (rec_parse(&r, line.p, line.len - 1) == 0) {
		buf_adds(&oj, "{\"incomplete\":true,\"missing_requisites\":[");
		buf_add(&oj, missing.p, missing.len);
		buf_adds(&oj, "]}");
		rec_set_raw(&r, "output_json", buf_cstr(&oj));
		buf_reset(&line);
		rec_line(&r, &line);
		buf_addc(&line, '\n');
		rec_free(&r);
	}
	fwrite(line.p, 1, line.len, stdout);
	fflush(stdout);
	buf_free(&line);
	buf_free(&oj);
}

static noreturn void
done(const char *status, const char *output_str, const char *error)
{
	print_result(status, output_str, error);
	release();
	if (got_signal == SIGTERM)
		_exit(143);
	if (got_signal == SIGINT)
		_exit(130);
	if (!strcmp(status, "succeeded") || !strcmp(status, "noresults"))
		exit(0);
	exit(!strcmp(status, "skipped") ? EXIT_SKIPPED : 1);
}

static noreturn void
interrupted(const char *what)
{
	snprintf(msg, sizeof msg, "%s by %s", what, got_signal == SIGINT ? "SIGINT" : "SIGTERM");
	done("failed", msg, NULL);
}

/* ---- settings ---- */

static void
arg_add(argv_t *a, char *s)
{
	if (a->n + 2 > a->cap) {
		a->cap = a->cap ? a->cap * 2 : 32;
		a->v = xrealloc(a->v, a->cap * sizeof *a->v);
	}
	a->v[a->n++] = s;
	a->v[a->n] = NULL;
}

static int
array_elem(const char *raw, size_t n, void *arg)
{
	buf_t s = {0};
	if (n >= 2 && raw[0] == '"')
		json_unescape(raw + 1, n - 2, &s);
	else
		buf_add(&s, raw, n);   /* a number, true, false, null: as jq's tostring */
	arg_add(arg, xstrdup(buf_cstr(&s)));
	buf_free(&s);
	return 0;
}

/* A setting of arguments: a JSON array of them, else words split at spaces. */
static void
add_words(argv_t *a, const char *v)
{
	while (*v == ' ' || *v == '\t' || *v == '\n')
		v++;
	if (*v == '[' && json_array_each(v, array_elem, a) == 0)
		return;
	char *dup = xstrdup(v), *save = NULL;
	for (char *t = strtok_r(dup, " ", &save); t; t = strtok_r(NULL, " ", &save))
		arg_add(a, xstrdup(t));
	free(dup);
}

/* properties.KEY.default in the plugin's config.json beside argv0, as JSON
 * text; NULL if there is none. */
static char *
schema_default(const char *argv0, const char *key)
{
	char self[PATH_MAX];
	if (!strchr(argv0, '/')) {   /* found in PATH: where the program is */
		ssize_t l = readlink("/proc/self/exe", self, sizeof self - 1);
		self[l > 0 ? l : 0] = 0;
		argv0 = self;
	}
	const char *slash = strrchr(argv0, '/');
	char *path = slash ? xasprintf("%.*s/config.json", (int)(slash - argv0), argv0)
	                   : xstrdup("config.json");
	buf_t text = {0};
	char chunk[8192], *out = NULL;
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n;
	while (fd >= 0 && (n = read(fd, chunk, sizeof chunk)) > 0)
		buf_add(&text, chunk, n);
	if (fd >= 0)
		close(fd);
	rec_t conf, props, prop;
	if (text.len && rec_parse(&conf, text.p, text.len) == 0) {
		const char *p = rec_raw(&conf, "properties");
		if (p && rec_parse(&props, p, strlen(p)) == 0) {
			const char *k = rec_raw(&props, key);
			if (k && rec_parse(&prop, k, strlen(k)) == 0) {
				const char *d = rec_raw(&prop, "default");
				if (d && strcmp(d, "null") && strcmp(d, "false"))
					out = xstrdup(d);
				rec_free(&prop);
			}
			rec_free(&props);
		}
		rec_free(&conf);
	}
	buf_free(&text);
	free(path);
	return out;
}

/* ---- wget's environment: its malloc and its TLS library ---- */

/*
 * wget frees and reallocates a few hundred kB for each file it saves (the
 * WARC records' compression), and glibc gives the top of the heap back
 * with brk(2) whenever more than 128 kB are free there, then grows it
 * again at the next allocation: some 50 brk calls a page fetched, each
 * growth faulting in fresh zeroed pages.  With both CPUs busy that churn was 14% of wget's
 * CPU on bench/crawl.sh.  Keeping the heap (trim threshold 256 MB, growing
 * it 4 MB at a time) costs no memory that wget did not already touch.
 */
#define WGET_MALLOC_TUNABLES "glibc.malloc.trim_threshold=268435456:glibc.malloc.top_pad=4194304"

static void
wget_malloc_env(void)
{
	const char *t = getenv("GLIBC_TUNABLES");
	if (!t || !*t) {
		setenv("GLIBC_TUNABLES", WGET_MALLOC_TUNABLES, 1);
		return;
	}
	/* glibc reads them in order: a later setting of the same name wins */
	char *v = xasprintf("%s:%s", WGET_MALLOC_TUNABLES, t);
	setenv("GLIBC_TUNABLES", v, 1);
	free(v);
}

/*
 * GnuTLS initialises itself when it is loaded (parsing its ASN.1
 * definitions and more), on every page, though an http page never uses
 * it: 1.0 ms of the 14 ms of CPU a wget of a bench page costs
 * (abx-internals(7), "The cost of a page").  GNUTLS_NO_IMPLICIT_INIT=1
 * skips that;
 * wget calls gnutls_global_init() itself before its first TLS connection,
 * so an https page is fetched and its certificate checked as before
 * (tests/hooks-c-tls.sh).  A value the hook's environment has is kept.
 */
static void
wget_tls_env(void)
{
	setenv("GNUTLS_NO_IMPLICIT_INIT", "1", 0);
	/* its log in English, which is what this program reads */
	setenv("LANGUAGE", "en", 1);
}

/* ---- network zones of requisites ---- */

static const struct {
	netzone_t zone;
	const char *re;
} zone_re[] = {
	{NZ_LOOPBACK, "127\\.[0-9.]+|localhost|[^/?#@:]*\\.localhost|\\[::1\\]"},
	{NZ_PRIVATE, "10\\.[0-9.]+|172\\.(1[6-9]|2[0-9]|3[01])\\.[0-9.]+|192\\.168\\.[0-9.]+|\\[fe[c-f][0-9a-f]*:[^]]*\\]"},
	{NZ_LINKLOCAL, "169\\.254\\.[0-9.]+|\\[fe[89ab][0-9a-f]*:[^]]*\\]"},
	{NZ_CGNAT, "100\\.(6[4-9]|[7-9][0-9]|1[01][0-9]|12[0-7])\\.[0-9.]+"},
	{NZ_UNSPECIFIED, "0\\.[0-9.]+|\\[::\\]"},
	{NZ_MULTICAST, "(22[4-9]|23[0-9])\\.[0-9.]+|\\[ff[0-9a-f]*:[^]]*\\]"},
	{NZ_UNIQUELOCAL, "\\[f[cd][0-9a-f]*:[^]]*\\]"},
	{NZ_RESERVED, "(24[0-9]|25[0-5])\\.[0-9.]+"},
};

/* The regex of the requisites not to fetch, or NULL when every zone is allowed. */
static char *
zone_regex(const char *url)
{
	unsigned ok = netzone_page_allow(url, getenv("ALLOW_PRIVATE_NETWORKS"));
	if ((ok & NZ_ALL) == NZ_ALL)
		return NULL;

	buf_t re = {0};
	buf_adds(&re, "^[a-z][a-z0-9+.-]*://([^/?#@]*@)?("
	              "[0-9]+|[0-9]+\\.[0-9]+|[0-9]+\\.[0-9]+\\.[0-9]+|[0-9.]*0x[0-9a-fx.]*"
	              "|[0-9.]*\\.0[0-9][0-9.]*|0[0-9][0-9.]*|\\[::ffff:[^]]*\\]");
	int any = 0;
	for (size_t i = 0; i < sizeof zone_re / sizeof zone_re[0]; i++)
		if (!(ok & (1u << zone_re[i].zone))) {
			buf_addc(&re, '|');
			buf_adds(&re, zone_re[i].re);
			any = 1;
		}
	buf_adds(&re, ")(:[0-9]*)?([/?#].*)?$");
	if (!any) {
		buf_free(&re);
		return NULL;
	}
	return buf_cstr(&re);
}

/* ---- what was planted in the output directory ---- */

/* wget writes through a symlink, and through a file's other name (a hard
 * link), that it finds in its output tree: one planted there by another
 * hook (or by anyone who could write there) would have it write outside
 * the snapshot.  Each is removed before wget runs (what it points to is
 * left as it is) and said on stderr; one that cannot be removed fails the
 * hook (planted_path names it). */
static char planted_path[PATH_MAX];

static int
drop_planted(const char *path, const struct stat *st, int type, struct FTW *f)
{
	(void)f;
	int link = type == FTW_SL || type == FTW_SLN;
	if (!link && !(type == FTW_F && st->st_nlink > 1))
		return 0;
	if (unlink(path) < 0) {
		snprintf(planted_path, sizeof planted_path, "%s", path);
		return -1;
	}
	warnx_("removed %s %s from the output directory before wget runs (wget would write through it)",
	    link ? "the symlink" : "the hard link", path);
	return 0;
}

/* 0, or -1 with msg set. */
static int
drop_all_planted(void)
{
	if (nftw(".", drop_planted, 16, FTW_PHYS) == 0)
		return 0;
	int e = errno;
	snprintf(msg, sizeof msg, "cannot remove %.2048s from the output directory (wget would write "
	    "through it): %s", *planted_path ? planted_path : ".", strerror(e));
	return -1;
}

/* ---- wget's log ---- */

/* "2026-12-01 08:00:00 ERROR 404: Not Found." -> "ERROR 404: Not Found." */
static char *
undated(char *s)
{
	char *p = s + strspn(s, "0123456789-");
	if (*p == ' ') {
		p += 1 + strspn(p + 1, "0123456789:");
		if (*p == ' ')
			return p + 1;
	}
	return s;
}

/* "--2026-12-01 08:00:00--  (try: 2)  http://x/y" (verbose): the URL, else NULL. */
static const char *
attempt_url(const char *s)
{
	if (strncmp(s, "--", 2) != 0)
		return NULL;
	const char *p = s + 2 + strspn(s + 2, "0123456789-");
	if (*p != ' ')
		return NULL;
	p += 1 + strspn(p + 1, "0123456789:");
	if (strncmp(p, "--  ", 4) != 0)
		return NULL;
	p += 4;
	if (!strncmp(p, "(try:", 5)) {
		const char *e = strstr(p, ")  ");
		if (!e)
			return NULL;
		p = e + 3;
	}
	return *p ? p : NULL;
}

/* What wget's verbose log says of each URL: tried, saved, why not. */
static void
fetch_line(log_t *l, char *s)
{
	const char *u = attempt_url(s);
	if (u) {
		size_t i = l->nf;
		while (i-- > 0 && strcmp(l->f[i].url, u) != 0)
			;   /* a retry is of a recent one: searched from the end */
		if (i == (size_t)-1) {
			if (l->nf == l->capf) {
				l->capf = l->capf ? 2 * l->capf : 32;
				l->f = xrealloc(l->f, l->capf * sizeof *l->f);
			}
			i = l->nf++;
			l->f[i] = (fetch_t){xstrdup(u), NULL, 0, 0};
		}
		l->cur = (long)i;
		return;
	}
	if (l->cur < 0)
		return;
	fetch_t *f = &l->f[l->cur];
	if (strstr(s, " saved [") || strstr(s, " [following]")) {
		if (l->page_fetch < 0 && strstr(s, " saved ["))
			l->page_fetch = l->cur;
		f->saved = 1;
		return;
	}
	char *t = undated(s), *p, *end = NULL;
	const char *w = NULL;
	long code = 0;
	if (!strncmp(t, "ERROR ", 6))
		code = strtol(t + 6, &end, 10), w = t;
	else if ((p = strstr(s, "failed: ")))
		w = p + 8;
	else if (strstr(s, "No data received"))
		w = "No data received";
	else if (!strncmp(t, "Read error", 10) || !strncmp(t, "Cannot write to", 15) ||
	         strstr(t, "Unable to establish") || strstr(t, "Connection closed at byte"))
		w = t;
	if (!w)
		return;
	free(f->why);
	size_t n = strlen(w);
	f->why = xstrndup(w, n && w[n - 1] == '.' ? n - 1 : n);
	f->code = code;
}

/*
 * The requisites wget could not fetch, its retries spent: each URL tried
 * after the page's that was never saved and whose last failure was no
 * answer (or a 5xx, or a file it could not write); a 4xx is the site's own
 * answer, data as the page's is.  Each goes into missing as a JSON object
 * {"url","reason"} (the first 200), and notes says "N of M page requisites
 * missing after wget's retries: URL (reason); ..." (the first 10).  The
 * number missing.
 */
static size_t
requisites_missing(const log_t *l, buf_t *notes)
{
	size_t n = 0, tried = 0;
	buf_t names = {0};
	for (size_t i = (size_t)l->page_fetch + 1; l->page_fetch >= 0 && i < l->nf; i++) {
		const fetch_t *f = &l->f[i];
		tried++;
		if (f->saved || !f->why || (f->code >= 400 && f->code < 500))
			continue;
		if (n < 200) {
			if (n)
				buf_addc(&missing, ',');
			buf_adds(&missing, "{\"url\":");
			buf_json_strz(&missing, f->url);
			buf_adds(&missing, ",\"reason\":");
			buf_json_strz(&missing, f->why);
			buf_addc(&missing, '}');
		}
		if (n < 10)
			buf_addf(&names, "%s%s (%s)", n ? "; " : "", f->url, f->why);
		n++;
	}
	if (n) {
		buf_addf(notes, "%zu of %zu page requisites missing after wget's retries: %s", n, tried,
		    buf_cstr(&names));
		if (n > 10)
			buf_addf(notes, "; and %zu more", n - 10);
	}
	buf_free(&names);
	return n;
}

static void
log_line(log_t *l, char *s)
{
	fetch_line(l, s);
	regmatch_t m[2];
	if (!l->page) {
		size_t n = strlen(s);
		if (regexec(&l->nv, s, 2, m, 0) == 0) {
			l->page = xstrndup(s + m[1].rm_so, m[1].rm_eo - m[1].rm_so);
		} else if (!strncmp(s, "Saving to: ", 11) && n >= 13) {
			free(l->saving);   /* the page once "saved [" follows */
			if (!strncmp(s + 11, "\xe2\x80\x98", 3) && n >= 17 && !strcmp(s + n - 3, "\xe2\x80\x99"))
				l->saving = xstrndup(s + 14, n - 17);   /* a UTF-8 locale's quotes */
			else
				l->saving = xstrndup(s + 12, n - 13);
		} else if (l->saving && strstr(s, " saved [")) {
			l->page = l->saving;
			l->saving = NULL;
		}
	}
	if (strstr(s, "ERROR") || strstr(s, "failed:") || strstr(s, "Unable") || strstr(s, "unable") ||
	    strstr(s, "Cannot write")) {
		s = undated(s);
		free(l->why);
		l->why = xstrdup(s);
		/* "ERROR 404: Not Found." */
		char *end;
		long code = !strncmp(s, "ERROR ", 6) ? strtol(s + 6, &end, 10) : 0;
		if (!l->http && code >= 100 && code <= 999 && *end == ':') {
			l->http = code;
			snprintf(l->reason, sizeof l->reason, "%s", end + 1 + strspn(end + 1, " "));
			size_t rn = strlen(l->reason);
			if (rn && l->reason[rn - 1] == '.')
				l->reason[rn - 1] = 0;
		}
	}
}

static void
log_feed(log_t *l, const char *p, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		if (p[i] != '\n') {
			if (l->line.len < 65536)
				buf_addc(&l->line, p[i]);
			continue;
		}
		log_line(l, buf_cstr(&l->line));
		buf_reset(&l->line);
	}
}

static void
copy_out(int fd, const char *p, size_t n)
{
	while (n > 0) {
		ssize_t w = write(fd, p, n);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return;
		p += w, n -= (size_t)w;
	}
}

/* Read wget's log until it closes it; on a signal, stop wget first. */
static void
read_log(int fd, pid_t pid, log_t *l)
{
	char chunk[8192];
	int stopped = 0;
	for (;;) {
		if (got_signal && !stopped) {
			kill(pid, SIGTERM);
			stopped = 1;
		}
		struct pollfd p = {fd, POLLIN, 0};
		sigset_t none;
		sigemptyset(&none);
		if (ppoll(&p, 1, NULL, &none) < 0) {
			if (errno == EINTR)
				continue;
			break;
		}
		ssize_t n = read(fd, chunk, sizeof chunk);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		copy_out(2, chunk, (size_t)n);
		log_feed(l, chunk, (size_t)n);
	}
	if (l->line.len)
		log_line(l, buf_cstr(&l->line));
}

int
main(int argc, char **argv)
{
	err_init(argv[0]);
	hook_verdict_t v;
	const char *url = hook_start(argc, argv, "WGET", 1, &v);
	struct sigaction sa = {0};
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);

	if (!url)
		done(v.status, v.out, v.err);
	long timeout = hook_timeout("WGET_TIMEOUT");

	/* 2. the lock, inherited by wget (its fd 3) */
	int lockfd = open(".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (lockfd < 0) {
		snprintf(msg, sizeof msg, "cannot open the current directory: %s", strerror(errno));
		done("failed", msg, msg);
	}
	if (flock(lockfd, LOCK_EX | LOCK_NB) < 0) {
		char cwd[PATH_MAX];
		snprintf(msg, sizeof msg, "another hook is writing %s", getcwd(cwd, sizeof cwd) ? cwd : ".");
		done("skipped", msg, NULL);
	}

	/* 3. the command */
	const char *bin = getenv("WGET_BINARY");
	if (!bin || !*bin)
		bin = "wget";
	arg_add(&cmd, xstrdup(bin));
	const char *args = getenv("WGET_ARGS");
	char *def = NULL;
	if (!args || !*args)
		args = def = schema_default(argv[0], "WGET_ARGS");
	if (args)
		add_words(&cmd, args);
	free(def);
	/* the log this program reads: which URLs were fetched, and why not */
	arg_add(&cmd, xstrdup("--verbose"));
	arg_add(&cmd, xstrdup("--no-show-progress"));
	char *re = zone_regex(url);
	if (re)
		arg_add(&cmd, xasprintf("--reject-regex=%s", re));
	free(re);
	const char *extra = getenv("WGET_ARGS_EXTRA");
	add_words(&cmd, extra && *extra ? extra : "[]");
	arg_add(&cmd, xasprintf("--timeout=%ld", timeout));
	const char *ua = getenv("USER_AGENT");
	arg_add(&cmd, xasprintf("--user-agent=%s", ua && *ua ? ua : default_ua));
	const char *ssl = getenv("CHECK_SSL_VALIDITY");
	if (ssl && hook_false(ssl))
		arg_add(&cmd, xstrdup("--no-check-certificate"));
	const char *cookies = getenv("COOKIES_FILE");
	if (cookies && *cookies && access(cookies, R_OK) == 0)
		arg_add(&cmd, xasprintf("--load-cookies=%s", cookies));
	if (drop_all_planted() < 0)
		done("failed", msg, msg);
	const char *warc = getenv("WGET_SAVE_WARC");
	if (!warc || !hook_false(warc)) {
		if (mkdir("warc", 0777) < 0 && errno != EEXIST) {
			char cwd[PATH_MAX];
			int e = errno;
			snprintf(msg, sizeof msg, "cannot create %s/warc: %s",
			         getcwd(cwd, sizeof cwd) ? cwd : ".", strerror(e));
			done("failed", msg, msg);
		}
		arg_add(&cmd, xasprintf("--warc-file=warc/%lld", (long long)time(NULL)));
		arg_add(&cmd, xstrdup("--warc-cdx"));
	}
	arg_add(&cmd, xstrdup("--"));
	arg_add(&cmd, xstrdup(url));
	/* what reads wget's log, ready before wget starts: nothing below may
	 * end us without a result while wget runs */
	if (regcomp(&wlog.nv, " -> \"(.*)\" \\[[0-9]*\\]$", REG_EXTENDED) != 0)
		done("failed", "cannot compile the regex of wget's log", "cannot compile the regex of wget's log");
	wlog.compiled = 1;
	/* SIGTERM and SIGINT are blocked but for ppoll in read_log: one that
	 * comes before wget starts or between two reads is not missed */
	sigset_t stop;
	sigemptyset(&stop);
	sigaddset(&stop, SIGTERM);
	sigaddset(&stop, SIGINT);
	sigprocmask(SIG_BLOCK, &stop, NULL);
	if (got_signal)
		interrupted("interrupted");

	/* wget: stdin /dev/null, stdout our stderr, stderr the pipe, the lock */
	int pfd[2];
	if (pipe2(pfd, O_CLOEXEC) < 0) {
		snprintf(msg, sizeof msg, "cannot make a pipe: %s", strerror(errno));
		done("failed", msg, msg);
	}
	wget_malloc_env();
	wget_tls_env();
	spawn_t sp;
	spawn_init(&sp, bin, cmd.v, environ);
	sp.fd[1] = 2, sp.fd[2] = pfd[1], sp.fd[3] = lockfd, sp.nfd = 4;
	pid_t pid;
	int e = spawn(&sp, &pid);
	close(pfd[1]);
	if (e) {
		close(pfd[0]);
		snprintf(msg, sizeof msg, "unable to run %s: %s", bin, strerror(e));
		fprintf(stderr, "%s\n", msg);
		done("failed", msg, msg);
	}

	read_log(pfd[0], pid, &wlog);
	close(pfd[0]);
	int rc = spawn_wait(pid);
	if (got_signal)
		interrupted("wget interrupted");

	/* 4. the verdict */
	struct stat sb;
	if (wlog.page && *wlog.page && stat(wlog.page, &sb) == 0 && S_ISREG(sb.st_mode)) {
		snprintf(msg, sizeof msg, "wget/%s", wlog.page);
		buf_t notes = {0};
		requisites_missing(&wlog, &notes);
		snprintf(msg2, sizeof msg2, "%s", buf_cstr(&notes));
		buf_free(&notes);
		done("succeeded", msg, msg2);
	}
	if (rc == 8 && wlog.http >= 400) {
		http_code = wlog.http;
		if (!hook_http_fails(wlog.http)) {
			snprintf(msg, sizeof msg, "HTTP %ld %s: no page saved", wlog.http, wlog.reason);
			done("succeeded", msg, NULL);
		}
	}
	snprintf(msg, sizeof msg, "wget exited %d", rc);
	snprintf(msg2, sizeof msg2, "%s", wlog.why ? wlog.why : msg);
	done("failed", msg2, msg2);
}
