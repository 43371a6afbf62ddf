/*
 * url.c — see url.h.  The state machine follows the URL Standard's "basic
 * URL parser" state by state (names in the comments are the standard's);
 * it walks the input byte by byte, which is the same as code point by code
 * point here: every delimiter is ASCII, and every byte of a non-ASCII
 * character is percent-encoded by every set.  Hosts are lib/urlhost.c's.
 */
#include <ctype.h>
#include <libpsl.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "base/buf.h"
#include "base/err.h"
#include "net/url.h"
#include "net/url_int.h"

#define URL_MAX 65535
#define END (-1)

/* A URL record while it is built. */
typedef struct {
	buf_t scheme, user, pass;
	urlhost_t h;          /* the host, when has_host */
	int has_host, port;
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

/* The host parser into u (url_int.h). */
static int
host_parse(rec_url_t *u, const char *s, size_t n, int opaque, const char **why)
{
	u->has_host = 1;
	return urlhost_parse(&u->h, s, n, opaque, why);
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
	buf_free(&u->scheme), buf_free(&u->user), buf_free(&u->pass), buf_free(&u->h.text);
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
	buf_set(&u->h.text, &b->h.text);
	u->has_host = b->has_host, u->h.kind = b->h.kind, u->h.v4 = b->h.v4;
	memcpy(u->h.v6, b->h.v6, sizeof u->h.v6);
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
			buf_reset(&u->h.text);
			buf_cstr(&u->h.text);
			u->has_host = 1, u->h.kind = URL_HOST_EMPTY;
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
					buf_set(&u->h.text, &base->h.text);
					u->h.kind = base->h.kind;
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
					buf_reset(&u->h.text);
					u->h.kind = URL_HOST_EMPTY;
					st = S_PATH_START;
				} else {
					if (host_parse(u, buf.p, buf.len, 0, why) < 0)
						goto out;
					if (strcmp(u->h.text.p, "localhost") == 0) {
						buf_reset(&u->h.text);
						u->h.kind = URL_HOST_EMPTY;
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
		bput(b, u->h.text.p, u->h.text.len);
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
	out->host = r->has_host ? take(&r->h.text) : NULL;
	out->host_kind = r->has_host ? r->h.kind : URL_HOST_NONE;
	out->ipv4 = r->h.v4;
	memcpy(out->ipv6, r->h.v6, sizeof out->ipv6);
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
	if (!host || !*host || !psl || host[0] == '[' || urlhost_ends_in_number(host))
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
