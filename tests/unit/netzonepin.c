/* netzonepin.c — netzone_pin() (netzone.h): the address a fetcher is
 * pinned to is one of the allowed zones, or there is none.  Literals and
 * localhost only: no lookup leaves the machine. */
#include "tap.h"
#include "net/netzone.h"

static void
pin(const char *host, unsigned allow, int want, const char *addr, const char *what)
{
	char a[64] = "";
	netzone_t z = NZ_COUNT;
	int rc = netzone_pin(host, allow, a, sizeof a, &z);
	ok(rc == want, "%s: %s gives %d (got %d)", what, host, want, rc);
	if (addr)
		is_str(a, addr, "%s: %s pinned to %s", what, host, addr);
	if (want == 1)
		ok(z == NZ_LOOPBACK, "%s: %s refused as loopback (got %s)", what, host,
		    z < NZ_COUNT ? netzone_name(z) : "none");
}

int
main(void)
{
	const unsigned pub = 1u << NZ_PUBLIC, lo = pub | 1u << NZ_LOOPBACK;
	plan(20);
	pin("127.0.0.1", lo, 0, "127.0.0.1", "loopback allowed");
	pin("[::1]", lo, 0, "[::1]", "loopback allowed");
	pin("localhost", lo, 0, "127.0.0.1", "loopback allowed");
	pin("localhost.", lo, 0, "127.0.0.1", "loopback allowed");
	pin("127.0.0.1", pub, 1, NULL, "public only");
	pin("[::1]", pub, 1, NULL, "public only");
	pin("localhost.", pub, 1, NULL, "public only");
	pin("2130706433", pub, 1, NULL, "public only");
	pin("[::ffff:127.0.0.1]", pub, 1, NULL, "public only");
	pin("192.0.2.1", pub, 0, "192.0.2.1", "public only");
	return done();
}
