/*
 * title.c — the title hook: the page's <title>, into title.txt and a
 * Snapshot record.  Built as on_Snapshot__54_title.bin beside this file.
 *
 *   on_Snapshot__54_title.bin --url=URL      (cwd = <snapshot>/title/)
 *
 * A hook by ArchiveBox's contract (settings in the environment, JSONL on
 * stdout, logs on stderr; exit 0 succeeded or noresults, 10 skipped, else
 * 1), in C because a shell version started ten programs for one title
 * (mktemp, curl, head, tr, grep, head, sed, sed, iconv, rm): this one
 * starts none when the snapshot captured the page, else curl alone
 * (abx-internals(7), "The cost of a page").
 *
 * Numbered 54, as abx-plugins' title hook (on_Snapshot__54_title.js, which
 * reads the browser's tab): after the chrome hook (29) and, being 50 or
 * more, after the finite background wget hook (06) has ended (phase.h), so
 * that the title is that of the response the snapshot archived, read from
 * its capture, and the site is not asked again (issue 28, "Capture once").
 *
 * 0. TITLE_ENABLED false: "skipped".  No --url, or one beginning with "-":
 *    "failed".  Not http(s): "skipped".  The timeout is TITLE_TIMEOUT, else
 *    TIMEOUT, else 60 seconds.
 * 1. The page: from the snapshot's capture (../_lib/capture.c: the chrome
 *    hook's WARC of this run, else wget's; redirects followed in it), its
 *    status, Content-Type and body; and when the browser loaded it and
 *    its Content-Type names HTML, its title.txt (document.title, as the
 *    browser has it) is the title.
 *    Nothing captured (no $ABX_RUN, neither hook selected, or both failed):
 *    GET the URL with curl as hook.sh's hook_curl ran it (hookcurl.h:
 *    redirects followed, through the egress gate), the body into an
 *    unlinked temp file, the heads into another; curl failed: its stderr
 *    is copied to ours, and the result is "failed" with its last line
 *    (else "curl failed"); the last response is the egress gate's own
 *    (hook_gate_answer, hookcurl.h: it has X-Abx-Gate; the site gave no
 *    answer, e.g. it refused the connection): "failed", with no
 *    http_status, output_str and notes the gate's cause ("no answer: the
 *    egress gate could not reach URL: ... Connection refused"), also on
 *    stderr; an HTTP status that is not a number: "failed", "HTTP
 *    <code>".  Either way, a
 *    status of 400 or above, when hook_http_fails (hookcurl.h: the
 *    snapshot is a seed, or FAIL_ON_HTTP_ERROR is true): "failed", "HTTP
 *    <code>".  Any other page, a 404 deep in a crawl included, was
 *    answered as it was: its title is taken below.  Every result carries
 *    the status (hook_print_http): the snapshot's http_status, and
 *    output_json {"http_status":<code>}.
 * 2. Without the browser's: take the first <title>...</title> of the first MiB (any case, across
 *    lines: \n \r \t \f count as spaces; the tag may have attributes after
 *    a space), runs of spaces made one, a space at either end dropped,
 *    then &lt; &gt; &quot; &#39; (&#039;...) &#x27; &apos; &nbsp; &amp;
 *    decoded, each in turn.  None, or an empty one, or a first MiB with a
 *    NUL byte in it (a binary file, as grep(1) sees it): "noresults", "No
 *    title found".
 * 3. title.txt gets the title's bytes as served (no newline).  The records
 *    need UTF-8: a title that is not UTF-8 is converted (iconv(3)) from the
 *    charset of the Content-Type (its last charset=), else of the first
 *    charset= in the page's first 4 KiB, else windows-1252; if that fails,
 *    the bytes are kept and those that are not UTF-8 become U+FFFD in the
 *    JSON.  Prints
 *      {"type":"Snapshot","title":"...","http_status":200}
 *      {"type":"ArchiveResult","status":"succeeded","output_str":"<title>",...}
 *    the result over $EXTRA_CONTEXT's members (hookenv.h).
 * SIGTERM or SIGINT stops curl and prints a "failed" result, "interrupted
 * by SIGTERM" (exit 143) or "by SIGINT" (130).
 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <iconv.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "base/buf.h"
#include "base/err.h"
#include "hook/hookcurl.h"
#include "hook/hookenv.h"
#include "base/json.h"

#include "../_lib/capture.c"

enum { MIB = 1 << 20, HEAD = 4096 };

static hcurl_t curl;
static buf_t page, title, utf8;
static long http_code;   /* the page's HTTP status, once curl told it */
static int have_title;   /* utf8 holds the title for the Snapshot line */

static noreturn void
done(const char *status, const char *output_str, const char *error)
{
	hook_print_http(status, output_str, error, http_code, have_title ? &utf8 : NULL);
	hcurl_free(&curl);
	buf_free(&page), buf_free(&title), buf_free(&utf8);
	exit(hook_exit_code(status, curl.sig));
}

/* Does p (n bytes) begin with the lower-case word w, in any case? */
static int
starts_ci(const char *p, size_t n, const char *w)
{
	size_t k = strlen(w);
	return n >= k && strncasecmp(p, w, k) == 0;
}

/* The text of the first <title ...>TEXT</title in p, into out; 0, or -1. */
static int
first_title(const char *p, size_t n, buf_t *out)
{
	for (size_t i = 0; i + 6 < n; i++) {
		if (p[i] != '<' || !starts_ci(p + i + 1, n - i - 1, "title"))
			continue;
		size_t j = i + 6;
		if (p[j] != '>') {
			if (!isspace((unsigned char)p[j]))
				continue;
			while (j < n && p[j] != '>')
				j++;
			if (j == n)
				return -1;
		}
		size_t k = ++j;
		while (k < n && p[k] != '<')
			k++;
		if (k < n && starts_ci(p + k, n - k, "</title")) {
			buf_add(out, p + j, k - j);
			return 0;
		}
	}
	return -1;
}

/* Replace every from by to in b, in one pass from the left. */
static void
replace(buf_t *b, const char *from, const char *to)
{
	size_t fl = strlen(from);
	buf_t o = {0};
	for (size_t i = 0; i < b->len;) {
		if (b->len - i >= fl && memcmp(b->p + i, from, fl) == 0) {
			buf_adds(&o, to);
			i += fl;
		} else {
			buf_addc(&o, b->p[i++]);
		}
	}
	buf_reset(b);
	buf_add(b, o.p ? o.p : "", o.len);
	buf_free(&o);
}

/* &#0*39; or &#[xX]0*27; (an apostrophe) at p: its length, else 0. */
static size_t
apos_ref(const char *p, size_t n)
{
	size_t i = 2;
	if (n < 2 || p[0] != '&' || p[1] != '#')
		return 0;
	int hex = i < n && (p[i] == 'x' || p[i] == 'X');
	i += hex;
	while (i < n && p[i] == '0')
		i++;
	const char *want = hex ? "27;" : "39;";
	return n - i >= 3 && memcmp(p + i, want, 3) == 0 ? i + 3 : 0;
}

/* The decimal, then the hexadecimal, apostrophe references, each pass as
 * sed's s/&#0*39;/'/g and s/&#[xX]0*27;/'/g. */
static void
replace_apos(buf_t *b, int hex)
{
	buf_t o = {0};
	for (size_t i = 0; i < b->len;) {
		size_t k = apos_ref(b->p + i, b->len - i);
		if (k && (b->p[i + 2] == 'x' || b->p[i + 2] == 'X') == hex) {
			buf_addc(&o, '\'');
			i += k;
		} else {
			buf_addc(&o, b->p[i++]);
		}
	}
	buf_reset(b);
	buf_add(b, o.p ? o.p : "", o.len);
	buf_free(&o);
}

/* Spaces: runs made one, one at either end dropped. */
static void
squeeze(buf_t *b)
{
	size_t w = 0;
	for (size_t i = 0; i < b->len; i++)
		if (b->p[i] != ' ' || w == 0 || b->p[w - 1] != ' ')
			b->p[w++] = b->p[i];
	size_t s = w > 0 && b->p[0] == ' ';
	if (w > s && b->p[w - 1] == ' ')
		w--;
	memmove(b->p, b->p + s, w - s);
	b->len = w - s;
	if (b->p)
		b->p[b->len] = 0;
}

/* The charset= value at p (after "charset="): [-A-Za-z0-9_:.]*, past one
 * optional quote. */
static void
charset_at(const char *p, const char *end, char *out, size_t n)
{
	if (p < end && (*p == '"' || *p == '\''))
		p++;
	size_t k = 0;
	while (p < end && k + 1 < n && (isalnum((unsigned char)*p) || strchr("-_:.", *p)))
		out[k++] = *p++;
	out[k] = 0;
}

/* The charset of the title: the Content-Type's last charset=, else the
 * page's first in its first 4 KiB. */
static void
find_charset(const char *ctype, char *out, size_t n)
{
	out[0] = 0;
	const char *last = NULL;
	for (const char *p = ctype; (p = strcasestr(p, "charset=")); p += 8)
		last = p + 8;
	if (last)
		charset_at(last, last + strlen(last), out, n);
	if (out[0])
		return;
	size_t h = page.len < HEAD ? page.len : HEAD;
	for (size_t i = 0; i + 8 <= h; i++)
		if (starts_ci(page.p + i, h - i, "charset=")) {
			charset_at(page.p + i + 8, page.p + h, out, n);
			return;
		}
}

/* title converted from charset to UTF-8 into out: 0, or -1. */
static int
convert(const char *charset, buf_t *out)
{
	iconv_t cd = iconv_open("UTF-8", charset);
	if (cd == (iconv_t)-1)
		return -1;
	char *in = title.p;
	size_t left = title.len, cap = title.len * 4 + 16;
	char *o = xmalloc(cap), *op = o;
	size_t room = cap;
	int rc = iconv(cd, &in, &left, &op, &room) == (size_t)-1 ||
	                 iconv(cd, NULL, NULL, &op, &room) == (size_t)-1 ? -1 : 0;
	iconv_close(cd);
	if (rc == 0)
		buf_add(out, o, op - o);
	free(o);
	return rc;
}

/* The page from the capture (capture.c): its body, Content-Type and
 * status, and chrome's title.txt when the browser loaded it; 0, or -1. */
static int
from_capture(const char *url, char *ctype, size_t n)
{
	cpage_t cp;
	if (cap_page(url, hook_timeout("TITLE_TIMEOUT") * 0.8, &cp) < 0)
		return -1;
	http_code = cp.status;
	buf_add(&page, cp.body.p ? cp.body.p : "", cp.body.len < MIB ? cp.body.len : MIB);
	if (cap_header(&cp.head, "content-type", ctype, n) < 0)
		ctype[0] = 0;
	/* the browser's title of an HTML page (of an image it makes one up) */
	if (!strcmp(cp.src, "chrome") && strcasestr(ctype, "html") &&
	    cap_file("chrome/title.txt", &title) < 0)
		buf_reset(&title);
	cpage_free(&cp);
	return 0;
}

/* The page fetched with curl, as before the capture; stops with a result
 * when curl failed. */
static void
from_fetch(const char *url, char *ctype, size_t n)
{
	char msg[1024];
	int body = hook_tmpfile();
	if (body < 0) {
		snprintf(msg, sizeof msg, "cannot create a temp file: %s", strerror(errno));
		done("failed", msg, msg);
	}
	int hd = hook_tmpfile();
	if (hd < 0) {
		snprintf(msg, sizeof msg, "cannot create a temp file: %s", strerror(errno));
		done("failed", msg, msg);
	}
	const char *args[] = {"--output", "/dev/fd/3", "--dump-header", "/dev/fd/4", "--write-out",
	                      "%{http_code} %{content_type}", NULL};
	int rc = hook_curl_run2(url, args, hook_timeout("TITLE_TIMEOUT"), body, hd, &curl);
	if (curl.sig)
		done("failed", hook_curl_interrupted(curl.sig), NULL);
	if (hook_curl_failed(rc, &curl, msg, sizeof msg))
		done("failed", msg, msg);
	buf_t head = {0};
	hook_slurp(hd, &head, 0);
	close(hd);
	hook_slurp(body, &page, MIB);
	int gate = hook_gate_answer(&head, &page, url, msg, sizeof msg);
	buf_free(&head);
	if (gate) {
		/* the gate's status is not the site's: no http_status */
		fprintf(stderr, "%s\n", msg);
		close(body);
		done("failed", msg, msg);
	}
	char *meta = curl.out.p ? curl.out.p : "";
	char *sp = strchr(meta, ' ');
	snprintf(ctype, n, "%s", sp ? sp + 1 : "");
	if (sp)
		*sp = 0;
	int numeric = *meta && strspn(meta, "0123456789") == strlen(meta) && strlen(meta) <= 9;
	http_code = numeric ? atol(meta) : -1;
	close(body);
}

int
main(int argc, char **argv)
{
	err_init(argv[0]);
	hook_curl_block();   /* a signal from now on gets its result */
	signal(SIGPIPE, SIG_IGN);
	char msg[1024], msg2[2048 + 4096], ctype[1024];
	hook_verdict_t v;
	const char *url = hook_start(argc, argv, "TITLE", 1, &v);
	if (!url)
		done(v.status, v.out, v.err);

	/* 1. the page */
	if (from_capture(url, ctype, sizeof ctype) < 0)
		from_fetch(url, ctype, sizeof ctype);
	if (http_code < 0 || hook_http_fails(http_code)) {
		const char *meta = http_code < 0 ? buf_cstr(&curl.out) : NULL;
		if (meta)
			snprintf(msg, sizeof msg, "HTTP %s", meta);
		else
			snprintf(msg, sizeof msg, "HTTP %ld", http_code);
		snprintf(msg2, sizeof msg2, "%s from %s", msg, url);
		if (http_code < 0)
			http_code = 0;
		done("failed", msg, msg2);
	}

	/* 2. the title: the browser's, else the HTML's */
	int found = title.len > 0;
	buf_t flat = {0};
	buf_add(&flat, page.p ? page.p : "", page.len);
	for (size_t i = 0; i < flat.len; i++)
		if (strchr("\n\r\t\f", flat.p[i]) && flat.p[i])
			flat.p[i] = ' ';
	if (!found && !memchr(flat.p ? flat.p : "", 0, flat.len) &&
	    first_title(flat.p, flat.len, &title) == 0) {
		found = 1;
		squeeze(&title);
		replace(&title, "&lt;", "<");
		replace(&title, "&gt;", ">");
		replace(&title, "&quot;", "\"");
		replace_apos(&title, 0);
		replace_apos(&title, 1);
		replace(&title, "&apos;", "'");
		replace(&title, "&nbsp;", " ");
		replace(&title, "&amp;", "&");
	}
	buf_free(&flat);
	if (!found || title.len == 0)
		done("noresults", "No title found", NULL);

	/* 3. title.txt, and the records */
	if (hook_write_file("title.txt", title.p, title.len) < 0) {
		snprintf(msg, sizeof msg, "cannot write title.txt: %s", strerror(errno));
		done("failed", msg, msg);
	}
	buf_t fixed = {0};
	int bad = json_fix_utf8(title.p, title.len, &fixed);
	buf_free(&fixed);
	if (bad) {
		char cs[128];
		find_charset(ctype, cs, sizeof cs);
		if (convert(cs[0] ? cs : "WINDOWS-1252", &utf8) < 0)
			buf_reset(&utf8);
	}
	if (!utf8.len)
		buf_add(&utf8, title.p, title.len);
	have_title = 1;
	done("succeeded", buf_cstr(&utf8), NULL);
}
