/* verbs_filter.c — see verbs_filter.h. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/err.h"
#include "ctl/verbs_filter.h"

int
filter_date(const char *arg, char *out)
{
	static const char shape[] = "0000-00-00T00:00:00.000000Z";
	size_t n = strlen(arg);
	if (n && arg[n - 1] == 'Z')
		n--;   /* "...24Z" sorts after "...24.5Z": compare without it */
	if (n < 10 || n >= sizeof shape - 1)
		return -1;
	for (size_t i = 0; i < n; i++)
		if (shape[i] == '0' ? !(arg[i] >= '0' && arg[i] <= '9') : arg[i] != shape[i])
			return -1;
	/* the rest of the shape filled in must make a real time */
	char full[sizeof shape];
	memcpy(full, arg, n);
	memcpy(full + n, shape + n, sizeof shape - n);
	/* and a real one: timegm() would carry month 13 into next year */
	struct tm tm = {0}, back;
	if (sscanf(full, "%4d-%2d-%2dT%2d:%2d:%2d", &tm.tm_year, &tm.tm_mon, &tm.tm_mday,
	        &tm.tm_hour, &tm.tm_min, &tm.tm_sec) != 6)
		return -1;
	tm.tm_year -= 1900;
	tm.tm_mon -= 1;
	struct tm want = tm;
	time_t t = timegm(&tm);
	if (!gmtime_r(&t, &back) || back.tm_year != want.tm_year || back.tm_mon != want.tm_mon ||
	    back.tm_mday != want.tm_mday || back.tm_hour != want.tm_hour ||
	    back.tm_min != want.tm_min || back.tm_sec != want.tm_sec)
		return -1;
	memcpy(out, arg, n);
	out[n] = 0;
	return 0;
}

static int
has_tag(const char *list, const char *tag)
{
	size_t tl = strlen(tag);
	for (const char *p = list; p && *p;) {
		while (*p == ' ' || *p == ',')
			p++;
		const char *e = strchr(p, ',');
		size_t l = e ? (size_t)(e - p) : strlen(p);
		while (l && p[l - 1] == ' ')
			l--;
		if (l == tl && memcmp(p, tag, tl) == 0)
			return 1;
		p = e ? e + 1 : p + strlen(p);
	}
	return 0;
}

static int
by_id(const void *a, const void *b)
{
	return strcmp(a, b);
}

static void
remember(filter_t *f, const char *id)
{
	if (!id_valid(id))
		return;
	if (f->nsnaps == f->capsnaps) {
		f->capsnaps = f->capsnaps ? 2 * f->capsnaps : 64;
		f->snaps = xrealloc(f->snaps, f->capsnaps * sizeof *f->snaps);
	}
	/* ids are time-ordered, so this is an append nearly always */
	size_t i = f->nsnaps;
	while (i > 0 && strcmp(f->snaps[i - 1], id) > 0)
		i--;
	memmove(f->snaps + i + 1, f->snaps + i, (f->nsnaps - i) * sizeof *f->snaps);
	memcpy(f->snaps[i], id, ID_LEN + 1);
	f->nsnaps++;
}

int
filter_by_content(const filter_t *f)
{
	return f->url || f->tag;
}

/* Do url and tag select r? */
static int
content_match(filter_t *f, const rec_t *r, const char *type)
{
	int snap = strcmp(type, "Snapshot") == 0, crawl = strcmp(type, "Crawl") == 0;
	if (snap || crawl) {
		char *u = rec_str(r, crawl ? "urls" : "url"), *t = rec_str(r, crawl ? "tags_str" : "tags");
		int ok = (!f->url || (u && strstr(u, f->url))) && (!f->tag || has_tag(t, f->tag));
		free(u), free(t);
		if (ok && snap) {
			char *id = rec_str(r, "id");
			remember(f, id);
			free(id);
		}
		return ok;
	}
	if (strcmp(type, "ArchiveResult") == 0 || strcmp(type, "Process") == 0) {
		char *sid = rec_str(r, "snapshot_id");
		int ok = sid && id_valid(sid) && f->nsnaps && bsearch(sid, f->snaps, f->nsnaps, sizeof *f->snaps, by_id);
		free(sid);
		return ok;
	}
	return 0;
}

int
filter_match(filter_t *f, const rec_t *r)
{
	char *type = rec_str(r, "type");
	int ok = type != NULL && rec_isnull(r, "deleted_at");
	/* content first: a snapshot is remembered even if -k leaves it out */
	if (ok && filter_by_content(f))
		ok = content_match(f, r, type);
	if (ok && f->type)
		ok = strcmp(type, f->type) == 0;
	if (ok && f->status) {
		const char *tpl = rec_raw(r, "is_template");
		int is_tpl = strcmp(type, "Crawl") == 0 && tpl && strcmp(tpl, "true") == 0;
		if (strcmp(f->status, "template") == 0)
			ok = is_tpl;
		else
			ok = !is_tpl && rec_streq(r, "status", f->status);
	}
	if (ok && f->crawl)
		ok = rec_streq(r, "id", f->crawl) || rec_streq(r, "crawl_id", f->crawl);
	if (ok && (f->since[0] || f->until[0])) {
		/* when it last changed: a result that failed a minute ago is
		 * found by --since today, whenever its snapshot was made */
		char *c = rec_str(r, "modified_at");
		if (!c)
			c = rec_str(r, "created_at");
		ok = c && (!f->since[0] || strcmp(c, f->since) >= 0) &&
		     (!f->until[0] || strcmp(c, f->until) < 0);
		free(c);
	}
	free(type);
	return ok;
}

void
filter_free(filter_t *f)
{
	free(f->snaps);
	f->snaps = NULL;
	f->nsnaps = f->capsnaps = 0;
}
