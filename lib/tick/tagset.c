/* tagset.c — a snapshot's tags as a set: see tagset.h. */
#include <stdlib.h>
#include <string.h>

#include "base/err.h"
#include "tick/tagset.h"

/* One tag, trimmed, added unless empty, broken or there already. */
static void
add_one(buf_t *t, const char *s, size_t n)
{
	while (n && (*s == ' ' || *s == '\t'))
		s++, n--;
	while (n && (s[n - 1] == ' ' || s[n - 1] == '\t'))
		n--;
	if (!n || memchr(s, '\n', n) || memchr(s, '\r', n) || memchr(s, ',', n))
		return;
	for (const char *p = t->p, *end = t->p + t->len; p && p < end;) {
		const char *c = memchr(p, ',', end - p);
		size_t l = c ? (size_t)(c - p) : (size_t)(end - p);
		if (l == n && memcmp(p, s, n) == 0)
			return;
		p += l + 1;
	}
	if (t->len)
		buf_addc(t, ',');
	buf_add(t, s, n);
}

void
tagset_add(buf_t *t, const char *list)
{
	for (const char *p = list, *c; p && *p; p = c ? c + 1 : NULL) {
		c = strchr(p, ',');
		add_one(t, p, c ? (size_t)(c - p) : strlen(p));
	}
	buf_cstr(t);
}

static int
add_element(const char *raw, size_t n, void *arg)
{
	buf_t s = {0};
	if (n >= 2 && raw[0] == '"')
		json_unescape(raw + 1, n - 2, &s);
	if (s.len)
		add_one(arg, s.p, s.len);
	buf_free(&s);
	return 0;
}

void
tagset_add_field(buf_t *t, const rec_t *r, const char *key)
{
	const char *raw = rec_raw(r, key);
	if (raw && raw[0] == '[') {
		json_array_each(raw, add_element, t);
	} else if (raw && raw[0] == '"') {
		char *v = rec_str(r, key);
		tagset_add(t, v);
		free(v);
	}
	buf_cstr(t);
}
