/* termsafe.c — controls and escape sequences are shown, never passed to the terminal. */
#include <stdlib.h>

#include "base/termsafe.h"
#include "tap.h"

static const struct {
	const char *in, *want, *what;
} cases[] = {
	{"http://example.com/a b", "http://example.com/a b", "plain text is kept"},
	{"caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80", "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80", "valid UTF-8 is kept"},
	{"a\x1b[2Jb", "a^[[2Jb", "ESC (a CSI sequence) in caret notation"},
	{"\x1b]0;pwned\x07", "^[]0;pwned^G", "an OSC title sequence and BEL"},
	{"t\ta\nb\rc\x7f", "t^Ia^Jb^Mc^?", "TAB, LF, CR and DEL"},
	{"x\xc2\x9b" "31mred", "x\\u009b31mred", "a C1 CSI (U+009B) as \\u009b"},
	{"\xc2\x80\xc2\x9f\xc2\xa0", "\\u0080\\u009f\xc2\xa0", "the C1 range ends at U+009F"},
	{"x\x9b" "31m", "x\\x9b31m", "a lone C1 byte (invalid UTF-8) as \\x9b"},
	{"\xc0\xaf\xed\xa0\x80", "\\xc0\\xaf\\xed\\xa0\\x80", "overlong forms and surrogates are invalid"},
	{"abc\xe2\x80\xaexyz", "abc\\u202exyz", "a right-to-left override"},
	{"\xe2\x81\xa6" "a", "\\u2066a", "a bidi isolate"},
	{"\xe2\x82", "\\xe2\\x82", "a cut sequence at the end"},
};

int
main(void)
{
	size_t n = sizeof cases / sizeof cases[0];
	plan((int)n + 1);
	for (size_t i = 0; i < n; i++) {
		char *got = termsafe(cases[i].in);
		is_str(got, cases[i].want, "%s", cases[i].what);
		free(got);
	}
	char *e = termsafe(NULL);
	is_str(e, "", "NULL is empty");
	free(e);
	return done();
}
