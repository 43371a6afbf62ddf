/* jsonline.c — json_line(): JSON on one line, as Python's json.dumps writes it. */
#include "base/jsonline.h"
#include "tap.h"
#include "base/buf.h"

static const char *
line(const char *in, buf_t *b)
{
	buf_reset(b);
	json_line(in, strlen(in), b);
	return buf_cstr(b);
}

int
main(void)
{
	buf_t b = {0};
	plan(6);
	is_str(line("[\n  \"--a\",\n  \"--b=c d\"\n]", &b), "[\"--a\", \"--b=c d\"]",
	    "a config.json array over several lines becomes one line, json.dumps's separators");
	is_str(line("{\"pip\":{\"install_args\":[\"yt-dlp[default]\"]}}", &b),
	    "{\"pip\": {\"install_args\": [\"yt-dlp[default]\"]}}", "a compact object gains the blanks");
	is_str(line("{\"s\": \"x, y:  z\\n\"}", &b), "{\"s\": \"x, y:  z\\n\"}",
	    "strings are kept as they are, escapes and all");
	is_str(line("[\"a\\\"b, c\", 1,2]", &b), "[\"a\\\"b, c\", 1, 2]", "an escaped quote does not end a string");
	is_str(line("  [ ]\n", &b), "[]", "blanks around and inside an empty array go");
	is_str(line("{\"k\" :\t[1 ,\r\n 2], \"t\": true}", &b), "{\"k\": [1, 2], \"t\": true}",
	    "tabs, CRs and blanks before separators go");
	buf_free(&b);
	return done();
}
