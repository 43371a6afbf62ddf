/* buf.c — see buf.h. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "base/alloc.h"

void
buf_grow(buf_t *b, size_t extra)
{
	if (b->len + extra + 1 <= b->cap)
		return;
	size_t cap = b->cap ? b->cap : 256;
	while (cap < b->len + extra + 1)
		cap *= 2;
	b->p = xrealloc(b->p, cap);
	b->cap = cap;
}

void
buf_add(buf_t *b, const void *s, size_t n)
{
	buf_grow(b, n);
	memcpy(b->p + b->len, s, n);
	b->len += n;
	b->p[b->len] = 0;
}

void
buf_adds(buf_t *b, const char *s)
{
	buf_add(b, s, strlen(s));
}

void
buf_addc(buf_t *b, char c)
{
	buf_add(b, &c, 1);
}

void
buf_addf(buf_t *b, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	buf_grow(b, n);
	va_start(ap, fmt);
	vsnprintf(b->p + b->len, n + 1, fmt, ap);
	va_end(ap);
	b->len += n;
}

/* Length of the valid UTF-8 sequence at s (1..4), or 0 if invalid. */
static size_t
utf8_len(const unsigned char *s, size_t n)
{
	unsigned c = s[0];
	size_t k;
	unsigned min;
	if (c < 0x80)
		return 1;
	else if ((c & 0xe0) == 0xc0)
		k = 2, min = 0x80;
	else if ((c & 0xf0) == 0xe0)
		k = 3, min = 0x800;
	else if ((c & 0xf8) == 0xf0)
		k = 4, min = 0x10000;
	else
		return 0;
	if (k > n)
		return 0;
	unsigned cp = c & (0x7f >> k);
	for (size_t i = 1; i < k; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = cp << 6 | (s[i] & 0x3f);
	}
	if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
		return 0;
	return k;
}

void
buf_json_str(buf_t *b, const char *str, size_t n)
{
	const unsigned char *s = (const unsigned char *)str;
	buf_grow(b, n + 2);
	buf_addc(b, '"');
	for (size_t i = 0; i < n;) {
		unsigned c = s[i];
		if (c == '"' || c == '\\') {
			buf_addc(b, '\\');
			buf_addc(b, c);
			i++;
		} else if (c < 0x20 || c == 0x7f) {
			switch (c) {
			case '\n': buf_adds(b, "\\n"); break;
			case '\t': buf_adds(b, "\\t"); break;
			case '\r': buf_adds(b, "\\r"); break;
			case '\b': buf_adds(b, "\\b"); break;
			case '\f': buf_adds(b, "\\f"); break;
			default: buf_addf(b, "\\u%04x", c);
			}
			i++;
		} else if (c < 0x80) {
			buf_addc(b, c);
			i++;
		} else {
			size_t k = utf8_len(s + i, n - i);
			if (k == 0) {
				buf_adds(b, "\\ufffd");
				i++;
			} else {
				buf_add(b, s + i, k);
				i += k;
			}
		}
	}
	buf_addc(b, '"');
}

void
buf_json_strz(buf_t *b, const char *s)
{
	if (!s)
		buf_adds(b, "null");
	else
		buf_json_str(b, s, strlen(s));
}

void
buf_reset(buf_t *b)
{
	b->len = 0;
	if (b->p)
		b->p[0] = 0;
}

void
buf_free(buf_t *b)
{
	free(b->p);
	b->p = NULL;
	b->len = b->cap = 0;
}

char *
buf_cstr(buf_t *b)
{
	buf_grow(b, 0);
	b->p[b->len] = 0;
	return b->p;
}
