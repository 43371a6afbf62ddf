/*
 * json.c — see json.h.  jsmn is header-only; it is compiled here, strict, and
 * only here.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define JSMN_STATIC
#define JSMN_STRICT
#include <jsmn.h>

#include "err.h"
#include "json.h"

/* jsmn takes any run of characters starting like a literal: check it. */
static int
primitive_ok(const char *p, size_t n)
{
	if ((n == 4 && memcmp(p, "true", 4) == 0) || (n == 5 && memcmp(p, "false", 5) == 0) ||
	    (n == 4 && memcmp(p, "null", 4) == 0))
		return 1;
	size_t i = 0;
	if (i < n && p[i] == '-')
		i++;
	if (i >= n)
		return 0;
	if (p[i] == '0')
		i++;
	else if (p[i] >= '1' && p[i] <= '9')
		while (i < n && p[i] >= '0' && p[i] <= '9')
			i++;
	else
		return 0;
	if (i < n && p[i] == '.') {
		size_t d = ++i;
		while (i < n && p[i] >= '0' && p[i] <= '9')
			i++;
		if (i == d)
			return 0;
	}
	if (i < n && (p[i] == 'e' || p[i] == 'E')) {
		i++;
		if (i < n && (p[i] == '+' || p[i] == '-'))
			i++;
		size_t d = i;
		while (i < n && p[i] >= '0' && p[i] <= '9')
			i++;
		if (i == d)
			return 0;
	}
	return i == n;
}

static int tokenize_raw(const char *text, size_t len, jsmntok_t **out);

/* Tokenize text; returns token count and sets *out, or -1. */
static int
tokenize(const char *text, size_t len, jsmntok_t **out)
{
	int n = tokenize_raw(text, len, out);
	for (int i = 0; i < n; i++)
		if ((*out)[i].type == JSMN_PRIMITIVE &&
		    !primitive_ok(text + (*out)[i].start, (*out)[i].end - (*out)[i].start)) {
			free(*out);
			return -1;
		}
	return n;
}

static int
tokenize_raw(const char *text, size_t len, jsmntok_t **out)
{
	jsmn_parser p;
	jsmntok_t small[64];
	jsmn_init(&p);
	int n = jsmn_parse(&p, text, len, small, 64);
	if (n >= 0) {
		*out = xmalloc(sizeof(jsmntok_t) * (n ? n : 1));
		memcpy(*out, small, sizeof(jsmntok_t) * n);
		return n;
	}
	if (n != JSMN_ERROR_NOMEM)
		return -1;
	jsmn_init(&p);
	n = jsmn_parse(&p, text, len, NULL, 0);
	if (n < 0)
		return -1;
	*out = xmalloc(sizeof(jsmntok_t) * n);
	jsmn_init(&p);
	if (jsmn_parse(&p, text, len, *out, n) != n) {
		free(*out);
		return -1;
	}
	return n;
}

/* Index of the token after the subtree rooted at i. */
static int
skip(const jsmntok_t *t, int n, int i)
{
	int end = t[i].end;
	for (i++; i < n && t[i].start < end; i++)
		;
	return i;
}

/* Nothing but whitespace outside [start,end). */
static int
only_space(const char *s, size_t from, size_t to)
{
	for (size_t i = from; i < to; i++)
		if (s[i] != ' ' && s[i] != '\t' && s[i] != '\r' && s[i] != '\n')
			return 0;
	return 1;
}

int
json_valid(const char *text, size_t len)
{
	jsmntok_t *t;
	int n = tokenize(text, len, &t);
	if (n <= 0) {
		if (n == 0)
			free(t);
		return 0;
	}
	int ok = skip(t, n, 0) == n && only_space(text, 0, t[0].start - (t[0].type == JSMN_STRING)) &&
	         only_space(text, t[0].end + (t[0].type == JSMN_STRING), len);
	free(t);
	return ok;
}

int
rec_parse(rec_t *r, const char *text, size_t len)
{
	jsmntok_t *t;
	memset(r, 0, sizeof *r);
	int n = tokenize(text, len, &t);
	if (n < 0)
		return -1;
	if (n == 0 || t[0].type != JSMN_OBJECT || skip(t, n, 0) != n ||
	    !only_space(text, t[0].end, len) || !only_space(text, 0, t[0].start)) {
		free(t);
		return -1;
	}
	buf_t k = {0};
	for (int i = 1; i < n;) {
		if (t[i].type != JSMN_STRING || i + 1 >= n) {
			buf_free(&k);
			free(t);
			rec_free(r);
			return -1;
		}
		buf_reset(&k);
		json_unescape(text + t[i].start, t[i].end - t[i].start, &k);
		int v = i + 1;
		int vs = t[v].start, ve = t[v].end;
		if (t[v].type == JSMN_STRING)
			vs--, ve++;
		char *raw = xstrndup(text + vs, ve - vs);
		/* duplicate keys: the last one wins, as in jq */
		rec_set_raw(r, buf_cstr(&k), raw);
		free(raw);
		i = skip(t, n, v);
	}
	buf_free(&k);
	free(t);
	return 0;
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

void
rec_set_raw(rec_t *r, const char *key, const char *raw)
{
	int i = find(r, key);
	if (i >= 0) {
		char *v = xstrdup(raw);
		free(r->f[i].val);
		r->f[i].val = v;
		return;
	}
	if (r->n == r->cap) {
		r->cap = r->cap ? r->cap * 2 : 16;
		r->f = xrealloc(r->f, sizeof(field_t) * r->cap);
	}
	r->f[r->n].key = xstrdup(key);
	r->f[r->n].val = xstrdup(raw);
	r->n++;
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
	jsmntok_t *t;
	size_t len = strlen(raw);
	int n = tokenize(raw, len, &t);
	if (n <= 0 || t[0].type != JSMN_ARRAY) {
		if (n >= 0)
			free(t);
		return -1;
	}
	int rc = 0;
	for (int i = 1; i < n && rc == 0;) {
		int s = t[i].start, e = t[i].end;
		if (t[i].type == JSMN_STRING)
			s--, e++;
		rc = fn(raw + s, e - s, arg);
		i = skip(t, n, i);
	}
	free(t);
	return rc;
}
