/* schedule.c — see schedule.h. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "err.h"
#include "record.h"
#include "schedule.h"

/* The last second an ISO time of ours can hold: 9999-12-31T23:59:59Z. */
#define CRON_LAST 253402300799LL

static const struct {
	const char *alias, *expr;
} aliases[] = {
	{"minute", "* * * * *"}, {"minutely", "* * * * *"}, {"hour", "0 * * * *"},
	{"hourly", "0 * * * *"}, {"day", "0 0 * * *"}, {"daily", "0 0 * * *"},
	{"week", "0 0 * * 0"}, {"weekly", "0 0 * * 0"}, {"month", "0 0 1 * *"},
	{"monthly", "0 0 1 * *"}, {"year", "0 0 1 1 *"}, {"yearly", "0 0 1 1 *"},
	{"annually", "0 0 1 1 *"}, {NULL, NULL},
};

/* Parse one field into a bit set over [lo, hi]. */
static int
field(const char *f, int lo, int hi, uint64_t *bits, int *star)
{
	*bits = 0;
	*star = strcmp(f, "*") == 0;
	size_t fl = strlen(f);
	if (fl == 0 || f[0] == ',' || f[fl - 1] == ',' || strstr(f, ",,"))
		return -1;   /* an empty list element */
	char *dup = xstrdup(f), *save = NULL;
	int rc = 0;
	for (char *part = strtok_r(dup, ",", &save); part && rc == 0; part = strtok_r(NULL, ",", &save)) {
		long a = lo, b = hi, step = 1;
		char *slash = strchr(part, '/');
		if (slash) {
			*slash = 0;
			char *end;
			step = strtol(slash + 1, &end, 10);
			if (*end || end == slash + 1 || step < 1 || step > hi)
				rc = -1;
		}
		if (strcmp(part, "*") != 0) {
			char *end;
			a = strtol(part, &end, 10);
			if (end == part)
				rc = -1;
			b = a;
			if (*end == '-') {
				char *e2;
				b = strtol(end + 1, &e2, 10);
				if (*e2 || e2 == end + 1)
					rc = -1;
			} else if (*end) {
				rc = -1;
			} else if (slash) {
				b = hi;
			}
		}
		if (a < lo || b > hi || a > b)
			rc = -1;
		for (long i = a; rc == 0 && i <= b; i += step)
			*bits |= 1ULL << i;
	}
	free(dup);
	if (*bits == 0)
		rc = -1;
	return rc;
}

/* Can c ever fire?  Only a restricted day of the month with an unrestricted
 * day of the week can miss every day: then some month of c must have one
 * of its days (February has 29, in leap years).  Restricted both, either
 * matches (cron's OR rule), and every month has every weekday. */
static int
cron_can_fire(const cron_t *c)
{
	static const int days[13] = {0, 31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
	if (c->dom_star || !c->dow_star)
		return 1;
	for (int m = 1; m <= 12; m++)
		if ((c->mon >> m & 1) && (c->dom & ((2ULL << days[m]) - 2)))
			return 1;
	return 0;
}

int
cron_parse(const char *expr, cron_t *c, const char **why)
{
	memset(c, 0, sizeof *c);
	const char *e = expr[0] == '@' ? expr + 1 : expr;
	for (int i = 0; aliases[i].alias; i++)
		if (strcasecmp(e, aliases[i].alias) == 0)
			expr = aliases[i].expr;
	char *f[6] = {0};
	char *dup = xstrdup(expr), *save = NULL;
	int n = 0;
	for (char *t = strtok_r(dup, " \t", &save); t; t = strtok_r(NULL, " \t", &save)) {
		if (n == 5) {
			n++;
			break;
		}
		f[n++] = t;
	}
	int rc = -1;
	uint64_t bits;
	int star;
	*why = "want five fields (minute hour day month weekday) or an alias like daily";
	if (n == 5) {
		*why = "a field is out of range or malformed";
		if (field(f[0], 0, 59, &c->min, &star) == 0 && field(f[1], 0, 23, &bits, &star) == 0) {
			c->hour = bits;
			if (field(f[2], 1, 31, &bits, &c->dom_star) == 0) {
				c->dom = bits;
				if (field(f[3], 1, 12, &bits, &star) == 0) {
					c->mon = bits;
					if (field(f[4], 0, 7, &bits, &c->dow_star) == 0) {
						c->dow = (bits | bits >> 7) & 0x7f;
						rc = 0;
					}
				}
			}
		}
	}
	if (rc == 0 && !cron_can_fire(c)) {
		*why = "it can never fire: no month in it has any of its days of the month "
		       "(like February 30 or April 31)";
		rc = -1;
	}
	free(dup);
	return rc;
}

static int
day_ok(const cron_t *c, const struct tm *tm)
{
	int dom = c->dom >> tm->tm_mday & 1, dow = c->dow >> tm->tm_wday & 1;
	if (!(c->mon >> (tm->tm_mon + 1) & 1))
		return 0;
	if (c->dom_star && c->dow_star)
		return 1;
	if (c->dom_star)
		return dow;
	if (c->dow_star)
		return dom;
	return dom || dow;
}

int64_t
cron_next(const cron_t *c, int64_t t)
{
	if (t / 1000000 > CRON_LAST)
		return -1;
	time_t s = t / 1000000 / 60 * 60 + 60;   /* the next whole minute */
	/* every 28 years the calendar repeats (leap years and weekdays,
	 * between 1901 and 2099), so a time that never came by then never
	 * will; the loop moves forward at every step */
	time_t limit = s + 28LL * 366 * 86400;
	while (s < limit && s <= CRON_LAST) {
		struct tm tm;
		if (!gmtime_r(&s, &tm))
			return -1;
		if (!day_ok(c, &tm)) {
			s += 86400 - (tm.tm_hour * 3600 + tm.tm_min * 60);
			continue;
		}
		if (!(c->hour >> tm.tm_hour & 1)) {
			s += 3600 - tm.tm_min * 60;
			continue;
		}
		if (!(c->min >> tm.tm_min & 1)) {
			s += 60;
			continue;
		}
		return (int64_t)s * 1000000;
	}
	return -1;
}

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
		store_put(s, &crawl);
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
