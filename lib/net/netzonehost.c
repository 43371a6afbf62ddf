/* netzonehost.c — netzone_host() (netzone.h): the zones of a host, a name
 * looked up with getaddrinfo(3).  Apart from netzone.c so that only the
 * programs that resolve link the resolver (a static program that does
 * loads NSS modules at run time: abx-internals(7), "The cost of a page"). */
#include <arpa/inet.h>
#include <stdio.h>
#include <netdb.h>
#include <netinet/in.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>

#include "net/netzone.h"

static int
is_localhost(const char *h)
{
	size_t n = strlen(h);
	return strcasecmp(h, "localhost") == 0 ||
	    (n > 10 && strcasecmp(h + n - 10, ".localhost") == 0);
}

unsigned
netzone_host(const char *host, int resolve)
{
	char h[256];
	size_t n = strlen(host);
	if (n == 0 || n >= sizeof h)
		return 0;
	memcpy(h, host, n + 1);
	if (h[n - 1] == '.' && n > 1)
		h[--n] = 0;   /* "localhost." is localhost */
	int lit = netzone_literal(h);
	if (lit >= 0)
		return 1u << lit;
	if (is_localhost(h))
		return 1u << NZ_LOOPBACK;
	if (!resolve || h[0] == '[')
		return 0;
	struct addrinfo hints = {0}, *res = NULL;
	hints.ai_family = AF_UNSPEC;
	hints.ai_socktype = SOCK_STREAM;
	if (getaddrinfo(h, NULL, &hints, &res) != 0)
		return 0;
	unsigned mask = 0;
	for (struct addrinfo *ai = res; ai; ai = ai->ai_next) {
		if (ai->ai_family == AF_INET) {
			const struct sockaddr_in *s = (const void *)ai->ai_addr;
			mask |= 1u << netzone_ipv4(ntohl(s->sin_addr.s_addr));
		} else if (ai->ai_family == AF_INET6) {
			const struct sockaddr_in6 *s = (const void *)ai->ai_addr;
			mask |= 1u << netzone_ipv6(s->sin6_addr.s6_addr);
		}
	}
	freeaddrinfo(res);
	return mask & (1u << NZ_PUBLIC) ? 1u << NZ_PUBLIC : mask;
}

int
netzone_pin(const char *host, unsigned allow, char *addr, size_t n, netzone_t *zone)
{
	char h[256];
	size_t len = strlen(host);
	if (len == 0 || len >= sizeof h)
		return -1;
	memcpy(h, host, len + 1);
	if (h[len - 1] == '.' && len > 1)
		h[--len] = 0;
	if (h[0] == '[' && h[len - 1] == ']')
		memmove(h, h + 1, len), h[len - 2] = 0;
	struct addrinfo hints = {0}, *res = NULL;
	hints.ai_family = AF_UNSPEC;
	hints.ai_socktype = SOCK_STREAM;
	if (is_localhost(h)) {
		*zone = NZ_LOOPBACK;
		if (!(allow & (1u << NZ_LOOPBACK)))
			return 1;
		snprintf(addr, n, "127.0.0.1");
		return 0;
	}
	if (getaddrinfo(h, NULL, &hints, &res) != 0)
		return -1;
	int rc = 1, first = 1;
	for (struct addrinfo *ai = res; ai && rc; ai = ai->ai_next) {
		char t[INET6_ADDRSTRLEN];
		netzone_t z;
		if (ai->ai_family == AF_INET) {
			const struct sockaddr_in *s = (const void *)ai->ai_addr;
			z = netzone_ipv4(ntohl(s->sin_addr.s_addr));
			inet_ntop(AF_INET, &s->sin_addr, t, sizeof t);
		} else if (ai->ai_family == AF_INET6) {
			const struct sockaddr_in6 *s = (const void *)ai->ai_addr;
			z = netzone_ipv6(s->sin6_addr.s6_addr);
			inet_ntop(AF_INET6, &s->sin6_addr, t, sizeof t);
		} else {
			continue;
		}
		if (first)
			*zone = z, first = 0;
		if (allow & (1u << z)) {
			*zone = z;
			snprintf(addr, n, ai->ai_family == AF_INET6 ? "[%s]" : "%s", t);
			rc = 0;
		}
	}
	freeaddrinfo(res);
	return first ? -1 : rc;
}

unsigned
netzone_page_allow(const char *url, const char *allow)
{
	unsigned ok = 0;
	if (allow && *allow && netzone_parse_allow(allow, &ok) < 0)
		ok = 0;
	if ((ok & NZ_ALL) == NZ_ALL)
		return ok;
	/* the page's host: after "://", before [/?#\], after the last "@", without the port */
	const char *h = strstr(url, "://");
	h = h ? h + 3 : url;
	size_t n = strcspn(h, "/?#\\");
	for (size_t i = n; i > 0; i--)
		if (h[i - 1] == '@') {
			h += i, n -= i;
			break;
		}
	char host[300];
	if (n >= sizeof host)
		n = sizeof host - 1;
	for (size_t i = 0; i < n; i++)
		host[i] = (char)(h[i] >= 'A' && h[i] <= 'Z' ? h[i] + 32 : h[i]);
	host[n] = 0;
	char *end = host[0] == '[' ? strchr(host, ']') : strchr(host, ':');
	if (end)
		end[host[0] == '['] = 0;
	unsigned own = netzone_host(host, 1);
	if (!own || (own & (1u << NZ_PUBLIC)))
		own = 1u << NZ_PUBLIC;
	ok |= own;
	return ok;
}
