/* lsformat.c — abx-ls as CSV or an HTML table: see lsformat.h. */
#include <stdlib.h>
#include <string.h>

#include "base/err.h"
#include "base/ids.h"
#include "base/termsafe.h"
#include "ctl/lsformat.h"
#include "seal/html.h"
#include "seal/seal.h"

static void
add_key(lsfmt_t *f, const char *k, size_t n)
{
	f->key = xrealloc(f->key, (f->n + 1) * sizeof *f->key);
	f->key[f->n++] = xstrndup(k, n);
}

int
lsfmt_csv(lsfmt_t *f, const char *fields, buf_t *why)
{
	memset(f, 0, sizeof *f);
	f->kind = LSFMT_CSV;
	for (const char *p = fields; *p;) {
		while (*p == ' ' || *p == ',')
			p++;
		size_t n = strcspn(p, ",");
		while (n && p[n - 1] == ' ')
			n--;
		if (!n)
			break;
		for (size_t i = 0; i < n; i++)
			if (!((p[i] >= 'a' && p[i] <= 'z') || (p[i] >= 'A' && p[i] <= 'Z') ||
			        (p[i] >= '0' && p[i] <= '9') || p[i] == '_')) {
				buf_addf(why, "not a record key: \"%.*s\" (keys are letters, digits and _: "
				    "id,url,title)", (int)n, p);
				return -1;
			}
		add_key(f, p, n);
		p += n;
		while (*p && *p != ',')
			p++;
	}
	if (!f->n) {
		buf_addf(why, "no field named: \"%s\" (e.g. id,url,title)", fields);
		return -1;
	}
	return 0;
}

void
lsfmt_html(lsfmt_t *f)
{
	static const char *cols[] = {"type", "id", "status", "modified_at", "url", "title"};
	memset(f, 0, sizeof *f);
	f->kind = LSFMT_HTML;
	for (size_t i = 0; i < sizeof cols / sizeof *cols; i++)
		add_key(f, cols[i], strlen(cols[i]));
}

/* A value as text (malloc'd; NULL for null or missing). */
static char *
value_of(const rec_t *r, const char *key)
{
	const char *raw = rec_raw(r, key);
	if (!raw || !strcmp(raw, "null"))
		return NULL;
	return raw[0] == '"' ? rec_str(r, key) : xstrdup(raw);
}

static void
csv_value(buf_t *b, const char *v, int safe)
{
	char *t = safe ? termsafe(v) : NULL;
	const char *s = t ? t : v;
	size_t n = strlen(s);
	int quote = strpbrk(s, ",\"\r\n") != NULL || (n && (s[0] == ' ' || s[n - 1] == ' '));
	if (!quote) {
		buf_add(b, s, n);
	} else {
		buf_addc(b, '"');
		for (const char *p = s; *p; p++) {
			if (*p == '"')
				buf_addc(b, '"');
			buf_addc(b, *p);
		}
		buf_addc(b, '"');
	}
	free(t);
}

void
lsfmt_head(lsfmt_t *f, buf_t *b)
{
	if (f->kind == LSFMT_CSV) {
		for (size_t i = 0; i < f->n; i++) {
			if (i)
				buf_addc(b, ',');
			csv_value(b, f->key[i], 0);
		}
		buf_addc(b, '\r');   /* and cli_out's \n */
		return;
	}
	buf_addf(b, "<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
	            "<meta name=\"referrer\" content=\"no-referrer\">"
	            "<meta name=\"viewport\" content=\"width=device-width,initial-scale=1\">"
	            "<title>abx-ls</title><style>%s</style></head><body><header><h1>abx-ls</h1></header>"
	            "<main><table>\n<tr>", html_css);
	for (size_t i = 0; i < f->n; i++) {
		buf_adds(b, "<th>");
		html_esc(b, f->key[i]);
		buf_adds(b, "</th>");
	}
	buf_adds(b, "</tr>");
}

static void
html_cell(buf_t *b, const rec_t *r, const char *key, const char *v)
{
	buf_adds(b, "<td>");
	if (v && !strcmp(key, "url") && (!strncmp(v, "http://", 7) || !strncmp(v, "https://", 8))) {
		if (html_http(b, r, 0, ""))   /* what the site answered: a 404 */
			buf_addc(b, ' ');
		buf_adds(b, "<a rel=\"noopener noreferrer\" href=\"");
		html_esc(b, v);
		buf_adds(b, "\">");
		html_esc(b, v);
		buf_adds(b, "</a>");
	} else if (v && !strcmp(key, "id") && rec_streq(r, "type", "Snapshot")) {
		char dir[2 * ID_LEN + 16];
		if (seal_dir_of(r, dir, sizeof dir) == 0) {
			buf_adds(b, "<a href=\"");
			html_href(b, dir);
			buf_adds(b, "/index.html\">");
			html_esc(b, v);
			buf_adds(b, "</a>");
		} else {
			html_esc(b, v);
		}
	} else {
		html_esc(b, v ? v : "");
	}
	buf_adds(b, "</td>");
}

void
lsfmt_row(lsfmt_t *f, const rec_t *r, buf_t *b)
{
	f->rows++;
	if (f->kind == LSFMT_HTML)
		buf_adds(b, "<tr>");
	for (size_t i = 0; i < f->n; i++) {
		char *v = value_of(r, f->key[i]);
		if (f->kind == LSFMT_HTML) {
			html_cell(b, r, f->key[i], v);
		} else {
			if (i)
				buf_addc(b, ',');
			csv_value(b, v ? v : "", f->safe);
		}
		free(v);
	}
	buf_adds(b, f->kind == LSFMT_HTML ? "</tr>" : "\r");
}

void
lsfmt_tail(lsfmt_t *f, buf_t *b)
{
	if (f->kind == LSFMT_HTML)
		buf_addf(b, "</table><p class=\"meta\">%ld record%s</p></main></body></html>", f->rows,
		    f->rows == 1 ? "" : "s");
}

void
lsfmt_free(lsfmt_t *f)
{
	for (size_t i = 0; i < f->n; i++)
		free(f->key[i]);
	free(f->key);
	memset(f, 0, sizeof *f);
}
