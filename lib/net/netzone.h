/*
 * netzone.h — which network zone a host is in, and the policy that keeps a
 * crawl of the public web out of the private ones (abx(7) SECURITY).
 *
 * Zones.  An address is public unless it falls in one of these (IANA
 * special-purpose registries, RFC 6890):
 *
 *   loopback      127.0.0.0/8, ::1
 *   private       10.0.0.0/8, 172.16.0.0/12, 192.168.0.0/16, fec0::/10
 *   linklocal     169.254.0.0/16 (cloud metadata lives here), fe80::/10
 *   cgnat         100.64.0.0/10 (shared address space, RFC 6598)
 *   unspecified   0.0.0.0/8, ::
 *   multicast     224.0.0.0/4, ff00::/8
 *   uniquelocal   fc00::/7
 *   reserved      240.0.0.0/4 (with 255.255.255.255)
 *   file          a file: URL (the archiving host's own files)
 *
 * An IPv6 address that carries an IPv4 one (::ffff:a.b.c.d mapped, ::a.b.c.d
 * compatible, 64:ff9b::/96 NAT64, 2002::/16 6to4) is in that address's zone
 * when that one is not public, however it is written: [::ffff:127.0.0.1],
 * [::ffff:7f00:1], [::7f00:1], [64:ff9b::7f00:1] and [2002:7f00:1::] are
 * all loopback.
 *
 * Hosts.  netzone_host() takes a host as the URL parser canonicalises it
 * (no port, no userinfo): a dotted-quad IPv4 literal, a bracketed IPv6
 * literal, or an ASCII domain name.  A name is "localhost" or under
 * ".localhost" (RFC 6761: loopback, no lookup), else it is looked up with
 * getaddrinfo(3) when resolve is non-zero, and its zones are those of every
 * address it resolves to.  The result is a mask of (1 << zone) bits:
 * NZ_PUBLIC's bit if any address is public (a name with one public address
 * is public), 0 if the name did not resolve (or resolve was 0).  A lookup
 * is the only cost above a few comparisons, and it is what the fetcher will
 * do anyway; the answer may differ at fetch time (DNS rebinding: see
 * abx(7) SECURITY).
 *
 * Policy.  A zonepolicy_t holds the zones a crawl may enter: the public
 * one, the zones of the crawl's seeds (a crawl of a local site keeps
 * working) and those ALLOW_PRIVATE_NETWORKS names.  netzone_parse_allow()
 * reads that setting: a boolean (true: every zone; false, empty: none) or
 * zone names separated by commas ("loopback,private"); -1 if malformed.
 * zonepolicy_refuse() returns NULL for a URL the crawl may queue, else why
 * not, as "<host> is in the <zone> network zone and the crawl's seeds are
 * not" (valid until the next call).  zonepolicy_allowed() returns the
 * mask of the zones the crawl may enter, its seeds classified (what the
 * egress gate lets through: gate.h); a NULL policy allows NZ_ALL.  Seeds
 * are classified on the first call that needs them (most crawls never
 * discover a private URL, and a list of bookmarks at depth 0 discovers
 * nothing); each host is looked up once a policy (a small cache).
 */
#ifndef ABX_NETZONE_H
#define ABX_NETZONE_H

#include <stddef.h>
#include <stdint.h>

typedef enum {
	NZ_PUBLIC,
	NZ_LOOPBACK,
	NZ_PRIVATE,
	NZ_LINKLOCAL,
	NZ_CGNAT,
	NZ_UNSPECIFIED,
	NZ_MULTICAST,
	NZ_UNIQUELOCAL,
	NZ_RESERVED,
	NZ_FILE,
	NZ_COUNT
} netzone_t;

#define NZ_ALL ((1u << NZ_COUNT) - 1)

const char *netzone_name(netzone_t z);
netzone_t netzone_ipv4(uint32_t a);            /* a in host byte order */
netzone_t netzone_ipv6(const unsigned char a[16]);
/* The zone of a literal (dotted quad, or IPv6 with or without brackets);
 * -1 if host is not one. */
int netzone_literal(const char *host);
unsigned netzone_host(const char *host, int resolve);
/* The first address of host (resolved as netzone_host does) in a zone of
 * allow, as text into addr (an IPv6 one in brackets): 0; 1 if the host
 * has addresses but none is allowed (*zone: the first one's); -1 if it
 * does not resolve.  A fetcher given that address (curl --resolve) goes
 * where the check went: no second lookup. */
/* The zones a page's fetcher may enter: those allow names
 * (ALLOW_PRIVATE_NETWORKS; malformed: none), public, and the zones of the
 * page's own host (url's, resolved; public if it does not resolve). */
unsigned netzone_page_allow(const char *url, const char *allow);
int netzone_pin(const char *host, unsigned allow, char *addr, size_t n, netzone_t *zone);
int netzone_parse_allow(const char *v, unsigned *mask);

typedef struct zonepolicy zonepolicy_t;

/* seeds: the crawl's "urls" text (lines of URLs or {"url":...} records);
 * allow: ALLOW_PRIVATE_NETWORKS (NULL or malformed: none). */
zonepolicy_t *zonepolicy_new(const char *seeds, const char *allow);
/* One line of that text: the valid URL it names (malloc'd), else NULL. */
char *zonepolicy_seed_url(const char *line);
const char *zonepolicy_refuse(zonepolicy_t *p, const char *url);
unsigned zonepolicy_allowed(zonepolicy_t *p);
void zonepolicy_free(zonepolicy_t *p);

#endif
