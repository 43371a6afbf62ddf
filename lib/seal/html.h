/*
 * html.h — the pieces of abx's own HTML pages (a snapshot's index.html,
 * a crawl's page, the site index): escaping text, writing a relative link,
 * what the site answered, the style.
 *
 * html_esc() appends s with < > & " ' escaped (text and attribute values);
 * html_href() appends a relative path with every byte a URL path cannot
 * hold percent-encoded; html_css is the one style sheet of every page.
 *
 * html_http() appends what the site answered for the record r (a Snapshot,
 * or a line of the site's index.jsonl), after sep (text, not escaped):
 * "HTTP 404" in a <span class="httperr"> when its http_status is 400 or
 * above; with all, also any lower code ("HTTP 200", class "http");
 * nothing when r has no http_status from 100 to 999 (no hook recorded one:
 * not a page fetched over HTTP).  1 if it appended, else 0.
 * html_http_error() says whether r's http_status is a 4xx or 5xx (abx(7),
 * HTTP status).
 */
#ifndef ABX_HTML_H
#define ABX_HTML_H

#include "base/buf.h"
#include "base/json.h"

void html_esc(buf_t *b, const char *s);
void html_href(buf_t *b, const char *path);
int html_http(buf_t *b, const rec_t *r, int all, const char *sep);
int html_http_error(const rec_t *r);
extern const char html_css[];

#endif
