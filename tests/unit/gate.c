/* gate.c — the egress gate's pieces that need no socket: the zone of every
 * IPv6 form that carries an IPv4 address (net/netzone.h), the zones a
 * policy allows, and the heads the gate rewrites (net/gate_int.h). */
#include <arpa/inet.h>
#include <stdlib.h>
#include <string.h>

#include "net/gate_int.h"
#include "net/netzone.h"
#include "tap.h"

static const struct {
	const char *addr, *zone;
} v6[] = {
	{"::7f00:1", "loopback"}, {"::127.0.0.1", "loopback"}, {"::ffff:7f00:1", "loopback"},
	{"0:0:0:0:0:ffff:127.0.0.1", "loopback"}, {"64:ff9b::7f00:1", "loopback"}, {"2002:7f00:1::", "loopback"},
	{"::a00:1", "private"}, {"::a9fe:a9fe", "linklocal"}, {"::1", "loopback"}, {"::", "unspecified"},
	{"::2", "unspecified"}, {"::c633:6407", "public"}, {"2001:db8::7f00:1", "public"},
};

static const char *
parse(const char *head, gate_req_t *r)
{
	static char out[1024];
	char *h = strdup(head);
	int rc = gate_req_parse(h, r);
	snprintf(out, sizeof out, "%d %s|%d|%s", rc, r->host, r->port, rc ? r->why : r->out.p ? r->out.p : "");
	free(h);
	return out;
}

int
main(void)
{
	size_t n = sizeof v6 / sizeof v6[0];
	plan((int)n + 15);
	for (size_t i = 0; i < n; i++) {
		unsigned char a[16];
		inet_pton(AF_INET6, v6[i].addr, a);
		is_str(netzone_name(netzone_ipv6(a)), v6[i].zone, "%s is %s", v6[i].addr, v6[i].zone);
	}

	zonepolicy_t *p = zonepolicy_new("http://127.0.0.1:8000/\n", "private");
	ok(zonepolicy_allowed(p) == (1u << NZ_PUBLIC | 1u << NZ_LOOPBACK | 1u << NZ_PRIVATE),
	    "zonepolicy_allowed: public, the seeds' loopback, ALLOW_PRIVATE_NETWORKS' private");
	zonepolicy_free(p);
	ok(zonepolicy_allowed(NULL) == NZ_ALL, "no policy: every zone");

	gate_req_t r = {0};
	is_str(parse("GET http://Example.COM:8080/a?b#c HTTP/1.1\r\nHost: x\r\nProxy-Connection: keep-alive\r\n"
	    "Connection: x-a\r\nX-A: 1\r\nAccept: */*\r\n\r\n", &r),
	    "0 example.com|8080|GET /a?b HTTP/1.1\r\nHost: Example.COM:8080\r\nAccept: */*\r\nConnection: close\r\n\r\n",
	    "a plain request: origin form, Host from the URL, hop-by-hop headers dropped");
	gate_req_free(&r);
	r = (gate_req_t){0};
	is_str(parse("GET http://h?q HTTP/1.0\n\n", &r), "0 h|80|GET /?q HTTP/1.0\r\nHost: h\r\nConnection: close\r\n\r\n",
	    "no path: \"/\"; bare LF ends lines");
	gate_req_free(&r);
	r = (gate_req_t){0};
	is_str(parse("CONNECT [::1]:443 HTTP/1.1\r\n\r\n", &r), "0 [::1]|443|", "CONNECT to an IPv6 literal");
	r = (gate_req_t){0};
	ok(strncmp(parse("CONNECT h HTTP/1.1\r\n\r\n", &r), "400", 3) == 0, "CONNECT without a port: 400");
	r = (gate_req_t){0};
	ok(strncmp(parse("GET http://u@h/ HTTP/1.1\r\n\r\n", &r), "400", 3) == 0, "userinfo: 400");
	r = (gate_req_t){0};
	ok(strncmp(parse("GET http://127.0.0.1\\@h/ HTTP/1.1\r\n\r\n", &r), "400", 3) == 0, "a backslash: 400");
	r = (gate_req_t){0};
	ok(strncmp(parse("GET https://h/ HTTP/1.1\r\n\r\n", &r), "501", 3) == 0, "https as a request: 501");
	gate_req_free(&r);
	r = (gate_req_t){0};
	ok(strncmp(parse("GET http://h/ HTTP/1.1\r\nX: 1\r\n folded\r\n\r\n", &r), "400", 3) == 0, "obs-fold: 400");
	gate_req_free(&r);
	r = (gate_req_t){0};
	ok(strncmp(parse("GET http://h/\rx HTTP/1.1\r\n\r\n", &r), "400", 3) == 0, "a CR in the target: 400");
	r = (gate_req_t){0};
	ok(strncmp(parse("GET http://h/ HTTP/1.1\r\nX: a\rb\r\n\r\n", &r), "400", 3) == 0, "a bare CR in a header: 400");
	gate_req_free(&r);

	gate_resp_t s = {0};
	buf_t out = {0};
	const char *resp = "HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 302 Found\r\nLocation:  /next \r\n"
	    "Connection: keep-alive\r\nKeep-Alive: timeout=5\r\nContent-Length: 2\r\n\r\nok";
	for (const char *c = resp; *c; c++)   /* a byte at a time */
		gate_resp_feed(&s, c, 1, &out);
	is_str(out.p, "HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 302 Found\r\nLocation:  /next \r\nContent-Length: 2\r\n"
	    "Connection: close\r\n\r\nok", "a response head: 1xx as it is, then Connection: close, the body after");
	is_str(s.location, "/next", "... its Location kept");
	gate_resp_free(&s);
	buf_free(&out);

	/* a site's X-Abx-Gate (and its folded lines) is dropped from every
	 * head, interim ones too: it would pass for the gate's own answer */
	gate_resp_t s2 = {0};
	buf_t out2 = {0};
	const char *spoof = "HTTP/1.1 103 Early Hints\r\nx-abx-gate: refused zone=loopback\r\nLink: </a.css>\r\n\r\n"
	    "HTTP/1.1 200 OK\r\nX-Abx-Gate: refused\r\n zone=loopback\r\nContent-Length: 2\r\n\r\nok";
	gate_resp_feed(&s2, spoof, strlen(spoof), &out2);
	gate_resp_end(&s2, &out2);
	is_str(out2.p, "HTTP/1.1 103 Early Hints\r\nLink: </a.css>\r\n\r\nHTTP/1.1 200 OK\r\nContent-Length: 2\r\n"
	    "Connection: close\r\n\r\nok", "a site's X-Abx-Gate is dropped from its heads, folded lines and all");
	gate_resp_free(&s2);
	buf_free(&out2);
	return done();
}
