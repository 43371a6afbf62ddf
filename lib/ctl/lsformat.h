/*
 * lsformat.h — abx-ls's other outputs: CSV (--csv FIELDS) and an HTML
 * table (--html), a row a record.
 *
 *   lsfmt_csv()    FIELDS: record keys separated by commas ("id,url,title");
 *                  -1 and *why if there is none or one cannot be a key
 *                  (letters, digits and _).
 *   lsfmt_html()   the columns type, id, status, modified_at, url, title.
 *   lsfmt_head()   CSV: the header row (the keys); HTML: the page's head,
 *                  its style inline (no file outside it is loaded), and
 *                  the table's header row.
 *   lsfmt_row()    one record: each key's value, a string as its text, a
 *                  number or true/false as written, an object or array as
 *                  its JSON, null or missing as empty.  CSV as RFC 4180
 *                  (a value holding a comma, a double quote, CR or LF, or
 *                  beginning or ending with a blank, in double quotes,
 *                  each double quote doubled; rows end in CRLF); with safe
 *                  (standard output is a terminal) each value first made
 *                  terminal-safe (termsafe.h).  HTML: every value escaped
 *                  (html_esc); a url of http(s) is a link to it (after
 *                  "HTTP 404" when the record's http_status is 4xx or
 *                  5xx: html_http, html.h), a
 *                  snapshot's id a link to its page, relative to the data
 *                  directory (crawls/C/S/index.html: the file works when
 *                  saved there, as the site's index.html does).
 *   lsfmt_tail()   HTML: the table's and the page's end, with the count.
 * Each puts one line in b without its last "\n", which the caller's
 * cli_out() adds (a CSV row ends in "\r": CRLF with it).
 */
#ifndef ABX_LSFORMAT_H
#define ABX_LSFORMAT_H

#include "base/buf.h"
#include "base/json.h"

enum { LSFMT_CSV = 1, LSFMT_HTML };

typedef struct {
	int kind;
	char **key;
	size_t n;
	int safe;            /* CSV to a terminal */
	long rows;
} lsfmt_t;

int lsfmt_csv(lsfmt_t *f, const char *fields, buf_t *why);
void lsfmt_html(lsfmt_t *f);
void lsfmt_head(lsfmt_t *f, buf_t *b);
void lsfmt_row(lsfmt_t *f, const rec_t *r, buf_t *b);
void lsfmt_tail(lsfmt_t *f, buf_t *b);
void lsfmt_free(lsfmt_t *f);

#endif
