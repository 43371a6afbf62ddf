/*
 * json.h — one JSON object, as abx keeps records: a flat list of top-level
 * fields, each a key and the raw JSON text of its value.
 *
 * A record line is parsed with jsmn (strict mode) into a rec_t; nested
 * objects and arrays stay raw text and can be parsed again with rec_parse.
 * Field order is kept, unknown fields are kept, and rec_line() writes the
 * record back as one line, so a record passes through abx unchanged except
 * for the fields a tool sets.
 *
 * rec_parse returns 0, or -1 if the text is not one JSON object (a torn or
 * garbage line); the caller reports it with its line number.
 * Strings returned by rec_str() are unescaped UTF-8 (\u escapes, surrogate
 * pairs) and malloc'd; the caller frees them.
 */
#ifndef ABX_JSON_H
#define ABX_JSON_H

#include <stddef.h>
#include "buf.h"

typedef struct {
	char *key;
	char *val;          /* raw JSON text of the value */
} field_t;

typedef struct {
	int n, cap;
	field_t *f;
} rec_t;

int rec_parse(rec_t *r, const char *text, size_t len);
void rec_free(rec_t *r);
void rec_copy(rec_t *dst, const rec_t *src);

const char *rec_raw(const rec_t *r, const char *key);    /* NULL if absent */
char *rec_str(const rec_t *r, const char *key);          /* NULL unless a string */
int rec_streq(const rec_t *r, const char *key, const char *s);
long long rec_int(const rec_t *r, const char *key, long long dflt);
int rec_isnull(const rec_t *r, const char *key);          /* absent or null */

void rec_set_raw(rec_t *r, const char *key, const char *raw);
void rec_set_str(rec_t *r, const char *key, const char *s);  /* NULL: null */
void rec_set_strn(rec_t *r, const char *key, const char *s, size_t n);
void rec_set_int(rec_t *r, const char *key, long long v);
void rec_set_null(rec_t *r, const char *key);
void rec_del(rec_t *r, const char *key);

void rec_line(const rec_t *r, buf_t *out);    /* compact, no newline */

/* Unescape a JSON string literal's body (without quotes) into out. */
void json_unescape(const char *s, size_t n, buf_t *out);

/* Validate that text is exactly one JSON value (any type). */
int json_valid(const char *text, size_t len);

/*
 * Iterate the elements of a raw JSON array: calls fn(elem_raw, len, arg) for
 * each element; returns -1 if raw is not an array.
 */
int json_array_each(const char *raw, int (*fn)(const char *, size_t, void *), void *arg);

#endif
