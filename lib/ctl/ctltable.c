/* ctltable.c — a record as a line of abx-ctl's table: see ctltable.h. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/termsafe.h"
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

/* One line of a table: the fields that matter for each kind of line. */
void
ctl_table_line(const rec_t *r, buf_t *b)
{
	char *t = rec_str(r, "type");
	static const char *cols[][6] = {
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
	int k = -1;
	for (int i = 0; t && cols[i][0]; i++)
		if (strcmp(cols[i][0], t) == 0)
			k = i;
	buf_addf(b, "%-10s", t ? t : "?");
	if (k < 0) {
		static const char *rcols[] = {"id", "status", "url", "urls", "schedule", NULL};
		for (int i = 0; rcols[i]; i++) {
			char *v = rec_str(r, rcols[i]);
			if (v)
				buf_addf(b, " %s", v);
			free(v);
		}
	}
	for (int i = 1; k >= 0 && i < 6 && cols[k][i]; i++) {
		const char *raw = rec_raw(r, cols[k][i]);
		char *v = rec_str(r, cols[k][i]);
		if (strcmp(cols[k][i], "output_size") == 0 && raw) {
			char h[32];
			human_size(rec_int(r, "output_size", 0), h, sizeof h);
			buf_addf(b, " %8s", h);
		} else if (strcmp(cols[k][i], "http_status") == 0 && raw) {
			char h[32];
			snprintf(h, sizeof h, "HTTP %lld", rec_int(r, "http_status", 0));
			buf_addf(b, " %-10s", h);
		} else if (strcmp(cols[k][i], "key") == 0) {
			buf_addf(b, " %-30s", v ? v : "");
		} else if (v) {
			int w = !strcmp(cols[k][i], "kind") ? 13 : !strcmp(cols[k][i], "status") ? 10 :
			        !strcmp(cols[k][i], "plugin") ? 12 : 0;
			buf_addf(b, " %-*s", w, v);
		} else if (raw && strcmp(raw, "null") != 0) {
			buf_addf(b, " %8s", raw);
		} else {
			/* a dash holds the column only if a later one is shown */
			int later = 0;
			for (int j = i + 1; j < 6 && cols[k][j]; j++)
				later |= rec_raw(r, cols[k][j]) != NULL;
			if (later)
				buf_addf(b, " %8s", "-");
		}
		free(v);
	}
	/* a URL or a reason is the web's text: its controls are shown, not
	 * sent to the terminal (termsafe.h); a list of URLs is one line */
	for (size_t i = 0; i < b->len; i++)
		if (b->p[i] == '\n' || b->p[i] == '\t')
			b->p[i] = ' ';
	char *safe = termsafe(buf_cstr(b));
	b->len = 0;
	buf_adds(b, safe);
	free(safe);
	free(t);
}
