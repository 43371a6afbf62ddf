/*
 * gateconn.c — where the egress gate connects, and what it answers when it
 * does not (gate_int.h, gate.h).
 *
 * 1. The host's addresses.  An IPv6 literal is one address.  A host whose
 *    last label is a number (decimal or 0x; one trailing dot ignored) is an
 *    IPv4 address in any form inet_aton(3) reads, as a browser reads it
 *    ("127.1", "2130706433", "0x7f000001", "127.0.0.1."), or 400.
 *    "localhost" and names under ".localhost" are 127.0.0.1 and ::1
 *    (RFC 6761: never looked up).  Any other name is looked up with
 *    getaddrinfo(3) once a gate: the first answer (at most GATE_ADDRS
 *    addresses) is kept for the gate's life, never evicted, so that a name
 *    cannot answer differently later (rebinding).  A name that does not
 *    resolve is not kept (a later lookup may work; whatever it answers is
 *    checked as well).
 * 2. Each address is classified (netzone_ipv4, netzone_ipv6: an IPv6 form
 *    that embeds an IPv4 address is in that one's zone); those outside the
 *    allowed zones are dropped.
 * 3. If one is allowed, a pacing slot of the host is taken (gatepace.c:
 *    it may wait, or answer 503).  The allowed addresses are tried in the
 *    resolver's order, GATE_CONNECT_SECS each; the socket of the first
 *    that answers is the server's.  This is the only connect(2) the gate
 *    makes, so it reaches nothing it did not check.
 * If no address is allowed: the refusal is logged (one JSON line, one
 * write(2) under the gate's lock, before the answer) and the client gets
 * 403, "X-Abx-Gate: refused zone=<zone>" and the sentence
 *   abx-gate refused URL: ADDRESS (of HOST) is in the ZONE network zone,
 *   which this crawl may not enter (its seeds are not in it, and
 *   ALLOW_PRIVATE_NETWORKS does not allow it)
 * naming the first address refused.  If an allowed address could not be
 * connected to, or the name did not resolve: 502 with the cause.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <unistd.h>

#include "base/alloc.h"
#include "base/buf.h"
#include "net/gate_int.h"
#include "net/netzone.h"

struct gate_name {
	gate_name_t *next;
	char *host;
	int n;
	gate_addr_t a[GATE_ADDRS];
};

/* ------------------------------------------------------------ answers */

int
gate_send_all(int fd, const char *p, size_t n)
{
	while (n) {
		ssize_t w = send(fd, p, n, MSG_NOSIGNAL);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return -1;
		p += w;
		n -= (size_t)w;
	}
	return 0;
}

void
gate_timeouts(int fd)
{
	struct timeval tv = {GATE_IDLE, 0};
	int one = 1;
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
	setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
}

static const char *
reason(int status)
{
	switch (status) {
	case 400: return "Bad Request";
	case 403: return "Forbidden";
	case 431: return "Request Header Fields Too Large";
	case 501: return "Not Implemented";
	case 502: return "Bad Gateway";
	case 503: return "Service Unavailable";
	default: return "Error";
	}
}

void
gate_answer(int fd, int status, const char *hdr, const char *fmt, ...)
{
	buf_t body = {0}, b = {0};
	va_list ap;
	va_start(ap, fmt);
	char *s = NULL;
	if (vasprintf(&s, fmt, ap) >= 0) {
		buf_adds(&body, s);
		free(s);
	}
	va_end(ap);
	buf_addc(&body, '\n');
	buf_addf(&b, "HTTP/1.1 %d %s\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: %zu\r\n"
	    "%s%sConnection: close\r\n\r\n", status, reason(status), body.len, hdr ? hdr : "", hdr ? "\r\n" : "");
	buf_add(&b, body.p, body.len);
	gate_send_all(fd, b.p, b.len);
	buf_free(&b);
	buf_free(&body);
}

/* ------------------------------------------------------------ names */

static unsigned
slot_of(const char *host)
{
	uint32_t h = 2166136261u;
	for (const char *s = host; *s; s++)
		h = (h ^ (unsigned char)*s) * 16777619u;
	return h % GATE_NAME_SLOTS;
}

/* The cached answer for host, copied to a; its count, or 0 (under the
 * lock). */
static int
cached(gate_ctx_t *g, const char *host, gate_addr_t *a)
{
	for (gate_name_t *e = g->names[slot_of(host)]; e; e = e->next)
		if (strcmp(e->host, host) == 0) {
			memcpy(a, e->a, (size_t)e->n * sizeof *a);
			return e->n;
		}
	return 0;
}

void
gate_names_free(gate_ctx_t *g)
{
	for (int s = 0; s < GATE_NAME_SLOTS; s++)
		for (gate_name_t *e = g->names[s], *next; e; e = next) {
			next = e->next;
			free(e->host);
			free(e);
		}
	memset(g->names, 0, sizeof g->names);
}

/* Look host up; the first answer kept wins over a later one. */
static int
gate_lookup(gate_ctx_t *g, const char *host, gate_addr_t *a, const char **why)
{
	pthread_mutex_lock(&g->lock);
	int n = cached(g, host, a);
	pthread_mutex_unlock(&g->lock);
	if (n)
		return n;
	struct addrinfo hints = {0}, *res = NULL;
	hints.ai_family = AF_UNSPEC;
	hints.ai_socktype = SOCK_STREAM;
	int rc = getaddrinfo(host, NULL, &hints, &res);
	if (rc) {
		*why = rc == EAI_SYSTEM ? strerror(errno) : gai_strerror(rc);
		return 0;
	}
	gate_name_t *e = xcalloc(1, sizeof *e);
	for (struct addrinfo *ai = res; ai && e->n < GATE_ADDRS; ai = ai->ai_next) {
		gate_addr_t x = {ai->ai_family, {0}};
		if (ai->ai_family == AF_INET)
			memcpy(x.a, &((struct sockaddr_in *)(void *)ai->ai_addr)->sin_addr, 4);
		else if (ai->ai_family == AF_INET6)
			memcpy(x.a, &((struct sockaddr_in6 *)(void *)ai->ai_addr)->sin6_addr, 16);
		else
			continue;
		int dup = 0;
		for (int i = 0; i < e->n && !dup; i++)
			dup = memcmp(&e->a[i], &x, sizeof x) == 0;
		if (!dup)
			e->a[e->n++] = x;
	}
	freeaddrinfo(res);
	if (!e->n) {
		free(e);
		*why = "no IPv4 or IPv6 address";
		return 0;
	}
	e->host = xstrdup(host);
	pthread_mutex_lock(&g->lock);
	n = cached(g, host, a);
	if (!n) {
		unsigned s = slot_of(host);
		e->next = g->names[s];
		g->names[s] = e;
		memcpy(a, e->a, (size_t)e->n * sizeof *a);
		n = e->n;
		e = NULL;
	}
	pthread_mutex_unlock(&g->lock);
	if (e) {
		free(e->host);
		free(e);
	}
	return n;
}

/* Does h end in a number (WHATWG: then it is an IPv4 address or wrong)? */
static int
ends_in_number(const char *h)
{
	const char *l = strrchr(h, '.');
	l = l ? l + 1 : h;
	if (!*l)
		return 0;
	if (l[0] == '0' && (l[1] == 'x' || l[1] == 'X'))
		return strspn(l + 2, "0123456789abcdefABCDEF") == strlen(l + 2);
	return strspn(l, "0123456789") == strlen(l);
}

static int
localhost(const char *h)
{
	size_t n = strlen(h);
	return strcmp(h, "localhost") == 0 || (n > 10 && strcmp(h + n - 10, ".localhost") == 0);
}

/* The addresses of host (lower case, IPv6 in brackets): their count; 0
 * (does not resolve) or -1 (malformed) with *why. */
static int
resolve(gate_ctx_t *g, const char *host, gate_addr_t *a, const char **why)
{
	char h[256];
	snprintf(h, sizeof h, "%s", host);
	size_t n = strlen(h);
	if (h[0] == '[') {
		h[n - 1] = 0;
		a[0].family = AF_INET6;
		if (inet_pton(AF_INET6, h + 1, a[0].a) != 1)
			return (*why = "not an IPv6 address", -1);
		return 1;
	}
	if (n > 1 && h[n - 1] == '.')
		h[--n] = 0;
	if (ends_in_number(h)) {
		struct in_addr in;
		a[0].family = AF_INET;
		if (!inet_aton(h, &in))
			return (*why = "it ends in a number but is not an IPv4 address", -1);
		memcpy(a[0].a, &in, 4);
		return 1;
	}
	if (localhost(h)) {
		static const unsigned char one[16] = {[15] = 1};
		a[0] = (gate_addr_t){AF_INET, {127, 0, 0, 1}};
		a[1].family = AF_INET6;
		memcpy(a[1].a, one, 16);
		return 2;
	}
	return gate_lookup(g, host, a, why);
}

/* ------------------------------------------------------------ connect */

static netzone_t
zone_of(const gate_addr_t *a)
{
	if (a->family == AF_INET)
		return netzone_ipv4((uint32_t)a->a[0] << 24 | (uint32_t)a->a[1] << 16 | (uint32_t)a->a[2] << 8 | a->a[3]);
	return netzone_ipv6(a->a);
}

static int
connect_to(const gate_addr_t *a, int port, int *err)
{
	struct sockaddr_storage ss = {0};
	socklen_t len;
	if (a->family == AF_INET) {
		struct sockaddr_in *s = (void *)&ss;
		s->sin_family = AF_INET;
		s->sin_port = htons((uint16_t)port);
		memcpy(&s->sin_addr, a->a, 4);
		len = sizeof *s;
	} else {
		struct sockaddr_in6 *s = (void *)&ss;
		s->sin6_family = AF_INET6;
		s->sin6_port = htons((uint16_t)port);
		memcpy(&s->sin6_addr, a->a, 16);
		len = sizeof *s;
	}
	int fd = socket(a->family, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (fd < 0) {
		*err = errno;
		return -1;
	}
	if (connect(fd, (struct sockaddr *)&ss, len) < 0) {
		struct pollfd p = {fd, POLLOUT, 0};
		int e = errno, rc = 0;
		socklen_t el = sizeof e;
		if (e == EINPROGRESS) {
			while ((rc = poll(&p, 1, GATE_CONNECT_SECS * 1000)) < 0 && errno == EINTR)
				;
			e = rc == 0 ? ETIMEDOUT : rc < 0 ? errno : 0;
			if (rc > 0 && getsockopt(fd, SOL_SOCKET, SO_ERROR, &e, &el) < 0)
				e = errno;
		}
		if (e) {
			*err = e;
			close(fd);
			return -1;
		}
	}
	fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
	gate_timeouts(fd);
	return fd;
}

static void
text_of(const gate_addr_t *a, char *out, size_t n)
{
	if (!inet_ntop(a->family, a->a, out, (socklen_t)n))
		snprintf(out, n, "?");
}

void
gate_log(gate_ctx_t *g, const buf_t *l)
{
	pthread_mutex_lock(&g->lock);
	if (!g->dropped && g->logfd >= 0 && write(g->logfd, l->p, l->len) < 0)
		(void)0;   /* the answer still says it */
	pthread_mutex_unlock(&g->lock);
}

static void
refuse(gate_ctx_t *g, int cfd, int listener, const gate_req_t *r, const gate_addr_t *a)
{
	char addr[INET6_ADDRSTRLEN];
	text_of(a, addr, sizeof addr);
	const char *zone = netzone_name(zone_of(a));
	buf_t l = {0};
	buf_addf(&l, "{\"listener\":%d,\"url\":", listener);
	buf_json_strz(&l, r->target);
	buf_adds(&l, ",\"host\":");
	buf_json_strz(&l, r->host);
	buf_addf(&l, ",\"address\":\"%s\",\"zone\":\"%s\",\"page\":%s}\n", addr, zone,
	    gate_chain_has(g, r) ? "true" : "false");
	gate_log(g, &l);
	buf_free(&l);
	char hdr[64];
	snprintf(hdr, sizeof hdr, "X-Abx-Gate: refused zone=%s", zone);
	gate_answer(cfd, 403, hdr, "abx-gate refused %s: %s (of %s) is in the %s network zone, which this crawl "
	    "may not enter (its seeds are not in it, and ALLOW_PRIVATE_NETWORKS does not allow it)",
	    r->target, addr, r->host, zone);
}

int
gate_open(gate_ctx_t *g, int cfd, int listener, const gate_req_t *r, gate_slot_t *slot)
{
	gate_addr_t a[GATE_ADDRS];
	const char *why = "";
	slot->fd = slot->waitfd = -1;
	int n = resolve(g, r->host, a, &why);
	if (n < 0) {
		gate_answer(cfd, 400, "X-Abx-Gate: error", "abx-gate: %s: host %s: %s", r->target, r->host, why);
		return -1;
	}
	if (n == 0) {
		gate_answer(cfd, 502, "X-Abx-Gate: error", "abx-gate could not reach %s: %s does not resolve (%s)",
		    r->target, r->host, why);
		return -1;
	}
	int allowed = 0;
	for (int i = 0; i < n && !allowed; i++)
		allowed = (g->allow & (1u << zone_of(&a[i]))) != 0;
	if (!allowed) {
		refuse(g, cfd, listener, r, &a[0]);
		return -1;
	}
	if (gate_pace_take(g, cfd, listener, r, slot) < 0)
		return -1;
	int tried = -1, err = 0;
	for (int i = 0; i < n; i++) {
		if (!(g->allow & (1u << zone_of(&a[i]))))
			continue;
		int fd = connect_to(&a[i], r->port, &err);
		if (fd >= 0)
			return fd;
		tried = i;
	}
	gate_pace_release(slot);
	char addr[INET6_ADDRSTRLEN];
	text_of(&a[tried], addr, sizeof addr);
	gate_answer(cfd, 502, "X-Abx-Gate: error", "abx-gate could not reach %s: could not connect to %s port %d "
	    "(of %s): %s", r->target, addr, r->port, r->host, strerror(err));
	return -1;
}
