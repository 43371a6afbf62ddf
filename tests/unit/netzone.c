/* netzone.c — the zone of every special-purpose range, in the canonical host
 * forms the URL parser gives (lib/net/netzone.h), and the policy's decisions. */
#include <stdlib.h>

#include "net/netzone.h"
#include "tap.h"

static const struct {
	const char *host;
	const char *zone;
} cases[] = {
	{"127.0.0.1", "loopback"}, {"127.255.255.254", "loopback"}, {"localhost", "loopback"},
	{"localhost.", "loopback"}, {"a.b.localhost", "loopback"}, {"[::1]", "loopback"},
	{"10.0.0.1", "private"}, {"172.16.0.1", "private"}, {"172.31.255.255", "private"},
	{"192.168.1.1", "private"}, {"[fec0::1]", "private"},
	{"169.254.169.254", "linklocal"}, {"[fe80::1]", "linklocal"},
	{"100.64.0.1", "cgnat"}, {"100.127.255.255", "cgnat"},
	{"0.0.0.0", "unspecified"}, {"[::]", "unspecified"},
	{"224.0.0.1", "multicast"}, {"239.1.2.3", "multicast"}, {"[ff02::1]", "multicast"},
	{"[fd00::1]", "uniquelocal"}, {"[fc00::1]", "uniquelocal"},
	{"255.255.255.255", "reserved"}, {"240.0.0.1", "reserved"},
	{"[::ffff:127.0.0.1]", "loopback"}, {"[::ffff:10.1.2.3]", "private"},
	{"[64:ff9b::a9fe:a9fe]", "linklocal"}, {"[2002:c0a8:101::1]", "private"},
	{"172.15.255.255", "public"}, {"172.32.0.0", "public"}, {"100.63.255.255", "public"},
	{"100.128.0.0", "public"}, {"198.51.100.7", "public"}, {"8.8.8.8", "public"},
	{"[2001:db8::1]", "public"}, {"[::ffff:198.51.100.7]", "public"},
};

static const char *
zone_of(const char *host)
{
	unsigned m = netzone_host(host, 0);
	for (int z = 0; z < NZ_COUNT; z++)
		if (m == 1u << z)
			return netzone_name(z);
	return m ? "several" : "none";
}

int
main(void)
{
	size_t n = sizeof cases / sizeof cases[0];
	plan((int)n + 17);
	for (size_t i = 0; i < n; i++)
		is_str(zone_of(cases[i].host), cases[i].zone, "%s is %s", cases[i].host, cases[i].zone);
	ok(netzone_host("no-such-name.invalid", 0) == 0, "a name is not looked up when resolve is 0");
	/* glibc's getaddrinfo reads these inet_aton(3) forms itself, without a
	 * lookup, until the URL parser makes them dotted quads */
	ok(netzone_host("2130706433", 1) == 1u << NZ_LOOPBACK, "2130706433 (resolved) is loopback");
	ok(netzone_host("0x7f.1", 1) == 1u << NZ_LOOPBACK, "0x7f.1 (resolved) is loopback");

	unsigned m;
	ok(netzone_parse_allow("true", &m) == 0 && m == NZ_ALL, "ALLOW_PRIVATE_NETWORKS=true: every zone");
	ok(netzone_parse_allow("False", &m) == 0 && m == 0, "false: none");
	ok(netzone_parse_allow("loopback, private", &m) == 0 &&
	    m == ((1u << NZ_LOOPBACK) | (1u << NZ_PRIVATE)), "zone names");
	ok(netzone_parse_allow("loopback,intranet", &m) < 0, "an unknown zone name is refused");

	zonepolicy_t *p = zonepolicy_new("# a comment\nhttp://198.51.100.7/\n", NULL);
	ok(zonepolicy_refuse(p, "http://198.51.100.8/x") == NULL, "public seed: a public link is queued");
	const char *why = zonepolicy_refuse(p, "http://[::1]:8080/x");
	is_str(why, "[::1] is in the loopback network zone and the crawl's seeds are not (ALLOW_PRIVATE_NETWORKS)",
	    "public seed: a loopback link is refused, saying why");
	ok(zonepolicy_refuse(p, "http://user@169.254.169.254/latest/") != NULL, "public seed: metadata refused");
	ok(zonepolicy_refuse(p, "file:///etc/passwd") != NULL, "public seed: a file: URL refused");
	ok(zonepolicy_refuse(p, "http://127.0.0.1\\@198.51.100.8/") != NULL,
	    "a backslash ends the host, as for a browser: 127.0.0.1\\@... refused");
	zonepolicy_free(p);

	p = zonepolicy_new("{\"url\":\"http://127.0.0.1:8000/\"}\n", NULL);
	ok(zonepolicy_refuse(p, "http://localhost/a") == NULL, "loopback seed: a loopback link is queued");
	ok(zonepolicy_refuse(p, "http://10.0.0.1/a") != NULL, "loopback seed: a private link is refused");
	ok(zonepolicy_refuse(p, "http://198.51.100.7/a") == NULL, "loopback seed: a public link is queued");
	zonepolicy_free(p);

	p = zonepolicy_new("http://198.51.100.7/\n", "private");
	ok(zonepolicy_refuse(p, "http://10.0.0.1/a") == NULL && zonepolicy_refuse(p, "http://127.0.0.1/") != NULL,
	    "ALLOW_PRIVATE_NETWORKS=private: private allowed, loopback not");
	zonepolicy_free(p);
	p = zonepolicy_new("http://198.51.100.7/\n", "yes");
	ok(zonepolicy_refuse(p, "http://127.0.0.1/") == NULL, "ALLOW_PRIVATE_NETWORKS=yes: loopback allowed");
	zonepolicy_free(p);
	return done();
}
