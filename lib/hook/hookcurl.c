/* hookcurl.c — see hookcurl.h. */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "base/err.h"
#include "base/json.h"
#include "base/spawn.h"
#include "hook/hookcurl.h"
#include "hook/hookenv.h"

extern char **environ;

static const char default_ua[] =
    "Mozilla/5.0 (compatible; abx/0.1; +https://github.com/ArchiveBox/ArchiveBox)";

void
hook_curl_block(void)
{
	sigset_t set;
	sigemptyset(&set);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGCHLD);
	sigprocmask(SIG_BLOCK, &set, NULL);
}

int
hook_tmpfile(void)
{
	const char *d = getenv("TMPDIR");
	if (!d || !*d)
		d = "/tmp";
	int fd = open(d, O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
	if (fd >= 0 || (errno != EOPNOTSUPP && errno != EISDIR && errno != EINVAL))
		return fd;
	/* a filesystem without O_TMPFILE: a named one, unlinked at once */
	char *p = xasprintf("%s/abx-hook.XXXXXX", d);
	fd = mkostemp(p, O_CLOEXEC);
	if (fd >= 0)
		unlink(p);
	free(p);
	return fd;
}

void
hook_last_line(const buf_t *b, char *out, size_t n)
{
	size_t end = b->len;
	while (end > 0 && b->p[end - 1] == '\n')
		end--;
	size_t start = end;
	while (start > 0 && b->p[start - 1] != '\n')
		start--;
	snprintf(out, n, "%.*s", (int)(end - start), b->p ? b->p + start : "");
}

void
hook_slurp(int fd, buf_t *b, size_t max)
{
	char chunk[65536];
	off_t off = 0;
	ssize_t n;
	while ((!max || b->len < max) && (n = pread(fd, chunk, sizeof chunk, off)) > 0) {
		buf_add(b, chunk, max && b->len + n > max ? max - b->len : (size_t)n);
		off += n;
	}
}

const char *
hook_curl_interrupted(int sig)
{
	return sig == SIGINT ? "interrupted by SIGINT" : "interrupted by SIGTERM";
}

/* The URL as curl takes it: spaces as %20, no trailing newlines. */
static char *
curl_url(const char *url)
{
	buf_t b = {0};
	for (const char *p = url; *p; p++) {
		if (*p == ' ')
			buf_adds(&b, "%20");
		else
			buf_addc(&b, *p);
	}
	while (b.len && b.p[b.len - 1] == '\n')
		b.p[--b.len] = 0;
	return b.p ? b.p : xstrdup("");
}

int
hook_curl_run(const char *url, const char *const args[], long timeout, int fd3, hcurl_t *r)
{
	return hook_curl_run2(url, args, timeout, fd3, -1, r);
}

int
hook_curl_run2(const char *url, const char *const args[], long timeout, int fd3, int fd4, hcurl_t *r)
{
	memset(r, 0, sizeof *r);
	const char *bin = getenv("CURL_BINARY");
	if (!bin || !*bin)
		bin = "curl";
	const char *ua = getenv("USER_AGENT"), *ssl = getenv("CHECK_SSL_VALIDITY");
	const char *cookies = getenv("COOKIES_FILE");
	char tmo[32];
	snprintf(tmo, sizeof tmo, "%ld", timeout);
	size_t na = 0;
	while (args && args[na])
		na++;
	const char **v = xcalloc(na + 24, sizeof *v);
	size_t n = 0;
	v[n++] = bin;
	const char *fixed[] = {"--silent", "--show-error", "--location", "--max-redirs", "10", "--proto",
	                       "=http,https", "--proto-redir", "=http,https", "--max-time", tmo,
	                       "--user-agent", ua && *ua ? ua : default_ua, NULL};
	for (int i = 0; fixed[i]; i++)
		v[n++] = fixed[i];
	if (cookies && *cookies && access(cookies, R_OK) == 0)
		v[n++] = "--cookie", v[n++] = cookies;
	if (ssl && hook_false(ssl))
		v[n++] = "--insecure";
	for (size_t i = 0; i < na; i++)
		v[n++] = args[i];
	char *u = curl_url(url);
	v[n++] = "--";
	v[n++] = u;
	v[n] = NULL;

	int out = hook_tmpfile(), err = hook_tmpfile();
	int rc = -1;
	if (out < 0 || err < 0) {
		snprintf(r->why, sizeof r->why, "cannot make a temp file in %s: %s",
		    getenv("TMPDIR") && *getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp", strerror(errno));
		goto out;
	}
	sigset_t wait_set, old;
	sigemptyset(&wait_set);
	sigaddset(&wait_set, SIGTERM);
	sigaddset(&wait_set, SIGINT);
	sigaddset(&wait_set, SIGCHLD);
	sigprocmask(SIG_BLOCK, &wait_set, &old);
	spawn_t sp;
	spawn_init(&sp, bin, (char *const *)v, environ);
	sp.fd[1] = out, sp.fd[2] = err;
	if (fd3 >= 0)
		sp.fd[3] = fd3, sp.nfd = 4;
	if (fd4 >= 0)
		sp.fd[3] = fd3 >= 0 ? fd3 : SPAWN_NULL, sp.fd[4] = fd4, sp.nfd = 5;
	pid_t pid;
	int e = spawn(&sp, &pid);
	if (e) {
		snprintf(r->why, sizeof r->why, "unable to run %s: %s", bin, strerror(e));
		sigprocmask(SIG_SETMASK, &old, NULL);
		goto out;
	}
	int st = 0;
	for (;;) {
		pid_t w = waitpid(pid, &st, WNOHANG);
		if (w == pid || (w < 0 && errno != EINTR))
			break;
		struct timespec ts = {1, 0};
		siginfo_t si;
		int sig = sigtimedwait(&wait_set, &si, &ts);
		if ((sig == SIGTERM || sig == SIGINT) && !r->sig) {
			r->sig = sig;
			kill(pid, SIGTERM);
		}
	}
	rc = spawn_code(st);
	/* a signal that came as curl ended */
	sigset_t pend;
	if (!r->sig && sigpending(&pend) == 0)
		r->sig = sigismember(&pend, SIGTERM) ? SIGTERM : sigismember(&pend, SIGINT) ? SIGINT : 0;
	hook_slurp(out, &r->out, 0);
	hook_slurp(err, &r->err, 0);
out:
	if (out >= 0)
		close(out);
	if (err >= 0)
		close(err);
	free(u);
	free(v);
	return rc;
}

int
hook_curl_failed(int rc, const hcurl_t *r, char *msg, size_t n)
{
	if (rc == 0)
		return 0;
	if (rc < 0) {
		fprintf(stderr, "%s\n", r->why);
		snprintf(msg, n, "%s", r->why);
		return 1;
	}
	fwrite(r->err.p ? r->err.p : "", 1, r->err.len, stderr);
	hook_last_line(&r->err, msg, n);
	if (!msg[0])
		snprintf(msg, n, "curl failed");
	return 1;
}

void
hcurl_free(hcurl_t *r)
{
	buf_free(&r->out);
	buf_free(&r->err);
}

/* The value of header name (lower case) in the block of head that starts
 * at from and ends at to, into out; 0, or -1. */
static int
block_header(const char *from, const char *to, const char *name, char *out, size_t n)
{
	size_t k = strlen(name);
	for (const char *l = from; l < to;) {
		const char *nl = memchr(l, '\n', to - l);
		const char *e = nl ? nl : to;
		if ((size_t)(e - l) > k && l[k] == ':' && strncasecmp(l, name, k) == 0) {
			const char *v = l + k + 1;
			while (v < e && (*v == ' ' || *v == '\t'))
				v++;
			size_t len = e - v;
			while (len && (v[len - 1] == '\r' || v[len - 1] == ' '))
				len--;
			snprintf(out, n, "%.*s", (int)len, v);
			return 0;
		}
		l = e + 1;
	}
	return -1;
}

/* Does the URL u begin with the scheme "https:" (any case)? */
static int
is_https(const char *u)
{
	return strncasecmp(u, "https:", 6) == 0;
}

/* Does the URL reference u begin with a scheme (RFC 3986: ALPHA *( ALPHA
 * / DIGIT / "+" / "-" / "." ) ":"), i.e. is it not relative? */
static int
has_scheme(const char *u)
{
	if (!isalpha((unsigned char)*u))
		return 0;
	while (isalnum((unsigned char)*u) || *u == '+' || *u == '-' || *u == '.')
		u++;
	return *u == ':';
}

/* The status code of the block whose status line begins at l: "HTTP/x
 * NNN ..."; 0 if there is none. */
static int
block_code(const char *l, const char *end)
{
	const char *sp = memchr(l, ' ', end - l);
	if (!sp || end - sp < 4 || !isdigit((unsigned char)sp[1]) || !isdigit((unsigned char)sp[2]) ||
	    !isdigit((unsigned char)sp[3]))
		return 0;
	return (sp[1] - '0') * 100 + (sp[2] - '0') * 10 + (sp[3] - '0');
}

int
hook_gate_answer(const buf_t *head, const buf_t *body, const char *url, char *msg, size_t n)
{
	/* The request each block answers is http or https: the URL's scheme,
	 * then a 3xx's Location's (a relative one keeps it).  Only the answer
	 * to a plain http request can be the gate's: an https request's final
	 * answer came through a tunnel the gate cannot read, so X-Abx-Gate in
	 * it is the site's (a refused CONNECT makes curl fail instead); the
	 * gate drops the header from what it relays in the clear (gatereq.c) */
	const char *p = head->p ? head->p : "", *end = p + head->len, *last = NULL;
	int tls = is_https(url), last_tls = tls;
	for (const char *l = p; l < end;) {
		const char *nl = memchr(l, '\n', end - l), *e = nl ? nl : end;
		if (e - l >= 5 && !memcmp(l, "HTTP/", 5)) {
			char loc[64];
			if (last && block_code(last, l) / 100 == 3 &&
			    block_header(last, l, "location", loc, sizeof loc) == 0 && has_scheme(loc))
				tls = is_https(loc);
			last = l;
			last_tls = tls;
		}
		l = e < end ? e + 1 : end;
	}
	char gate[256];
	if (!last || last_tls || block_header(last, end, "x-abx-gate", gate, sizeof gate) < 0)
		return 0;
	const char *b = body && body->p ? body->p : "";
	size_t bl = body ? body->len : 0;
	if (bl > 9 && !memcmp(b, "abx-gate ", 9)) {
		const char *nl = memchr(b, '\n', bl);
		size_t len = nl ? (size_t)(nl - b) : bl;
		if (len && b[len - 1] == '\r')
			len--;
		snprintf(msg, n, "no answer: the egress gate %.*s", (int)(len - 9), b + 9);
		return 1;
	}
	const char *sp = memchr(last, ' ', end - last);
	long code = sp ? strtol(sp + 1, NULL, 10) : 0;
	if (!strncmp(gate, "refused zone=", 13))
		snprintf(msg, n, "no answer: the egress gate refused %s: its address is in the %s network zone, "
		    "which this crawl may not enter", url, gate + 13);
	else if (!strncmp(gate, "paced ", 6))
		snprintf(msg, n, "no answer: the egress gate waited in vain for a connection to %s (%s)", url, gate + 6);
	else if (code == 502)
		snprintf(msg, n, "no answer: the egress gate could not reach %s (it does not resolve, or no "
		    "address could be connected to; HTTP 502)", url);
	else
		snprintf(msg, n, "no answer: the egress gate answered %s with HTTP %ld (X-Abx-Gate: %s)", url, code,
		    gate);
	return 1;
}

int
hook_http_fails(long code)
{
	if (code < 400)
		return 0;
	const char *f = getenv("FAIL_ON_HTTP_ERROR");
	if (f && *f && !hook_false(f))
		return 1;
	const char *c = getenv("EXTRA_CONTEXT");
	rec_t ctx;
	long long depth = 0;
	if (c && *c && rec_parse(&ctx, c, strlen(c)) == 0) {
		depth = rec_int(&ctx, "snapshot_depth", 0);
		rec_free(&ctx);
	}
	return depth <= 0;
}

void
hook_print_http(const char *status, const char *output_str, const char *error, long code,
    const buf_t *title)
{
	buf_t line = {0};
	if (title || code > 0) {
		buf_adds(&line, "{\"type\":\"Snapshot\"");
		if (title) {
			buf_adds(&line, ",\"title\":");
			buf_json_str(&line, title->p ? title->p : "", title->len);
		}
		if (code > 0)
			buf_addf(&line, ",\"http_status\":%ld", code);
		buf_adds(&line, "}\n");
	}
	size_t at = line.len;
	hook_result_line(&line, status, output_str, error);
	rec_t r;
	if (code > 0 && rec_parse(&r, line.p + at, line.len - at - 1) == 0) {
		char oj[64];
		snprintf(oj, sizeof oj, "{\"http_status\":%ld}", code);
		rec_set_raw(&r, "output_json", oj);
		line.len = at;
		rec_line(&r, &line);
		buf_addc(&line, '\n');
		rec_free(&r);
	}
	fwrite(line.p, 1, line.len, stdout);
	fflush(stdout);
	buf_free(&line);
}
