/*
 * parse_html_urls — the outlinks of one archived HTML page.
 *
 *   on_Snapshot__75_parse_html_urls.bin --url=URL [--html=FILE]   (the hook)
 *   on_Snapshot__75_parse_html_urls.bin --icon --url=URL --html=FILE
 *                                            (print the icon's URL: favicon)
 *   on_Snapshot__75_parse_html_urls.bin --resolve BASE REF
 *                                            (print REF resolved)
 *
 * Built from this file as the hook itself (no shell wrapper: on a crawl it
 * runs once a page, and a wrapper cost a process each time).  As a hook,
 * cwd is <snapshot>/parse_html_urls/ and unknown arguments are ignored;
 * PARSE_HTML_URLS_ENABLED false is a "skipped" result, exit 10.
 *
 * 1. The source is FILE if given; else $SNAP_DIR/dom/output.html (the
 *    rendered DOM); else the page the wget hook saved.  That hook holds an
 *    exclusive flock(2) on its directory while it runs, so we first wait
 *    for a shared one (at most 80% of our timeout).  The page is where
 *    wget's --force-directories --adjust-extension
 *    --restrict-file-names=windows puts it, <host>[+port]/<path>, its .orig
 *    twin first (--backup-converted keeps the links as served), and its
 *    URL is where the redirects recorded in wget's CDX index
 *    (warc/<time>.cdx) lead from URL; failing that, the shallowest *.html
 *    under wget/, whose URL is rebuilt from its path.  No source: a
 *    "skipped" result, exit 10.  $SNAP_DIR is read as "..", the cwd's
 *    parent, when that is the same directory (device and inode): on a
 *    network filesystem each component of a path opened is a round trip.
 * 2. One pass over the HTML: start tags and their attributes (quoted or
 *    not, any case, character references decoded), skipping comments and
 *    the raw text of script, style, textarea, title.  Outlinks are the
 *    href of a and area, the src of iframe and frame, the href of link
 *    with rel alternate, next or prev (not stylesheets, icons or preloads:
 *    those are page requisites, which wget fetches), and the URL of a meta
 *    refresh.  The first <base href> is the base of all of them.
 * 3. Each is resolved against the base as a browser resolves it: the
 *    WHATWG URL Standard's basic URL parser (lib/net/url.h: "\\" is "/" in
 *    http(s), hosts by IDNA and as IPv4/IPv6 addresses, default ports
 *    dropped, each part percent-encoded by its own set), the base being
 *    the first <base href> resolved against the page's URL (the page's
 *    URL itself when that fails, as HTML's "frozen base URL" has it).  The
 *    fragment is dropped: it names a place in a page, not another page.
 *    A reference that does not parse is skipped, and only http and https
 *    are kept (so mailto:, javascript:, data:, tel:, file: go), and not
 *    the page itself; the first of duplicates, compared in that form.
 * 4. urls.jsonl is written by rename, one line per URL:
 *      {"type":"Snapshot","url":"…","plugin":"parse_html_urls","depth":D}
 *    with D = snapshot_depth of $EXTRA_CONTEXT + 1; then one ArchiveResult
 *    is printed, over $EXTRA_CONTEXT's keys as ArchiveBox's hooks do:
 *    "succeeded" with output_str "N URLs parsed", or "noresults" with
 *    "0 URLs parsed" and no urls.jsonl (ArchiveBox's parsers do the same).
 *
 * Exit 0 succeeded or noresults, 10 skipped, 1 failed.  --icon prints the
 * href of the first <link rel~=icon>, resolved, or exits 1; --resolve keeps
 * the fragment, prints any scheme's URL, exits 1 if REF does not parse.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#include "base/buf.h"
#include "base/err.h"
#include "hook/hookenv.h"
#include "base/fs.h"
#include "base/json.h"
#include "net/url.h"

enum { EXIT_SKIPPED = 10, MAXATTR = 64, MAXDEPTH = 32 };

/* ---- URLs: RFC 3986's split, for wget's file names; resolving is url.h's ---- */

typedef struct {
	const char *p;
	size_t n;
	int on;
} span_t;

typedef struct {
	span_t scheme, auth, path, query, frag;
} uri_t;

static int
is_alpha(int c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

static int
is_ws(int c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f';
}

static int
lower(int c)
{
	return c >= 'A' && c <= 'Z' ? c + 32 : c;
}

static int
span_ieq(const char *p, size_t n, const char *s)
{
	return strlen(s) == n && strncasecmp(p, s, n) == 0 && !memchr(p, 0, n);
}

/* Appendix B's split, with a scheme only if it is well formed. */
static void
uri_split(const char *s, size_t n, uri_t *u)
{
	size_t i = 0, j;
	memset(u, 0, sizeof *u);
	for (j = 0; j < n && s[j] != ':' && s[j] != '/' && s[j] != '?' && s[j] != '#'; j++)
		;
	if (j < n && s[j] == ':' && j > 0 && is_alpha((unsigned char)s[0])) {
		size_t k;
		for (k = 1; k < j; k++) {
			int c = (unsigned char)s[k];
			if (!is_alpha(c) && !(c >= '0' && c <= '9') && c != '+' && c != '-' && c != '.')
				break;
		}
		if (k == j) {
			u->scheme = (span_t){s, j, 1};
			i = j + 1;
		}
	}
	if (n - i >= 2 && s[i] == '/' && s[i + 1] == '/') {
		i += 2;
		for (j = i; j < n && s[j] != '/' && s[j] != '?' && s[j] != '#'; j++)
			;
		u->auth = (span_t){s + i, j - i, 1};
		i = j;
	}
	for (j = i; j < n && s[j] != '?' && s[j] != '#'; j++)
		;
	u->path = (span_t){s + i, j - i, 1};
	i = j;
	if (i < n && s[i] == '?') {
		for (j = ++i; j < n && s[j] != '#'; j++)
			;
		u->query = (span_t){s + i, j - i, 1};
		i = j;
	}
	if (i < n && s[i] == '#')
		u->frag = (span_t){s + i + 1, n - i - 1, 1};
}

/*
 * Resolve ref against base by the WHATWG URL Standard (url.h) into out
 * (reset first; "" if it does not parse), without the fragment unless
 * keep_frag.  Returns 1 if the result is an http(s) URL, else 0.
 */
static int
resolve(const char *base, size_t bn, const char *ref, size_t rn, int keep_frag, buf_t *out)
{
	char *b = xstrndup(base, bn);
	url_t u;
	buf_reset(out);
	int http = 0;
	if (url_parse_anyn(ref, rn, b, &u, NULL) == 0) {
		size_t n = strlen(u.href);
		if (u.fragment && !keep_frag)
			n -= strlen(u.fragment) + 1;
		buf_add(out, u.href, n);
		http = (!strcmp(u.scheme, "http") || !strcmp(u.scheme, "https")) && u.host && *u.host;
		url_free(&u);
	}
	buf_cstr(out);
	free(b);
	return http;
}

/* ---- HTML ---- */

typedef struct {
	const char *name, *val;
	size_t nlen, vlen;
	int has_val;
} attr_t;

typedef struct {
	const char *name;
	size_t nlen;
	attr_t a[MAXATTR];
	int na;
} tag_t;

typedef struct {
	buf_t text;         /* decoded references, back to back */
	size_t *off, *len;
	size_t n, cap;
	long base;          /* index of the <base href>, or -1 */
	long icon;          /* index of the first <link rel~=icon>, or -1 */
} refs_t;

static const char *const raw_text_tags[] = {
	"script", "style", "textarea", "title", "xmp", "noembed", "noframes", "iframe",
};

static void
put_utf8(buf_t *b, unsigned long cp)
{
	if (cp == 0 || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
		cp = 0xfffd;
	if (cp < 0x80)
		buf_addc(b, cp);
	else if (cp < 0x800) {
		buf_addc(b, 0xc0 | (cp >> 6));
		buf_addc(b, 0x80 | (cp & 0x3f));
	} else if (cp < 0x10000) {
		buf_addc(b, 0xe0 | (cp >> 12));
		buf_addc(b, 0x80 | ((cp >> 6) & 0x3f));
		buf_addc(b, 0x80 | (cp & 0x3f));
	} else {
		buf_addc(b, 0xf0 | (cp >> 18));
		buf_addc(b, 0x80 | ((cp >> 12) & 0x3f));
		buf_addc(b, 0x80 | ((cp >> 6) & 0x3f));
		buf_addc(b, 0x80 | (cp & 0x3f));
	}
}

/* Length of the character reference at v[0] == '&' decoded into b, or 0. */
static size_t
decode_entity(const char *v, size_t n, buf_t *b)
{
	static const struct { const char *name, *text; } named[] = {
		{"amp", "&"}, {"lt", "<"}, {"gt", ">"}, {"quot", "\""}, {"apos", "'"},
		{"nbsp", "\xc2\xa0"}, {"sol", "/"}, {"quest", "?"}, {"equals", "="},
		{"num", "#"}, {"percnt", "%"}, {"colon", ":"},
	};
	size_t i = 1;
	if (i < n && v[i] == '#') {
		int hex = ++i < n && (v[i] == 'x' || v[i] == 'X');
		unsigned long cp = 0;
		size_t d0 = i += hex;
		for (; i < n; i++) {
			int c = (unsigned char)v[i], d;
			if (c >= '0' && c <= '9')
				d = c - '0';
			else if (hex && lower(c) >= 'a' && lower(c) <= 'f')
				d = lower(c) - 'a' + 10;
			else
				break;
			if (cp <= 0x10ffff)
				cp = cp * (hex ? 16 : 10) + d;
		}
		if (i == d0)
			return 0;
		put_utf8(b, cp);
		return i < n && v[i] == ';' ? i + 1 : i;
	}
	while (i < n && i < 12 && (is_alpha((unsigned char)v[i]) || (v[i] >= '0' && v[i] <= '9')))
		i++;
	if (i >= n || v[i] != ';')
		return 0;
	for (size_t k = 0; k < sizeof named / sizeof named[0]; k++)
		if (strlen(named[k].name) == i - 1 && !memcmp(v + 1, named[k].name, i - 1)) {
			buf_adds(b, named[k].text);
			return i + 1;
		}
	return 0;
}

/* Decode an attribute value into b (appending). */
static void
decode_attr(const char *v, size_t n, buf_t *b)
{
	for (size_t i = 0; i < n;) {
		const char *amp = memchr(v + i, '&', n - i);
		size_t k = amp ? (size_t)(amp - v) : n;
		buf_add(b, v + i, k - i);
		if (k == n)
			break;
		size_t used = decode_entity(v + k, n - k, b);
		if (used)
			i = k + used;
		else {
			buf_addc(b, '&');
			i = k + 1;
		}
	}
}

static const attr_t *
tag_attr(const tag_t *t, const char *name)
{
	for (int i = 0; i < t->na; i++)
		if (t->a[i].has_val && span_ieq(t->a[i].name, t->a[i].nlen, name))
			return &t->a[i];
	return NULL;
}

static int
tag_is(const tag_t *t, const char *name)
{
	return span_ieq(t->name, t->nlen, name);
}

/* Does the space-separated list v contain token (any case)? */
static int
has_token(const char *v, size_t n, const char *token)
{
	size_t tl = strlen(token);
	for (size_t i = 0; i < n;) {
		while (i < n && is_ws((unsigned char)v[i]))
			i++;
		size_t j = i;
		while (j < n && !is_ws((unsigned char)v[j]))
			j++;
		if (j - i == tl && strncasecmp(v + i, token, tl) == 0)
			return 1;
		i = j;
	}
	return 0;
}

/*
 * Add a reference (an attribute value, decoded unless it already is):
 * leading and trailing spaces go, and tab, LF, CR anywhere.
 */
static size_t
refs_add(refs_t *r, const char *v, size_t n, int decoded)
{
	buf_t d = {0};
	if (decoded)
		buf_add(&d, v, n);
	else
		decode_attr(v, n, &d);
	size_t a = 0, z = d.len;
	while (a < z && (unsigned char)d.p[a] <= 0x20)
		a++;
	while (z > a && (unsigned char)d.p[z - 1] <= 0x20)
		z--;
	if (r->n == r->cap) {
		r->cap = r->cap ? 2 * r->cap : 256;
		r->off = xrealloc(r->off, r->cap * sizeof *r->off);
		r->len = xrealloc(r->len, r->cap * sizeof *r->len);
	}
	r->off[r->n] = r->text.len;
	for (size_t i = a; i < z; i++)
		if (d.p[i] != '\t' && d.p[i] != '\n' && d.p[i] != '\r')
			buf_addc(&r->text, d.p[i]);
	r->len[r->n] = r->text.len - r->off[r->n];
	buf_free(&d);
	return r->n++;
}

/* The URL in a meta refresh's content: "5; url='x'", "0,URL=x", "0; x". */
static void
refresh_url(refs_t *r, const char *v, size_t n)
{
	buf_t d = {0};
	decode_attr(v, n, &d);
	size_t i = 0;
	while (i < d.len && (is_ws((unsigned char)d.p[i]) || (d.p[i] >= '0' && d.p[i] <= '9') || d.p[i] == '.'))
		i++;
	if (i < d.len && (d.p[i] == ';' || d.p[i] == ',')) {
		i++;
		while (i < d.len && is_ws((unsigned char)d.p[i]))
			i++;
		size_t j = i;
		if (d.len - j >= 3 && strncasecmp(d.p + j, "url", 3) == 0) {
			j += 3;
			while (j < d.len && is_ws((unsigned char)d.p[j]))
				j++;
			if (j < d.len && d.p[j] == '=') {
				i = j + 1;
				while (i < d.len && is_ws((unsigned char)d.p[i]))
					i++;
			}
		}
		size_t z = d.len;
		if (i < z && (d.p[i] == '"' || d.p[i] == '\'')) {
			const char *q = memchr(d.p + i + 1, d.p[i], z - i - 1);
			if (q)
				z = q - d.p;
			i++;
		}
		if (z > i)
			refs_add(r, d.p + i, z - i, 1);
	}
	buf_free(&d);
}

static void
collect(refs_t *r, const tag_t *t)
{
	const attr_t *a;
	if (tag_is(t, "a") || tag_is(t, "area")) {
		if ((a = tag_attr(t, "href")))
			refs_add(r, a->val, a->vlen, 0);
	} else if (tag_is(t, "iframe") || tag_is(t, "frame")) {
		if ((a = tag_attr(t, "src")))
			refs_add(r, a->val, a->vlen, 0);
	} else if (tag_is(t, "link")) {
		const attr_t *rel = tag_attr(t, "rel");
		if (!rel || !(a = tag_attr(t, "href")))
			return;
		buf_t d = {0};
		decode_attr(rel->val, rel->vlen, &d);
		if (has_token(d.p, d.len, "icon")) {
			if (r->icon < 0)
				r->icon = refs_add(r, a->val, a->vlen, 0);
		} else if (!has_token(d.p, d.len, "stylesheet") &&
		           (has_token(d.p, d.len, "alternate") || has_token(d.p, d.len, "next") ||
		            has_token(d.p, d.len, "prev")))
			refs_add(r, a->val, a->vlen, 0);
		buf_free(&d);
	} else if (tag_is(t, "base")) {
		if (r->base < 0 && (a = tag_attr(t, "href")))
			r->base = refs_add(r, a->val, a->vlen, 0);
	} else if (tag_is(t, "meta")) {
		const attr_t *he = tag_attr(t, "http-equiv");
		if (he && span_ieq(he->val, he->vlen, "refresh") && (a = tag_attr(t, "content")))
			refresh_url(r, a->val, a->vlen);
	}
}

/* Index just past the end of the raw text element begun before i: the '<' of its end tag. */
static size_t
skip_raw_text(const char *s, size_t n, size_t i, const char *name)
{
	size_t len = strlen(name);
	while (i < n) {
		const char *lt = memchr(s + i, '<', n - i);
		if (!lt)
			return n;
		i = lt - s + 1;
		if (i < n && s[i] == '/' && n - i - 1 >= len && span_ieq(s + i + 1, len, name)) {
			size_t k = i + 1 + len;
			if (k == n || is_ws((unsigned char)s[k]) || s[k] == '>' || s[k] == '/')
				return i - 1;
		}
	}
	return n;
}

/* Parse the start tag whose name begins at s[i]; returns the index past it. */
static size_t
parse_tag(const char *s, size_t n, size_t i, tag_t *t)
{
	size_t k = i;
	while (k < n && !is_ws((unsigned char)s[k]) && s[k] != '/' && s[k] != '>')
		k++;
	t->name = s + i, t->nlen = k - i, t->na = 0;
	for (;;) {
		while (k < n && (is_ws((unsigned char)s[k]) || s[k] == '/'))
			k++;
		if (k >= n)
			return n;
		if (s[k] == '>')
			return k + 1;
		attr_t a = {s + k, NULL, 0, 0, 0};
		for (k++; k < n && !is_ws((unsigned char)s[k]) && s[k] != '/' && s[k] != '>' && s[k] != '='; k++)
			;
		a.nlen = k - (size_t)(a.name - s);
		while (k < n && is_ws((unsigned char)s[k]))
			k++;
		if (k < n && s[k] == '=') {
			for (k++; k < n && is_ws((unsigned char)s[k]); k++)
				;
			a.has_val = 1;
			if (k < n && (s[k] == '"' || s[k] == '\'')) {
				const char *q = memchr(s + k + 1, s[k], n - k - 1);
				a.val = s + k + 1;
				a.vlen = q ? (size_t)(q - a.val) : n - k - 1;
				k = q ? (size_t)(q - s) + 1 : n;
			} else {
				a.val = s + k;
				while (k < n && !is_ws((unsigned char)s[k]) && s[k] != '>')
					k++;
				a.vlen = k - (size_t)(a.val - s);
			}
		}
		if (t->na < MAXATTR)
			t->a[t->na++] = a;
	}
}

static void
scan_html(const char *s, size_t n, refs_t *r)
{
	tag_t t;
	size_t i = 0;
	while (i < n) {
		const char *lt = memchr(s + i, '<', n - i);
		if (!lt)
			break;
		i = lt - s + 1;
		if (i >= n)
			break;
		if (s[i] == '!' && n - i >= 3 && s[i + 1] == '-' && s[i + 2] == '-') {
			const char *e = memmem(s + i + 1, n - i - 1, "-->", 3);
			i = e ? (size_t)(e - s) + 3 : n;
		} else if (s[i] == '!' || s[i] == '?' || s[i] == '/') {
			const char *e = memchr(s + i, '>', n - i);
			i = e ? (size_t)(e - s) + 1 : n;
		} else if (is_alpha((unsigned char)s[i])) {
			i = parse_tag(s, n, i, &t);
			collect(r, &t);
			for (size_t k = 0; k < sizeof raw_text_tags / sizeof raw_text_tags[0]; k++)
				if (tag_is(&t, raw_text_tags[k])) {
					i = skip_raw_text(s, n, i, raw_text_tags[k]);
					break;
				}
		}
	}
}

/* ---- the set of URLs found ---- */

typedef struct {
	buf_t out;          /* urls.jsonl */
	buf_t text;         /* the URLs, NUL-terminated, back to back */
	size_t *slot;       /* open addressing: offset+1 into text, 0 = empty */
	size_t nslot, n;
} urlset_t;

static unsigned long
hash(const char *s)
{
	unsigned long h = 14695981039346656037UL;
	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211UL;
	return h;
}

/* Add s; 1 if it was new. */
static int
urlset_add(urlset_t *u, const char *s)
{
	if (2 * (u->n + 1) > u->nslot) {
		size_t nn = u->nslot ? 2 * u->nslot : 1024;
		size_t *ns = xcalloc(nn, sizeof *ns);
		for (size_t i = 0; i < u->nslot; i++)
			if (u->slot[i]) {
				size_t h = hash(u->text.p + u->slot[i] - 1) & (nn - 1);
				while (ns[h])
					h = (h + 1) & (nn - 1);
				ns[h] = u->slot[i];
			}
		free(u->slot);
		u->slot = ns, u->nslot = nn;
	}
	size_t h = hash(s) & (u->nslot - 1);
	for (; u->slot[h]; h = (h + 1) & (u->nslot - 1))
		if (strcmp(u->text.p + u->slot[h] - 1, s) == 0)
			return 0;
	u->slot[h] = u->text.len + 1;
	buf_add(&u->text, s, strlen(s) + 1);
	u->n++;
	return 1;
}

/* ---- finding the page ---- */

/* Wait for the wget hook, which holds an exclusive flock on its dir while
 * it runs (hookenv.h: hook_wait_dir), for 80% of our timeout at most. */
static void
wait_for_dir(const char *dir, const char *shown)
{
	double left = 0.8 * hook_timeout("PARSE_HTML_URLS_TIMEOUT");
	int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	int busy = fd >= 0 && flock(fd, LOCK_SH | LOCK_NB) < 0 && errno == EWOULDBLOCK;
	if (fd >= 0)
		close(fd);
	if (!busy)
		return;
	info("waiting for the wget hook to finish");
	if (hook_wait_dir(dir, &left) < 0)
		warnx_("%s is still being written; reading it as it is", shown);
}

static int
read_path(const char *path, buf_t *out)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	struct stat st;
	int rc = fstat(fd, &st) == 0 && S_ISREG(st.st_mode) ? fs_read_fd(fd, out) : -1;
	close(fd);
	return rc;
}

/* Read dir/name.orig, else dir/name. */
static int
read_twin(const char *dir, const char *name, buf_t *html)
{
	char *p = xasprintf("%s/%s.orig", dir, name);
	int rc = read_path(p, html);
	free(p);
	if (rc == 0)
		return 0;
	buf_reset(html);
	p = xasprintf("%s/%s", dir, name);
	rc = read_path(p, html);
	free(p);
	return rc;
}

static int
ends_html(const char *s, size_t n)
{
	return (n >= 5 && !strncasecmp(s + n - 5, ".html", 5)) || (n >= 4 && !strncasecmp(s + n - 4, ".htm", 4));
}

/* Where wget --force-directories --restrict-file-names=windows --adjust-extension saves url. */
static void
wget_name(const char *url, buf_t *name, int adjust)
{
	uri_t u;
	uri_split(url, strlen(url), &u);
	size_t at = 0;
	for (size_t i = 0; i < u.auth.n; i++)
		if (u.auth.p[i] == '@')
			at = i + 1;
	for (size_t i = at; i < u.auth.n; i++) {
		int c = lower((unsigned char)u.auth.p[i]);
		buf_addc(name, c == ':' ? '+' : c);
	}
	const char *dflt = span_ieq(u.scheme.p, u.scheme.n, "https") ? "+443" : "+80";
	if (name->len > strlen(dflt) && !strcmp(name->p + name->len - strlen(dflt), dflt))
		name->len -= strlen(dflt);
	if (u.path.n == 0)
		buf_addc(name, '/');
	buf_add(name, u.path.p, u.path.n);
	if (name->p[name->len - 1] == '/')
		buf_adds(name, "index.html");
	if (u.query.on) {
		buf_addc(name, '@');
		buf_add(name, u.query.p, u.query.n);
	}
	if (adjust && !ends_html(name->p, name->len))
		buf_adds(name, ".html");
	buf_cstr(name);
}

/* The shallowest *.html under dir (not in warc/), as a path relative to dir. */
static void
shallowest_html(const char *dir, const char *rel, int depth, buf_t *best, int *bestdepth)
{
	char *path = *rel ? xasprintf("%s/%s", dir, rel) : xstrdup(dir);
	DIR *d = depth < MAXDEPTH ? opendir(path) : NULL;
	free(path);
	if (!d)
		return;
	struct dirent *e;
	while ((e = readdir(d))) {
		if (e->d_name[0] == '.' || (depth == 0 && !strcmp(e->d_name, "warc")))
			continue;
		char *sub = *rel ? xasprintf("%s/%s", rel, e->d_name) : xstrdup(e->d_name);
		if (e->d_type == DT_DIR)
			shallowest_html(dir, sub, depth + 1, best, bestdepth);
		else if ((e->d_type == DT_REG || e->d_type == DT_UNKNOWN) &&
		         ends_html(e->d_name, strlen(e->d_name)) &&
		         (depth < *bestdepth || (depth == *bestdepth && strcmp(sub, best->p) < 0))) {
			buf_reset(best);
			buf_adds(best, sub);
			*bestdepth = depth;
		}
		free(sub);
	}
	closedir(d);
}

/* Field k (0-based, space-separated) of line; 0 if there are fewer. */
static int
cdx_field(const char *line, size_t n, int k, span_t *f)
{
	size_t i = 0;
	for (int j = 0;; j++) {
		while (i < n && line[i] == ' ')
			i++;
		if (i >= n)
			return 0;
		size_t e = i;
		while (e < n && line[e] != ' ')
			e++;
		if (j == k) {
			*f = (span_t){line + i, e - i, 1};
			return 1;
		}
		i = e;
	}
}

/*
 * Follow from doc the redirects wget recorded in its newest CDX index
 * (warc/<time>.cdx: a header " CDX a b a m s k r ..." naming the columns,
 * a = URL, s = status, r = Location), so that a page saved under the name
 * of the URL it was asked for gets the base URL it was served from.
 */
static void
follow_redirects(const char *wgetdir, buf_t *doc)
{
	char *wdir = xasprintf("%s/warc", wgetdir), *newest = NULL;
	DIR *d = opendir(wdir);
	struct dirent *e;
	while (d && (e = readdir(d))) {
		size_t l = strlen(e->d_name);
		if (l > 4 && !strcmp(e->d_name + l - 4, ".cdx") && (!newest || strcmp(e->d_name, newest) > 0)) {
			free(newest);
			newest = xstrdup(e->d_name);
		}
	}
	if (d)
		closedir(d);
	buf_t cdx = {0}, cur = {0}, a = {0}, next = {0};
	char *path = newest ? xasprintf("%s/%s", wdir, newest) : NULL;
	int col_a = -1, col_s = -1, col_r = -1;
	if (path && read_path(path, &cdx) == 0 && cdx.len > 0) {
		const char *nl = memchr(cdx.p, '\n', cdx.len);
		size_t hl = nl ? (size_t)(nl - cdx.p) : cdx.len;
		span_t f;
		/* field 0 is "CDX"; the letters after it name the columns */
		for (int k = 1; cdx_field(cdx.p, hl, k, &f); k++) {
			if (f.n != 1)
				continue;
			if (f.p[0] == 'a' && col_a < 0)
				col_a = k - 1;
			else if (f.p[0] == 's' && col_s < 0)
				col_s = k - 1;
			else if (f.p[0] == 'r' && col_r < 0)
				col_r = k - 1;
		}
	}
	resolve(doc->p, doc->len, "", 0, 0, &cur);
	for (int hop = 0; hop < 10 && col_a >= 0 && col_s >= 0 && col_r >= 0; hop++) {
		int moved = 0;
		for (const char *l = cdx.p, *end = cdx.p + cdx.len; l < end && !moved;) {
			const char *nl = memchr(l, '\n', end - l);
			size_t n = nl ? (size_t)(nl - l) : (size_t)(end - l);
			span_t fa, fs, fr;
			if (l != cdx.p && cdx_field(l, n, col_a, &fa) && cdx_field(l, n, col_s, &fs) &&
			    cdx_field(l, n, col_r, &fr) && fs.p[0] == '3' && !(fr.n == 1 && fr.p[0] == '-')) {
				resolve(fa.p, fa.n, "", 0, 0, &a);
				if (!strcmp(a.p, cur.p) && resolve(cur.p, cur.len, fr.p, fr.n, 0, &next)) {
					buf_reset(&cur);
					buf_add(&cur, next.p, next.len);
					moved = 1;
				}
			}
			l += n + 1;
		}
		if (!moved)
			break;
	}
	buf_reset(doc);
	buf_add(doc, cur.p, cur.len);
	buf_free(&cdx);
	buf_free(&cur);
	buf_free(&a);
	buf_free(&next);
	free(path);
	free(newest);
	free(wdir);
}

/*
 * Find the page's HTML: fills html and the document's URL (doc).
 * Returns the source's description (malloc'd) or NULL.
 */
static char *
find_source(const char *url, const char *file, buf_t *html, buf_t *doc)
{
	buf_adds(doc, url);
	if (file)
		return read_path(file, html) == 0 ? xstrdup(file) : NULL;
	const char *snap = getenv("SNAP_DIR");
	if (!snap || !*snap)
		return NULL;
	/* the snapshot's directory by the shortest path: ".." when that is it
	 * (the hook's cwd is its plugin's directory in it); on a network
	 * filesystem each component of a path opened is a round trip */
	const char *named = snap;
	struct stat a, b;
	if (stat(snap, &a) == 0 && stat("..", &b) == 0 && a.st_dev == b.st_dev && a.st_ino == b.st_ino)
		snap = "..";
	char *p = xasprintf("%s/dom/output.html", snap);
	if (read_path(p, html) == 0 && html->len > 0) {
		free(p);
		return xstrdup("dom/output.html");
	}
	free(p);
	buf_reset(html);

	char *dir = xasprintf("%s/wget", snap);
	char *shown = xasprintf("%s/wget", named);
	wait_for_dir(dir, shown);
	free(shown);
	buf_t name = {0};
	char *found = NULL;
	for (int adjust = 1; adjust >= 0 && !found; adjust--) {
		buf_reset(&name);
		wget_name(url, &name, adjust);
		if (read_twin(dir, name.p, html) == 0) {
			found = xasprintf("wget/%s", name.p);
			follow_redirects(dir, doc);
		} else
			buf_reset(html);
	}
	if (!found) {
		/* a redirect: the one page wget saved, its URL rebuilt from its path */
		int depth = MAXDEPTH + 1;
		buf_reset(&name);
		buf_cstr(&name);
		shallowest_html(dir, "", 0, &name, &depth);
		const char *slash = name.len ? strchr(name.p, '/') : NULL;
		if (slash && read_twin(dir, name.p, html) == 0) {
			uri_t u;
			uri_split(url, strlen(url), &u);
			buf_reset(doc);
			buf_add(doc, u.scheme.p, u.scheme.n);
			buf_adds(doc, "://");
			for (const char *c = name.p; c < slash; c++)
				buf_addc(doc, *c == '+' ? ':' : *c);
			buf_adds(doc, slash);
			found = xasprintf("wget/%s", name.p);
		}
	}
	buf_free(&name);
	free(dir);
	return found;
}

/* ---- output ---- */

static void
print_result(const char *status, const char *output_str, const char *error)
{
	rec_t r = {0}, ctx;
	buf_t line = {0};
	rec_set_str(&r, "type", "ArchiveResult");
	rec_set_str(&r, "status", status);
	rec_set_str(&r, "output_str", output_str);
	if (error)
		rec_set_str(&r, "error", error);
	const char *c = getenv("EXTRA_CONTEXT");
	if (c && rec_parse(&ctx, c, strlen(c)) == 0) {
		for (int i = 0; i < ctx.n; i++)
			if (!rec_raw(&r, ctx.f[i].key))
				rec_set_raw(&r, ctx.f[i].key, ctx.f[i].val);
		rec_free(&ctx);
	}
	rec_line(&r, &line);
	buf_addc(&line, '\n');
	fwrite(line.p, 1, line.len, stdout);
	fflush(stdout);
	buf_free(&line);
	rec_free(&r);
}

static long long
parent_depth(void)
{
	const char *c = getenv("EXTRA_CONTEXT");
	rec_t ctx;
	long long d = 0;
	if (c && rec_parse(&ctx, c, strlen(c)) == 0) {
		d = rec_int(&ctx, "snapshot_depth", 0);
		rec_free(&ctx);
	}
	return d;
}

/* urls.jsonl in the cwd, by rename. */
static int
write_urls(const buf_t *out)
{
	int dfd = open(".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd < 0)
		return -1;
	int rc = fs_replace(dfd, "urls.jsonl", out->p, out->len, 0);
	int e = errno;
	close(dfd);
	errno = e;
	return rc;
}

static void
refs_free(refs_t *r)
{
	buf_free(&r->text);
	free(r->off);
	free(r->len);
}

int
main(int argc, char **argv)
{
	const char *url = NULL, *file = NULL;
	int icon = 0;
	err_init(argv[0]);
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--resolve") && i + 2 < argc) {
			buf_t out = {0};
			resolve(argv[i + 1], strlen(argv[i + 1]), argv[i + 2], strlen(argv[i + 2]), 1, &out);
			int bad = out.len == 0;
			if (!bad)
				puts(out.p);
			buf_free(&out);
			return bad;
		} else if (!strncmp(argv[i], "--url=", 6))
			url = argv[i] + 6;
		else if (!strcmp(argv[i], "--url") && i + 1 < argc)
			url = argv[++i];
		else if (!strncmp(argv[i], "--html=", 7))
			file = argv[i] + 7;
		else if (!strcmp(argv[i], "--icon"))
			icon = 1;
	}
	const char *enabled = getenv("PARSE_HTML_URLS_ENABLED");
	if (!icon && enabled && hook_false(enabled)) {
		print_result("skipped", "PARSE_HTML_URLS_ENABLED is false", NULL);
		return EXIT_SKIPPED;
	}
	if (!url || !*url || (icon && !file)) {
		fprintf(stderr, "usage: parse_html_urls [--icon] --url=URL [--html=FILE]\n"
		                "       parse_html_urls --resolve BASE REF\n");
		print_result("failed", "no --url given", "usage: parse_html_urls --url=URL");
		return 1;
	}

	buf_t html = {0}, doc = {0}, base = {0}, tmp = {0}, self = {0};
	refs_t refs = {.base = -1, .icon = -1};
	urlset_t set = {0};
	int rc = 0;
	char *source = find_source(url, file, &html, &doc);
	if (!source) {
		if (!icon)
			print_result("skipped", "no HTML source found", NULL);
		rc = icon ? 1 : EXIT_SKIPPED;
		goto out;
	}
	scan_html(html.p ? html.p : "", html.len, &refs);

	buf_adds(&base, doc.p);
	if (refs.base >= 0 && refs.len[refs.base] > 0) {
		/* HTML's frozen base URL: the document's own if it fails */
		resolve(doc.p, doc.len, refs.text.p + refs.off[refs.base], refs.len[refs.base], 0, &tmp);
		if (tmp.len) {
			buf_reset(&base);
			buf_add(&base, tmp.p, tmp.len);
		}
	}
	if (icon) {
		rc = 1;
		if (refs.icon >= 0 && refs.len[refs.icon] > 0 &&
		    resolve(base.p, base.len, refs.text.p + refs.off[refs.icon], refs.len[refs.icon], 0, &tmp)) {
			puts(tmp.p);
			rc = 0;
		}
		goto out;
	}

	/* the page itself, under both names it may have, is not an outlink */
	resolve(doc.p, doc.len, "", 0, 0, &self);
	urlset_add(&set, self.p);
	resolve(url, strlen(url), "", 0, 0, &self);
	urlset_add(&set, self.p);
	size_t skip = set.n;

	long long depth = parent_depth() + 1;
	for (size_t i = 0; i < refs.n; i++) {
		if ((long)i == refs.base || (long)i == refs.icon || refs.len[i] == 0)
			continue;
		if (!resolve(base.p, base.len, refs.text.p + refs.off[i], refs.len[i], 0, &tmp))
			continue;
		if (!urlset_add(&set, tmp.p))
			continue;
		buf_adds(&set.out, "{\"type\":\"Snapshot\",\"url\":");
		buf_json_str(&set.out, tmp.p, tmp.len);
		buf_addf(&set.out, ",\"plugin\":\"parse_html_urls\",\"depth\":%lld}\n", depth);
	}

	size_t found = set.n - skip;
	char msg[64];
	snprintf(msg, sizeof msg, "%zu URLs parsed", found);
	if (found == 0) {
		if (unlink("urls.jsonl") < 0 && errno != ENOENT)
			warnsys("unable to remove urls.jsonl");
		print_result("noresults", msg, NULL);
	} else if (write_urls(&set.out) < 0) {
		char *e = xasprintf("unable to write urls.jsonl: %s", strerror(errno));
		warnx_("%s", e);
		print_result("failed", e, e);
		free(e);
		rc = 1;
	} else {
		info("%s from %s", msg, source);
		print_result("succeeded", msg, NULL);
	}
out:
	free(source);
	refs_free(&refs);
	buf_free(&set.out);
	buf_free(&set.text);
	free(set.slot);
	buf_free(&html);
	buf_free(&doc);
	buf_free(&base);
	buf_free(&tmp);
	buf_free(&self);
	return rc;
}
