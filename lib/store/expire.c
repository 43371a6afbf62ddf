/*
 * expire.c — the index of when each final crawl expires (expire.h): the
 * line the commit appends for a crawl committed final (expire_note(),
 * store_int.h), and the rewrite of every line from crawls.jsonl
 * (expire_rebuild()).  Part of the store: it shares store_int.h.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/config.h"
#include "base/err.h"
#include "base/exitcodes.h"
#include "base/fs.h"
#include "store/expire.h"
#include "store/store_int.h"

long long
expire_after(const rec_t *r, int *has)
{
	long long d = 0;
	*has = 0;
	const char *cfg = rec_raw(r, "config");
	if (!cfg || !strstr(cfg, "DELETE_AFTER"))
		return 0;
	conf_t c = {0};
	conf_load_json(&c, cfg, CONF_CRAWL);
	const char *v = conf_get(&c, "DELETE_AFTER");
	if (v) {
		*has = 1;
		if (conf_parse_duration(v, &d) < 0)
			d = -1;
		if (d < 0) {
			char *id = rec_str(r, "id");
			warnx_("crawl %s: DELETE_AFTER=%s is not a duration of an hour to 100000 "
			       "years (e.g. 30d, 12w, 1y); the crawl is kept", id ? id : "?", v);
			free(id);
		}
	}
	conf_free(&c);
	return d;
}

/* The line of a final crawl r: its day (YYYY-MM-DD of its expiry, or ""
 * for the sealed log), the time it names and the line itself.  0, or -1
 * if r gets no line. */
static int
hint_of(const rec_t *r, char day[11], int64_t *at, char line[128])
{
	const char *tpl = rec_raw(r, "is_template");
	if (!record_is_final(r) || !rec_isnull(r, "retry_at") || !rec_isnull(r, "deleted_at") ||
	    (tpl && !strcmp(tpl, "true")))
		return -1;
	int has;
	long long d = expire_after(r, &has);
	int64_t t = rec_time(r, "modified_at");
	char *id = rec_str(r, "id");
	if (!id_valid(id) || t < 0 || (has && d <= 0)) {
		free(id);
		return -1;
	}
	char iso[ISO_LEN + 1];
	*at = has ? t + d * 1000000 : t;   /* d is at most CONF_DURATION_MAX */
	clock_iso(*at, iso);
	snprintf(day, 11, "%.10s", has ? iso : "");
	snprintf(line, 128, "{\"id\":\"%s\",\"at\":\"%s\"}\n", id, iso);
	free(id);
	return 0;
}

void
expire_note(store_t *s, const rec_t *r)
{
	char day[11], line[128], rel[64];
	int64_t at;
	if (hint_of(r, day, &at, line) < 0)
		return;
	if (day[0])
		snprintf(rel, sizeof rel, "%s/%s.jsonl", EXPIRE_DIR, day);
	else
		snprintf(rel, sizeof rel, "%s", EXPIRE_SEALED_LOG);
	ssize_t n = (ssize_t)strlen(line);
	int fd = -1;
	if (fs_mkdirs(s->dfd, EXPIRE_DIR) < 0 ||
	    (fd = fs_open(s->dfd, rel, O_WRONLY | O_APPEND | O_CREAT, 0644)) < 0 || write(fd, line, n) != n ||
	    (s->durable && !s->parent_syncs && fdatasync(fd) < 0))
		warnsys("unable to append to %s/%s (a crawl without its line there is not removed by "
		        "retention)", s->dir, rel);
	if (fd >= 0)
		close(fd);
}

typedef struct {
	char day[11];        /* a bucket's day; "" for the log */
	int64_t at;
	char line[128];
} note_t;

typedef struct {
	note_t *v;
	size_t n;
} notes_t;

static int
collect_note(rec_t *r, void *arg)
{
	notes_t *ns = arg;
	if (!rec_streq(r, "type", "Crawl"))
		return 0;
	note_t n;
	if (hint_of(r, n.day, &n.at, n.line) < 0)
		return 0;
	ns->v = xrealloc(ns->v, (ns->n + 1) * sizeof(note_t));
	ns->v[ns->n++] = n;
	return 0;
}

static int
by_day_at(const void *a, const void *b)
{
	const note_t *x = a, *y = b;
	int c = strcmp(x->day, y->day);
	if (c)
		return c;
	return x->at < y->at ? -1 : x->at > y->at;
}

int
expire_rebuild(store_t *s)
{
	if (!s->locked)
		return store_fail(s, EX_SOFT_, 0, "internal error: expire_rebuild without the store lock");
	notes_t ns = {0};
	if (store_each(s, "crawls.jsonl", "\"Crawl\"", collect_note, &ns) < 0 && store_failed(s)) {
		free(ns.v);
		return -1;
	}
	if (ns.n)
		qsort(ns.v, ns.n, sizeof(note_t), by_day_at);
	fs_rmtree(s->dfd, EXPIRE_DIR);
	int rc = fs_mkdirs(s->dfd, EXPIRE_DIR);
	buf_t b = {0};
	for (size_t i = 0; i <= ns.n && rc == 0; i++) {
		if (i > 0 && (i == ns.n || strcmp(ns.v[i].day, ns.v[i - 1].day) != 0)) {
			char rel[128];
			if (ns.v[i - 1].day[0])
				snprintf(rel, sizeof rel, "%s/%s.jsonl", EXPIRE_DIR, ns.v[i - 1].day);
			else
				snprintf(rel, sizeof rel, "%s", EXPIRE_SEALED_LOG);
			rc = fs_replace(s->dfd, rel, b.p ? b.p : "", b.len, s->durable);
			buf_reset(&b);
		}
		if (i < ns.n)
			buf_adds(&b, ns.v[i].line);
	}
	if (rc == 0 && (ns.n == 0 || ns.v[0].day[0]))
		rc = fs_replace(s->dfd, EXPIRE_SEALED_LOG, "", 0, s->durable);   /* no log line */
	if (rc == 0)
		rc = fs_replace(s->dfd, EXPIRE_SEALED_POS, "0\n", 2, s->durable);
	buf_free(&b);
	free(ns.v);
	return rc < 0 ? store_fail(s, EX_IOERR_, errno, "unable to rebuild %s/%s", s->dir, EXPIRE_SEALED_LOG) : 0;
}
