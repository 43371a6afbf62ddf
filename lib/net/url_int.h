/*
 * url_int.h — what lib/url.c (the parser) and lib/urlhost.c (hosts) share;
 * not for other callers: use url.h.
 */
#ifndef ABX_URL_INT_H
#define ABX_URL_INT_H

#include <stdint.h>
#include "base/buf.h"

typedef struct {
	buf_t text;           /* the serialized host */
	int kind;             /* enum url_host_kind */
	uint32_t v4;
	uint16_t v6[8];
} urlhost_t;

/* The URL Standard's host parser over s[0..n) (opaque: a non-special
 * scheme's): fills h and returns 0, or -1 with *why. */
int urlhost_parse(urlhost_t *h, const char *s, size_t n, int opaque, const char **why);
/* The standard's "ends in a number": the host is to be read as IPv4. */
int urlhost_ends_in_number(const char *s);

#endif
