/*
 * buf.h — a growable byte buffer, and JSON text built into it.
 *
 * buf_json_str() writes a JSON string literal: quotes, backslash and every
 * control byte are escaped, and bytes that are not valid UTF-8 (common in
 * titles and headers from the outside world) become U+FFFD, so that the
 * output is always valid JSON that jq accepts.
 */
#ifndef ABX_BUF_H
#define ABX_BUF_H

#include <stddef.h>
#include <stdint.h>

typedef struct {
	char *p;
	size_t len, cap;
} buf_t;

void buf_grow(buf_t *b, size_t extra);
void buf_add(buf_t *b, const void *s, size_t n);
void buf_adds(buf_t *b, const char *s);
void buf_addc(buf_t *b, char c);
void buf_addf(buf_t *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void buf_json_str(buf_t *b, const char *s, size_t n);
void buf_json_strz(buf_t *b, const char *s);   /* NULL writes null */
void buf_reset(buf_t *b);
void buf_free(buf_t *b);
char *buf_cstr(buf_t *b);                       /* NUL-terminated view */

#endif
