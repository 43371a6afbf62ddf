/* lstable.c — a record as a line of abx-ls's table: see lstable.h. */
#include <stdlib.h>
#include <string.h>

#include "base/err.h"
#include "base/ids.h"
#include "base/termsafe.h"
#include "ctl/fitcol.h"
#include "ctl/lstable.h"
#include "hook/results.h"

/* Append s made one terminal-safe line (newlines and tabs as spaces). */
static void
add_safe(buf_t *b, const char *s)
{
	char *one = xstrdup(s ? s : "");
	for (char *p = one; *p; p++)
		if (*p == '\n' || *p == '\t' || *p == '\r')
			*p = ' ';
	termsafe_add(b, one);
	free(one);
}

static void
what_schedule(store_t *s, const rec_t *r, buf_t *b)
{
	char *expr = rec_str(r, "schedule"), *tid = rec_str(r, "template_id"), *urls = NULL;
	rec_t t;
	if (id_valid(tid) && store_get(s, tid, &t) == 0) {
		urls = rec_str(&t, "urls");
		rec_free(&t);
	}
	char *w = xasprintf("%-13s %s", expr ? expr : "?", urls ? urls : "(template gone)");
	add_safe(b, w);
	free(w), free(expr), free(tid), free(urls);
}

/* A result: plugin, its snapshot's url, and a failure's reason; room is
 * the columns left for all of it.  When url and reason do not both fit,
 * the url gets half (at least 16 columns) and the reason the rest. */
static void
what_result(store_t *s, const rec_t *r, buf_t *b, int room)
{
	char *pl = rec_str(r, "plugin"), *sid = rec_str(r, "snapshot_id"), *url = NULL;
	rec_t snap;
	if (id_valid(sid) && store_get(s, sid, &snap) == 0) {
		url = rec_str(&snap, "url");
		rec_free(&snap);
	}
	buf_t why = {0};
	if (rec_streq(r, "status", "failed")) {
		char *notes = rec_str(r, "notes");
		buf_t line = {0};
		result_reason_line(notes, &line);
		/* "exit status 8: ERROR 404: Not Found.": the words are the news */
		const char *w = buf_cstr(&line), *colon = strstr(w, ": ");
		if (!strncmp(w, "exit status ", 12) && colon && colon[2])
			w = colon + 2;
		if (*w) {
			buf_adds(&why, ": ");
			add_safe(&why, w);
		}
		buf_free(&line);
		free(notes);
	}
	size_t start = b->len;
	add_safe(b, pl ? pl : "?");
	if (url) {
		buf_addc(b, ' ');
		size_t at = b->len;
		add_safe(b, url);
		fit_pair(b, at, room - fit_columns(b->p + start, at - start), why.p ? why.p : "", why.len);
	} else {
		buf_add(b, why.p ? why.p : "", why.len);
	}
	buf_free(&why);
	free(pl), free(sid), free(url);
}

/* The table's last column: what the record is about. */
static void
what_of(store_t *s, const rec_t *r, buf_t *b, int room)
{
	if (rec_streq(r, "type", "CrawlSchedule")) {
		what_schedule(s, r, b);
		return;
	}
	if (rec_streq(r, "type", "ArchiveResult")) {
		what_result(s, r, b, room);
		return;
	}
	long long code = rec_int(r, "http_status", 0);
	if (rec_streq(r, "type", "Snapshot") && code >= 400)
		buf_addf(b, "HTTP %lld ", code);
	static const char *keys[] = {"url", "plugin", "name", "urls", NULL};
	for (int i = 0; keys[i]; i++) {
		char *w = rec_str(r, keys[i]);
		if (w) {
			add_safe(b, w);
			free(w);
			/* a snapshot's title after its url: the url is cut last */
			char *t = rec_streq(r, "type", "Snapshot") ? rec_str(r, "title") : NULL;
			if (t && *t) {
				buf_adds(b, "  ");
				add_safe(b, t);
			}
			free(t);
			return;
		}
	}
}

void
ls_table_line(store_t *s, const rec_t *r, int cols, buf_t *b)
{
	char *t = rec_str(r, "type"), *id = rec_str(r, "id"), *st = rec_str(r, "status");
	char *ra = rec_str(r, "retry_at");
	const char *tpl = rec_raw(r, "is_template");
	if (tpl && strcmp(tpl, "true") == 0) {
		free(st);
		st = xstrdup("template");
	}
	char *sst = termsafe(st ? st : "-");
	const char *shown = id ? id : "?";
	if (cols >= LS_WIDE) {
		buf_addf(b, "%-13s %-36s %-9s %-19.19s ", t ? t : "?", shown, sst, ra ? ra : "-");
	} else {
		size_t n = strlen(shown);
		buf_addf(b, "%-13s %-12s %-9s ", t ? t : "?", n > 12 ? shown + n - 12 : shown, sst);
	}
	int used = fit_columns(b->p, b->len);
	what_of(s, r, b, cols - 1 - used);
	while (b->len && b->p[b->len - 1] == ' ')
		b->len--;
	/* as ps does: a row fits the terminal, "..." where it is cut
	 * (a column is a UTF-8 character; --jsonl has it all) */
	if (cols > 4)
		fit_cut(b, 0, cols - 1);
	buf_cstr(b);
	free(sst);
	free(t), free(id), free(st), free(ra);
}
