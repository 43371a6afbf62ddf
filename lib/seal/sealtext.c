/*
 * sealtext.c — see sealtext.h.
 *
 * One pass over the bytes: text is decoded (UTF-8 or Windows-1252) into
 * code points and put out with blanks collapsed; "<" starts a tag when a
 * letter, "/", "!" or "?" follows (else it is text); a tag is skipped to
 * its ">" (quoted attribute values may hold one); the raw-text elements
 * are skipped to their end tag; "&" starts a character reference.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/err.h"
#include "base/fs.h"
#include "seal/sealtext.h"

typedef struct {
	buf_t *out;
	size_t max;          /* out->len stays below it */
	int space, line;     /* a blank, a line break pending */
	int full;
} tx_t;

/* Windows-1252's 0x80-0x9F (HTML reads Latin-1 and numeric references so) */
static const unsigned short cp1252[32] = {0x20AC, 0xFFFD, 0x201A, 0x0192, 0x201E, 0x2026, 0x2020,
    0x2021, 0x02C6, 0x2030, 0x0160, 0x2039, 0x0152, 0xFFFD, 0x017D, 0xFFFD, 0xFFFD, 0x2018, 0x2019,
    0x201C, 0x201D, 0x2022, 0x2013, 0x2014, 0x02DC, 0x2122, 0x0161, 0x203A, 0x0153, 0xFFFD, 0x017E,
    0x0178};

/* Latin-1's names, U+00A0 to U+00FF in order */
static const char *const latin1[96] = {"nbsp", "iexcl", "cent", "pound", "curren", "yen", "brvbar",
    "sect", "uml", "copy", "ordf", "laquo", "not", "shy", "reg", "macr", "deg", "plusmn", "sup2",
    "sup3", "acute", "micro", "para", "middot", "cedil", "sup1", "ordm", "raquo", "frac14", "frac12",
    "frac34", "iquest", "Agrave", "Aacute", "Acirc", "Atilde", "Auml", "Aring", "AElig", "Ccedil",
    "Egrave", "Eacute", "Ecirc", "Euml", "Igrave", "Iacute", "Icirc", "Iuml", "ETH", "Ntilde",
    "Ograve", "Oacute", "Ocirc", "Otilde", "Ouml", "times", "Oslash", "Ugrave", "Uacute", "Ucirc",
    "Uuml", "Yacute", "THORN", "szlig", "agrave", "aacute", "acirc", "atilde", "auml", "aring", "aelig",
    "ccedil", "egrave", "eacute", "ecirc", "euml", "igrave", "iacute", "icirc", "iuml", "eth", "ntilde",
    "ograve", "oacute", "ocirc", "otilde", "ouml", "divide", "oslash", "ugrave", "uacute", "ucirc",
    "uuml", "yacute", "thorn", "yuml"};

static const struct {
	const char *name;
	unsigned cp;
} named[] = {{"amp", '&'}, {"lt", '<'}, {"gt", '>'}, {"quot", '"'}, {"apos", '\''},
    {"ndash", 0x2013}, {"mdash", 0x2014}, {"lsquo", 0x2018}, {"rsquo", 0x2019}, {"sbquo", 0x201A},
    {"ldquo", 0x201C}, {"rdquo", 0x201D}, {"bdquo", 0x201E}, {"bull", 0x2022}, {"hellip", 0x2026},
    {"prime", 0x2032}, {"lsaquo", 0x2039}, {"rsaquo", 0x203A}, {"euro", 0x20AC}, {"trade", 0x2122},
    {"larr", 0x2190}, {"uarr", 0x2191}, {"rarr", 0x2192}, {"darr", 0x2193}, {"harr", 0x2194},
    {"minus", 0x2212}, {"ensp", 0x2002}, {"emsp", 0x2003}, {"thinsp", 0x2009}, {"zwnj", 0x200C},
    {"zwj", 0x200D}, {"dagger", 0x2020}, {"Dagger", 0x2021}, {"permil", 0x2030}, {"OElig", 0x152},
    {"oelig", 0x153}, {"Scaron", 0x160}, {"scaron", 0x161}, {"Yuml", 0x178}, {"fnof", 0x192},
    {"circ", 0x2C6}, {"tilde", 0x2DC}, {NULL, 0}};

/* elements whose content is not the page's text */
static const char *const skipped[] = {"script", "style", "noscript", "template", "svg", "title", NULL};
/* elements that break a line (td, th: a blank) */
static const char *const blocks[] = {"address", "article", "aside", "blockquote", "br", "caption",
    "dd", "details", "div", "dl", "dt", "fieldset", "figcaption", "figure", "footer", "form", "h1",
    "h2", "h3", "h4", "h5", "h6", "header", "hr", "li", "main", "nav", "ol", "option", "p", "pre",
    "section", "summary", "table", "tr", "ul", NULL};

static void
put_cp(tx_t *t, unsigned c)
{
	if (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == 0xA0) {
		t->space = 1;
		return;
	}
	if (t->full || c < 0x20 || c == 0x7F || (c >= 0x80 && c < 0xA0))
		return;   /* no control reaches the text */
	if (c > 0x10FFFF || (c >= 0xD800 && c <= 0xDFFF))
		c = 0xFFFD;
	char u[5];
	size_t k;
	if (c < 0x80) {
		u[0] = (char)c, k = 1;
	} else if (c < 0x800) {
		u[0] = (char)(0xC0 | c >> 6), u[1] = (char)(0x80 | (c & 63)), k = 2;
	} else if (c < 0x10000) {
		u[0] = (char)(0xE0 | c >> 12), u[1] = (char)(0x80 | (c >> 6 & 63)), u[2] = (char)(0x80 | (c & 63)), k = 3;
	} else {
		u[0] = (char)(0xF0 | c >> 18), u[1] = (char)(0x80 | (c >> 12 & 63));
		u[2] = (char)(0x80 | (c >> 6 & 63)), u[3] = (char)(0x80 | (c & 63)), k = 4;
	}
	char sep = 0;
	if (t->out->len && (t->line || t->space))
		sep = t->line ? '\n' : ' ';
	if (t->out->len + k + (sep != 0) >= t->max) {
		t->full = 1;
		return;
	}
	if (sep)
		buf_addc(t->out, sep);
	buf_add(t->out, u, k);
	t->space = t->line = 0;
}

/* The code point at p (n bytes left, n > 0): its length, *c set. */
static size_t
next_cp(const unsigned char *p, size_t n, int utf8, unsigned *c)
{
	if (p[0] < 0x80 || !utf8) {
		*c = p[0] >= 0x80 && p[0] < 0xA0 ? cp1252[p[0] - 0x80] : p[0];
		return 1;
	}
	size_t k = p[0] >= 0xF0 && p[0] <= 0xF4 ? 4 : p[0] >= 0xE0 ? 3 : p[0] >= 0xC2 && p[0] < 0xE0 ? 2 : 0;
	unsigned v = k == 4 ? p[0] & 7u : k == 3 ? p[0] & 15u : p[0] & 31u;
	if (k == 0 || k > n) {
		*c = 0xFFFD;
		return 1;
	}
	for (size_t i = 1; i < k; i++) {
		if ((p[i] & 0xC0) != 0x80) {
			*c = 0xFFFD;
			return i;
		}
		v = v << 6 | (p[i] & 63u);
	}
	/* overlong, a surrogate or past U+10FFFF */
	if ((k == 3 && v < 0x800) || (k == 4 && (v < 0x10000 || v > 0x10FFFF)) || (v >= 0xD800 && v <= 0xDFFF))
		v = 0xFFFD;
	*c = v;
	return k;
}

static int
valid_utf8(const unsigned char *p, size_t n)
{
	for (size_t i = 0; i < n;) {
		unsigned c;
		if (p[i] < 0x80) {
			i++;
			continue;
		}
		size_t k = next_cp(p + i, n - i, 1, &c);
		if (c == 0xFFFD && !(k == 3 && p[i] == 0xEF))
			return 0;
		i += k;
	}
	return 1;
}

/* Does the page's head say charset=utf-8? */
static int
says_utf8(const char *h, size_t n)
{
	size_t lim = n < 4096 ? n : 4096;
	for (size_t i = 0; i + 8 < lim; i++)
		if (strncasecmp(h + i, "charset=", 8) == 0) {
			const char *v = h + i + 8;
			while (v < h + lim && (*v == '"' || *v == '\'' || *v == ' '))
				v++;
			return h + lim - v >= 4 && (strncasecmp(v, "utf-8", 5) == 0 || strncasecmp(v, "utf8", 4) == 0);
		}
	return 0;
}

static const char *
find_ci(const char *h, size_t n, const char *needle)
{
	size_t k = strlen(needle);
	for (size_t i = 0; i + k <= n; i++)
		if ((h[i] | 0x20) == needle[0] && strncasecmp(h + i, needle, k) == 0)
			return h + i;
	return NULL;
}

/* A character reference at h[0] == '&': its length, or 0 (then '&' is text). */
static size_t
reference(tx_t *t, const char *h, size_t n)
{
	size_t i = 1;
	unsigned long v = 0;
	if (i < n && h[i] == '#') {
		int hex = i + 1 < n && (h[i + 1] | 0x20) == 'x';
		size_t d0 = i = i + 1 + hex;
		for (; i < n && i - d0 < 8; i++) {
			int c = (unsigned char)h[i], x = c >= '0' && c <= '9' ? c - '0' : hex && (c | 0x20) >= 'a' && (c | 0x20) <= 'f' ? (c | 0x20) - 'a' + 10 : -1;
			if (x < 0)
				break;
			v = v * (hex ? 16 : 10) + (unsigned long)x;
		}
		if (i == d0)
			return 0;
		put_cp(t, v == 0 || v > 0x10FFFF ? 0xFFFD : v >= 0x80 && v < 0xA0 ? cp1252[v - 0x80] : (unsigned)v);
		return i < n && h[i] == ';' ? i + 1 : i;
	}
	while (i < n && i < 10 && ((h[i] | 0x20) >= 'a' && (h[i] | 0x20) <= 'z' ? 1 : h[i] >= '0' && h[i] <= '9'))
		i++;
	size_t len = i - 1;
	if (!len || i >= n || h[i] != ';')
		return 0;
	for (int k = 0; k < 96; k++)
		if (strlen(latin1[k]) == len && memcmp(latin1[k], h + 1, len) == 0) {
			put_cp(t, 0xA0 + (unsigned)k);
			return i + 1;
		}
	for (int k = 0; named[k].name; k++)
		if (strlen(named[k].name) == len && memcmp(named[k].name, h + 1, len) == 0) {
			put_cp(t, named[k].cp);
			return i + 1;
		}
	return 0;
}

static int
in_list(const char *const *list, const char *name)
{
	for (int i = 0; list[i]; i++)
		if (strcmp(list[i], name) == 0)
			return 1;
	return 0;
}

/* Where the tag at h[i] == '<' ends (after its '>'), or n. */
static size_t
tag_end(const char *h, size_t i, size_t n)
{
	for (i++; i < n && h[i] != '>'; i++)
		if (h[i] == '"' || h[i] == '\'') {
			const char *q = memchr(h + i + 1, h[i], n - i - 1);
			if (!q)
				return n;
			i = q - h;
		}
	return i < n ? i + 1 : n;
}

/* The text of h[from, to) into t. */
static void
text_of(tx_t *t, const char *h, size_t from, size_t to, int utf8, buf_t *title)
{
	const unsigned char *u = (const unsigned char *)h;
	for (size_t i = from; i < to && !t->full;) {
		if (h[i] == '&') {
			size_t k = reference(t, h + i, to - i);
			if (k) {
				i += k;
				continue;
			}
		}
		if (h[i] != '<' || i + 1 >= to) {
			unsigned c;
			i += next_cp(u + i, to - i, utf8, &c);
			put_cp(t, c);
			continue;
		}
		if (h[i + 1] == '!' && to - i >= 4 && memcmp(h + i, "<!--", 4) == 0) {
			const char *e = find_ci(h + i + 4, to - i - 4, "-->");
			i = e ? (size_t)(e - h) + 3 : to;
			continue;
		}
		int close = h[i + 1] == '/';
		size_t s = i + 1 + close, e = s;
		char name[16];
		while (e < to && e - s < sizeof name - 1 && (((h[e] | 0x20) >= 'a' && (h[e] | 0x20) <= 'z') || (h[e] >= '0' && h[e] <= '9') || h[e] == '-' || h[e] == ':'))
			e++;
		if (e == s && h[i + 1] != '!' && h[i + 1] != '?' && !close) {
			put_cp(t, '<');   /* "a < b": text */
			i++;
			continue;
		}
		for (size_t k = 0; k < e - s; k++)
			name[k] = (char)(h[s + k] | 0x20);
		name[e - s] = 0;
		size_t after = tag_end(h, i, to);
		if (!close && in_list(skipped, name)) {
			char end[24];
			snprintf(end, sizeof end, "</%s", name);
			const char *c = find_ci(h + after, to - after, end);
			size_t stop = c ? (size_t)(c - h) : to;
			if (title && strcmp(name, "title") == 0 && !title->len) {
				tx_t tt = {title, 4096, 0, 0, 0};
				text_of(&tt, h, after, stop, utf8, NULL);
			}
			i = c ? tag_end(h, stop, to) : to;
			continue;
		}
		if (in_list(blocks, name))
			t->line = 1;
		else if (!strcmp(name, "td") || !strcmp(name, "th"))
			t->space = 1;
		i = after;
	}
}

void
sealtext_html(const char *html, size_t n, buf_t *out, size_t max, char **title)
{
	int utf8 = says_utf8(html, n) || valid_utf8((const unsigned char *)html, n);
	tx_t t = {out, out->len + max, 0, 0, 0};
	buf_t tb = {0};
	text_of(&t, html, 0, n, utf8, title ? &tb : NULL);
	if (title)
		*title = tb.len ? xstrdup(buf_cstr(&tb)) : NULL;
	buf_free(&tb);
}

/* The page's HTML: chrome's DOM, the dom plugin's, or wget's page. */
static int
page_path(const char *dir, const rec_t *rs, size_t n, char *path, size_t size)
{
	static const char *const prefer[] = {"chrome", "dom", "wget"};
	for (int k = 0; k < 3; k++)
		for (size_t i = 0; i < n; i++) {
			const rec_t *r = &rs[i];
			if (!rec_streq(r, "type", "ArchiveResult") || !rec_streq(r, "status", "succeeded") ||
			    !rec_streq(r, "plugin", prefer[k]))
				continue;
			if (k < 2)
				return snprintf(path, size, "%s/%s/output.html", dir, prefer[k]) < (int)size ? 0 : -1;
			char *os = rec_str(r, "output_str");
			/* a path below wget/, never out of it */
			int ok = os && strncmp(os, "wget/", 5) == 0 && !strstr(os, "..") &&
			         snprintf(path, size, "%s/%s", dir, os) < (int)size;
			free(os);
			if (ok)
				return 0;
		}
	return -1;
}

/* At most max bytes of a regular file (no symlink followed): 0, or -1. */
static int
read_some(int dfd, const char *rel, buf_t *b, size_t max)
{
	int fd = fs_open(dfd, rel, O_RDONLY | O_NONBLOCK | O_CLOEXEC, 0);
	struct stat st;
	if (fd < 0)
		return -1;
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		close(fd);
		return -1;
	}
	char chunk[65536];
	ssize_t k;
	while (b->len < max && (k = read(fd, chunk, max - b->len < sizeof chunk ? max - b->len : sizeof chunk)) > 0)
		buf_add(b, chunk, (size_t)k);
	close(fd);
	return 0;
}

int
sealtext_write(int dfd, const rec_t *snap, const char *dir, const rec_t *rs, size_t n, int sync)
{
	char path[600];
	int rc = 0;
	buf_t html = {0}, out = {0};
	char *page_title = NULL, *title = rec_str(snap, "title");
	int have = page_path(dir, rs, n, path, sizeof path) == 0 && read_some(dfd, path, &html, SEALTEXT_MAX_HTML) == 0;
	buf_t body = {0};
	if (have)
		sealtext_html(html.p ? html.p : "", html.len, &body, SEALTEXT_MAX_TEXT, &page_title);
	const char *tl = title && *title ? title : page_title;
	if (tl || body.len) {
		/* the title on one line, whatever its record holds */
		tx_t t = {&out, 4096, 0, 0, 0};
		const unsigned char *u = (const unsigned char *)(tl ? tl : "");
		for (size_t i = 0, len = strlen((const char *)u); i < len;) {
			unsigned c;
			i += next_cp(u + i, len - i, 1, &c);
			put_cp(&t, c);
		}
		buf_adds(&out, "\n\n");
		buf_add(&out, body.p ? body.p : "", body.len);
		buf_addc(&out, '\n');
		snprintf(path, sizeof path, "%s/%s", dir, SEALTEXT_FILE);
		if (fs_write_new_sync(dfd, path, out.p, out.len, sync) < 0) {
			warnsys("unable to write %s", path);
			rc = -1;
		}
	} else {
		snprintf(path, sizeof path, "%s/%s", dir, SEALTEXT_FILE);
		if (fs_rmtree(dfd, path) < 0) {
			warnsys("unable to remove %s", path);
			rc = -1;
		}
	}
	buf_free(&html), buf_free(&out), buf_free(&body);
	free(title), free(page_title);
	return rc;
}
