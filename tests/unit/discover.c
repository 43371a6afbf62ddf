/* Unit tests of lib/tick/discover: URL filters, the URL set, size units. */
#include <stdio.h>
#include <stdlib.h>

#include "base/config.h"
#include "tick/discover.h"
#include "tap.h"

int
main(void)
{
	urlfilter_t f;
	urlfilter_init(&f, NULL, NULL);
	ok(urlfilter_pass(&f, "http://a.example/page.html"), "a page passes the default denylist");
	ok(!urlfilter_pass(&f, "http://a.example/site.css"), "a stylesheet is denied by default");
	ok(!urlfilter_pass(&f, "http://a.example/app.js?v=3"), "a script with a query is denied");
	ok(!urlfilter_pass(&f, "http://a.example/f.woff2"), "a font is denied");
	urlfilter_free(&f);

	urlfilter_init(&f, "example.com\n*.sub.org", "");
	ok(urlfilter_pass(&f, "https://example.com/x") && urlfilter_pass(&f, "https://www.example.com/x"),
	    "a domain pattern matches the host and its subdomains");
	ok(!urlfilter_pass(&f, "https://badexample.com/x"), "but not a host that merely ends the same");
	ok(urlfilter_pass(&f, "http://a.sub.org/") && !urlfilter_pass(&f, "http://sub.org/"),
	    "*.domain matches subdomains only");
	ok(!urlfilter_pass(&f, "http://other.net/"), "an allowlist excludes the rest");
	urlfilter_free(&f);

	urlfilter_init(&f, NULL, "127.0.0.1:8080\n/private/");
	ok(!urlfilter_pass(&f, "http://127.0.0.1:8080/a"), "host:port must equal");
	ok(urlfilter_pass(&f, "http://127.0.0.1:9090/a"), "another port passes");
	ok(!urlfilter_pass(&f, "http://x.org/private/a"), "a regex is searched in the URL");
	urlfilter_free(&f);

	urlfilter_init(&f, "[\"allowed\\\\.org\"]", "[\"(\"]");
	ok(urlfilter_pass(&f, "http://allowed.org/") && !urlfilter_pass(&f, "http://nope.org/"),
	    "JSON lists are patterns too; an invalid regex matches nothing");
	urlfilter_free(&f);

	urlset_t u = {0};
	char buf[64];
	int fresh = 0;
	for (int i = 0; i < 5000; i++) {
		snprintf(buf, sizeof buf, "http://h/%d", i % 2500);
		fresh += urlset_add(&u, buf);
	}
	ok(fresh == 2500 && u.n == 2500, "the URL set deduplicates (and grows)");
	ok(urlset_has(&u, "http://h/42") && !urlset_has(&u, "http://h/2500"), "membership");
	urlset_free(&u);

	ok(parse_size("45mb") == 45LL << 20 && parse_size("1gb") == 1LL << 30 &&
	   parse_size("10KiB") == 10240 && parse_size("500") == 500 && parse_size("0") == 0 &&
	   parse_size("junk") == 0, "sizes with units are 1024-based");
	plan(tap_n);
	return done();
}
