/* ids.c — see ids.h. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>

#include "base/clock.h"
#include "base/err.h"
#include "base/ids.h"

void
id_new(char out[ID_LEN + 1])
{
	unsigned char b[16];
	uint64_t ms = (uint64_t)(clock_now() / 1000);
	static uint64_t last_ms;
	static uint16_t seq;
	if (getrandom(b + 6, 10, 0) != 10) {
		for (int i = 6; i < 16; i++)
			b[i] = (unsigned char)(clock_mono() >> (i % 8));
	}
	/* Monotonic within a process: ids made in the same millisecond sort
	 * in the order they were made (RFC 9562 method 1, a 12-bit counter). */
	if (ms == last_ms) {
		seq++;
	} else {
		last_ms = ms;
		seq = ((b[6] << 8 | b[7]) & 0x3ff);
	}
	for (int i = 0; i < 6; i++)
		b[i] = ms >> (40 - 8 * i);
	b[6] = 0x70 | (seq >> 8 & 0x0f);
	b[7] = seq & 0xff;
	b[8] = 0x80 | (b[8] & 0x3f);
	snprintf(out, ID_LEN + 1,
	    "%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x",
	    b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11],
	    b[12], b[13], b[14], b[15]);
}

int
id_valid(const char *s)
{
	if (!s || strlen(s) != ID_LEN)
		return 0;
	for (int i = 0; i < ID_LEN; i++) {
		char c = s[i];
		if (i == 8 || i == 13 || i == 18 || i == 23) {
			if (c != '-')
				return 0;
		} else if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) {
			return 0;
		}
	}
	return 1;
}

int
name_valid(const char *s)
{
	size_t n = s ? strlen(s) : 0;
	if (n == 0 || n > 64 || strcmp(s, ".") == 0 || strcmp(s, "..") == 0 || s[0] == '.' || s[0] == '-')
		return 0;
	for (size_t i = 0; i < n; i++) {
		char c = s[i];
		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
		        c == '_' || c == '-' || c == '.'))
			return 0;
	}
	return 1;
}

int
host_valid(const char *s)
{
	size_t n = strlen(s);
	if (n < 1 || n > 64 || s[0] == '.' || s[0] == '-')
		return 0;
	for (const char *p = s; *p; p++)
		if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') ||
		        *p == '_' || *p == '.' || *p == '-'))
			return 0;
	return 1;
}

char **
name_list(const char *list, const char **bad)
{
	static char badbuf[128];
	size_t n = 1;
	for (const char *p = list; *p; p++)
		n += *p == ',';
	char **v = xcalloc(n + 1, sizeof(char *));
	char *dup = xstrdup(list), *save = NULL;
	size_t k = 0;
	for (char *t = strtok_r(dup, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
		while (*t == ' ')
			t++;
		size_t l = strlen(t);
		while (l && t[l - 1] == ' ')
			t[--l] = 0;
		if (!*t)
			continue;
		if (!name_valid(t)) {
			snprintf(badbuf, sizeof badbuf, "%s", t);
			*bad = badbuf;
			free(dup);
			name_list_free(v);
			return NULL;
		}
		v[k++] = xstrdup(t);
	}
	free(dup);
	return v;
}

void
name_list_free(char **v)
{
	if (!v)
		return;
	for (char **p = v; *p; p++)
		free(*p);
	free(v);
}
