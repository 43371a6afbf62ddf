/*
 * zonerules.c — without the egress gate, chromium's own guard against the
 * private network zones (chrome.c includes it): what the shell hooks'
 * hook_zone_rules (_lib/hook.sh) gives their chromium.
 *
 * zone_rules(URL, OUT): into OUT, chromium's --host-resolver-rules value
 * that makes every host of a private zone the page may not enter
 * unresolvable ("MAP 10.* ~NOTFOUND,MAP ..."): every zone but the page's
 * own (its host as netzone_host classifies it, looked up if a name; public
 * if it does not resolve) and those ALLOW_PRIVATE_NETWORKS names (true:
 * all, and OUT stays empty).  "::ffff:*" (an IPv4 address written as
 * IPv6) is always in, as in the shell.  Chromium applies the rules to
 * address literals too, after reading them as a browser does; a name is
 * resolved later, by chromium itself (abx(7) SECURITY says what that
 * leaves: only the gate checks the address a connection goes to).
 */
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "net/netzone.h"

static void
zone_seq(buf_t *b, const char *prefix, int from, int to)
{
	for (int i = from; i <= to; i++)
		buf_addf(b, " %s%d.*", prefix, i);
}

static void
zone_rules(const char *url, buf_t *out)
{
	unsigned ok = netzone_page_allow(url, getenv("ALLOW_PRIVATE_NETWORKS"));
	if ((ok & NZ_ALL) == NZ_ALL)
		return;
	buf_t pats = {0};
	buf_adds(&pats, "::ffff:*");
	if (!(ok & (1u << NZ_LOOPBACK)))
		buf_adds(&pats, " 127.* localhost *.localhost ::1");
	if (!(ok & (1u << NZ_PRIVATE))) {
		buf_adds(&pats, " 10.*");
		zone_seq(&pats, "172.", 16, 31);
		buf_adds(&pats, " 192.168.* fec*:* fed*:* fee*:* fef*:*");
	}
	if (!(ok & (1u << NZ_LINKLOCAL)))
		buf_adds(&pats, " 169.254.* fe8*:* fe9*:* fea*:* feb*:*");
	if (!(ok & (1u << NZ_CGNAT)))
		zone_seq(&pats, "100.", 64, 127);
	if (!(ok & (1u << NZ_UNSPECIFIED)))
		buf_adds(&pats, " 0.* ::");
	if (!(ok & (1u << NZ_MULTICAST))) {
		zone_seq(&pats, "", 224, 239);
		buf_adds(&pats, " ff*:*");
	}
	if (!(ok & (1u << NZ_UNIQUELOCAL)))
		buf_adds(&pats, " fc*:* fd*:*");
	if (!(ok & (1u << NZ_RESERVED)))
		zone_seq(&pats, "", 240, 255);
	const char *p = buf_cstr(&pats);
	while (*p) {
		size_t k = strcspn(p, " ");
		buf_addf(out, "%sMAP %.*s ~NOTFOUND", out->len ? "," : "", (int)k, p);
		p += k + (p[k] == ' ');
	}
	buf_free(&pats);
}
