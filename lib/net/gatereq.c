/*
 * gatereq.c — the egress gate's HTTP heads (gate_int.h, gate.h).
 *
 * The request.  A head ends at an empty line (CRLF, or a bare LF, which
 * RFC 9112 lets a recipient take for one); one longer than GATE_HEAD_MAX
 * is answered 431.  The request line is "METHOD TARGET HTTP/1.x":
 *   - CONNECT takes "host:port" (an IPv6 literal in brackets);
 *   - any other method takes an absolute http URL, "http://host[:port]/p";
 *     origin form ("/p", a request to the gate itself) or "*" gets 400,
 *     another scheme 501 (https goes through CONNECT), userinfo or a
 *     backslash in the authority 400 (no client sends them; a browser and
 *     a server could read them differently).
 * A host is an IPv6 literal in brackets or letters, digits, '.', '-', '_'
 * (lower-cased here); gateconn.c decides what it names.
 *
 * The head sent to the server: "METHOD /p HTTP/1.x", "Host:" the URL's
 * authority, the client's other header lines as they were, less the
 * hop-by-hop ones (Connection and the names it lists, Keep-Alive,
 * Proxy-*, TE, Trailer, Upgrade) and its own Host, then
 * "Connection: close".  A header line folded onto the next (obs-fold),
 * without a name, or with a control character (a bare CR) gets 400, and
 * so does a control character or a space in the target.  Transfer-Encoding and Content-Length are kept:
 * the body is relayed as it comes.
 *
 * The response.  The server's head is rewritten the same way (its
 * Connection, Keep-Alive and Proxy-Connection dropped, "Connection: close"
 * added) so that a client does not send a second request on the
 * connection; 1xx heads pass as they are; a response that does not begin
 * "HTTP/", or whose head is longer than GATE_HEAD_MAX, passes untouched.
 *
 * The page chain: the page's URL and every Location answered (3xx) to a
 * URL of the chain, canonical (url_canon), at most GATE_CHAIN_MAX.  A
 * CONNECT is the page's when its host:port is that of an https URL of the
 * chain.
 */
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>

#include "base/alloc.h"
#include "net/gate_int.h"
#include "net/url.h"

/* ------------------------------------------------------------ heads */

/* The length of the head at the start of p[0..n) (through its empty
 * line), or 0 if it has not ended. */
static size_t
head_end(const char *p, size_t n, size_t from)
{
	for (size_t i = from; i < n; i++) {
		if (p[i] != '\n')
			continue;
		if (i + 1 < n && p[i + 1] == '\n')
			return i + 2;
		if (i + 2 < n && p[i + 1] == '\r' && p[i + 2] == '\n')
			return i + 3;
	}
	return 0;
}

int
gate_read_head(int fd, buf_t *in, size_t *headlen)
{
	size_t from = 0;
	for (;;) {
		size_t e = head_end(in->p ? in->p : "", in->len, from);
		if (e && e <= GATE_HEAD_MAX) {
			*headlen = e;
			return 0;
		}
		if (e || in->len > GATE_HEAD_MAX)
			return 431;
		from = in->len > 3 ? in->len - 3 : 0;
		buf_grow(in, 16384);
		ssize_t n = recv(fd, in->p + in->len, in->cap - in->len - 1, 0);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -1;
		in->len += (size_t)n;
		in->p[in->len] = 0;
	}
}

/* The next line of *s (CR LF or LF cut off, NUL-terminated in place). */
static char *
next_line(char **s)
{
	char *l = *s, *e = strchr(l, '\n');
	if (e) {
		*s = e + 1;
		*e = 0;
	} else {
		*s = l + strlen(l);
	}
	size_t n = strlen(l);
	if (n && l[n - 1] == '\r')
		l[n - 1] = 0;
	return l;
}

static int
is_tchar(int c)
{
	return c > 0x20 && c < 0x7f && !strchr("\"(),/:;<=>?@[\\]{}", c);
}

/* The length of the header name at the start of l, with ':' after it; 0
 * if l is not a header line. */
static size_t
header_name(const char *l)
{
	size_t n = 0;
	while (is_tchar((unsigned char)l[n]))
		n++;
	return n && l[n] == ':' ? n : 0;
}

static int
name_is(const char *l, size_t n, const char *name)
{
	return strlen(name) == n && strncasecmp(l, name, n) == 0;
}

/* Is header name l[0..n) in list, a comma-separated list of names? */
static int
listed(const char *l, size_t n, const char *list)
{
	for (const char *p = list; *p;) {
		p += strspn(p, " \t,");
		size_t k = strcspn(p, " \t,");
		if (k == n && strncasecmp(p, l, n) == 0)
			return 1;
		p += k;
	}
	return 0;
}

static int
hop_by_hop(const char *l, size_t n, const char *connection)
{
	static const char *const hop[] = {"connection", "keep-alive", "te", "trailer", "upgrade", "host"};
	for (size_t i = 0; i < sizeof hop / sizeof hop[0]; i++)
		if (name_is(l, n, hop[i]))
			return 1;
	return (n >= 6 && strncasecmp(l, "proxy-", 6) == 0) || listed(l, n, connection);
}

/* ------------------------------------------------------------ request */

/* host[:port] of s[0..n) into r; dflt if no port (-1: a port is needed). */
static int
parse_authority(const char *s, size_t n, int dflt, gate_req_t *r)
{
	size_t h;
	if (n && s[0] == '[') {
		const char *e = memchr(s, ']', n);
		if (!e)
			return (r->why = "an IPv6 literal without its ']'", 400);
		h = (size_t)(e - s) + 1;
		for (size_t i = 1; i + 1 < h; i++)
			if (!isxdigit((unsigned char)s[i]) && s[i] != ':' && s[i] != '.')
				return (r->why = "not an IPv6 literal", 400);
	} else {
		for (h = 0; h < n && s[h] != ':'; h++)
			if (!isalnum((unsigned char)s[h]) && !strchr(".-_", s[h]))
				return (r->why = s[h] == '@' ? "userinfo in a proxy request" : "a host with a character "
				                 "no host name has", 400);
	}
	if (h == 0 || h >= sizeof r->host)
		return (r->why = "no host, or one too long", 400);
	for (size_t i = 0; i < h; i++)
		r->host[i] = (char)tolower((unsigned char)s[i]);
	r->host[h] = 0;
	r->port = dflt;
	if (h < n && s[h] != ':')
		return (r->why = "text after the host", 400);
	if (h < n && h + 1 < n) {
		r->port = 0;
		for (size_t i = h + 1; i < n; i++) {
			if (!isdigit((unsigned char)s[i]) || r->port > 65535)
				return (r->why = "not a port number", 400);
			r->port = r->port * 10 + (s[i] - '0');
		}
	}
	if (r->port < 1 || r->port > 65535)
		return (r->why = "no port, or not one from 1 to 65535", 400);
	return 0;
}

/* The head for the server, from the header lines in rest. */
static int
rewrite_request(gate_req_t *r, const char *method, const char *auth, size_t alen, const char *path,
    const char *version, char *rest)
{
	size_t cap = 1;
	for (const char *p = rest; *p; p++)
		cap += *p == '\n';
	char **lines = xcalloc(cap + 1, sizeof *lines);
	buf_t conn = {0};
	size_t nl = 0;
	int rc = 0;
	while (*rest) {
		char *l = next_line(&rest);
		if (!*l)
			break;
		size_t n = header_name(l);
		if (!n) {
			r->why = l[0] == ' ' || l[0] == '\t' ? "a folded header line (obs-fold)" : "a header line without a name";
			rc = 400;
			break;
		}
		for (const char *c = l; *c && !rc; c++)
			if (((unsigned char)*c < 0x20 && *c != '\t') || *c == 0x7f)
				rc = 400, r->why = "a control character in a header line";
		if (rc)
			break;
		if (name_is(l, n, "connection")) {
			buf_adds(&conn, l + n + 1);
			buf_addc(&conn, ',');
		}
		lines[nl++] = l;
	}
	buf_addf(&r->out, "%s %s%s %s\r\nHost: %.*s\r\n", method, *path == '/' ? "" : "/", path, version,
	    (int)alen, auth);
	for (size_t i = 0; !rc && i < nl; i++) {
		if (hop_by_hop(lines[i], header_name(lines[i]), conn.p ? conn.p : ""))
			continue;
		buf_adds(&r->out, lines[i]);
		buf_adds(&r->out, "\r\n");
	}
	buf_adds(&r->out, "Connection: close\r\n\r\n");
	buf_free(&conn);
	free(lines);
	return rc;
}

int
gate_req_parse(char *head, gate_req_t *r)
{
	char *rest = head;
	char *line = next_line(&rest);
	char *method = line, *sp = strchr(method, ' ');
	if (!sp)
		return (r->why = "not a request line", 400);
	*sp = 0;
	r->target = sp + 1;
	sp = strchr(r->target, ' ');
	if (!sp)
		return (r->why = "not a request line", 400);
	*sp = 0;
	const char *version = sp + 1;
	for (const char *m = method; *m; m++)
		if (!is_tchar((unsigned char)*m))
			return (r->why = "not a method", 400);
	if (!*method || strncmp(version, "HTTP/1.", 7) != 0 || !isdigit((unsigned char)version[7]) || version[8])
		return (r->why = "not HTTP/1.x", 400);
	for (const char *c = r->target; *c; c++)
		if ((unsigned char)*c <= 0x20 || *c == 0x7f)
			return (r->why = "a control character in the request target", 400);
	if (strcmp(method, "CONNECT") == 0) {
		r->connect = 1;
		return parse_authority(r->target, strlen(r->target), -1, r);
	}
	const char *t = r->target, *colon = strchr(t, ':');
	if (t[0] == '/' || t[0] == '*' || !colon || strncmp(colon, "://", 3) != 0)
		return (r->why = "not a proxy request: abx-gate is a forward proxy, give it a whole URL "
		                 "(\"GET http://host/path\")", 400);
	if (colon - t != 4 || strncasecmp(t, "http", 4) != 0)
		return (r->why = "only http URLs go through as requests (https goes through CONNECT)", 501);
	const char *auth = colon + 3;
	size_t alen = strcspn(auth, "/?#\\");
	if (auth[alen] == '\\')
		return (r->why = "a backslash in the URL's authority", 400);
	int rc = parse_authority(auth, alen, 80, r);
	if (rc)
		return rc;
	char *path = xstrndup(auth + alen, strcspn(auth + alen, "#"));
	rc = rewrite_request(r, method, auth, alen, path, version, rest);
	free(path);
	return rc;
}

void
gate_req_free(gate_req_t *r)
{
	buf_free(&r->out);
}

/* ------------------------------------------------------------ response */

/* The head h[0..n) rewritten to out; its status code. */
static int
rewrite_response(gate_resp_t *s, char *h, size_t n, buf_t *out)
{
	int code = 0;
	if (n > 12 && h[8] == ' ' && isdigit((unsigned char)h[9]) && isdigit((unsigned char)h[10]) &&
	    isdigit((unsigned char)h[11]))
		code = (h[9] - '0') * 100 + (h[10] - '0') * 10 + (h[11] - '0');
	char *rest = xstrndup(h, n), *save = rest;
	buf_adds(out, next_line(&rest));
	buf_adds(out, "\r\n");
	int dropped = 0;   /* the last header was dropped: so are its folded lines */
	while (*rest) {
		char *l = next_line(&rest);
		size_t k = header_name(l);
		if (!*l)
			break;
		if (dropped && (*l == ' ' || *l == '\t'))
			continue;
		/* the gate's own mark: a site's would pass for the gate's answer
		 * (hookcurl.h: hook_gate_answer) */
		dropped = k && name_is(l, k, "x-abx-gate");
		/* interim heads go as they are (a 101's Connection: upgrade) */
		if (!dropped && code >= 200)
			dropped = k && (name_is(l, k, "connection") || name_is(l, k, "keep-alive") ||
			    name_is(l, k, "proxy-connection"));
		if (dropped)
			continue;
		if (k && code / 100 == 3 && name_is(l, k, "location") && !s->location) {
			const char *v = l + k + 1;
			v += strspn(v, " \t");
			size_t vl = strlen(v);
			while (vl && (v[vl - 1] == ' ' || v[vl - 1] == '\t'))
				vl--;
			s->location = xstrndup(v, vl);
		}
		buf_adds(out, l);
		buf_adds(out, "\r\n");
	}
	buf_adds(out, code < 200 ? "\r\n" : "Connection: close\r\n\r\n");
	free(save);
	return code;
}

static void
go_raw(gate_resp_t *s, buf_t *out)
{
	buf_add(out, s->acc.p ? s->acc.p : "", s->acc.len);
	buf_free(&s->acc);
	s->raw = 1;
}

void
gate_resp_feed(gate_resp_t *s, const char *p, size_t n, buf_t *out)
{
	if (s->raw) {
		buf_add(out, p, n);
		return;
	}
	buf_add(&s->acc, p, n);
	for (;;) {
		if (s->acc.len >= 5 && memcmp(s->acc.p, "HTTP/", 5) != 0) {
			go_raw(s, out);
			return;
		}
		size_t e = head_end(s->acc.p, s->acc.len, 0);
		if (!e) {
			if (s->acc.len > GATE_HEAD_MAX)
				go_raw(s, out);
			return;
		}
		int code = rewrite_response(s, s->acc.p, e, out);
		memmove(s->acc.p, s->acc.p + e, s->acc.len - e);
		s->acc.len -= e;
		if (code >= 200 || code == 101 || code < 100) {
			go_raw(s, out);
			return;
		}
	}
}

void
gate_resp_end(gate_resp_t *s, buf_t *out)
{
	if (!s->raw)
		go_raw(s, out);
}

void
gate_resp_free(gate_resp_t *s)
{
	buf_free(&s->acc);
	free(s->location);
}

/* ------------------------------------------------------------ page chain */

void
gate_chain_init(gate_ctx_t *g, const char *page)
{
	const char *why;
	char *c = page ? url_canon(page, NULL, &why) : NULL;
	if (c)
		g->chain[g->nchain++] = c;
}

void
gate_chain_free(gate_ctx_t *g)
{
	for (int i = 0; i < g->nchain; i++)
		free(g->chain[i]);
	g->nchain = 0;
}

/* The origin "https://host:port" of an https URL u (canonical), as a
 * length of u; 0 if u is not https. */
static size_t
https_origin(const char *u)
{
	if (strncmp(u, "https://", 8) != 0)
		return 0;
	return 8 + strcspn(u + 8, "/?#");
}

int
gate_chain_has(gate_ctx_t *g, const gate_req_t *r)
{
	if (!g->nchain)
		return 0;
	const char *why;
	char *c;
	if (r->connect) {
		char *u = xasprintf("https://%s/", r->target);
		c = url_canon(u, NULL, &why);
		free(u);
	} else {
		c = url_canon(r->target, NULL, &why);
	}
	if (!c)
		return 0;
	size_t o = r->connect ? https_origin(c) : 0;
	int hit = 0;
	pthread_mutex_lock(&g->lock);
	for (int i = 0; i < g->nchain && !hit; i++)
		hit = r->connect ? o && https_origin(g->chain[i]) == o && strncmp(g->chain[i], c, o) == 0
		                 : strcmp(g->chain[i], c) == 0;
	pthread_mutex_unlock(&g->lock);
	free(c);
	return hit;
}

void
gate_chain_add(gate_ctx_t *g, const char *base, const char *location)
{
	const char *why;
	char *c = url_canon(location, base, &why);
	if (!c)
		return;
	pthread_mutex_lock(&g->lock);
	int have = 0;
	for (int i = 0; i < g->nchain && !have; i++)
		have = strcmp(g->chain[i], c) == 0;
	if (!have && g->nchain < GATE_CHAIN_MAX) {
		g->chain[g->nchain++] = c;
		c = NULL;
	}
	pthread_mutex_unlock(&g->lock);
	free(c);
}
