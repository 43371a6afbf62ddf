/* robots.c — robots_parse() and robots_allows() by RFC 9309's rules: the
 * group of our agent (merged, else "*"), longest match, allow on a tie,
 * "*" and a final "$", comments, Crawl-delay; hostpace's Retry-After and
 * wait rules; scope names. */
#include <string.h>

#include "net/hostpace.h"
#include "net/robots.h"
#include "net/scope.h"
#include "tap.h"

static int
allowed(const char *txt, const char *url)
{
	robots_t r;
	robots_parse(&r, txt, strlen(txt), "abx");
	int a = robots_allows(&r, url);
	robots_free(&r);
	return a;
}

int
main(void)
{
	plan(28);
	const char *t1 = "User-agent: *\nDisallow: /\n\nUser-agent: abx\nDisallow: /private\n"
	                 "Allow: /private/ok\n# a comment\nDisallow: /*.pdf$\nDisallow: /tmp/*/x\n"
	                 "User-agent: ABX\nDisallow: /merged\n";
	ok(allowed(t1, "http://h/"), "our group, not *: / is allowed");
	ok(!allowed(t1, "http://h/private/a"), "Disallow: /private");
	ok(allowed(t1, "http://h/private/ok/b"), "the longer Allow wins");
	ok(!allowed(t1, "http://h/doc.pdf"), "*.pdf$ matches doc.pdf");
	ok(allowed(t1, "http://h/doc.pdf?x=1"), "but not doc.pdf?x=1 ($ anchors)");
	ok(!allowed(t1, "http://h/tmp/a/b/x"), "* matches a run of bytes");
	ok(!allowed(t1, "http://h/merged/y"), "groups of one agent are merged");
	ok(allowed(t1, "http://h/robots.txt"), "/robots.txt is always allowed");
	ok(!allowed("User-agent: *\nDisallow: /\n", "http://h/a"), "the * group when none is ours");
	ok(allowed("User-agent: *\nDisallow: /a\nAllow: /a\n", "http://h/a"), "allow wins a tie");
	ok(allowed("User-agent: other\nDisallow: /\n", "http://h/a"), "no group for us: all allowed");
	ok(allowed("", "http://h/a"), "an empty file allows all");
	ok(allowed("User-agent: *\nDisallow: /*a*a*a*a*a*a*a*a*a*a*a*a*b\n",
	    "http://h/aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"),
	    "a hostile pattern is matched in one pass (no exponential backtracking)");
	ok(!allowed("User-agent: *\nDisallow: /*a*b$\n", "http://h/xxaxxb"), "*a*b$ matches /xxaxxb");
	robots_t r;
	const char *t2 = "User-agent: abx\nCrawl-delay: 2.5\nDisallow:\n";
	robots_parse(&r, t2, strlen(t2), "abx");
	ok(r.crawl_delay == 2500000, "Crawl-delay: 2.5 is 2.5 s");
	ok(robots_allows(&r, "http://h/x"), "an empty Disallow allows all");
	robots_free(&r);

	int64_t now = 1000000000LL * 1000000;
	ok(hostpace_retry_after("2", now) == now + 2000000, "Retry-After: 2");
	ok(hostpace_retry_after("Wed, 21 Oct 2015 07:28:00 GMT", 0) == 1445412480LL * 1000000,
	    "Retry-After as an HTTP-date");
	ok(hostpace_retry_after("soon", now) == -1, "a bad Retry-After is -1");
	hostpace_t hp = {1, 1000000, 2.0, 5000000, 3};
	ok(hostpace_wait(&hp, 100000) == 1000000, "wait: HOST_DELAY when the factor gives less");
	ok(hostpace_wait(&hp, 2000000) == 4000000, "wait: the factor times the duration");
	ok(hostpace_wait(&hp, 9000000) == 5000000, "wait: capped by HOST_MAX_DELAY");
	long long v;
	ok(conf_parse_dsec("0.25", &v) == 0 && v == 250000, "HOST_DELAY=0.25");
	ok(conf_parse_dsec("1.2.3", &v) < 0 && conf_parse_dsec("", &v) < 0 && conf_parse_dsec("-1", &v) < 0,
	    "bad decimals refused");
	char key[64];
	ok(hostpace_key("http://[::1]:8080/x", key, sizeof key) == 0 && strcmp(key, "%5B%3A%3A1%5D%3A8080") == 0,
	    "a host key is file-name safe");
	ok(scope_parse("Host") == SCOPE_HOST && scope_parse("site") < 0, "scope names");
	scope_t sc;
	scope_init(&sc, SCOPE_PREFIX, "http://h/docs/a.html\n");
	ok(scope_allows(&sc, "http://h/docs/b/c") && !scope_allows(&sc, "http://h/doc"), "prefix scope");
	scope_free(&sc);
	scope_init(&sc, SCOPE_DOMAIN, "http://a.example.co.uk/\n");
	ok(scope_allows(&sc, "http://b.example.co.uk/") && !scope_allows(&sc, "http://other.co.uk/"),
	    "domain scope by the Public Suffix List");
	scope_free(&sc);
	return done();
}
