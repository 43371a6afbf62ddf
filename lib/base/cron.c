/* cron.c — see cron.h. */
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "base/cron.h"
#include "base/err.h"

/* The last second an ISO time of ours can hold: 9999-12-31T23:59:59Z. */
#define CRON_LAST 253402300799LL

static const struct {
	const char *alias, *expr;
} aliases[] = {
	{"minute", "* * * * *"}, {"minutely", "* * * * *"}, {"hour", "0 * * * *"},
	{"hourly", "0 * * * *"}, {"day", "0 0 * * *"}, {"daily", "0 0 * * *"},
	{"midnight", "0 0 * * *"}, {"week", "0 0 * * 0"}, {"weekly", "0 0 * * 0"},
	{"month", "0 0 1 * *"}, {"monthly", "0 0 1 * *"}, {"year", "0 0 1 1 *"},
	{"yearly", "0 0 1 1 *"}, {"annually", "0 0 1 1 *"}, {NULL, NULL},
};

static const char *const months[] = {"jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct",
	"nov", "dec", NULL};
static const char *const days[] = {"sun", "mon", "tue", "wed", "thu", "fri", "sat", NULL};

typedef struct {
	const char *name;
	int lo, hi;
	const char *const *names;   /* names[i] is lo + i, or NULL */
} fieldspec_t;

static const fieldspec_t spec[5] = {
	{"minute", 0, 59, NULL}, {"hour", 0, 23, NULL}, {"day of month", 1, 31, NULL},
	{"month", 1, 12, months}, {"day of week", 0, 7, days},
};

/* A value at *p: digits, or a name of the field; -1 if none.  The value is
 * not checked against the range here. */
static long
value(const char **p, const fieldspec_t *f)
{
	const char *s = *p;
	if (*s >= '0' && *s <= '9') {
		long v = 0;
		while (*s >= '0' && *s <= '9') {
			if (v < 1000000)
				v = v * 10 + (*s - '0');
			s++;
		}
		*p = s;
		return v;
	}
	for (int i = 0; f->names && f->names[i]; i++)
		if (strncasecmp(s, f->names[i], 3) == 0) {
			*p = s + 3;
			return f->lo + i;
		}
	return -1;
}

/* One item: "*", N, N-M, each with an optional /S.  Sets bits. */
static int
item(const char *s, const fieldspec_t *f, uint64_t *bits)
{
	long a = f->lo, b = f->hi, step = 1;
	int range = 0;
	if (*s == '*') {
		s++;
		range = 1;
	} else {
		if ((a = value(&s, f)) < 0)
			return -1;
		b = a;
		if (*s == '-') {
			s++;
			if ((b = value(&s, f)) < 0)
				return -1;
			range = 1;
		}
	}
	if (*s == '/') {
		s++;
		if (*s < '0' || *s > '9')
			return -1;
		step = 0;
		while (*s >= '0' && *s <= '9') {
			if (step <= f->hi)
				step = step * 10 + (*s - '0');
			s++;
		}
		if (step < 1 || step > f->hi)
			return -1;
		if (!range)
			b = f->hi;   /* N/S: from N to the end */
	}
	if (*s || a < f->lo || b > f->hi || a > b)
		return -1;
	for (long i = a; i <= b; i += step)
		*bits |= 1ULL << i;
	return 0;
}

static int
field(const char *s, const fieldspec_t *f, uint64_t *bits)
{
	*bits = 0;
	size_t n = strlen(s);
	if (n == 0 || s[0] == ',' || s[n - 1] == ',' || strstr(s, ",,"))
		return -1;   /* an empty list element */
	char *dup = xstrdup(s), *save = NULL;
	int rc = 0;
	for (char *part = strtok_r(dup, ",", &save); part && rc == 0; part = strtok_r(NULL, ",", &save))
		rc = item(part, f, bits);
	free(dup);
	return rc;
}

/* Can c ever fire?  Only a restricted day of the month with an unrestricted
 * day of the week can miss every day: then some month of c must have one
 * of its days (February has 29, in leap years).  Restricted both, either
 * matches (the OR rule), and every month has every weekday. */
static int
cron_can_fire(const cron_t *c)
{
	static const int mdays[13] = {0, 31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
	if (c->dom_star || !c->dow_star)
		return 1;
	for (int m = 1; m <= 12; m++)
		if ((c->mon >> m & 1) && (c->dom & ((2ULL << mdays[m]) - 2)))
			return 1;
	return 0;
}

int
cron_parse(const char *expr, cron_t *c, const char **why)
{
	memset(c, 0, sizeof *c);
	if (expr[0] == '@' && strcasecmp(expr, "@reboot") == 0) {
		*why = "@reboot has no time to keep (abx has no boot to run at): use @daily or five fields";
		return -1;
	}
	const char *e = expr[0] == '@' ? expr + 1 : expr;
	for (int i = 0; aliases[i].alias; i++)
		if (strcasecmp(e, aliases[i].alias) == 0)
			expr = aliases[i].expr;
	char *f[6] = {0};
	char *dup = xstrdup(expr), *save = NULL;
	int n = 0;
	for (char *t = strtok_r(dup, " \t", &save); t && n < 6; t = strtok_r(NULL, " \t", &save))
		f[n++] = t;
	int rc = -1;
	*why = "want five fields (minute hour day month weekday) or an alias like @daily";
	if (n == 5) {
		uint64_t bits[5];
		rc = 0;
		for (int i = 0; i < 5 && rc == 0; i++)
			if (field(f[i], &spec[i], &bits[i]) < 0) {
				static const char *const bad[5] = {
					"the minute field is malformed or out of range (0-59)",
					"the hour field is malformed or out of range (0-23)",
					"the day of month field is malformed or out of range (1-31)",
					"the month field is malformed or out of range (1-12, JAN-DEC)",
					"the day of week field is malformed or out of range (0-7, SUN-SAT)",
				};
				*why = bad[i];
				rc = -1;
			}
		if (rc == 0) {
			c->min = bits[0];
			c->hour = bits[1];
			c->dom = bits[2];
			c->mon = bits[3];
			c->dow = (bits[4] | bits[4] >> 7) & 0x7f;
			/* croniter: a day field covering its range is no restriction */
			c->dom_star = c->dom == 0xfffffffeu;
			c->dow_star = c->dow == 0x7f;
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
	if (t < 0 && t % 60000000 != 0)
		s -= 60;   /* division rounds toward zero: before 1970, floor */
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
