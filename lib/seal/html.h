/*
 * html.h — the pieces of abx's own HTML pages (a snapshot's index.html,
 * the site index): escaping text, writing a relative link, the style.
 *
 * html_esc() appends s with < > & " ' escaped (text and attribute values);
 * html_href() appends a relative path with every byte a URL path cannot
 * hold percent-encoded; html_css is the one style sheet of every page.
 */
#ifndef ABX_HTML_H
#define ABX_HTML_H

#include "base/buf.h"

void html_esc(buf_t *b, const char *s);
void html_href(buf_t *b, const char *path);
extern const char html_css[];

#endif
