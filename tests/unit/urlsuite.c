/*
 * The WHATWG URL suite (web-platform-tests url/resources/urltestdata.json,
 * vendored in tests/data/wpt-url/) against lib/net/url: every entry whose base
 * is a special URL (http, https, ws, wss, ftp, file), and every entry
 * without a base whose input is an absolute http(s) URL, is parsed by
 * url_parse_any(); an entry that wants failure must fail, any other must
 * give the same href, protocol, username, password, host, hostname, port,
 * pathname, search and hash.  Then url_parse() and url_canon(), the forms
 * abx uses, must agree: they take exactly the http(s) results, url_canon()
 * is their href without the fragment, and it is stable (its own canonical
 * form, so a stored key read again dedupes the same).  Counts are printed; one
 * miss fails the test.  A few of abx's own cases follow (the canonical host
 * strings other modules rely on, the registrable domain, refusals).
 */
#include <fcntl.h>
#include <libgen.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/buf.h"
#include "tick/discover.h"
#include "base/fs.h"
#include "base/json.h"
#include "tap.h"
#include "net/url.h"

#define SUITE "tests/data/wpt-url/urltestdata.json"

static int
slurp(const char *argv0, buf_t *b)
{
	int fd = open(SUITE, O_RDONLY);
	if (fd < 0) {
		char *copy = strdup(argv0), path[4096];
		snprintf(path, sizeof path, "%s/../data/wpt-url/urltestdata.json", dirname(copy));
		free(copy);
		fd = open(path, O_RDONLY);
	}
	if (fd < 0)
		return -1;
	int rc = fs_read_fd(fd, b);
	close(fd);
	return rc;
}

static void
put_utf8(buf_t *b, unsigned long cp)
{
	if (cp < 0x80) {
		buf_addc(b, cp);
	} else if (cp < 0x800) {
		buf_addc(b, 0xc0 | cp >> 6);
		buf_addc(b, 0x80 | (cp & 0x3f));
	} else if (cp < 0x10000) {
		buf_addc(b, 0xe0 | cp >> 12);
		buf_addc(b, 0x80 | (cp >> 6 & 0x3f));
		buf_addc(b, 0x80 | (cp & 0x3f));
	} else {
		buf_addc(b, 0xf0 | cp >> 18);
		buf_addc(b, 0x80 | (cp >> 12 & 0x3f));
		buf_addc(b, 0x80 | (cp >> 6 & 0x3f));
		buf_addc(b, 0x80 | (cp & 0x3f));
	}
}

static unsigned long
hex4(const char *p)
{
	char h[5] = {p[0], p[1], p[2], p[3], 0};
	return strtoul(h, NULL, 16);
}

/* A raw JSON string into b, keeping U+0000 as a byte and making a lone
 * surrogate U+FFFD (what a browser's USVString conversion does). */
static void
jstr(const char *raw, buf_t *b)
{
	buf_reset(b);
	for (const char *p = raw + 1; *p && *p != '"'; p++) {
		if (*p != '\\') {
			buf_addc(b, *p);
			continue;
		}
		p++;
		switch (*p) {
		case 'b': buf_addc(b, '\b'); break;
		case 'f': buf_addc(b, '\f'); break;
		case 'n': buf_addc(b, '\n'); break;
		case 'r': buf_addc(b, '\r'); break;
		case 't': buf_addc(b, '\t'); break;
		case 'u': {
			unsigned long cp = hex4(p + 1);
			p += 4;
			if (cp >= 0xd800 && cp <= 0xdbff && p[1] == '\\' && p[2] == 'u') {
				unsigned long lo = hex4(p + 3);
				if (lo >= 0xdc00 && lo <= 0xdfff) {
					cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
					p += 6;
				}
			}
			if (cp >= 0xd800 && cp <= 0xdfff)
				cp = 0xfffd;
			put_utf8(b, cp);
			break;
		}
		default: buf_addc(b, *p);
		}
	}
	buf_cstr(b);
}

static int
special_base(const char *b)
{
	static const char *const s[] = {"http:", "https:", "ws:", "wss:", "ftp:", "file:"};
	for (size_t i = 0; i < sizeof s / sizeof s[0]; i++)
		if (strncasecmp(b, s[i], strlen(s[i])) == 0)
			return 1;
	return 0;
}

/* Is the input, trimmed as the parser trims it, an absolute http(s) URL? */
static int
http_input(const char *in, size_t n)
{
	buf_t t = {0};
	size_t a = 0;
	while (a < n && (unsigned char)in[a] <= 0x20)
		a++;
	for (size_t i = a; i < n && t.len < 6; i++)
		if (in[i] != '\t' && in[i] != '\n' && in[i] != '\r')
			buf_addc(&t, in[i]);
	buf_cstr(&t);
	int r = strncasecmp(t.p, "http:", 5) == 0 || strncasecmp(t.p, "https:", 6) == 0;
	buf_free(&t);
	return r;
}

typedef struct {
	int run, pass, fail_want, fail_ok, http, http_ok;
} counts_t;

static int
field_is(const rec_t *r, const char *key, const char *got, buf_t *tmp, const char *input)
{
	const char *raw = rec_raw(r, key);
	if (!raw)
		return 1;
	jstr(raw, tmp);
	if (strcmp(tmp->p, got) == 0)
		return 1;
	printf("# %s: input <%s>: %s '%s', want '%s'\n", key, input, key, got, tmp->p);
	return 0;
}

static int
check_entry(const rec_t *r, counts_t *c)
{
	buf_t in = {0}, base = {0}, tmp = {0};
	const char *braw = rec_raw(r, "base");
	int has_base = braw && braw[0] == '"';
	jstr(rec_raw(r, "input"), &in);
	if (has_base)
		jstr(braw, &base);
	if (has_base ? !special_base(base.p) : !http_input(in.p, in.len)) {
		buf_free(&in), buf_free(&base);
		return 0;
	}
	c->run++;
	const char *fl = rec_raw(r, "failure");
	int want_fail = fl && strcmp(fl, "true") == 0, good = 1;
	url_t u;
	const char *why = NULL;
	int rc = url_parse_anyn(in.p, in.len, has_base ? base.p : NULL, &u, &why);
	if (want_fail) {
		c->fail_want++;
		good = rc < 0;
		if (!good)
			printf("# input <%s> base <%s>: want failure, got %s\n", in.p, has_base ? base.p : "", u.href);
		c->fail_ok += good;
	} else if (rc < 0) {
		printf("# input <%s> base <%s>: failed (%s)\n", in.p, has_base ? base.p : "", why);
		good = 0;
	} else {
		char port[16] = "";
		if (u.port >= 0)
			snprintf(port, sizeof port, "%d", u.port);
		buf_t proto = {0}, host = {0}, search = {0}, hash = {0};
		buf_addf(&proto, "%s:", u.scheme);
		buf_addf(&host, "%s%s%s", u.host ? u.host : "", *port ? ":" : "", port);
		if (u.query && *u.query)
			buf_addf(&search, "?%s", u.query);
		if (u.fragment && *u.fragment)
			buf_addf(&hash, "#%s", u.fragment);
		good = field_is(r, "href", u.href, &tmp, in.p) && field_is(r, "protocol", buf_cstr(&proto), &tmp, in.p) &&
		    field_is(r, "username", u.username, &tmp, in.p) && field_is(r, "password", u.password, &tmp, in.p) &&
		    field_is(r, "host", buf_cstr(&host), &tmp, in.p) &&
		    field_is(r, "hostname", u.host ? u.host : "", &tmp, in.p) && field_is(r, "port", port, &tmp, in.p) &&
		    field_is(r, "pathname", u.path, &tmp, in.p) && field_is(r, "search", buf_cstr(&search), &tmp, in.p) &&
		    field_is(r, "hash", buf_cstr(&hash), &tmp, in.p);
		buf_free(&proto), buf_free(&host), buf_free(&search), buf_free(&hash);
	}
	/* url_parse / url_canon: the http(s) results, fragment dropped */
	int http = rc == 0 && (strcmp(u.scheme, "http") == 0 || strcmp(u.scheme, "https") == 0);
	if (!memchr(in.p, 0, in.len)) {
		url_t v;
		const char *w2;
		int rc2 = url_parse(in.p, has_base ? base.p : NULL, &v, &w2);
		char *canon = url_canon(in.p, has_base ? base.p : NULL, &w2);
		int agree = (rc2 == 0) == http && (canon != NULL) == http;
		if (agree && http) {
			buf_reset(&tmp);
			buf_adds(&tmp, u.href);
			if (u.fragment)
				tmp.len -= strlen(u.fragment) + 1;
			agree = strcmp(v.href, u.href) == 0 && strcmp(canon, buf_cstr(&tmp)) == 0;
			/* a key read again is the same key */
			char *again = agree ? url_canon(canon, NULL, NULL) : NULL;
			if (agree && (!again || strcmp(again, canon) != 0)) {
				printf("# input <%s>: url_canon is not stable: %s, then %s\n", in.p, canon, again ? again : "refused");
				agree = 0;
			}
			free(again);
		}
		if (!agree)
			printf("# input <%s>: url_parse/url_canon disagree with url_parse_any\n", in.p);
		good &= agree;
		c->http += http;
		c->http_ok += http && agree;
		if (rc2 == 0)
			url_free(&v);
		free(canon);
	}
	if (rc == 0)
		url_free(&u);
	c->pass += good;
	buf_free(&in), buf_free(&base), buf_free(&tmp);
	return good;
}

static const struct {
	const char *in, *host, *href;
	int kind;
} canon[] = {
	{"http://2130706433/", "127.0.0.1", "http://127.0.0.1/", URL_HOST_IPV4},
	{"http://0x7f.1/", "127.0.0.1", "http://127.0.0.1/", URL_HOST_IPV4},
	{"http://0177.0.0.1/", "127.0.0.1", "http://127.0.0.1/", URL_HOST_IPV4},
	{"http://127.1/", "127.0.0.1", "http://127.0.0.1/", URL_HOST_IPV4},
	{"http://[::ffff:127.0.0.1]/", "[::ffff:7f00:1]", "http://[::ffff:7f00:1]/", URL_HOST_IPV6},
	{"http://[0:0:0:0:0:0:0:1]:80/", "[::1]", "http://[::1]/", URL_HOST_IPV6},
	{"HTTP://Example.COM:80/a/../b", "example.com", "http://example.com/b", URL_HOST_DOMAIN},
	{"https://B\xc3\xbc""cher.example/", "xn--bcher-kva.example", "https://xn--bcher-kva.example/", URL_HOST_DOMAIN},
	{"http://EXAMPLE.com./x", "example.com.", "http://example.com./x", URL_HOST_DOMAIN},
	/* what IDNA2008 refuses and UTS #46 keeps: symbols, emoji, hyphens */
	{"http://\xe2\x98\x83.net/", "xn--n3h.net", "http://xn--n3h.net/", URL_HOST_DOMAIN},
	{"http://i\xe2\x9d\xa4.ws/", "xn--i-7iq.ws", "http://xn--i-7iq.ws/", URL_HOST_DOMAIN},
	{"http://Ab\xe2\x98\x83""c.com/", "xn--abc-tm5a.com", "http://xn--abc-tm5a.com/", URL_HOST_DOMAIN},
	{"http://\xc3\xbc-.de/", "xn----dha.de", "http://xn----dha.de/", URL_HOST_DOMAIN},
	{"http://ab--\xc3\xbc.de/", "xn--ab---3ra.de", "http://xn--ab---3ra.de/", URL_HOST_DOMAIN},
};

int
main(int argc, char **argv)
{
	buf_t text = {0};
	counts_t c = {0};
	if (slurp(argv[0], &text) < 0) {
		printf("1..0 # SKIP %s not found\n", SUITE);
		return 1;
	}
	plan(10 + (int)(sizeof canon / sizeof canon[0]));
	int entries = 0;
	buf_cstr(&text);
	for (const char *p = text.p; (p = strchr(p, '{'));) {
		/* the end of this object: the suite's objects are flat */
		const char *q = p + 1;
		int in_str = 0;
		for (; *q && (in_str || *q != '}'); q++) {
			if (in_str && *q == '\\')
				q++;
			else if (*q == '"')
				in_str = !in_str;
		}
		rec_t r;
		if (*q && rec_parse(&r, p, q + 1 - p) == 0) {
			entries++;
			check_entry(&r, &c);
			rec_free(&r);
		}
		p = *q ? q + 1 : q;
	}
	printf("# WPT urltestdata.json: %d entries, %d run (special base or absolute http(s) input), "
	       "%d passed, %d missed\n", entries, c.run, c.pass, c.run - c.pass);
	printf("# of them %d want failure (%d refused), %d are http(s) results (%d agree in url_parse/url_canon)\n",
	    c.fail_want, c.fail_ok, c.http, c.http_ok);
	ok(entries > 800, "the suite has its %d entries", entries);
	ok(c.run > 500, "%d entries run", c.run);
	ok(c.pass == c.run, "every entry run matches the standard (%d of %d)", c.pass, c.run);
	ok(c.fail_ok == c.fail_want, "every input a browser refuses is refused (%d of %d)", c.fail_ok, c.fail_want);
	ok(c.http_ok == c.http, "url_parse and url_canon agree on every http(s) result (%d of %d)", c.http_ok, c.http);

	for (size_t i = 0; i < sizeof canon / sizeof canon[0]; i++) {
		url_t u;
		const char *why;
		int r = url_parse(canon[i].in, NULL, &u, &why);
		ok(r == 0 && !strcmp(u.host, canon[i].host) && !strcmp(u.href, canon[i].href) &&
		       (int)u.host_kind == canon[i].kind,
		    "%s: host %s, href %s", canon[i].in, r == 0 ? u.host : why, r == 0 ? u.href : "-");
		if (r == 0)
			url_free(&u);
	}
	char rd[256];
	ok(url_registrable_domain("www.example.co.uk", rd, sizeof rd) == 0 && !strcmp(rd, "example.co.uk") &&
	       url_registrable_domain("a.b.example.com", rd, sizeof rd) == 0 && !strcmp(rd, "example.com"),
	    "registrable domain by the Public Suffix List");
	ok(url_registrable_domain("co.uk", rd, sizeof rd) < 0 && url_registrable_domain("127.0.0.1", rd, sizeof rd) < 0 &&
	       url_registrable_domain("[::1]", rd, sizeof rd) < 0,
	    "a public suffix or an IP address has none");
	const char *why = NULL;
	char *k = url_canon("HTTP://Example.COM:80/a/../b#frag", NULL, &why), *k2 = url_canon("http://example.com/b", NULL, &why);
	ok(k && k2 && !strcmp(k, k2) && !strcmp(k, "http://example.com/b"), "one URL, one key: %s", k ? k : why);
	free(k), free(k2);
	url_t u;
	ok(url_parse("file:///etc/passwd", NULL, &u, &why) < 0 && strstr(why, "file") &&
	       url_parse("mailto:a@example.com", NULL, &u, &why) < 0 && strstr(why, "scheme") &&
	       url_parse("http://example example.com/", NULL, &u, &why) < 0 &&
	       url_parse("http://f:999999/c", NULL, &u, &why) < 0 && strstr(why, "port") &&
	       url_parse("/relative", NULL, &u, &why) < 0 && strstr(why, "absolute"),
	    "file:, mailto:, a space in the host, a port above 65535 and a relative URL are refused");

	/* allow and deny lists match the canonical URL, as the crawl gives it */
	urlfilter_t f;
	urlfilter_init(&f, NULL, "127.0.0.1\nexample.com:80\n^https://[^/]*/private/");
	char *c1 = url_canon("http://0x7f.1/a", NULL, NULL), *c2 = url_canon("HTTP://EXAMPLE.com:80/x", NULL, NULL),
	     *c3 = url_canon("https://h.example:443/a/../private/p", NULL, NULL),
	     *c4 = url_canon("http://example.com:8080/x", NULL, NULL);
	ok(c1 && c2 && c3 && c4 && !urlfilter_pass(&f, c1) && !urlfilter_pass(&f, c2) && !urlfilter_pass(&f, c3) &&
	       urlfilter_pass(&f, c4),
	    "deny lists see the canonical URL: 0x7f.1 is 127.0.0.1, :80 is example.com:80, a/../private is /private");
	free(c1), free(c2), free(c3), free(c4);
	urlfilter_free(&f);
	buf_free(&text);
	return done();
}
