/* netzone.c — see netzone.h: zones of addresses and literals, the
 * ALLOW_PRIVATE_NETWORKS setting.  netzone_host(), which resolves names,
 * is in netzonehost.c, so that a program that never resolves (abx-hook)
 * links no getaddrinfo(3) and can be linked statically. */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "base/buf.h"
#include "base/confbool.h"
#include "base/err.h"
#include "net/netzone.h"

static const char *const names[NZ_COUNT] = {
	"public", "loopback", "private", "linklocal", "cgnat", "unspecified", "multicast",
	"uniquelocal", "reserved", "file",
};

const char *
netzone_name(netzone_t z)
{
	return (unsigned)z < NZ_COUNT ? names[z] : "unknown";
}

/* One table, first match wins: address, prefix length, zone. */
static const struct {
	uint32_t net;
	int len;
	netzone_t zone;
} v4[] = {
	{0x00000000, 8, NZ_UNSPECIFIED},
	{0x7f000000, 8, NZ_LOOPBACK},
	{0x0a000000, 8, NZ_PRIVATE},
	{0xac100000, 12, NZ_PRIVATE},
	{0xc0a80000, 16, NZ_PRIVATE},
	{0xa9fe0000, 16, NZ_LINKLOCAL},
	{0x64400000, 10, NZ_CGNAT},
	{0xe0000000, 4, NZ_MULTICAST},
	{0xf0000000, 4, NZ_RESERVED},
};

netzone_t
netzone_ipv4(uint32_t a)
{
	for (size_t i = 0; i < sizeof v4 / sizeof v4[0]; i++)
		if ((a & ~(0xffffffffu >> v4[i].len)) == v4[i].net)
			return v4[i].zone;
	return NZ_PUBLIC;
}

static uint32_t
be32(const unsigned char *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static int
zeros(const unsigned char *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (p[i])
			return 0;
	return 1;
}

netzone_t
netzone_ipv6(const unsigned char a[16])
{
	static const unsigned char nat64[12] = {0, 0x64, 0xff, 0x9b};
	/* ::/96: "::" and "::1" themselves, else IPv4-compatible (::a.b.c.d,
	 * written [::7f00:1] as often), whose address is the last 32 bits */
	if (zeros(a, 12)) {
		if (zeros(a + 12, 3) && a[15] <= 1)
			return a[15] == 0 ? NZ_UNSPECIFIED : NZ_LOOPBACK;
		return netzone_ipv4(be32(a + 12));
	}
	/* an IPv4 address inside: mapped, NAT64, 6to4 */
	netzone_t z = NZ_PUBLIC;
	if (zeros(a, 10) && a[10] == 0xff && a[11] == 0xff)
		z = netzone_ipv4(be32(a + 12));
	else if (memcmp(a, nat64, 12) == 0)
		z = netzone_ipv4(be32(a + 12));
	else if (a[0] == 0x20 && a[1] == 0x02)
		z = netzone_ipv4(be32(a + 2));
	if (z != NZ_PUBLIC)
		return z;
	if (a[0] == 0xff)
		return NZ_MULTICAST;
	if ((a[0] & 0xfe) == 0xfc)
		return NZ_UNIQUELOCAL;
	if (a[0] == 0xfe && (a[1] & 0xc0) == 0x80)
		return NZ_LINKLOCAL;
	if (a[0] == 0xfe && (a[1] & 0xc0) == 0xc0)
		return NZ_PRIVATE;   /* site-local, deprecated but routed by some */
	return NZ_PUBLIC;
}

int
netzone_literal(const char *host)
{
	unsigned char a[16];
	char tmp[64];
	size_t n = strlen(host);
	if (n >= 2 && host[0] == '[' && host[n - 1] == ']') {
		if (n - 2 >= sizeof tmp)
			return -1;
		memcpy(tmp, host + 1, n - 2);
		tmp[n - 2] = 0;
		host = tmp;
	}
	if (inet_pton(AF_INET6, host, a) == 1)
		return netzone_ipv6(a);
	if (inet_pton(AF_INET, host, a) == 1)
		return netzone_ipv4(be32(a));
	return -1;
}

int
netzone_parse_allow(const char *v, unsigned *mask)
{
	int b = v ? conf_bool(v, -1) : 0;
	if (b >= 0) {
		*mask = b ? NZ_ALL : 0;
		return 0;
	}
	unsigned m = 0;
	const char *p = v;
	while (*p) {
		p += strspn(p, " ,");
		size_t l = strcspn(p, " ,");
		if (!l)
			break;
		netzone_t z = 0;
		while (z < NZ_COUNT && (strlen(names[z]) != l || strncasecmp(names[z], p, l) != 0))
			z++;
		if (z == NZ_COUNT)
			return -1;
		m |= 1u << z;
		p += l;
	}
	*mask = m;
	return 0;
}
