/* Unit tests of lib/base/json, base/buf, base/clock, base/ids and net/url. */
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "base/clock.h"
#include "base/ids.h"
#include "base/json.h"
#include "tap.h"
#include "net/url.h"

static char *
esc(const char *s, size_t n)
{
	buf_t b = {0};
	buf_json_str(&b, s, n);
	return buf_cstr(&b);
}

static int
collect(const char *raw, size_t n, void *arg)
{
	buf_add(arg, raw, n);
	buf_addc(arg, '|');
	return 0;
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

	/* RFC 8259, strictly: each of these is refused, as a record and as a value */
#define T(s) {s, sizeof s - 1}
	static const struct { const char *s; size_t n; } strict[] = {
	    T("{\"a\":1,}"), T("{\"a\":{\"b\":}}"), T("{\"a\":[1,]}"), T("{\"a\":[1,{\"b\":2,}]}"),
	    T("{\"a\":}"), T("{,}"), T("{\"a\":1,,\"b\":2}"), T("{\"a\":[,1]}"), T("{\"a\"}"),
	    T("{\"a\":1 \"b\":2}"), T("{\"a\"::1}"), T("{\"a\":tru}"), T("{\"a\":nul}"),
	    T("{\"a\":True}"), T("{\"a\":NULL}"), T("{\"a\":truex}"), T("{\"a\":01}"),
	    T("{\"a\":-01}"), T("{\"a\":1.}"), T("{\"a\":.5}"), T("{\"a\":-}"), T("{\"a\":1e}"),
	    T("{\"a\":1e+}"), T("{\"a\":+1}"), T("{\"a\":0x10}"), T("{\"a\":NaN}"),
	    T("{\"a\":Infinity}"), T("{\"a\":1.5.2}"), T("{\"a\":\"x\ty\"}"), T("{\"a\":\"\n\"}"),
	    T("{\"a\":\"\x01\"}"), T("{\"a\":\"\0\"}"), T("{\"a\":\"\\x41\"}"), T("{\"a\":\"\\u12\"}"),
	    T("{\"a\":\"\\u12g4\"}"), T("{\"a\":\"\\'\"}"), T("{\"a\":\"\\\"}"), T("{\"a\":1} x"),
	    T("{\"a\":1}{}"), T("{\"a\":1}\0"), T("{a:1}"), T("{'a':1}"), T("{\"a\":'x'}"),
	    T("{\"a\":\"\xc0\xaf\"}"), T("{\"a\":\"\xe0\x80\xaf\"}"), T("{\"a\":\"\xed\xa0\x80\"}"),
	    T("{\"a\":\"\xf5\x80\x80\x80\"}"), T("{\"a\":\"\xf4\x90\x80\x80\"}"), T("{\"a\":\"\xff\"}"),
	    T("{\"a\":\"\xe2\x82\"}"), T("{\"a\":\"\x80\"}"), T("{\"\xff\":1}"), T("\xef\xbb\xbf{}"),
	    T("{\"a\":1}\f"), T("{\"a\":[1]]}"), T("{\"a\":[1}"), T("{\"a\":{\"b\":1]}"),
	};
	int nstrict = sizeof strict / sizeof *strict, refused = 0;
	for (int i = 0; i < nstrict; i++) {
		int rp = rec_parse(&r, strict[i].s, strict[i].n), jv = json_valid(strict[i].s, strict[i].n);
		if (rp == 0)
			rec_free(&r);
		if (rp < 0 && !jv)
			refused++;
		else
			printf("# accepted: %.*s\n", (int)strict[i].n, strict[i].s);
	}
	ok(refused == nstrict, "what RFC 8259 refuses is refused (%d of %d cases)", refused, nstrict);
	ok(rec_parse(&r, "{\"a\":1,}", 8) < 0 && rec_parse(&r, "{\"a\":{\"b\":}}", 12) < 0,
	    "a trailing comma and a missing nested value (issue 8)");

	static const struct { const char *s; size_t n; } good[] = {
	    T("{}"), T(" { } "), T("\t{ \"a\" : [ ] , \"b\" : { } }\r\n"), T("{\"a\":-0.5e+10,\"b\":1E-2,\"c\":0}"),
	    T("{\"a\":[true,false,null,-0,0.0,1e5,\"\"]}"), T("{\"a\":\"\\\"\\\\\\/\\b\\f\\n\\r\\t\\u00e9\"}"),
	    T("{\"a\":\"\x7f\"}"), T("{\"a\":\"\xf4\x8f\xbf\xbf \xef\xbf\xbf \xe2\x82\xac\"}"),
	    T("{\"a\":\"\\ud800\"}"), T("{\"a\":\"\\u0000\"}"), T("{\"a\":1,\"a\":2}"), T("{\"\":{\"\":[]}}"),
	};
	int ngood = sizeof good / sizeof *good, taken = 0;
	for (int i = 0; i < ngood; i++) {
		int rp = rec_parse(&r, good[i].s, good[i].n);
		if (rp == 0)
			rec_free(&r);
		if (rp == 0 && json_valid(good[i].s, good[i].n))
			taken++;
		else
			printf("# refused: %.*s\n", (int)good[i].n, good[i].s);
	}
	ok(taken == ngood, "what RFC 8259 accepts is accepted (%d of %d cases)", taken, ngood);
	ok(json_valid("1", 1) && json_valid(" \"x\" ", 5) && json_valid("null", 4) && json_valid("[]", 2) &&
	   !json_valid("", 0) && !json_valid(" ", 1) && !json_valid("1 2", 3), "json_valid takes any one value");

	const char *lone = "{\"s\":\"a\\ud800b\\udc00c\\u0000d\",\"k\":1,\"k\":2}";
	ok(rec_parse(&r, lone, strlen(lone)) == 0, "lone surrogate escapes and \\u0000 are JSON");
	s = rec_str(&r, "s");
	is_str(s, "a\xef\xbf\xbd" "b\xef\xbf\xbd" "c\xef\xbf\xbd" "d", "rec_str makes them U+FFFD");
	free(s);
	is_str(rec_raw(&r, "s"), "\"a\\ud800b\\udc00c\\u0000d\"", "the raw text keeps them");
	ok(r.n == 2 && rec_int(&r, "k", 0) == 2, "a duplicate key: the last one wins");
	rec_free(&r);

	/* depth: JSON_MAX_DEPTH levels, a record's braces included */
	buf_t deep = {0};
	for (int d = 0; d < 2; d++) {
		buf_reset(&deep);
		int levels = JSON_MAX_DEPTH + d;
		buf_adds(&deep, "{\"a\":");
		for (int i = 1; i < levels; i++)
			buf_addc(&deep, '[');
		for (int i = 1; i < levels; i++)
			buf_addc(&deep, ']');
		buf_addc(&deep, '}');
		int rp = rec_parse(&r, deep.p, deep.len);
		if (rp == 0)
			rec_free(&r);
		if (d == 0)
			ok(rp == 0 && json_valid(deep.p, deep.len), "%d levels are accepted", levels);
		else
			ok(rp < 0 && !json_valid(deep.p, deep.len), "%d levels are refused", levels);
	}
	buf_reset(&deep);
	for (int i = 0; i < 100000; i++)
		buf_addc(&deep, '[');
	ok(!json_valid(deep.p, deep.len), "100000 open arrays: refused, no recursion");
	buf_free(&deep);

	buf_t fixed = {0};
	ok(json_fix_utf8("caf\xe9 \xc3\xa9 \xed\xa0\x80!", 12, &fixed) == 4 &&
	   strcmp(fixed.p, "caf\xef\xbf\xbd \xc3\xa9 \xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd!") == 0,
	    "json_fix_utf8 replaces each bad byte by U+FFFD");
	buf_free(&fixed);

	buf_t elems = {0};
	ok(json_array_each(" [1, \"a,b\" ,{\"c\":[2,3]},[] ] ", collect, &elems) == 0, "json_array_each");
	is_str(elems.p, "1|\"a,b\"|{\"c\":[2,3]}|[]|", "gives each element's raw text");
	buf_reset(&elems);
	ok(json_array_each("[1,2,]", collect, &elems) < 0 && elems.len == 0 &&
	   json_array_each("{}", collect, &elems) < 0, "and refuses a bad array before calling back");
	buf_free(&elems);

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

	char u1[] = "  http://example.com/a?b  ", u2[] = "ftp//x", u3[] = "http://",
	     u4[] = "javascript:alert(1)", u5[] = "file:///tmp/x", u6[] = "http://a b";
	ok(url_check(u1) == NULL && strcmp(u1, "http://example.com/a?b") == 0, "a URL is trimmed and accepted");
	ok(url_check(u2) && url_check(u3) && url_check(u4) && url_check(u6), "bad URLs rejected");
	ok(url_check(u5) != NULL, "file URLs refused (no plugin fetches them)");
	plan(tap_n);
	return done();
}
