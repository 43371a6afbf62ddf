/* jsonline.c — see jsonline.h. */
#include "base/jsonline.h"

void
json_line(const char *s, size_t n, buf_t *out)
{
	int in_str = 0;
	for (size_t i = 0; i < n; i++) {
		char c = s[i];
		if (in_str) {
			buf_addc(out, c);
			if (c == '\\' && i + 1 < n)
				buf_addc(out, s[++i]);
			else if (c == '"')
				in_str = 0;
			continue;
		}
		if (c == ' ' || c == '\t' || c == '\n' || c == '\r')
			continue;
		buf_addc(out, c);
		if (c == '"')
			in_str = 1;
		else if (c == ',' || c == ':')
			buf_addc(out, ' ');
	}
	buf_cstr(out);
}
