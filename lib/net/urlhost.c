/*
 * urlhost.c — the URL Standard's host parser and serializers (see url.h):
 * IPv6 in brackets, opaque hosts, domains through UTS #46 (libidn2, with
 * url_nv8.h for what IDNA2008 refuses and UTS #46 keeps), IPv4 in every
 * form inet_aton(3) takes.  lib/url.c calls it through url_int.h.
 */
#include <ctype.h>
#include <idn2.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "base/err.h"
#include "net/url.h"
#include "net/url_int.h"
#include "net/url_nv8.h"

#define END (-1)

/* The C0 control percent-encode set, for opaque hosts. */
static void
c0_enc(buf_t *b, unsigned char c)
{
	if (c < 0x20 || c > 0x7e)
		buf_addf(b, "%%%02X", c);
	else
		buf_addc(b, c);
}

static int
hexval(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	c |= 0x20;
	return c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

static void
pct_decode(const char *s, size_t n, buf_t *out)
{
	for (size_t i = 0; i < n; i++) {
		int h, l;
		if (s[i] == '%' && i + 2 < n &&
		    (h = hexval((unsigned char)s[i + 1])) >= 0 && (l = hexval((unsigned char)s[i + 2])) >= 0) {
			buf_addc(out, (char)(h << 4 | l));
			i += 2;
		} else {
			buf_addc(out, s[i]);
		}
	}
	buf_cstr(out);
}

/* ---- hosts ---- */

/* The IPv4 number parser: -1 on failure, else the value (capped). */
static long long
ipv4_number(const char *s, size_t n)
{
	int radix = 10;
	if (n == 0)
		return -1;
	if (n >= 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X'))
		s += 2, n -= 2, radix = 16;
	else if (n >= 2 && s[0] == '0')
		s += 1, n -= 1, radix = 8;
	long long v = 0;
	for (size_t i = 0; i < n; i++) {
		int d = hexval((unsigned char)s[i]);
		if (d < 0 || d >= radix)
			return -1;
		if (v < (1LL << 40))
			v = v * radix + d;
	}
	return v;
}

/* Does the domain end in a number (the standard's "ends in a number")? */
int
urlhost_ends_in_number(const char *s)
{
	size_t n = strlen(s);
	if (n && s[n - 1] == '.') {
		if (!memchr(s, '.', n - 1) && n == 1)
			return 0;
		n--;
	}
	size_t a = n;
	while (a > 0 && s[a - 1] != '.')
		a--;
	if (a == n)
		return 0;
	size_t i;
	for (i = a; i < n && isdigit((unsigned char)s[i]); i++)
		;
	if (i == n)
		return 1;
	return ipv4_number(s + a, n - a) >= 0;
}

static int
ipv4_parse(const char *s, uint32_t *out)
{
	long long num[5];
	int k = 0;
	size_t n = strlen(s);
	if (n && s[n - 1] == '.')
		n--;   /* one trailing dot is allowed */
	for (size_t a = 0;;) {
		size_t e = a;
		while (e < n && s[e] != '.')
			e++;
		if (k == 4)
			return -1;
		if ((num[k++] = ipv4_number(s + a, e - a)) < 0)
			return -1;
		if (e >= n)
			break;
		a = e + 1;
	}
	for (int i = 0; i < k - 1; i++)
		if (num[i] > 255)
			return -1;
	if (num[k - 1] >= 1LL << (8 * (5 - k)))
		return -1;
	uint32_t v = (uint32_t)num[k - 1];
	for (int i = 0; i < k - 1; i++)
		v += (uint32_t)num[i] << (8 * (3 - i));
	*out = v;
	return 0;
}

static int
ipv6_parse(const char *s, size_t n, uint16_t a[8])
{
	int piece = 0, compress = -1;
	size_t p = 0;
	memset(a, 0, 16);
#define C (p < n ? (unsigned char)s[p] : END)
	if (C == ':') {
		if (p + 1 >= n || s[p + 1] != ':')
			return -1;
		p += 2;
		compress = ++piece;
	}
	while (C != END) {
		if (piece == 8)
			return -1;
		if (C == ':') {
			if (compress >= 0)
				return -1;
			p++;
			compress = ++piece;
			continue;
		}
		int value = 0, len = 0;
		while (len < 4 && C != END && hexval(C) >= 0) {
			value = value * 16 + hexval(C);
			p++, len++;
		}
		if (C == '.') {
			if (len == 0)
				return -1;
			p -= len;
			if (piece > 6)
				return -1;
			int seen = 0;
			while (C != END) {
				int v4 = -1;
				if (seen > 0) {
					if (C == '.' && seen < 4)
						p++;
					else
						return -1;
				}
				if (C == END || !isdigit(C))
					return -1;
				while (C != END && isdigit(C)) {
					int d = C - '0';
					if (v4 == -1)
						v4 = d;
					else if (v4 == 0)
						return -1;
					else
						v4 = v4 * 10 + d;
					if (v4 > 255)
						return -1;
					p++;
				}
				a[piece] = a[piece] * 0x100 + v4;
				seen++;
				if (seen == 2 || seen == 4)
					piece++;
			}
			if (seen != 4)
				return -1;
			break;
		} else if (C == ':') {
			p++;
			if (C == END)
				return -1;
		} else if (C != END) {
			return -1;
		}
		a[piece++] = value;
	}
#undef C
	if (compress >= 0) {
		int swaps = piece - compress;
		piece = 7;
		while (piece != 0 && swaps > 0) {
			uint16_t t = a[piece];
			a[piece] = a[compress + swaps - 1];
			a[compress + swaps - 1] = t;
			piece--, swaps--;
		}
	} else if (piece != 8) {
		return -1;
	}
	return 0;
}

static void
ipv6_serialize(const uint16_t a[8], buf_t *b)
{
	int best = -1, bestlen = 1;
	for (int i = 0; i < 8;) {
		int j = i;
		while (j < 8 && a[j] == 0)
			j++;
		if (j - i > bestlen)
			best = i, bestlen = j - i;
		i = j > i ? j : i + 1;
	}
	buf_addc(b, '[');
	int ignore0 = 0;
	for (int i = 0; i < 8; i++) {
		if (ignore0 && a[i] == 0)
			continue;
		ignore0 = 0;
		if (i == best) {
			buf_adds(b, i == 0 ? "::" : ":");
			ignore0 = 1;
			continue;
		}
		buf_addf(b, "%x", a[i]);
		if (i != 7)
			buf_addc(b, ':');
	}
	buf_addc(b, ']');
}

static int
forbidden_host(unsigned char c)
{
	return c == 0 || (c && strchr("\t\n\r #/:<>?@[\\]^|", c));
}

static int
forbidden_domain(unsigned char c)
{
	return forbidden_host(c) || c < 0x20 || c == '%' || c == 0x7f;
}

static int
utf8_valid(const unsigned char *s, size_t n)
{
	for (size_t i = 0; i < n;) {
		unsigned c = s[i], len, cp;
		if (c < 0x80) {
			i++;
			continue;
		}
		if (c >= 0xc2 && c <= 0xdf)
			len = 2, cp = c & 0x1f;
		else if (c >= 0xe0 && c <= 0xef)
			len = 3, cp = c & 0x0f;
		else if (c >= 0xf0 && c <= 0xf4)
			len = 4, cp = c & 0x07;
		else
			return 0;
		if (i + len > n)
			return 0;
		for (unsigned k = 1; k < len; k++) {
			if ((s[i + k] & 0xc0) != 0x80)
				return 0;
			cp = cp << 6 | (s[i + k] & 0x3f);
		}
		if ((len == 3 && (cp < 0x800 || (cp >= 0xd800 && cp <= 0xdfff))) || (len == 4 && (cp < 0x10000 || cp > 0x10ffff)))
			return 0;
		i += len;
	}
	return 1;
}

/* ---- punycode (RFC 3492), for the labels libidn2 refuses alone ---- */

enum { PB = 36, PTMIN = 1, PTMAX = 26, PSKEW = 38, PDAMP = 700, PBIAS = 72, PN = 128, PMAX = 256 };

static unsigned
adapt(unsigned delta, unsigned npoints, int first)
{
	unsigned k = 0;
	delta = first ? delta / PDAMP : delta / 2;
	delta += delta / npoints;
	while (delta > ((PB - PTMIN) * PTMAX) / 2) {
		delta /= PB - PTMIN;
		k += PB;
	}
	return k + (PB - PTMIN + 1) * delta / (delta + PSKEW);
}

static unsigned
threshold(unsigned k, unsigned bias)
{
	return k <= bias ? PTMIN : k >= bias + PTMAX ? PTMAX : k - bias;
}

static void
puny_encode(const unsigned *in, size_t len, buf_t *out)
{
	unsigned n = PN, delta = 0, bias = PBIAS, h, b = 0;
	for (size_t j = 0; j < len; j++)
		if (in[j] < 0x80)
			buf_addc(out, (char)in[j]), b++;
	if (b)
		buf_addc(out, '-');
	for (h = b; h < len; delta++, n++) {
		unsigned m = 0x110000;
		for (size_t j = 0; j < len; j++)
			if (in[j] >= n && in[j] < m)
				m = in[j];
		delta += (m - n) * (h + 1);
		n = m;
		for (size_t j = 0; j < len; j++) {
			if (in[j] < n)
				delta++;
			if (in[j] != n)
				continue;
			unsigned q = delta;
			for (unsigned k = PB;; k += PB) {
				unsigned t = threshold(k, bias);
				if (q < t)
					break;
				unsigned d = t + (q - t) % (PB - t);
				buf_addc(out, d < 26 ? 'a' + d : '0' + d - 26);
				q = (q - t) / (PB - t);
			}
			buf_addc(out, q < 26 ? 'a' + q : '0' + q - 26);
			bias = adapt(delta, h + 1, h == b);
			delta = 0;
			h++;
		}
	}
	buf_cstr(out);
}

/* Decode s (without "xn--") into out[0..*len), at most PMAX; -1 if bad. */
static int
puny_decode(const char *s, unsigned *out, size_t *len)
{
	const char *dash = strrchr(s, '-'), *p = s;
	unsigned n = PN, i = 0, bias = PBIAS;
	size_t o = 0;
	if (dash) {
		for (; p < dash; p++) {
			if ((unsigned char)*p >= 0x80 || o == PMAX)
				return -1;
			out[o++] = (unsigned char)*p;
		}
		p = dash + 1;
	}
	while (*p) {
		unsigned oldi = i, w = 1;
		for (unsigned k = PB;; k += PB) {
			int c = *p ? tolower((unsigned char)*p++) : 0, d;
			if (c >= 'a' && c <= 'z')
				d = c - 'a';
			else if (c >= '0' && c <= '9')
				d = c - '0' + 26;
			else
				return -1;
			if ((unsigned)d > (0xffffffffu - i) / w)
				return -1;
			i += d * w;
			unsigned t = threshold(k, bias);
			if ((unsigned)d < t)
				break;
			if (w > 0xffffffffu / (PB - t))
				return -1;
			w *= PB - t;
		}
		if (o == PMAX)
			return -1;
		bias = adapt(i - oldi, o + 1, oldi == 0);
		n += i / (o + 1);
		i %= o + 1;
		if (n > 0x10ffff)
			return -1;
		memmove(out + i + 1, out + i, (o - i) * sizeof *out);
		out[i++] = n;
		o++;
	}
	*len = o;
	return 0;
}

static size_t
utf8_get(const unsigned char *s, unsigned *cp)
{
	if (s[0] < 0x80)
		return *cp = s[0], 1;
	size_t len = s[0] >= 0xf0 ? 4 : s[0] >= 0xe0 ? 3 : 2;
	*cp = s[0] & (0x7f >> len);
	for (size_t k = 1; k < len; k++)
		*cp = *cp << 6 | (s[k] & 0x3f);
	return len;
}

static void
utf8_put(buf_t *b, unsigned cp)
{
	if (cp < 0x80) {
		buf_addc(b, cp);
	} else if (cp < 0x800) {
		buf_addc(b, 0xc0 | cp >> 6), buf_addc(b, 0x80 | (cp & 0x3f));
	} else if (cp < 0x10000) {
		buf_addc(b, 0xe0 | cp >> 12), buf_addc(b, 0x80 | (cp >> 6 & 0x3f));
		buf_addc(b, 0x80 | (cp & 0x3f));
	} else {
		buf_addc(b, 0xf0 | cp >> 18), buf_addc(b, 0x80 | (cp >> 12 & 0x3f));
		buf_addc(b, 0x80 | (cp >> 6 & 0x3f)), buf_addc(b, 0x80 | (cp & 0x3f));
	}
}

static int
is_nv8(unsigned cp)
{
	size_t lo = 0, hi = sizeof nv8 / sizeof nv8[0];
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		if (cp < nv8[mid].lo)
			hi = mid;
		else if (cp > nv8[mid].hi)
			lo = mid + 1;
		else
			return 1;
	}
	return 0;
}

/*
 * A label libidn2 refused for a rule of IDNA2008 that UTS #46 as the URL
 * Standard runs it does not have: symbols UTS #46 keeps and IDNA2008
 * disallows (url_nv8.h), and hyphens at the start, the end or in places 3
 * and 4 (CheckHyphens is false).  Each such symbol or hyphen is swapped for
 * a distinct CJK ideograph (valid in both, unchanged by mapping and NFC,
 * not in the label), libidn2 maps and checks the rest, and they are put
 * back into its punycode.  (A right-to-left label with such a symbol is
 * still refused: the ideographs are left-to-right, which the Bidi rule
 * forbids there.)
 */
static int
swapped_label(const char *lab, buf_t *out)
{
	unsigned cps[PMAX], orig[PMAX], ph[PMAX];
	size_t n = 0, nph = 0;
	for (const unsigned char *s = (const unsigned char *)lab; *s && n < PMAX;)
		s += utf8_get(s, &cps[n++]);
	buf_t sub = {0};
	unsigned next = 0x4e00;
	for (size_t i = 0; i < n; i++) {
		if (!is_nv8(cps[i]) && cps[i] != '-') {
			utf8_put(&sub, cps[i]);
			continue;
		}
		for (int clash = 1; clash;) {
			clash = 0;
			for (size_t j = 0; j < n; j++)
				clash |= cps[j] == next;
			if (clash)
				next++;
		}
		orig[nph] = cps[i];
		ph[nph++] = next;
		utf8_put(&sub, next++);
	}
	char *res = NULL;
	int rc = -1;
	size_t len;
	if (nph && idn2_to_ascii_8z(buf_cstr(&sub), &res, IDN2_NONTRANSITIONAL) == IDN2_OK &&
	    strncmp(res, "xn--", 4) == 0 && puny_decode(res + 4, cps, &len) == 0) {
		for (size_t i = 0; i < len; i++)
			for (size_t k = 0; k < nph; k++)
				if (cps[i] == ph[k])
					cps[i] = orig[k];
		buf_adds(out, "xn--");
		puny_encode(cps, len, out);
		rc = 0;
	}
	idn2_free(res);
	buf_free(&sub);
	return rc;
}

/* A non-ASCII label through UTS #46 ToASCII (libidn2), appended to out. */
static int
label_to_ascii(const char *l, size_t n, buf_t *out)
{
	char *lab = xstrndup(l, n), *res = NULL;
	int rc = -1, e;
	if (n == 0) {
		rc = 0;   /* an empty label: VerifyDnsLength is false */
	} else if ((e = idn2_to_ascii_8z(lab, &res, IDN2_NONTRANSITIONAL)) == IDN2_OK) {
		buf_adds(out, res);
		rc = 0;
	} else if (e == IDN2_DISALLOWED || e == IDN2_HYPHEN_STARTEND || e == IDN2_2HYPHEN) {
		rc = swapped_label(lab, out);
	}
	idn2_free(res);
	free(lab);
	return rc;
}

/*
 * The standard's "domain to ASCII" with beStrict false: an ASCII domain is
 * only lower-cased (the standard's carve-out: an invalid "xn--" label in it
 * is kept, as browsers do); otherwise each label goes through UTS #46.
 */
static int
domain_to_ascii(const char *d, size_t n, buf_t *out)
{
	int ascii = 1;
	for (size_t i = 0; i < n; i++)
		if ((unsigned char)d[i] >= 0x80)
			ascii = 0;
	if (ascii) {
		for (size_t i = 0; i < n; i++)
			buf_addc(out, tolower((unsigned char)d[i]));
	} else {
		/* labels end at "." and at the three dots UTS #46 maps to it */
		static const char *const dots[] = {"\xe3\x80\x82", "\xef\xbc\x8e", "\xef\xbd\xa1"};
		for (size_t i = 0, a = 0; i <= n;) {
			size_t dl = i == n || d[i] == '.';
			for (int k = 0; k < 3 && !dl; k++)
				if (i + 3 <= n && memcmp(d + i, dots[k], 3) == 0)
					dl = 3;
			if (!dl) {
				i++;
				continue;
			}
			if (label_to_ascii(d + a, i - a, out) < 0)
				return -1;
			if (i == n)
				break;
			buf_addc(out, '.');
			i += dl;
			a = i;
		}
	}
	buf_cstr(out);
	if (out->len == 0)
		return -1;
	for (size_t i = 0; i < out->len; i++)
		if (forbidden_domain((unsigned char)out->p[i]))
			return -1;
	return 0;
}

int
urlhost_parse(urlhost_t *u, const char *s, size_t n, int opaque, const char **why)
{
	buf_reset(&u->text);
	if (n && s[0] == '[') {
		if (s[n - 1] != ']' || ipv6_parse(s + 1, n - 2, u->v6) < 0) {
			*why = "invalid IPv6 address";
			return -1;
		}
		u->kind = URL_HOST_IPV6;
		ipv6_serialize(u->v6, &u->text);
		return 0;
	}
	if (opaque) {
		for (size_t i = 0; i < n; i++)
			if (forbidden_host((unsigned char)s[i])) {
				*why = "a forbidden character in the host";
				return -1;
			}
		for (size_t i = 0; i < n; i++)
			c0_enc(&u->text, s[i]);
		buf_cstr(&u->text);
		u->kind = n ? URL_HOST_OPAQUE : URL_HOST_EMPTY;
		return 0;
	}
	buf_t d = {0};
	pct_decode(s, n, &d);
	int rc = -1;
	*why = "invalid host";
	if (utf8_valid((unsigned char *)d.p, d.len) && domain_to_ascii(d.p, d.len, &u->text) == 0) {
		rc = 0;
		u->kind = URL_HOST_DOMAIN;
		if (urlhost_ends_in_number(u->text.p)) {
			if (ipv4_parse(u->text.p, &u->v4) < 0) {
				*why = "invalid IPv4 address";
				rc = -1;
			} else {
				u->kind = URL_HOST_IPV4;
				buf_reset(&u->text);
				buf_addf(&u->text, "%u.%u.%u.%u", u->v4 >> 24, u->v4 >> 16 & 255, u->v4 >> 8 & 255,
				    u->v4 & 255);
			}
		}
	}
	buf_free(&d);
	return rc;
}

