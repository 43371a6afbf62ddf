/*
 * urllist.h — the URLs of one crawl, as abx-add takes them: its arguments,
 * or the lines of its stdin.
 *
 *   urllist_add()    one URL, from argument or line number lineno
 *   urllist_line()   one line: a trailing CR/LF and leading blanks are
 *                    dropped; a blank line or a "#" comment is skipped; a
 *                    line that starts with "{" is a JSONL record with "url"
 *                    and, if it likes, "title" and "tags" (a string, or an
 *                    array of strings, joined with commas); else the line
 *                    is the URL
 *   urllist_read()   every line of a stream (urllist_line each)
 *   urllist_text()   the crawl's "urls" field: a line per URL, the record
 *                    form where it has a title or tags (a later run keeps
 *                    them)
 *
 * Each URL is kept in its stored form (url_canon(), url.h), once: a URL
 * given twice is kept the first time (unique per crawl, as in ArchiveBox).
 * A URL that is not one, a record without a "url" string and a malformed
 * record are reported on stderr and counted in bad, and the rest kept:
 *
 *     abx-add: warning: line 3: not a URL: ftp//x
 *     abx-add: warning: line 4: malformed JSON record
 *
 * Nothing here exits.
 */
#ifndef ABX_URLLIST_H
#define ABX_URLLIST_H

#include <stdio.h>

#include "base/buf.h"

typedef struct {
	char *url, *title, *tags;    /* title and tags NULL if not given */
} urlentry_t;

typedef struct {
	urlentry_t *v;
	size_t n, cap;
	int bad;                     /* how many were rejected */
} urllist_t;

/* where: "argument" or "line", the word before lineno in a warning. */
void urllist_add(urllist_t *l, const char *where, long lineno, const char *url);
void urllist_line(urllist_t *l, char *line, size_t len, long lineno);
void urllist_read(urllist_t *l, FILE *in);
void urllist_text(const urllist_t *l, buf_t *out);
void urllist_free(urllist_t *l);

#endif
