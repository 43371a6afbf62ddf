/*
 * ctl_schedule.c — abx-ctl schedule and run: a schedule's expression
 * edited, and a schedule run now (ctl_verbs.h).  A cron expression is
 * checked in one place, ctl_cron_next(), with the schedule module's public
 * parser, so that what abx-ctl accepts is what the tick runs.
 */
#include <stdlib.h>
#include <string.h>

#include "ctl/ctl_verbs.h"
#include "base/err.h"
#include "store/record.h"
#include "tick/schedule.h"

int
ctl_cron_next(const char *expr, int64_t now, int64_t *next, const char **why)
{
	cron_t c;
	if (cron_parse(expr, &c, why) < 0)
		return -1;
	*next = cron_next(&c, now);
	if (*next <= now) {
		*why = "it can never fire";
		return -1;
	}
	return 0;
}

/* Under the lock: the schedule id, or an error code. */
static int
get_schedule(store_t *s, const char *id, rec_t *r)
{
	if (store_get(s, id, r) < 0)
		return CTL_NOTFOUND;
	if (!rec_streq(r, "type", "CrawlSchedule")) {
		rec_free(r);
		return CTL_BADSTATE;
	}
	return CTL_OK;
}

int
ctl_schedule_edit(store_t *s, const char *id, const char *expr, rec_t *out, const char **why)
{
	int64_t now = clock_now(), next;
	memset(out, 0, sizeof *out);
	if (ctl_cron_next(expr, now, &next, why) < 0)
		return CTL_NEVER;
	store_lock(s);
	rec_t r;
	int rc = get_schedule(s, id, &r);
	if (rc == CTL_OK) {
		const char *en = rec_raw(&r, "is_enabled");
		if (rec_streq(&r, "status", "sealed")) {
			rc = CTL_BADSTATE;
		} else {
			rec_set_str(&r, "schedule", expr);
			/* a paused one keeps the paused marker: resume computes
			 * its next run then */
			if (!(en && strcmp(en, "false") == 0) && rec_streq(&r, "status", "queued"))
				rec_set_time(&r, "retry_at", next);
			store_put(s, &r);
			rec_copy(out, &r);
		}
		rec_free(&r);
	}
	store_unlock(s);
	return rc;
}

typedef struct {
	const char *sid;
	int64_t since;
	rec_t *out;
	int found;
} made_t;

static int
each_made(rec_t *r, void *arg)
{
	made_t *m = arg;
	if (rec_streq(r, "type", "Crawl") && rec_streq(r, "schedule_id", m->sid) &&
	    rec_time(r, "created_at") >= m->since) {
		if (m->found)
			rec_free(m->out);
		rec_copy(m->out, r);
		m->found = 1;
	}
	return 0;
}

int
ctl_schedule_run(store_t *s, const char *id, rec_t *crawl_out)
{
	memset(crawl_out, 0, sizeof *crawl_out);
	int64_t now = clock_now();
	store_lock(s);
	rec_t r;
	int rc = get_schedule(s, id, &r);
	if (rc == CTL_OK) {
		const char *en = rec_raw(&r, "is_enabled");
		if (!rec_streq(&r, "status", "queued") || (en && strcmp(en, "false") == 0)) {
			rc = CTL_BADSTATE;
		} else {
			/* due now: the schedule module enqueues it as at any
			 * due time, and counts the next run from now */
			rec_set_time(&r, "retry_at", now);
			store_put(s, &r);
		}
		rec_free(&r);
	}
	store_unlock(s);
	if (rc != CTL_OK)
		return rc;
	schedule_enqueue_due(s, 0);
	made_t m = {id, now, crawl_out, 0};
	ient_t *v;
	size_t n = store_active(s, "Crawl", &v);
	for (size_t i = 0; i < n; i++) {
		rec_t c;
		if (v[i].created_at >= now && store_get(s, v[i].id, &c) == 0) {
			each_made(&c, &m);
			rec_free(&c);
		}
	}
	free(v);
	return m.found ? CTL_OK : CTL_NOOP;
}
