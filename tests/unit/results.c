/*
 * Unit tests of result_reason_line() (results.h): the one line of a
 * result's notes that abx-tick prints for a failed snapshot and the crawl
 * page shows — the first part, joined to the next after a bare exit
 * status, without chromium's D-Bus and log noise, cut at 200 bytes on a
 * character, with control characters made spaces.
 */
#include <stdlib.h>
#include <string.h>

#include "hook/results.h"
#include "tap.h"

static const struct {
	const char *notes, *want, *what;
} cases[] = {
	{"exit status 8; wget: server returned error: HTTP/1.1 404 Not Found\nmore",
	    "exit status 8: wget: server returned error: HTTP/1.1 404 Not Found", "a bare status and the first line"},
	{"timed out after 60 s", "timed out after 60 s", "a reason that says it all alone"},
	{"exit status 1; [1201/053501.1:ERROR:bus.cc(407)] Failed to connect to the bus: Failed to connect to "
	 "socket /run/dbus/system_bus_socket\n[1201/053501.2:WARNING:dns_config_service_linux.cc(427)] x\n"
	 "screenshot: page crashed\n[1201/053502.3:ERROR:object_proxy.cc(576)] org.freedesktop.DBus",
	    "exit status 1: screenshot: page crashed", "chromium's noise is left out"},
	{"killed by signal 9; \n\n  out of memory  \n", "killed by signal 9: out of memory", "blank lines and spaces"},
	{"exit status 2", "exit status 2", "a bare status alone"},
	{"", "", "no notes"},
	{"tab\there; x", "tab here", "a control character becomes a space"},
	{"Failed to connect to the bus: x", "", "only noise: nothing"},
};

int
main(void)
{
	size_t n = sizeof cases / sizeof cases[0];
	plan((int)n + 3);
	for (size_t i = 0; i < n; i++) {
		buf_t b = {0};
		result_reason_line(cases[i].notes, &b);
		is_str(buf_cstr(&b), cases[i].want, "%s", cases[i].what);
		buf_free(&b);
	}
	buf_t b = {0};
	result_reason_line(NULL, &b);
	is_str(buf_cstr(&b), "", "NULL notes");
	buf_free(&b);
	/* 199 ASCII bytes then a 2-byte character across the 200th byte */
	char long_[400];
	memset(long_, 'a', 199);
	strcpy(long_ + 199, "\xc3\xa9tail and more text");
	result_reason_line(long_, &b);
	ok(b.len == 199, "cut at 200 bytes, not inside a character (%zu bytes)", b.len);
	buf_free(&b);
	memset(long_, 'b', 300);
	long_[300] = 0;
	result_reason_line(long_, &b);
	ok(b.len == 200, "a long line is cut at 200 bytes (%zu)", b.len);
	buf_free(&b);
	return done();
}
