/* termsafe.c — see termsafe.h. */
#include <string.h>

#include "base/alloc.h"
#include "base/termsafe.h"

/* The length of the valid UTF-8 sequence at p (1 to 4), or 0; its code point in *cp. */
static int
utf8_seq(const unsigned char *p, unsigned *cp)
{
	int n;
	unsigned c;
	if (p[0] < 0x80) {
		*cp = p[0];
		return 1;
	} else if (p[0] >= 0xc2 && p[0] <= 0xdf) {
		n = 2, c = p[0] & 0x1f;
	} else if (p[0] >= 0xe0 && p[0] <= 0xef) {
		n = 3, c = p[0] & 0x0f;
	} else if (p[0] >= 0xf0 && p[0] <= 0xf4) {
		n = 4, c = p[0] & 0x07;
	} else {
		return 0;
	}
	for (int i = 1; i < n; i++) {
		if ((p[i] & 0xc0) != 0x80)
			return 0;
		c = c << 6 | (p[i] & 0x3f);
	}
	/* overlong forms, surrogates, past U+10FFFF */
	if ((n == 3 && c < 0x800) || (n == 4 && (c < 0x10000 || c > 0x10ffff)) ||
	    (c >= 0xd800 && c <= 0xdfff))
		return 0;
	*cp = c;
	return n;
}

void
termsafe_add(buf_t *b, const char *s)
{
	const unsigned char *p = (const unsigned char *)(s ? s : "");
	while (*p) {
		unsigned c;
		int n = utf8_seq(p, &c);
		if (n == 0) {
			buf_addf(b, "\\x%02x", *p);
			p++;
			continue;
		}
		if (c < 0x20)
			buf_addf(b, "^%c", (char)(c + '@'));
		else if (c == 0x7f)
			buf_adds(b, "^?");
		else if ((c >= 0x80 && c <= 0x9f) || (c >= 0x202a && c <= 0x202e) ||
		    (c >= 0x2066 && c <= 0x2069))
			buf_addf(b, "\\u%04x", c);
		else
			buf_add(b, (const char *)p, (size_t)n);
		p += n;
	}
	buf_cstr(b);
}

char *
termsafe(const char *s)
{
	buf_t b = {0};
	termsafe_add(&b, s);
	return b.p ? b.p : xstrdup("");
}
