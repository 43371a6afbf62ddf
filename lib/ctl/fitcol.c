/* fitcol.c — a table row made to fit the terminal: see fitcol.h. */
#include "ctl/fitcol.h"

int
fit_columns(const char *s, size_t n)
{
	int c = 0;
	for (size_t i = 0; i < n; i++)
		c += (s[i] & 0xC0) != 0x80;
	return c;
}

void
fit_cut(buf_t *b, size_t from, int max)
{
	if (max < 4 || from > b->len || fit_columns(b->p + from, b->len - from) <= max)
		return;
	size_t at = from;
	for (int col = 0; at < b->len; at++)
		if ((b->p[at] & 0xC0) != 0x80 && ++col > max - 3)
			break;
	b->len = at;
	buf_adds(b, "...");
}

void
fit_pair(buf_t *b, size_t at, int left, const char *after, size_t n)
{
	int need = fit_columns(b->p + at, b->len - at) + fit_columns(after, n);
	if (n && need > left)
		fit_cut(b, at, left / 2 > 16 ? left / 2 : 16);
	if (n)
		buf_add(b, after, n);
}
