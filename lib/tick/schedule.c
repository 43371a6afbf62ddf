/* schedule.c — see schedule.h. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "base/cron.h"
#include "base/err.h"
#include "store/record.h"
#include "tick/schedule.h"

/* The next run of expr after now, or -1 with *why if there is none: the
 * expression is bad, can never fire, or the clock is past year 9999. */
static int64_t
next_run(const char *expr, int64_t now, const char **why)
{
	cron_t c;
	*why = "missing";
	if (!expr || cron_parse(expr, &c, why) < 0)
		return -1;
	int64_t next = cron_next(&c, now);
	*why = "it has no run after now";
	return next > now ? next : -1;
}

/* A schedule with no next run is disabled, with the paused marker as its
 * retry_at: never null, which the repair pass would make due at once. */
static void __attribute__((format(printf, 2, 3)))
disable(rec_t *sch, const char *fmt, ...)
{
	char *sid = rec_str(sch, "id"), *msg;
	va_list ap;
	va_start(ap, fmt);
	if (vasprintf(&msg, fmt, ap) < 0)
		msg = NULL;
	va_end(ap);
	warnx_("schedule %s: %s; disabled", sid ? sid : "?", msg ? msg : fmt);
	free(msg);
	free(sid);
	rec_set_raw(sch, "is_enabled", "false");
	record_status(sch, "paused", INT64_MAX);
}

void
schedule_create(store_t *s, const rec_t *tpl, const char *expr, rec_t *out)
{
	const char *why = "";
	int64_t now = clock_now();
	char id[ID_LEN + 1];
	memset(out, 0, sizeof *out);
	id_new(id);
	rec_set_str(out, "type", "CrawlSchedule");
	rec_set_str(out, "id", id);
	rec_set_time(out, "created_at", now);
	rec_set_time(out, "modified_at", now);
	char *tid = rec_str(tpl, "id");
	rec_set_str(out, "template_id", tid);
	free(tid);
	rec_set_str(out, "schedule", expr);
	rec_set_raw(out, "is_enabled", "true");
	rec_set_str(out, "label", "");
	rec_set_str(out, "status", "queued");
	rec_set_time(out, "last_run_at", now);
	int64_t next = next_run(expr, now, &why);
	if (next < 0)
		disable(out, "cron expression %s: %s", expr, why);
	else
		rec_set_time(out, "retry_at", next);
	store_put(s, out);
}

static int
enqueue(store_t *s, rec_t *sch, int64_t now, int verbose)
{
	char *tid = rec_str(sch, "template_id"), *expr = rec_str(sch, "schedule");
	char *sid = rec_str(sch, "id");
	rec_t tpl;
	int made = 0;
	const char *why;
	int64_t next = next_run(expr, now, &why);
	if (next < 0) {
		/* checked before the crawl is made: one that can never fire
		 * (stored before abx-add refused them) fires not even once */
		disable(sch, "cron expression %s: %s", expr ? expr : "", why);
	} else if (!tid || store_get(s, tid, &tpl) < 0) {
		disable(sch, "template crawl %s is gone", tid ? tid : "?");
	} else {
		char *urls = rec_str(&tpl, "urls"), *tags = rec_str(&tpl, "tags_str");
		const char *cfg = rec_raw(&tpl, "config");
		rec_t crawl;
		record_crawl(&crawl, now, urls ? urls : "", rec_int(&tpl, "max_depth", 0), tags, cfg);
		rec_set_str(&crawl, "schedule_id", sid);
		char *label = rec_str(&tpl, "label");
		rec_set_str(&crawl, "label", label ? label : "");
		store_put_new(s, &crawl);
		if (verbose) {
			char *cid = rec_str(&crawl, "id");
			info("schedule %s: crawl %s enqueued", sid, cid);
			free(cid);
		}
		rec_free(&crawl);
		free(urls), free(tags), free(label);
		rec_free(&tpl);
		rec_set_time(sch, "last_run_at", now);
		rec_set_time(sch, "retry_at", next);
		made = 1;
	}
	store_put(s, sch);
	free(tid), free(expr), free(sid);
	return made;
}

int
schedule_enqueue_due(store_t *s, int verbose)
{
	store_lock(s);
	ient_t *v;
	size_t n = store_active(s, "CrawlSchedule", &v);
	int64_t now = clock_now();
	int made = 0;
	/* in retry_at order (null first): stop at the first not due */
	for (size_t i = 0; i < n; i++) {
		if (v[i].retry_at > now)
			break;
		if (v[i].retry_at < 0)
			continue;
		rec_t r;
		if (store_get(s, v[i].id, &r) < 0)
			continue;
		const char *en = rec_raw(&r, "is_enabled");
		if (en && strcmp(en, "false") != 0 && rec_streq(&r, "status", "queued"))
			made += enqueue(s, &r, now, verbose);
		rec_free(&r);
	}
	free(v);
	store_unlock(s);
	return made;
}

int
schedule_list_due(store_t *s, FILE *out)
{
	store_lock(s);
	ient_t *v;
	size_t n = store_active(s, "CrawlSchedule", &v);
	store_unlock(s);
	int64_t now = clock_now();
	int due = 0;
	for (size_t i = 0; i < n; i++) {
		rec_t r;
		if (v[i].retry_at > now)
			break;   /* in retry_at order: none after it is due */
		if (v[i].retry_at < 0 || store_get(s, v[i].id, &r) < 0)
			continue;
		buf_t b = {0};
		rec_line(&r, &b);
		fprintf(out, "%s\n", b.p);
		buf_free(&b);
		rec_free(&r);
		due++;
	}
	free(v);
	return due;
}
