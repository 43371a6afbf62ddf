/*
 * html.c — see html.h.
 */
#include <string.h>

#include "seal/html.h"

void
html_esc(buf_t *b, const char *s)
{
	for (; s && *s; s++) {
		switch (*s) {
		case '<': buf_adds(b, "&lt;"); break;
		case '>': buf_adds(b, "&gt;"); break;
		case '&': buf_adds(b, "&amp;"); break;
		case '"': buf_adds(b, "&quot;"); break;
		case '\'': buf_adds(b, "&#39;"); break;
		default: buf_addc(b, *s);
		}
	}
}

/* A relative link: percent-encode what a URL path cannot hold. */
void
html_href(buf_t *b, const char *path)
{
	static const char hex[] = "0123456789ABCDEF";
	for (const unsigned char *p = (const unsigned char *)path; *p; p++) {
		if ((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') ||
		    strchr("/-_.~+,=:@", *p))
			buf_addc(b, *p);
		else
			buf_addf(b, "%%%c%c", hex[*p >> 4], hex[*p & 15]);
	}
}

int
html_http_error(const rec_t *r)
{
	long long code = rec_int(r, "http_status", 0);
	return code >= 400 && code <= 999;
}

int
html_http(buf_t *b, const rec_t *r, int all, const char *sep)
{
	long long code = rec_int(r, "http_status", 0);
	if (code < 100 || code > 999 || (!all && code < 400))
		return 0;
	buf_adds(b, sep);
	buf_addf(b, "<span class=\"%s\">HTTP %lld</span>", code >= 400 ? "httperr" : "http", code);
	return 1;
}

const char html_css[] =
    "body{font:15px/1.5 system-ui,sans-serif;margin:0;color:#1d2430;background:#f6f7f9}"
    "header{background:#23395d;color:#fff;padding:18px 28px}header h1{margin:0;font-size:22px}"
    "header a{color:#cfe0ff;word-break:break-all}header .meta{color:#c9d4e5}"
    "main{padding:20px 28px;max-width:1100px}"
    "table{border-collapse:collapse;width:100%;background:#fff;box-shadow:0 1px 3px #0002}"
    "th,td{text-align:left;padding:7px 10px;border-bottom:1px solid #e4e7ec;vertical-align:top}"
    "th{background:#eef1f5;font-size:13px;text-transform:uppercase;letter-spacing:.04em}"
    ".succeeded{color:#19753b;font-weight:600}.failed{color:#b42318;font-weight:600}"
    ".skipped,.noresults{color:#8a6d00}.meta{color:#556;font-size:13px}"
    "ul{margin:0;padding-left:18px}img.preview{max-width:100%;border:1px solid #ccd;margin:12px 0}"
    "code{font-size:12px;color:#556}header .incomplete{color:#ffd27a;font-weight:600}"
    "p.open{font-size:17px;margin:0 0 12px}.httperr{color:#b42318;font-weight:600}"
    "header .httperr{color:#ffd27a}";
