/*
 * search.c — see search.h.
 *
 * A word is matched by a scan of the text for the bytes its first letter
 * may start with (both cases: a table of 256), then a compare there, code
 * point by code point, each folded by towlower_l (ASCII by a bit).  The
 * text is read once per word; on a page of text that is a few µs.
 */
#include <stdlib.h>
#include <string.h>
#include <wctype.h>

#include "base/err.h"
#include "ctl/search.h"

static int
blank(unsigned char c)
{
	return c == ' ' || c == '\n' || c == '\t' || c == '\r';
}

/* The code point at p (n > 0 bytes): its length; a byte that does not
 * start valid UTF-8 is itself (as 0x110000 + byte: it folds to nothing). */
static size_t
decode(const unsigned char *p, size_t n, unsigned *c)
{
	if (p[0] < 0x80) {
		*c = p[0];
		return 1;
	}
	size_t k = p[0] >= 0xF0 && p[0] <= 0xF4 ? 4 : p[0] >= 0xE0 && p[0] < 0xF0 ? 3 : p[0] >= 0xC2 && p[0] < 0xE0 ? 2 : 0;
	unsigned v = k == 4 ? p[0] & 7u : k == 3 ? p[0] & 15u : p[0] & 31u;
	if (!k || k > n) {
		*c = 0x110000 + p[0];
		return 1;
	}
	for (size_t i = 1; i < k; i++) {
		if ((p[i] & 0xC0) != 0x80) {
			*c = 0x110000 + p[0];
			return 1;
		}
		v = v << 6 | (p[i] & 63u);
	}
	*c = v;
	return k;
}

static size_t
encode(unsigned c, char *u)
{
	if (c < 0x80)
		return u[0] = (char)c, 1;
	if (c < 0x800)
		return u[0] = (char)(0xC0 | c >> 6), u[1] = (char)(0x80 | (c & 63)), 2;
	if (c < 0x10000)
		return u[0] = (char)(0xE0 | c >> 12), u[1] = (char)(0x80 | (c >> 6 & 63)), u[2] = (char)(0x80 | (c & 63)), 3;
	u[0] = (char)(0xF0 | c >> 18), u[1] = (char)(0x80 | (c >> 12 & 63));
	u[2] = (char)(0x80 | (c >> 6 & 63)), u[3] = (char)(0x80 | (c & 63));
	return 4;
}

static unsigned
fold(const search_t *q, unsigned c)
{
	if (c < 0x80)
		return c >= 'A' && c <= 'Z' ? c | 0x20 : c;
	if (c >= 0x110000 || q->loc == (locale_t)0)
		return c;
	return (unsigned)towlower_l((wint_t)c, q->loc);
}

/* word w (folded) into q, with the bytes its match may start with */
static void
add_word(search_t *q, const char *w, size_t len)
{
	buf_t b = {0};
	const unsigned char *p = (const unsigned char *)w;
	for (size_t i = 0; i < len;) {
		unsigned c;
		char u[4];
		if (blank(p[i])) {
			while (i < len && blank(p[i]))
				i++;
			if (b.len && i < len)
				buf_addc(&b, ' ');
			continue;
		}
		i += decode(p + i, len - i, &c);
		c = fold(q, c);
		buf_add(&b, u, c >= 0x110000 ? (u[0] = (char)(c - 0x110000), 1) : encode(c, u));
	}
	if (!b.len)
		return;
	size_t k = q->n++;
	q->w = xrealloc(q->w, q->n * sizeof *q->w);
	q->w[k] = xstrdup(buf_cstr(&b));
	unsigned c0;
	decode((const unsigned char *)q->w[k], b.len, &c0);
	char u[4];
	memset(q->first[k], 0, sizeof q->first[k]);
	q->first[k][(unsigned char)q->w[k][0]] = 1;
	if (c0 < 0x80) {
		q->first[k][c0 >= 'a' && c0 <= 'z' ? c0 & ~0x20u : c0] = 1;
	} else if (c0 < 0x110000 && q->loc != (locale_t)0) {
		/* every code point that folds to c0 starts with one of these */
		unsigned up = (unsigned)towupper_l((wint_t)c0, q->loc);
		encode(up, u);
		q->first[k][(unsigned char)u[0]] = 1;
		for (unsigned b0 = 0xC2; b0 <= 0xF4; b0++)
			q->first[k][b0] = 1;   /* other forms (K, Å, ſ): rare, so scan them */
	}
	buf_free(&b);
}

int
search_parse(search_t *q, const char *words, buf_t *why)
{
	memset(q, 0, sizeof *q);
	q->loc = newlocale(LC_CTYPE_MASK, "C.UTF-8", (locale_t)0);
	for (const char *p = words; *p;) {
		while (blank((unsigned char)*p))
			p++;
		if (!*p)
			break;
		const char *e;
		if (*p == '"') {
			if (!(e = strchr(p + 1, '"'))) {
				buf_addf(why, "a quote is not closed: %s", words);
				return -1;
			}
			add_word(q, p + 1, e - p - 1);
			p = e + 1;
		} else {
			for (e = p; *e && !blank((unsigned char)*e); e++)
				;
			add_word(q, p, e - p);
			p = e;
		}
		if (q->n > SEARCH_MAX_WORDS) {
			buf_addf(why, "more than %d words: %s", SEARCH_MAX_WORDS, words);
			return -1;
		}
	}
	if (!q->n) {
		buf_addf(why, "no word to search for: \"%s\"", words);
		return -1;
	}
	return 0;
}

/* Does the folded word w match text at t? */
static int
match_at(const search_t *q, const char *w, const unsigned char *t, size_t n)
{
	const unsigned char *p = (const unsigned char *)w;
	size_t i = 0;
	while (*p) {
		if (*p == ' ') {
			if (i >= n || !blank(t[i]))
				return 0;
			while (i < n && blank(t[i]))
				i++;
			p++;
			continue;
		}
		if (i >= n)
			return 0;
		if (*p < 0x80 && t[i] < 0x80) {
			if (*p != (t[i] >= 'A' && t[i] <= 'Z' ? t[i] | 0x20 : t[i]))
				return 0;
			p++, i++;
			continue;
		}
		unsigned a, b;
		p += decode(p, strlen((const char *)p), &a);
		i += decode(t + i, n - i, &b);
		if (a != fold(q, b))
			return 0;
	}
	return 1;
}

int
search_has(const search_t *q, size_t k, const char *text, size_t n)
{
	const unsigned char *t = (const unsigned char *)text;
	const unsigned char *first = q->first[k];
	const char *w = q->w[k];
	unsigned char a = (unsigned char)w[0], b = a;
	for (int c = 0; c < 256; c++)
		if (first[c] && c != a)
			b = (unsigned char)c;
	int two = 0;
	for (int c = 0; c < 256; c++)
		two += first[c];
	/* the common case, at most two bytes: the next of each by memchr,
	 * each looked for again only once passed */
	const unsigned char *x = NULL, *y = NULL, *end = t + n;
	for (size_t i = 0; i < n; i++) {
		if (two <= 2) {
			if (x != end && (!x || x < t + i))
				x = memchr(t + i, a, n - i), x = x ? x : end;
			if (y != end && (!y || y < t + i))
				y = a == b ? end : memchr(t + i, b, n - i), y = y ? y : end;
			const unsigned char *z = x < y ? x : y;
			if (z == end)
				return 0;
			i = z - t;
		} else if (!first[t[i]]) {
			continue;
		}
		if (match_at(q, w, t + i, n - i))
			return 1;
	}
	return 0;
}

void
search_free(search_t *q)
{
	for (size_t i = 0; i < q->n; i++)
		free(q->w[i]);
	free(q->w);
	if (q->loc != (locale_t)0)
		freelocale(q->loc);
	memset(q, 0, sizeof *q);
}
