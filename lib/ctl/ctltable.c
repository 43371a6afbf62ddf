/* ctltable.c — a record as a line of abx-ctl's table: see ctltable.h. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/err.h"
#include "base/termsafe.h"
#include "ctl/fitcol.h"
#include "ctl/ctltable.h"

static void
human_size(long long b, char *out, size_t n)
{
	static const char u[] = "BKMGTP";
	double v = b;
	int i = 0;
	while (v >= 1024 && i < 5)
		v /= 1024, i++;
	snprintf(out, n, i ? "%.1f%c" : "%.0f%c", v, u[i]);
}

/* s, made one line (a list of URLs is joined by blanks) and terminal-safe:
 * a URL's or a reason's controls are shown, never sent (termsafe.h). */
static char *
safe(const char *s)
{
	char *one = xstrdup(s ? s : "");
	for (char *p = one; *p; p++)
		if (*p == '\n' || *p == '\t' || *p == '\r')
			*p = ' ';
	char *t = termsafe(one);
	free(one);
	return t;
}

/* The field as shown below NARROW columns: an id's last 12 hex digits, a
 * time's month, day, hour and minute; else as it is. */
static const char *
narrowed(const char *field, const char *v, int narrow, char *out, size_t n)
{
	size_t len = strlen(v);
	if (!narrow)
		return v;
	if ((!strcmp(field, "id") || !strcmp(field, "snapshot_id")) && len > 12)
		return v + len - 12;
	if (!strcmp(field, "at") && len >= 16 && v[4] == '-' && v[10] == 'T') {
		snprintf(out, n, "%.5s %.5s", v + 5, v + 11);
		return out;
	}
	return v;
}

/* One line of a table: the fields that matter for each kind of line. */
void
ctl_table_line(const rec_t *r, int cols, buf_t *b)
{
	char *t = rec_str(r, "type"), *ts = safe(t ? t : "?");
	static const char *kinds[][6] = {
		{"Count", "kind", "status", "count", "output_size", "sealed_reason"},
		{"Running", "kind", "id", "url", NULL},
		{"Failed", "at", "plugin", "url", "reason", NULL},
		{"HttpStatus", "kind", "http_status", "count", NULL},
		{"HttpError", "http_status", "url", NULL},
		{"Retry", "snapshot_id", "plugins", NULL},
		{"Config", "key", "value", "source", NULL},
		{"Dependency", "status", "plugin", "name", "abspath", "version"},
		{NULL},
	};
	int k = -1, narrow = cols > 0 && cols < CTL_TABLE_WIDE;
	for (int i = 0; t && kinds[i][0]; i++)
		if (strcmp(kinds[i][0], t) == 0)
			k = i;
	buf_addf(b, "%-10s", ts);
	if (k < 0) {
		static const char *rcols[] = {"id", "status", "url", "urls", "schedule", NULL};
		for (int i = 0; rcols[i]; i++) {
			char *v = rec_str(r, rcols[i]);
			if (v) {
				char *sv = safe(v);
				buf_addf(b, " %s", sv);
				free(sv);
			}
			free(v);
		}
	}
	size_t url_at = 0, url_end = 0;
	for (int i = 1; k >= 0 && i < 6 && kinds[k][i]; i++) {
		const char *f = kinds[k][i], *raw = rec_raw(r, f);
		char *v = rec_str(r, f), *sv = v ? safe(v) : NULL, nb[32];
		if (strcmp(f, "output_size") == 0 && raw) {
			char h[32];
			human_size(rec_int(r, "output_size", 0), h, sizeof h);
			buf_addf(b, " %8s", h);
		} else if (strcmp(f, "http_status") == 0 && raw) {
			char h[32];
			snprintf(h, sizeof h, "HTTP %lld", rec_int(r, "http_status", 0));
			buf_addf(b, " %-10s", h);
		} else if (strcmp(f, "key") == 0) {
			buf_addf(b, " %-30s", sv ? sv : "");
		} else if (sv) {
			int w = !strcmp(f, "kind") ? 13 : !strcmp(f, "status") ? 10 : !strcmp(f, "plugin") ? 12 : 0;
			buf_addc(b, ' ');
			if (!strcmp(f, "url"))
				url_at = b->len;
			buf_addf(b, "%-*s", w, narrowed(f, sv, narrow, nb, sizeof nb));
			if (!strcmp(f, "url"))
				url_end = b->len;
		} else if (raw && strcmp(raw, "null") != 0) {
			char *sr = safe(raw);
			buf_addf(b, " %8s", sr);
			free(sr);
		} else {
			/* a dash holds the column only if a later one is shown */
			int later = 0;
			for (int j = i + 1; j < 6 && kinds[k][j]; j++)
				later |= rec_raw(r, kinds[k][j]) != NULL;
			if (later)
				buf_addf(b, " %8s", "-");
		}
		free(v), free(sv);
	}
	if (cols > 4) {
		/* a URL with a reason after it: both show, the URL cut first */
		if (url_end && url_end < b->len) {
			char *after = xstrndup(b->p + url_end, b->len - url_end);
			size_t n = b->len - url_end;
			b->len = url_end;
			fit_pair(b, url_at, cols - 1 - fit_columns(b->p, url_at), after, n);
			free(after);
		}
		fit_cut(b, 0, cols - 1);
	}
	buf_cstr(b);
	free(t), free(ts);
}
