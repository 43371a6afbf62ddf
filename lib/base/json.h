/*
 * json.h — one JSON object, as abx keeps records: a flat list of top-level
 * fields, each a key and the raw JSON text of its value.
 *
 * A record line is parsed into a rec_t; nested objects and arrays stay raw
 * text and can be parsed again with rec_parse.  Field order is kept, unknown
 * fields are kept, and rec_line() writes the record back as one line, so a
 * record passes through abx unchanged except for the fields a tool sets.
 *
 * The reader is strict: rec_parse and json_valid accept exactly the texts
 * RFC 8259 accepts, nested values included — no trailing commas, missing
 * values, single quotes, bare words, leading zeros, "1." or ".5", raw
 * control bytes (U+0000..U+001F) in strings, unknown escapes, or text after
 * the value — and every string must be well-formed UTF-8 (RFC 3629: no
 * overlong forms, no encoded surrogates, nothing above U+10FFFF).  Space is
 * space, tab, CR and LF only; a byte order mark is refused.  Nesting deeper
 * than JSON_MAX_DEPTH objects and arrays is refused (a record's own braces
 * count as one level).  So whatever abx reads from a journal or a hook and
 * writes back is JSON that jq reads.
 *
 * rec_parse returns 0, or -1 if the text is not one JSON object (a torn or
 * garbage line); the caller reports it with its line number.  Duplicate keys
 * are allowed by RFC 8259; the last one wins, as in jq.
 *
 * Strings returned by rec_str() are unescaped UTF-8 (\u escapes, surrogate
 * pairs) and malloc'd; the caller frees them.  Two escapes RFC 8259 allows
 * have no place in a C string of valid UTF-8: \u0000 and a lone surrogate
 * (\ud800 without its pair, or a low one alone) each come out as U+FFFD.
 * The raw text (rec_raw, rec_line) keeps them as written.
 */
#ifndef ABX_JSON_H
#define ABX_JSON_H

#include <stddef.h>
#include "base/buf.h"

#define JSON_MAX_DEPTH 512

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
/* A growing array of copied records: recs_add() copies r in, recs_free()
 * frees them all and zeroes the array. */
typedef struct {
	rec_t *v;
	size_t n, cap;
} recs_t;
void recs_add(recs_t *rs, const rec_t *r);
void recs_free(recs_t *rs);

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

/* 1 if text is exactly one JSON value (any type), with space around it. */
int json_valid(const char *text, size_t len);

/*
 * Copy s into out (appending), each byte that is not part of well-formed
 * UTF-8 replaced by U+FFFD; returns how many were replaced.  For text from
 * the outside world (a hook's stdout) that is to be parsed strictly.
 */
int json_fix_utf8(const char *s, size_t n, buf_t *out);

/*
 * Iterate the elements of a raw JSON array: calls fn(elem_raw, len, arg) for
 * each element; returns -1 if raw is not a valid array (and fn is not
 * called), else the first non-zero fn return, or 0.
 */
int json_array_each(const char *raw, int (*fn)(const char *, size_t, void *), void *arg);

#endif
