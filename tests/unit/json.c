/* Unit tests of lib/json, lib/buf, lib/clock, lib/ids and lib/url. */
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "clock.h"
#include "ids.h"
#include "json.h"
#include "tap.h"
#include "url.h"

static char *
esc(const char *s, size_t n)
{
	buf_t b = {0};
	buf_json_str(&b, s, n);
	return buf_cstr(&b);
}

int
main(void)
{
	char *e;
	e = esc("a\"b\\c\n\t\x01\x7f", 9);
	is_str(e, "\"a\\\"b\\\\c\\n\\t\\u0001\\u007f\"", "quotes, backslash and control bytes escaped");
	free(e);
	e = esc("caf\xe9 \xff ok \xc3\xa9", 12);
	is_str(e, "\"caf\\ufffd \\ufffd ok \xc3\xa9\"", "invalid UTF-8 becomes U+FFFD, valid kept");
	free(e);
	e = esc("\xed\xa0\x80", 3);
	is_str(e, "\"\\ufffd\\ufffd\\ufffd\"", "an encoded surrogate is invalid");
	free(e);
	e = esc("\xc0\xaf", 2);
	is_str(e, "\"\\ufffd\\ufffd\"", "an overlong encoding is invalid");
	free(e);

	rec_t r;
	const char *line = "{\"type\":\"Snapshot\",\"id\":\"x\",\"n\":-12,\"o\":{\"a\":[1,{\"b\":2}]},"
	                   "\"s\":\"\\u00e9\\ud83d\\ude00\\n\",\"z\":null}";
	ok(rec_parse(&r, line, strlen(line)) == 0, "a record parses");
	ok(rec_int(&r, "n", 0) == -12, "integers");
	is_str(rec_raw(&r, "o"), "{\"a\":[1,{\"b\":2}]}", "nested objects stay raw");
	char *s = rec_str(&r, "s");
	is_str(s, "\xc3\xa9\xf0\x9f\x98\x80\n", "\\u escapes and surrogate pairs decode to UTF-8");
	free(s);
	ok(rec_isnull(&r, "z") && rec_isnull(&r, "missing"), "null and absent");
	rec_set_str(&r, "s", "new\x01");
	rec_del(&r, "z");
	buf_t b = {0};
	rec_line(&r, &b);
	is_str(b.p, "{\"type\":\"Snapshot\",\"id\":\"x\",\"n\":-12,\"o\":{\"a\":[1,{\"b\":2}]},"
	            "\"s\":\"new\\u0001\"}", "round trip keeps order, applies changes");
	buf_free(&b);
	rec_free(&r);

	static const char *bad[] = {"", "{", "{\"a\":1", "[1,2]", "{\"a\":1}x", "{\"a\" 1}", "nul",
	    "{\"a\":tru}", "{\"type\":\"Snap", "{'a':1}", NULL};
	int nbad = 0;
	for (int i = 0; bad[i]; i++)
		if (rec_parse(&r, bad[i], strlen(bad[i])) == 0) {
			printf("# accepted: %s\n", bad[i]);
			rec_free(&r);
		} else
			nbad++;
	ok(nbad == 10, "malformed and torn records are rejected");

	int64_t us;
	ok(clock_parse("2026-11-29T17:15:32.123456Z", &us) == 0, "ISO times parse");
	char iso[ISO_LEN + 1];
	clock_iso(us, iso);
	is_str(iso, "2026-11-29T17:15:32.123456Z", "and format back identically");
	ok(clock_parse("2026-11-29 17:15", &us) < 0, "a bad time is rejected");

	char a[ID_LEN + 1], c[ID_LEN + 1];
	id_new(a);
	id_new(c);
	ok(id_valid(a) && a[14] == '7', "ids are UUIDv7");
	ok(strcmp(a, c) < 0, "ids made later sort later");
	ok(!id_valid("../../etc/passwd") && !id_valid("01a22883-f1fb-738b-9106-840ed268bdd") &&
	   !id_valid("01A22883-F1FB-738B-9106-840ED268BDD8"), "bad ids are refused");
	ok(name_valid("wget") && name_valid("parse_html_urls") && !name_valid("..") &&
	   !name_valid("a/b") && !name_valid(".hidden") && !name_valid(""), "plugin names");

	char u1[] = "  http://example.com/a?b  ", u2[] = "ftp//x", u3[] = "http:///x",
	     u4[] = "javascript:alert(1)", u5[] = "file:///tmp/x", u6[] = "http://a b";
	ok(url_check(u1) == NULL && strcmp(u1, "http://example.com/a?b") == 0, "a URL is trimmed and accepted");
	ok(url_check(u2) && url_check(u3) && url_check(u4) && url_check(u6), "bad URLs rejected");
	ok(url_check(u5) == NULL, "file URLs accepted");
	plan(tap_n);
	return done();
}
