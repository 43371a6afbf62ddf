/*
 * robots.h — robots.txt as RFC 9309 reads it, for ROBOTS_TXT=obey.
 *
 * robots_parse() keeps the rules of the group for our product token (the
 * first group whose user-agent line is a case-insensitive prefix match of
 * "abx", else the "*" group; several groups for one agent are merged),
 * and a Crawl-delay in it (seconds; not in the RFC, widely honoured).
 * robots_allows() applies them to a URL's path and query: the longest
 * matching pattern wins ("*" matches any run of bytes, a final "$"
 * anchors), an allow wins a tie; no match is allowed; /robots.txt itself
 * always is.
 *
 * robots_get() gives the rules of a URL's host: DIR/hosts/<key>/robots.txt
 * (and robots.json: {"fetched":..,"fetched_us":..,"status":N}) when it
 * is younger than a day (an hour after a failure), else fetched anew with
 * $CURL_BINARY (curl: exec'd, no shell; 5 s, 500 kB; no redirect followed,
 * as its target would escape the zone rule: a 3xx counts as no robots.txt)
 * and stored there.  The host is resolved here and curl is given the
 * first address in the crawl's zones (netzone_pin, curl --resolve): a name
 * whose answer changes cannot take it elsewhere.  A host none of whose
 * addresses is in zones has no rules and nothing is fetched or stored
 * (its pages are then refused by the egress gate, gate.h).  As the RFC says: a 2xx body is parsed; any 4xx (or 3xx) means
 * no rules (all allowed); a 5xx, a network error or no answer means
 * complete disallow, until it is fetched again.  The state is a hint,
 * never synced.
 */
#ifndef ABX_ROBOTS_H
#define ABX_ROBOTS_H

#include <stdint.h>

#include "base/config.h"

typedef struct {
	struct robots_rule *v;
	int n;
	int disallow_all;      /* unreachable: nothing is allowed */
	int64_t crawl_delay;   /* µs, 0 if none */
} robots_t;

void robots_parse(robots_t *r, const char *text, size_t len, const char *agent);
int robots_allows(const robots_t *r, const char *url);
void robots_free(robots_t *r);
/* dfd: the data directory (DIR above), the files opened under it.
 * 0 with *r filled, or -1 if the host's state cannot be used (errno). */
int robots_get(int dfd, const char *key, const char *url, const conf_t *c, unsigned zones, robots_t *r);
int conf_parse_robots(const char *s, long long *out);

#endif
