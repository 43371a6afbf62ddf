/* lstable.c — a record as a line of abx-ls's table: see lstable.h. */
#include <stdlib.h>
#include <string.h>

#include "base/err.h"
#include "base/ids.h"
#include "base/termsafe.h"
#include "ctl/lstable.h"

/* The table's last column: what the record is about. */
static char *
what_of(store_t *s, const rec_t *r)
{
	if (rec_streq(r, "type", "CrawlSchedule")) {
		char *expr = rec_str(r, "schedule"), *tid = rec_str(r, "template_id"), *urls = NULL;
		rec_t t;
		if (id_valid(tid) && store_get(s, tid, &t) == 0) {
			urls = rec_str(&t, "urls");
			rec_free(&t);
		}
		char *w = xasprintf("%-13s %s", expr ? expr : "?", urls ? urls : "(template gone)");
		free(expr), free(tid), free(urls);
		return w;
	}
	static const char *keys[] = {"url", "plugin", "name", "urls", NULL};
	for (int i = 0; keys[i]; i++) {
		char *w = rec_str(r, keys[i]);
		if (w)
			return w;
	}
	return NULL;
}

void
ls_table_line(store_t *s, const rec_t *r, int cols, buf_t *b)
{
	char *t = rec_str(r, "type"), *id = rec_str(r, "id"), *st = rec_str(r, "status");
	char *ra = rec_str(r, "retry_at"), *what = what_of(s, r);
	const char *tpl = rec_raw(r, "is_template");
	if (tpl && strcmp(tpl, "true") == 0) {
		free(st);
		st = xstrdup("template");
	}
	if (what)
		for (char *p = what; *p; p++)
			if (*p == '\n' || *p == '\t')
				*p = ' ';
	/* a page's URL: its controls never reach the terminal */
	char *safe = termsafe(what), *sst = termsafe(st ? st : "-");
	buf_addf(b, "%-13s %-36s %-9s %-19.19s %s", t ? t : "?", id ? id : "?", sst,
	    ra ? ra : "-", safe);
	while (b->len && b->p[b->len - 1] == ' ')
		b->len--;
	/* as ps does: a row fits the terminal, "..." where it is cut
	 * (a column is a UTF-8 character; --jsonl has it all) */
	size_t at = 0;
	int col = 0;
	for (; at < b->len; at++)
		if ((b->p[at] & 0xC0) != 0x80 && ++col > cols - 1)
			break;
	if (at < b->len && cols > 4) {
		size_t cut = at;
		for (int k = 0; k < 3 && cut > 0; k++)   /* room for "..." */
			while (--cut > 0 && (b->p[cut] & 0xC0) == 0x80)
				;
		b->len = cut;
		buf_adds(b, "...");
	}
	free(safe), free(sst);
	free(t), free(id), free(st), free(ra), free(what);
}
