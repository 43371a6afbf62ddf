/*
 * url.c — see url.h.  The state machine follows the URL Standard's "basic
 * URL parser" state by state (names in the comments are the standard's);
 * it walks the input byte by byte, which is the same as code point by code
 * point here: every delimiter is ASCII, and every byte of a non-ASCII
 * character is percent-encoded by every set.
 */
#include <ctype.h>
#include <idn2.h>
#include <libpsl.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "buf.h"
#include "err.h"
#include "url.h"
#include "url_nv8.h"

#define URL_MAX 65535
#define END (-1)

/* A URL record while it is built. */
typedef struct {
	buf_t scheme, user, pass, host;
	int has_host, kind, port;
	uint32_t v4;
	uint16_t v6[8];
	int opaque;           /* an opaque path, in opath */
	buf_t opath;
	char **seg;           /* the path's segments */
	size_t nseg, capseg;
	buf_t query, frag;
	int has_query, has_frag;
} rec_url_t;

/* buf_add(), for a source that may be an empty buffer's NULL. */
static void
bput(buf_t *b, const void *p, size_t n)
{
	if (n)
		buf_add(b, p, n);
}

/* ---- percent-encode sets ---- */

enum { SET_C0, SET_FRAG, SET_QUERY, SET_SQUERY, SET_PATH, SET_USERINFO };

static int
in_set(int set, unsigned char c)
{
	if (c < 0x20 || c > 0x7e)
		return 1;
	switch (set) {
	case SET_C0: return 0;
	case SET_FRAG: return strchr(" \"<>`", c) != NULL;
	case SET_QUERY: return strchr(" \"#<>", c) != NULL;
	case SET_SQUERY: return strchr(" \"#<>'", c) != NULL;
	case SET_PATH: return strchr(" \"#<>?^`{}", c) != NULL;
	default: return strchr(" \"#<>?^`{}/:;=@[\\]|", c) != NULL;
	}
}

static void
add_enc(buf_t *b, int set, unsigned char c)
{
	static const char hex[] = "0123456789ABCDEF";
	if (in_set(set, c)) {
		char e[3] = {'%', hex[c >> 4], hex[c & 15]};
		bput(b, e, 3);
	} else {
		buf_addc(b, c);
	}
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

/* ---- schemes ---- */

static int
default_port(const char *scheme)
{
	static const struct { const char *s; int port; } t[] = {
		{"http", 80}, {"https", 443}, {"ws", 80}, {"wss", 443}, {"ftp", 21}, {"file", -1},
	};
	for (size_t i = 0; i < sizeof t / sizeof t[0]; i++)
		if (strcmp(scheme, t[i].s) == 0)
			return t[i].port;
	return -2;   /* not special */
}

static int
special(const rec_url_t *u)
{
	return default_port(u->scheme.p ? u->scheme.p : "") != -2;
}

static int
is_file(const rec_url_t *u)
{
	return u->scheme.p && strcmp(u->scheme.p, "file") == 0;
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
static int
ends_in_number(const char *s)
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

/* The host parser: fills u's host, or -1 with *why. */
static int
host_parse(rec_url_t *u, const char *s, size_t n, int opaque, const char **why)
{
	buf_reset(&u->host);
	u->has_host = 1;
	if (n && s[0] == '[') {
		if (s[n - 1] != ']' || ipv6_parse(s + 1, n - 2, u->v6) < 0) {
			*why = "invalid IPv6 address";
			return -1;
		}
		u->kind = URL_HOST_IPV6;
		ipv6_serialize(u->v6, &u->host);
		return 0;
	}
	if (opaque) {
		for (size_t i = 0; i < n; i++)
			if (forbidden_host((unsigned char)s[i])) {
				*why = "a forbidden character in the host";
				return -1;
			}
		for (size_t i = 0; i < n; i++)
			add_enc(&u->host, SET_C0, s[i]);
		buf_cstr(&u->host);
		u->kind = n ? URL_HOST_OPAQUE : URL_HOST_EMPTY;
		return 0;
	}
	buf_t d = {0};
	pct_decode(s, n, &d);
	int rc = -1;
	*why = "invalid host";
	if (utf8_valid((unsigned char *)d.p, d.len) && domain_to_ascii(d.p, d.len, &u->host) == 0) {
		rc = 0;
		u->kind = URL_HOST_DOMAIN;
		if (ends_in_number(u->host.p)) {
			if (ipv4_parse(u->host.p, &u->v4) < 0) {
				*why = "invalid IPv4 address";
				rc = -1;
			} else {
				u->kind = URL_HOST_IPV4;
				buf_reset(&u->host);
				buf_addf(&u->host, "%u.%u.%u.%u", u->v4 >> 24, u->v4 >> 16 & 255, u->v4 >> 8 & 255,
				    u->v4 & 255);
			}
		}
	}
	buf_free(&d);
	return rc;
}

/* ---- paths ---- */

static void
seg_push(rec_url_t *u, const char *s, size_t n)
{
	if (u->nseg == u->capseg) {
		u->capseg = u->capseg ? 2 * u->capseg : 8;
		u->seg = xrealloc(u->seg, u->capseg * sizeof *u->seg);
	}
	u->seg[u->nseg++] = xstrndup(s, n);
}

static int
drive_letter(const char *s, size_t n, int normalized)
{
	return n == 2 && isalpha((unsigned char)s[0]) && (s[1] == ':' || (!normalized && s[1] == '|'));
}

static int
starts_with_drive(const char *s, size_t n)
{
	return n >= 2 && drive_letter(s, 2, 0) && (n == 2 || strchr("/\\?#", s[2]));
}

static void
shorten(rec_url_t *u)
{
	if (is_file(u) && u->nseg == 1 && drive_letter(u->seg[0], strlen(u->seg[0]), 1))
		return;
	if (u->nseg)
		free(u->seg[--u->nseg]);
}

static int
single_dot(const char *s)
{
	return !strcmp(s, ".") || !strcasecmp(s, "%2e");
}

static int
double_dot(const char *s)
{
	return !strcmp(s, "..") || !strcasecmp(s, ".%2e") || !strcasecmp(s, "%2e.") || !strcasecmp(s, "%2e%2e");
}

/* ---- the record ---- */

static void
rec_clear(rec_url_t *u)
{
	buf_free(&u->scheme), buf_free(&u->user), buf_free(&u->pass), buf_free(&u->host);
	buf_free(&u->opath), buf_free(&u->query), buf_free(&u->frag);
	for (size_t i = 0; i < u->nseg; i++)
		free(u->seg[i]);
	free(u->seg);
	memset(u, 0, sizeof *u);
	u->port = -1;
}

static void
buf_set(buf_t *dst, const buf_t *src)
{
	buf_reset(dst);
	bput(dst, src->p ? src->p : "", src->len);
	buf_cstr(dst);
}

static void
copy_authority(rec_url_t *u, const rec_url_t *b)
{
	buf_set(&u->user, &b->user);
	buf_set(&u->pass, &b->pass);
	buf_set(&u->host, &b->host);
	u->has_host = b->has_host, u->kind = b->kind, u->v4 = b->v4;
	memcpy(u->v6, b->v6, sizeof u->v6);
	u->port = b->port;
}

static void
copy_path(rec_url_t *u, const rec_url_t *b)
{
	for (size_t i = 0; i < u->nseg; i++)
		free(u->seg[i]);
	u->nseg = 0;
	for (size_t i = 0; i < b->nseg; i++)
		seg_push(u, b->seg[i], strlen(b->seg[i]));
}

static void
copy_query(rec_url_t *u, const rec_url_t *b)
{
	buf_set(&u->query, &b->query);
	u->has_query = b->has_query;
}

enum state {
	S_SCHEME_START, S_SCHEME, S_NO_SCHEME, S_SPECIAL_RELATIVE_OR_AUTHORITY, S_PATH_OR_AUTHORITY,
	S_RELATIVE, S_RELATIVE_SLASH, S_SPECIAL_AUTHORITY_SLASHES, S_SPECIAL_AUTHORITY_IGNORE_SLASHES,
	S_AUTHORITY, S_HOST, S_PORT, S_FILE, S_FILE_SLASH, S_FILE_HOST, S_PATH_START, S_PATH,
	S_OPAQUE_PATH, S_QUERY, S_FRAGMENT,
};

/* The basic URL parser over in[0..n) (already trimmed), base or NULL. */
static int
parse(const char *in, size_t n, const rec_url_t *base, rec_url_t *u, const char **why)
{
	buf_t buf = {0};
	enum state st = S_SCHEME_START;
	int at_seen = 0, inside_brackets = 0, pass_seen = 0, rc = -1;
	size_t p = 0;
	memset(u, 0, sizeof *u);
	u->port = -1;
	buf_cstr(&u->scheme);
	for (;; p++) {
		int c = p < n ? (unsigned char)in[p] : END;
		const char *rest = p < n ? in + p + 1 : in + n;
		size_t nrest = p < n ? n - p - 1 : 0;
		int sp = special(u), slash = c == '/' || (sp && c == '\\');
		switch (st) {
		case S_SCHEME_START:
			if (c != END && isalpha(c)) {
				buf_addc(&buf, tolower(c));
				st = S_SCHEME;
			} else {
				st = S_NO_SCHEME;
				p--;
			}
			break;
		case S_SCHEME:
			if (c != END && (isalnum(c) || c == '+' || c == '-' || c == '.')) {
				buf_addc(&buf, tolower(c));
			} else if (c == ':') {
				buf_set(&u->scheme, &buf);
				buf_reset(&buf);
				if (is_file(u)) {
					st = S_FILE;
				} else if (special(u) && base && strcmp(base->scheme.p, u->scheme.p) == 0) {
					st = S_SPECIAL_RELATIVE_OR_AUTHORITY;
				} else if (special(u)) {
					st = S_SPECIAL_AUTHORITY_SLASHES;
				} else if (nrest && rest[0] == '/') {
					st = S_PATH_OR_AUTHORITY;
					p++;
				} else {
					u->opaque = 1;
					buf_cstr(&u->opath);
					st = S_OPAQUE_PATH;
				}
			} else {
				buf_reset(&buf);
				st = S_NO_SCHEME;
				p = (size_t)-1;
			}
			break;
		case S_NO_SCHEME:
			if (!base || (base->opaque && c != '#')) {
				*why = base ? "a relative URL against a base that cannot have one" : "not an absolute URL (no scheme)";
				goto out;
			} else if (base->opaque && c == '#') {
				buf_set(&u->scheme, &base->scheme);
				u->opaque = 1;
				buf_set(&u->opath, &base->opath);
				copy_query(u, base);
				u->has_frag = 1;
				buf_cstr(&u->frag);
				st = S_FRAGMENT;
			} else if (strcmp(base->scheme.p, "file") != 0) {
				st = S_RELATIVE;
				p--;
			} else {
				st = S_FILE;
				p--;
			}
			break;
		case S_SPECIAL_RELATIVE_OR_AUTHORITY:
			if (c == '/' && nrest && rest[0] == '/') {
				st = S_SPECIAL_AUTHORITY_IGNORE_SLASHES;
				p++;
			} else {
				st = S_RELATIVE;
				p--;
			}
			break;
		case S_PATH_OR_AUTHORITY:
			if (c == '/')
				st = S_AUTHORITY;
			else {
				st = S_PATH;
				p--;
			}
			break;
		case S_RELATIVE:
			buf_set(&u->scheme, &base->scheme);
			sp = special(u);
			if (c == '/' || (sp && c == '\\')) {
				st = S_RELATIVE_SLASH;
			} else {
				copy_authority(u, base);
				copy_path(u, base);
				copy_query(u, base);
				if (c == '?') {
					buf_reset(&u->query);
					u->has_query = 1;
					st = S_QUERY;
				} else if (c == '#') {
					u->has_frag = 1;
					st = S_FRAGMENT;
				} else if (c != END) {
					u->has_query = 0;
					buf_reset(&u->query);
					shorten(u);
					st = S_PATH;
					p--;
				}
			}
			break;
		case S_RELATIVE_SLASH:
			if (sp && (c == '/' || c == '\\')) {
				st = S_SPECIAL_AUTHORITY_IGNORE_SLASHES;
			} else if (c == '/') {
				st = S_AUTHORITY;
			} else {
				copy_authority(u, base);
				st = S_PATH;
				p--;
			}
			break;
		case S_SPECIAL_AUTHORITY_SLASHES:
			st = S_SPECIAL_AUTHORITY_IGNORE_SLASHES;
			if (c == '/' && nrest && rest[0] == '/')
				p++;
			else
				p--;
			break;
		case S_SPECIAL_AUTHORITY_IGNORE_SLASHES:
			if (c != '/' && c != '\\') {
				st = S_AUTHORITY;
				p--;
			}
			break;
		case S_AUTHORITY:
			if (c == '@') {
				buf_t b = {0};
				if (at_seen)
					buf_adds(&b, "%40");
				bput(&b, buf.p, buf.len);
				at_seen = 1;
				for (size_t i = 0; i < b.len; i++) {
					if (b.p[i] == ':' && !pass_seen) {
						pass_seen = 1;
						continue;
					}
					add_enc(pass_seen ? &u->pass : &u->user, SET_USERINFO, b.p[i]);
				}
				buf_free(&b);
				buf_reset(&buf);
			} else if (c == END || slash || c == '?' || c == '#') {
				if (at_seen && buf.len == 0) {
					*why = "credentials but no host";
					goto out;
				}
				p -= buf.len + 1;
				buf_reset(&buf);
				st = S_HOST;
			} else {
				buf_addc(&buf, c);
			}
			break;
		case S_HOST:
			if (c == ':' && !inside_brackets) {
				if (buf.len == 0) {
					*why = "empty host";
					goto out;
				}
				if (host_parse(u, buf.p, buf.len, !sp, why) < 0)
					goto out;
				buf_reset(&buf);
				st = S_PORT;
			} else if (c == END || slash || c == '?' || c == '#') {
				p--;
				if (sp && buf.len == 0) {
					*why = "empty host";
					goto out;
				}
				if (host_parse(u, buf.p ? buf.p : "", buf.len, !sp, why) < 0)
					goto out;
				buf_reset(&buf);
				st = S_PATH_START;
			} else {
				if (c == '[')
					inside_brackets = 1;
				if (c == ']')
					inside_brackets = 0;
				buf_addc(&buf, c);
			}
			break;
		case S_PORT:
			if (c != END && isdigit(c)) {
				buf_addc(&buf, c);
			} else if (c == END || slash || c == '?' || c == '#') {
				if (buf.len) {
					long port = 0;
					for (size_t i = 0; i < buf.len && port <= 65535; i++)
						port = port * 10 + (buf.p[i] - '0');
					if (port > 65535) {
						*why = "not a valid port (above 65535)";
						goto out;
					}
					u->port = port == default_port(u->scheme.p) ? -1 : (int)port;
					buf_reset(&buf);
				}
				st = S_PATH_START;
				p--;
			} else {
				*why = "not a valid port";
				goto out;
			}
			break;
		case S_FILE:
			buf_reset(&u->scheme);
			buf_adds(&u->scheme, "file");
			buf_reset(&u->host);
			buf_cstr(&u->host);
			u->has_host = 1, u->kind = URL_HOST_EMPTY;
			if (c == '/' || c == '\\') {
				st = S_FILE_SLASH;
			} else if (base && strcmp(base->scheme.p, "file") == 0) {
				copy_authority(u, base);
				copy_path(u, base);
				copy_query(u, base);
				if (c == '?') {
					buf_reset(&u->query);
					u->has_query = 1;
					st = S_QUERY;
				} else if (c == '#') {
					u->has_frag = 1;
					st = S_FRAGMENT;
				} else if (c != END) {
					u->has_query = 0;
					buf_reset(&u->query);
					if (!starts_with_drive(in + p, n - p))
						shorten(u);
					else
						copy_path(u, &(rec_url_t){0});
					st = S_PATH;
					p--;
				}
			} else {
				st = S_PATH;
				p--;
			}
			break;
		case S_FILE_SLASH:
			if (c == '/' || c == '\\') {
				st = S_FILE_HOST;
			} else {
				if (base && strcmp(base->scheme.p, "file") == 0) {
					buf_set(&u->host, &base->host);
					u->kind = base->kind;
					if (!starts_with_drive(in + p, p < n ? n - p : 0) && base->nseg &&
					    drive_letter(base->seg[0], strlen(base->seg[0]), 1))
						seg_push(u, base->seg[0], strlen(base->seg[0]));
				}
				st = S_PATH;
				p--;
			}
			break;
		case S_FILE_HOST:
			if (c == END || c == '/' || c == '\\' || c == '?' || c == '#') {
				p--;
				if (drive_letter(buf.p, buf.len, 0)) {
					st = S_PATH;   /* the buffer is kept: the path state uses it */
				} else if (buf.len == 0) {
					buf_reset(&u->host);
					u->kind = URL_HOST_EMPTY;
					st = S_PATH_START;
				} else {
					if (host_parse(u, buf.p, buf.len, 0, why) < 0)
						goto out;
					if (strcmp(u->host.p, "localhost") == 0) {
						buf_reset(&u->host);
						u->kind = URL_HOST_EMPTY;
					}
					buf_reset(&buf);
					st = S_PATH_START;
				}
			} else {
				buf_addc(&buf, c);
			}
			break;
		case S_PATH_START:
			if (sp) {
				st = S_PATH;
				if (c != '/' && c != '\\')
					p--;
			} else if (c == '?') {
				u->has_query = 1;
				st = S_QUERY;
			} else if (c == '#') {
				u->has_frag = 1;
				st = S_FRAGMENT;
			} else if (c != END) {
				st = S_PATH;
				if (c != '/')
					p--;
			}
			break;
		case S_PATH:
			if (c == END || slash || c == '?' || c == '#') {
				buf_cstr(&buf);
				if (double_dot(buf.p)) {
					shorten(u);
					if (!slash)
						seg_push(u, "", 0);
				} else if (single_dot(buf.p) && !slash) {
					seg_push(u, "", 0);
				} else if (!single_dot(buf.p)) {
					if (is_file(u) && u->nseg == 0 && drive_letter(buf.p, buf.len, 0))
						buf.p[1] = ':';
					seg_push(u, buf.p, buf.len);
				}
				buf_reset(&buf);
				if (c == '?') {
					u->has_query = 1;
					st = S_QUERY;
				} else if (c == '#') {
					u->has_frag = 1;
					st = S_FRAGMENT;
				}
			} else {
				add_enc(&buf, SET_PATH, c);
			}
			break;
		case S_OPAQUE_PATH:
			if (c == '?') {
				u->has_query = 1;
				st = S_QUERY;
			} else if (c == '#') {
				u->has_frag = 1;
				st = S_FRAGMENT;
			} else if (c == ' ') {
				if (nrest && (rest[0] == '?' || rest[0] == '#'))
					buf_adds(&u->opath, "%20");
				else
					buf_addc(&u->opath, ' ');
			} else if (c != END) {
				add_enc(&u->opath, SET_C0, c);
			}
			break;
		case S_QUERY:
			if (c == '#' || c == END) {
				for (size_t i = 0; i < buf.len; i++)
					add_enc(&u->query, sp ? SET_SQUERY : SET_QUERY, buf.p[i]);
				buf_reset(&buf);
				if (c == '#') {
					u->has_frag = 1;
					st = S_FRAGMENT;
				}
			} else {
				buf_addc(&buf, c);
			}
			break;
		case S_FRAGMENT:
			if (c != END)
				add_enc(&u->frag, SET_FRAG, c);
			break;
		}
		if (p == n)
			break;   /* the pointer is at EOF after this run */
	}
	rc = 0;
out:
	buf_free(&buf);
	return rc;
}

/* The standard's URL serializer (with the fragment). */
static void
serialize(const rec_url_t *u, buf_t *b)
{
	buf_adds(b, u->scheme.p);
	buf_addc(b, ':');
	if (u->has_host) {
		buf_adds(b, "//");
		if (u->user.len || u->pass.len) {
			bput(b, u->user.p, u->user.len);
			if (u->pass.len) {
				buf_addc(b, ':');
				bput(b, u->pass.p, u->pass.len);
			}
			buf_addc(b, '@');
		}
		bput(b, u->host.p, u->host.len);
		if (u->port >= 0)
			buf_addf(b, ":%d", u->port);
	}
	if (u->opaque) {
		bput(b, u->opath.p, u->opath.len);
	} else {
		if (!u->has_host && u->nseg > 1 && u->seg[0][0] == 0)
			buf_adds(b, "/.");
		for (size_t i = 0; i < u->nseg; i++) {
			buf_addc(b, '/');
			buf_adds(b, u->seg[i]);
		}
	}
	if (u->has_query) {
		buf_addc(b, '?');
		bput(b, u->query.p, u->query.len);
	}
	if (u->has_frag) {
		buf_addc(b, '#');
		bput(b, u->frag.p, u->frag.len);
	}
	buf_cstr(b);
}

static int
is_c0_or_space(unsigned char c)
{
	return c <= 0x20;
}

/* Trim C0 controls and spaces, drop tab and newlines; then parse. */
static int
parse_input(const char *in, size_t n, const rec_url_t *base, rec_url_t *u, const char **why)
{
	size_t a = 0;
	while (a < n && is_c0_or_space(in[a]))
		a++;
	while (n > a && is_c0_or_space(in[n - 1]))
		n--;
	buf_t clean = {0};
	for (size_t i = a; i < n; i++)
		if (in[i] != '\t' && in[i] != '\n' && in[i] != '\r')
			buf_addc(&clean, in[i]);
	buf_cstr(&clean);
	int rc = parse(clean.p, clean.len, base, u, why);
	buf_free(&clean);
	if (rc < 0)
		rec_clear(u);
	return rc;
}

static char *
take(const buf_t *b)
{
	return xstrdup(b->p ? b->p : "");
}

static void
fill(const rec_url_t *r, url_t *out)
{
	buf_t b = {0};
	serialize(r, &b);
	out->href = b.p;
	out->scheme = take(&r->scheme);
	out->username = take(&r->user);
	out->password = take(&r->pass);
	out->host = r->has_host ? take(&r->host) : NULL;
	out->host_kind = r->has_host ? r->kind : URL_HOST_NONE;
	out->ipv4 = r->v4;
	memcpy(out->ipv6, r->v6, sizeof out->ipv6);
	out->port = r->port;
	buf_t path = {0};
	if (r->opaque) {
		bput(&path, r->opath.p, r->opath.len);
	} else {
		for (size_t i = 0; i < r->nseg; i++) {
			buf_addc(&path, '/');
			buf_adds(&path, r->seg[i]);
		}
	}
	out->path = xstrdup(buf_cstr(&path));
	buf_free(&path);
	out->query = r->has_query ? take(&r->query) : NULL;
	out->fragment = r->has_frag ? take(&r->frag) : NULL;
}

int
url_parse_anyn(const char *input, size_t n, const char *base, url_t *out, const char **why)
{
	rec_url_t b, u;
	const char *dummy;
	memset(out, 0, sizeof *out);
	out->port = -1;
	if (!why)
		why = &dummy;
	if (base && parse_input(base, strlen(base), NULL, &b, why) < 0) {
		*why = "the base URL is not valid";
		return -1;
	}
	int rc = parse_input(input, n, base ? &b : NULL, &u, why);
	if (rc == 0) {
		fill(&u, out);
		rec_clear(&u);
	}
	if (base)
		rec_clear(&b);
	return rc;
}

int
url_parse_any(const char *input, const char *base, url_t *out, const char **why)
{
	return url_parse_anyn(input, strlen(input), base, out, why);
}

int
url_parse(const char *input, const char *base, url_t *out, const char **why)
{
	const char *dummy;
	if (!why)
		why = &dummy;
	if (url_parse_any(input, base, out, why) < 0)
		return -1;
	const char *bad = NULL;
	if (strcmp(out->scheme, "file") == 0)
		bad = "file: URLs are not archived (no plugin fetches them; want http or https)";
	else if (strcmp(out->scheme, "http") != 0 && strcmp(out->scheme, "https") != 0)
		bad = "the scheme is not archived (want http or https)";
	else if (strlen(out->href) > URL_MAX)
		bad = "longer than 65535 bytes";
	if (bad) {
		*why = bad;
		url_free(out);
		return -1;
	}
	return 0;
}

void
url_free(url_t *u)
{
	free(u->href), free(u->scheme), free(u->username), free(u->password), free(u->host);
	free(u->path), free(u->query), free(u->fragment);
	memset(u, 0, sizeof *u);
	u->port = -1;
}

char *
url_canon(const char *input, const char *base, const char **why)
{
	url_t u;
	if (url_parse(input, base, &u, why) < 0)
		return NULL;
	char *h = u.href;
	if (u.fragment)   /* the fragment may hold '#' itself */
		h[strlen(h) - strlen(u.fragment) - 1] = 0;
	u.href = NULL;
	url_free(&u);
	return h;
}

int
url_registrable_domain(const char *host, char *out, size_t n)
{
	const psl_ctx_t *psl = psl_builtin();   /* the list libpsl was built with */
	if (!host || !*host || !psl || host[0] == '[' || ends_in_number(host))
		return -1;
	const char *r = psl_registrable_domain(psl, host);
	if (!r || strlen(r) >= n)
		return -1;
	memcpy(out, r, strlen(r) + 1);
	return 0;
}

const char *
url_check(char *u)
{
	size_t n = strlen(u);
	while (n && isspace((unsigned char)u[n - 1]))
		u[--n] = 0;
	size_t lead = 0;
	while (lead < n && isspace((unsigned char)u[lead]))
		lead++;
	memmove(u, u + lead, n - lead + 1);
	if (!*u)
		return "empty";
	url_t p;
	const char *why = NULL;
	if (url_parse(u, NULL, &p, &why) < 0)
		return why;
	url_free(&p);
	return NULL;
}

void
url_host(const char *url, char *out, unsigned n)
{
	url_t u;
	if (n == 0)
		return;
	out[0] = 0;
	if (url_parse_any(url, NULL, &u, NULL) < 0)
		return;
	if (u.host) {
		if (u.port >= 0)
			snprintf(out, n, "%s:%d", u.host, u.port);
		else
			snprintf(out, n, "%s", u.host);
	}
	url_free(&u);
}
