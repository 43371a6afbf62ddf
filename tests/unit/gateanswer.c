/* gateanswer.c — hook_gate_answer (hook/hookcurl.h): the egress gate's
 * own answer is told by X-Abx-Gate in the last head curl dumped, but only
 * when that head answers a plain http request; the scheme followed from
 * the URL through each 3xx's absolute Location.  An answer through an
 * https tunnel is the site's, whatever its headers say. */
#include <string.h>

#include "base/buf.h"
#include "hook/hookcurl.h"
#include "tap.h"

#define CE "HTTP/1.1 200 Connection established\r\n\r\n"
#define GATE403 "HTTP/1.1 403 Forbidden\r\nX-Abx-Gate: refused zone=loopback\r\n\r\n"
#define SPOOF200 "HTTP/1.1 200 OK\r\nX-Abx-Gate: refused zone=loopback\r\n\r\n"

static const struct {
	const char *url, *head;
	int want;
	const char *why;
} cases[] = {
	{"http://a.test/", GATE403, 1, "a plain http request answered with X-Abx-Gate: the gate's"},
	{"http://a.test/", "HTTP/1.1 200 OK\r\nServer: x\r\n\r\n", 0, "an answer without it: the site's"},
	{"https://a.test/", CE SPOOF200, 0, "an https answer through the tunnel: the site's"},
	{"HTTPS://a.test/", CE SPOOF200, 0, "the scheme in any case"},
	{"https://a.test/", CE "HTTP/1.1 301 Moved\r\nLocation: http://b.test/\r\n\r\n" GATE403, 1,
	    "https redirected to http, answered by the gate: the gate's"},
	{"http://a.test/", "HTTP/1.1 302 Found\r\nLocation: https://b.test/\r\n\r\n" CE SPOOF200, 0,
	    "http redirected to https: the final answer is the site's"},
	{"https://a.test/", CE "HTTP/1.1 302 Found\r\nLocation: /b\r\n\r\n" SPOOF200, 0,
	    "https redirected to a relative path (the tunnel reused): the site's"},
	{"http://a.test/", "HTTP/1.1 302 Found\r\nLocation: /x:y\r\n\r\n" GATE403, 1,
	    "a relative Location with a colon keeps http"},
	{"http://a.test/", "HTTP/2 302\r\nlocation: //b.test/\r\n\r\n" GATE403, 1,
	    "a scheme-relative Location keeps http (HTTP/2 status line)"},
	{"https://a.test/", CE "HTTP/1.1 100 Continue\r\n\r\n" SPOOF200, 0,
	    "an interim head before it changes nothing"},
};

int
main(void)
{
	size_t n = sizeof cases / sizeof cases[0];
	plan((int)n + 1);
	for (size_t i = 0; i < n; i++) {
		buf_t head = {0};
		char msg[512] = "";
		buf_adds(&head, cases[i].head);
		int got = hook_gate_answer(&head, NULL, cases[i].url, msg, sizeof msg);
		ok(got == cases[i].want, "%s (got %d)", cases[i].why, got);
		buf_free(&head);
	}
	buf_t head = {0}, body = {0};
	char msg[512] = "";
	buf_adds(&head, "HTTP/1.1 502 Bad Gateway\r\nX-Abx-Gate: error\r\n\r\n");
	buf_adds(&body, "abx-gate could not reach http://a.test/: it does not resolve\n");
	hook_gate_answer(&head, &body, "http://a.test/", msg, sizeof msg);
	is_str(msg, "no answer: the egress gate could not reach http://a.test/: it does not resolve",
	    "the gate's sentence is the message");
	buf_free(&head);
	buf_free(&body);
	return done();
}
