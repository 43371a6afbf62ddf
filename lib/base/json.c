/*
 * json.c — see json.h.  A strict RFC 8259 scanner, without recursion:
 *  1. value_end() walks one value and returns where it ends, or NULL; the
 *     closers of the open objects and arrays are kept on a stack of at most
 *     JSON_MAX_DEPTH bytes, so no input can exhaust the C stack;
 *  2. strings are checked for escapes, raw control bytes and well-formed
 *     UTF-8 (RFC 3629: no overlongs, no encoded surrogates, nothing above
 *     U+10FFFF); numbers and literals follow the grammar exactly;
 *  3. rec_parse() walks the top-level object itself and asks value_end()
 *     for each field's value, so the record is checked and split in one pass.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/err.h"
#include "base/json.h"

static const char *
skip_ws(const char *p, const char *e)
{
	while (p < e && (*p == ' ' || *p == '\n' || *p == '\r' || *p == '\t'))
		p++;
	return p;
}

/* Length of the well-formed UTF-8 sequence at p (1..4), or 0. */
static size_t
utf8_seq(const unsigned char *p, const unsigned char *e)
{
	unsigned c = p[0], lo = 0x80, hi = 0xbf;
	size_t k;
	if (c < 0x80)
		return 1;
	if (c >= 0xc2 && c <= 0xdf)
		k = 2;
	else if (c >= 0xe0 && c <= 0xef)
		k = 3, lo = c == 0xe0 ? 0xa0 : 0x80, hi = c == 0xed ? 0x9f : 0xbf;
	else if (c >= 0xf0 && c <= 0xf4)
		k = 4, lo = c == 0xf0 ? 0x90 : 0x80, hi = c == 0xf4 ? 0x8f : 0xbf;
	else
		return 0;
	if ((size_t)(e - p) < k || p[1] < lo || p[1] > hi)
		return 0;
	for (size_t i = 2; i < k; i++)
		if ((p[i] & 0xc0) != 0x80)
			return 0;
	return k;
}

static int
hexval(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* s at a string's opening quote: the end of the literal, or NULL. */
static const char *
string_end(const char *s, const char *end)
{
	const unsigned char *p = (const unsigned char *)s + 1, *e = (const unsigned char *)end;
	for (;;) {
		while (p < e && *p >= 0x20 && *p < 0x80 && *p != '"' && *p != '\\')
			p++;
		if (p == e || *p < 0x20)
			return NULL;
		if (*p == '"')
			return (const char *)p + 1;
		if (*p == '\\') {
			if (e - p < 2)
				return NULL;
			if (p[1] == 'u') {
				if (e - p < 6)
					return NULL;
				for (int i = 2; i < 6; i++)
					if (hexval(p[i]) < 0)
						return NULL;
				p += 6;
			} else if (p[1] && strchr("\"\\/bfnrt", p[1])) {
				p += 2;
			} else {
				return NULL;
			}
		} else {
			size_t k = utf8_seq(p, e);
			if (k == 0)
				return NULL;
			p += k;
		}
	}
}

static const char *
digits_end(const char *p, const char *e)
{
	while (p < e && *p >= '0' && *p <= '9')
		p++;
	return p;
}

/* -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][-+]?[0-9]+)? */
static const char *
number_end(const char *p, const char *e)
{
	if (p < e && *p == '-')
		p++;
	if (p < e && *p == '0')
		p++;
	else if (p < e && *p >= '1' && *p <= '9')
		p = digits_end(p, e);
	else
		return NULL;
	if (p < e && *p == '.') {
		const char *d = p + 1;
		if ((p = digits_end(d, e)) == d)
			return NULL;
	}
	if (p < e && (*p == 'e' || *p == 'E')) {
		const char *d = p + 1;
		if (d < e && (*d == '+' || *d == '-'))
			d++;
		if ((p = digits_end(d, e)) == d)
			return NULL;
	}
	return p;
}

static const char *
word_end(const char *p, const char *e, const char *w, size_t n)
{
	return (size_t)(e - p) >= n && memcmp(p, w, n) == 0 ? p + n : NULL;
}

/* p at a member's key: past the key, the colon and the space after it. */
static const char *
member_key(const char *p, const char *e)
{
	if (p == e || *p != '"' || !(p = string_end(p, e)))
		return NULL;
	p = skip_ws(p, e);
	return p < e && *p == ':' ? skip_ws(p + 1, e) : NULL;
}

/* p at a value (space skipped): its end, or NULL if it is not one value
 * nested at most maxdepth deep. */
static const char *
value_end(const char *p, const char *e, int maxdepth)
{
	char close[JSON_MAX_DEPTH];
	int depth = 0;
	for (;;) {
		if (p == e)
			return NULL;
		switch (*p) {
		case '{':
		case '[':
			if (depth == maxdepth)
				return NULL;
			close[depth++] = *p == '{' ? '}' : ']';
			p = skip_ws(p + 1, e);
			if (p < e && *p == close[depth - 1]) {
				p++, depth--;
				break;
			}
			if (close[depth - 1] == '}' && !(p = member_key(p, e)))
				return NULL;
			continue;
		case '"': p = string_end(p, e); break;
		case 't': p = word_end(p, e, "true", 4); break;
		case 'f': p = word_end(p, e, "false", 5); break;
		case 'n': p = word_end(p, e, "null", 4); break;
		default: p = number_end(p, e);
		}
		/* after a value: close containers until the next element starts */
		for (;;) {
			if (!p || depth == 0)
				return p;
			p = skip_ws(p, e);
			if (p < e && *p == close[depth - 1]) {
				p++, depth--;
				continue;
			}
			if (p == e || *p != ',')
				return NULL;
			p = skip_ws(p + 1, e);
			if (close[depth - 1] == '}' && !(p = member_key(p, e)))
				return NULL;
			break;
		}
	}
}

int
json_valid(const char *text, size_t len)
{
	const char *e = text + len, *p = value_end(skip_ws(text, e), e, JSON_MAX_DEPTH);
	return p && skip_ws(p, e) == e;
}

static void set_rawn(rec_t *r, const char *key, const char *raw, size_t n);

int
rec_parse(rec_t *r, const char *text, size_t len)
{
	const char *e = text + len, *p = skip_ws(text, e);
	memset(r, 0, sizeof *r);
	if (p == e || *p != '{')
		return -1;
	p = skip_ws(p + 1, e);
	if (p < e && *p == '}')
		return skip_ws(p + 1, e) == e ? 0 : -1;
	buf_t k = {0};
	for (;;) {
		const char *ks = p, *ke, *vs, *ve;
		if (p == e || *p != '"' || !(ke = string_end(p, e)))
			break;
		p = skip_ws(ke, e);
		if (p == e || *p != ':')
			break;
		vs = skip_ws(p + 1, e);
		if (!(ve = value_end(vs, e, JSON_MAX_DEPTH - 1)))
			break;
		buf_reset(&k);
		json_unescape(ks + 1, ke - ks - 2, &k);
		/* duplicate keys: the last one wins, as in jq */
		set_rawn(r, buf_cstr(&k), vs, ve - vs);
		p = skip_ws(ve, e);
		if (p < e && *p == ',') {
			p = skip_ws(p + 1, e);
			continue;
		}
		if (p < e && *p == '}' && skip_ws(p + 1, e) == e) {
			buf_free(&k);
			return 0;
		}
		break;
	}
	buf_free(&k);
	rec_free(r);
	return -1;
}

void
rec_free(rec_t *r)
{
	for (int i = 0; i < r->n; i++) {
		free(r->f[i].key);
		free(r->f[i].val);
	}
	free(r->f);
	memset(r, 0, sizeof *r);
}

void
rec_copy(rec_t *dst, const rec_t *src)
{
	memset(dst, 0, sizeof *dst);
	for (int i = 0; i < src->n; i++)
		rec_set_raw(dst, src->f[i].key, src->f[i].val);
}

static int
find(const rec_t *r, const char *key)
{
	for (int i = 0; i < r->n; i++)
		if (strcmp(r->f[i].key, key) == 0)
			return i;
	return -1;
}

const char *
rec_raw(const rec_t *r, const char *key)
{
	int i = find(r, key);
	return i < 0 ? NULL : r->f[i].val;
}

char *
rec_str(const rec_t *r, const char *key)
{
	const char *v = rec_raw(r, key);
	if (!v || v[0] != '"')
		return NULL;
	buf_t b = {0};
	json_unescape(v + 1, strlen(v) - 2, &b);
	return buf_cstr(&b);
}

int
rec_streq(const rec_t *r, const char *key, const char *s)
{
	char *v = rec_str(r, key);
	int eq = v && strcmp(v, s) == 0;
	free(v);
	return eq;
}

long long
rec_int(const rec_t *r, const char *key, long long dflt)
{
	const char *v = rec_raw(r, key);
	if (!v)
		return dflt;
	if (v[0] == '"')
		v++;
	char *end;
	long long x = strtoll(v, &end, 10);
	return end == v ? dflt : x;
}

int
rec_isnull(const rec_t *r, const char *key)
{
	const char *v = rec_raw(r, key);
	return !v || strcmp(v, "null") == 0;
}

static void
set_rawn(rec_t *r, const char *key, const char *raw, size_t n)
{
	int i = find(r, key);
	char *v = xstrndup(raw, n);
	if (i >= 0) {
		free(r->f[i].val);
		r->f[i].val = v;
		return;
	}
	if (r->n == r->cap) {
		r->cap = r->cap ? r->cap * 2 : 16;
		r->f = xrealloc(r->f, sizeof(field_t) * r->cap);
	}
	r->f[r->n].key = xstrdup(key);
	r->f[r->n].val = v;
	r->n++;
}

void
rec_set_raw(rec_t *r, const char *key, const char *raw)
{
	set_rawn(r, key, raw, strlen(raw));
}

void
rec_set_strn(rec_t *r, const char *key, const char *s, size_t n)
{
	buf_t b = {0};
	buf_json_str(&b, s, n);
	rec_set_raw(r, key, buf_cstr(&b));
	buf_free(&b);
}

void
rec_set_str(rec_t *r, const char *key, const char *s)
{
	if (!s)
		rec_set_raw(r, key, "null");
	else
		rec_set_strn(r, key, s, strlen(s));
}

void
rec_set_int(rec_t *r, const char *key, long long v)
{
	char tmp[32];
	snprintf(tmp, sizeof tmp, "%lld", v);
	rec_set_raw(r, key, tmp);
}

void
rec_set_null(rec_t *r, const char *key)
{
	rec_set_raw(r, key, "null");
}

void
rec_del(rec_t *r, const char *key)
{
	int i = find(r, key);
	if (i < 0)
		return;
	free(r->f[i].key);
	free(r->f[i].val);
	memmove(r->f + i, r->f + i + 1, sizeof(field_t) * (r->n - i - 1));
	r->n--;
}

void
rec_line(const rec_t *r, buf_t *out)
{
	buf_addc(out, '{');
	for (int i = 0; i < r->n; i++) {
		if (i)
			buf_addc(out, ',');
		buf_json_strz(out, r->f[i].key);
		buf_addc(out, ':');
		buf_adds(out, r->f[i].val);
	}
	buf_addc(out, '}');
}

static long
hex4(const char *s, size_t n)
{
	if (n < 4)
		return -1;
	long v = 0;
	for (int i = 0; i < 4; i++) {
		int h = hexval((unsigned char)s[i]);
		if (h < 0)
			return -1;
		v = v << 4 | h;
	}
	return v;
}

static void
put_utf8(buf_t *b, unsigned long cp)
{
	char o[4];
	if (cp < 0x80) {
		buf_addc(b, cp);
	} else if (cp < 0x800) {
		o[0] = 0xc0 | cp >> 6, o[1] = 0x80 | (cp & 0x3f);
		buf_add(b, o, 2);
	} else if (cp < 0x10000) {
		o[0] = 0xe0 | cp >> 12, o[1] = 0x80 | (cp >> 6 & 0x3f), o[2] = 0x80 | (cp & 0x3f);
		buf_add(b, o, 3);
	} else {
		o[0] = 0xf0 | cp >> 18, o[1] = 0x80 | (cp >> 12 & 0x3f);
		o[2] = 0x80 | (cp >> 6 & 0x3f), o[3] = 0x80 | (cp & 0x3f);
		buf_add(b, o, 4);
	}
}

void
json_unescape(const char *s, size_t n, buf_t *out)
{
	buf_grow(out, n);
	for (size_t i = 0; i < n; i++) {
		if (s[i] != '\\' || i + 1 >= n) {
			buf_addc(out, s[i]);
			continue;
		}
		char c = s[++i];
		switch (c) {
		case 'n': buf_addc(out, '\n'); break;
		case 't': buf_addc(out, '\t'); break;
		case 'r': buf_addc(out, '\r'); break;
		case 'b': buf_addc(out, '\b'); break;
		case 'f': buf_addc(out, '\f'); break;
		case 'u': {
			long cp = hex4(s + i + 1, n - i - 1);
			if (cp < 0) {
				buf_addc(out, 'u');
				break;
			}
			i += 4;
			if (cp >= 0xd800 && cp < 0xdc00 && i + 6 < n + 0 && s[i + 1] == '\\' && s[i + 2] == 'u') {
				long lo = hex4(s + i + 3, n - i - 3);
				if (lo >= 0xdc00 && lo < 0xe000) {
					cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
					i += 6;
				}
			}
			if (cp == 0 || (cp >= 0xd800 && cp < 0xe000))
				cp = 0xfffd;   /* no NULs or lone surrogates in C strings */
			put_utf8(out, cp);
			break;
		}
		default: buf_addc(out, c);
		}
	}
}

int
json_array_each(const char *raw, int (*fn)(const char *, size_t, void *), void *arg)
{
	size_t len = strlen(raw);
	const char *e = raw + len, *p = skip_ws(raw, e);
	if (!json_valid(raw, len) || *p != '[')
		return -1;
	int rc = 0;
	for (p = skip_ws(p + 1, e); rc == 0 && *p != ']';) {
		const char *v = value_end(p, e, JSON_MAX_DEPTH);
		rc = fn(p, v - p, arg);
		p = skip_ws(v, e);
		if (*p == ',')
			p = skip_ws(p + 1, e);
	}
	return rc;
}

int
json_fix_utf8(const char *s, size_t n, buf_t *out)
{
	const unsigned char *p = (const unsigned char *)s, *e = p + n, *run = p;
	int bad = 0;
	buf_grow(out, n);
	while (p < e) {
		size_t k = *p < 0x80 ? 1 : utf8_seq(p, e);
		if (k) {
			p += k;
			continue;
		}
		buf_add(out, run, p - run);
		buf_add(out, "\xef\xbf\xbd", 3);   /* U+FFFD */
		bad++;
		run = ++p;
	}
	buf_add(out, run, p - run);
	return bad;
}

void
recs_add(recs_t *rs, const rec_t *r)
{
	if (rs->n == rs->cap) {
		rs->cap = rs->cap ? rs->cap * 2 : 16;
		rs->v = xrealloc(rs->v, rs->cap * sizeof(rec_t));
	}
	rec_copy(&rs->v[rs->n++], r);
}

void
recs_free(recs_t *rs)
{
	for (size_t i = 0; i < rs->n; i++)
		rec_free(&rs->v[i]);
	free(rs->v);
	memset(rs, 0, sizeof *rs);
}
