/*
 * Unit tests of lib/base/cron: cron_parse and cron_next on fixed times.
 * 2030-01-01 is a Tuesday; 2032 and 2096 are leap years, 2100 is not.
 */
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>   /* store.h (via schedule.h) needs ino_t */
#include <string.h>

#include "base/clock.h"
#include "tick/schedule.h"
#include "tap.h"

/* The next run of expr strictly after the ISO time from, as an ISO time,
 * "none" if there is none, or "invalid" if expr does not parse. */
static const char *
next(const char *expr, const char *from)
{
	static char out[ISO_LEN + 1];
	cron_t c;
	const char *why = NULL;
	int64_t t;
	if (cron_parse(expr, &c, &why) < 0)
		return "invalid";
	if (clock_parse(from, &t) < 0)
		return "bad test time";
	int64_t n = cron_next(&c, t);
	if (n < 0)
		return "none";
	clock_iso(n, out);
	return out;
}

static const struct {
	const char *expr, *from, *want, *what;
} cases[] = {
	/* aliases, with and without "@", any case */
	{"minute", "2030-01-01T10:15:00Z", "2030-01-01T10:16:00.000000Z", "minute"},
	{"@minutely", "2030-01-01T10:15:00Z", "2030-01-01T10:16:00.000000Z", "@minutely"},
	{"hourly", "2030-01-01T10:15:00Z", "2030-01-01T11:00:00.000000Z", "hourly"},
	{"@hourly", "2030-01-01T10:15:00Z", "2030-01-01T11:00:00.000000Z", "@hourly"},
	{"HOURLY", "2030-01-01T10:15:00Z", "2030-01-01T11:00:00.000000Z", "HOURLY (any case)"},
	{"hour", "2030-01-01T10:15:00Z", "2030-01-01T11:00:00.000000Z", "hour"},
	{"daily", "2030-01-01T10:15:00Z", "2030-01-02T00:00:00.000000Z", "daily"},
	{"@day", "2030-01-01T10:15:00Z", "2030-01-02T00:00:00.000000Z", "@day"},
	{"weekly", "2030-01-01T10:15:00Z", "2030-01-06T00:00:00.000000Z", "weekly: next Sunday"},
	{"@week", "2030-01-06T00:00:00Z", "2030-01-13T00:00:00.000000Z", "@week from a Sunday midnight"},
	{"monthly", "2030-01-01T10:15:00Z", "2030-02-01T00:00:00.000000Z", "monthly"},
	{"@month", "2030-12-15T00:00:00Z", "2031-01-01T00:00:00.000000Z", "@month across the year end"},
	{"yearly", "2030-01-01T10:15:00Z", "2031-01-01T00:00:00.000000Z", "yearly"},
	{"@annually", "2030-01-01T00:00:00Z", "2031-01-01T00:00:00.000000Z", "@annually from its own run"},
	{"year", "2030-06-01T00:00:00Z", "2031-01-01T00:00:00.000000Z", "year"},

	/* strictly after, whole minutes */
	{"* * * * *", "2030-01-01T10:15:30.5Z", "2030-01-01T10:16:00.000000Z", "every minute, from mid-minute"},
	{"* * * * *", "2030-01-01T10:16:00Z", "2030-01-01T10:17:00.000000Z", "strictly after a matching minute"},
	{"0 * * * *", "2030-01-01T10:59:59.999999Z", "2030-01-01T11:00:00.000000Z", "the last microsecond before"},
	{"0 * * * *", "2030-01-01T11:00:00Z", "2030-01-01T12:00:00.000000Z", "at the run itself: the next one"},

	/* steps */
	{"*/15 * * * *", "2030-01-01T10:15:00Z", "2030-01-01T10:30:00.000000Z", "*/15"},
	{"*/15 * * * *", "2030-01-01T10:50:00Z", "2030-01-01T11:00:00.000000Z", "*/15 wraps to the hour"},
	{"5-20/5 * * * *", "2030-01-01T10:15:00Z", "2030-01-01T10:20:00.000000Z", "N-M/S"},
	{"5-20/5 * * * *", "2030-01-01T10:20:00Z", "2030-01-01T11:05:00.000000Z", "N-M/S after its range"},
	{"10/20 * * * *", "2030-01-01T10:50:00Z", "2030-01-01T11:10:00.000000Z", "N/S runs from N to the end"},
	{"10/20 * * * *", "2030-01-01T10:15:00Z", "2030-01-01T10:30:00.000000Z", "N/S steps"},
	{"0 */6 * * *", "2030-01-01T19:00:00Z", "2030-01-02T00:00:00.000000Z", "hour step into the next day"},
	{"0 0 */10 * *", "2030-01-12T00:00:00Z", "2030-01-21T00:00:00.000000Z", "day-of-month step 1,11,21,31"},

	/* ranges and lists */
	{"0 9-17 * * *", "2030-01-01T17:30:00Z", "2030-01-02T09:00:00.000000Z", "hour range"},
	{"0 9-17 * * *", "2030-01-01T08:59:00Z", "2030-01-01T09:00:00.000000Z", "hour range start"},
	{"0,30 8,20 * * *", "2030-01-01T08:30:00Z", "2030-01-01T20:00:00.000000Z", "lists"},
	{"0,30 8,20 * * *", "2030-01-01T20:30:00Z", "2030-01-02T08:00:00.000000Z", "lists wrap to the next day"},
	{"15 10 * 3,6-7 *", "2030-01-01T00:00:00Z", "2030-03-01T10:15:00.000000Z", "month list with a range"},
	{"1-3,58 * * * *", "2030-01-01T10:04:00Z", "2030-01-01T10:58:00.000000Z", "minute list with a range"},
	{"30 9 * * 1-5", "2030-01-04T09:30:00Z", "2030-01-07T09:30:00.000000Z", "weekdays: Friday to Monday"},

	/* day of week: 0 and 7 are Sunday */
	{"0 0 * * 7", "2030-01-01T10:15:00Z", "2030-01-06T00:00:00.000000Z", "dow 7 is Sunday"},
	{"0 0 * * 0", "2030-01-01T10:15:00Z", "2030-01-06T00:00:00.000000Z", "dow 0 is Sunday"},
	{"0 0 * * 6-7", "2030-01-05T01:00:00Z", "2030-01-06T00:00:00.000000Z", "range 6-7 reaches Sunday"},
	{"0 12 * * 5-7", "2030-01-01T00:00:00Z", "2030-01-04T12:00:00.000000Z", "range 5-7 starts Friday"},
	{"0 0 * * 3", "2030-01-01T10:15:00Z", "2030-01-02T00:00:00.000000Z", "Wednesday"},

	/* both day fields restricted: either matches (cron's OR rule) */
	{"0 0 13 * 5", "2030-01-01T00:00:00Z", "2030-01-04T00:00:00.000000Z", "13th or Friday: Friday the 4th"},
	{"0 0 13 * 5", "2030-01-11T00:00:00Z", "2030-01-13T00:00:00.000000Z", "13th or Friday: Sunday the 13th"},
	{"0 0 13 * 5", "2030-01-13T00:00:00Z", "2030-01-18T00:00:00.000000Z", "13th or Friday: then Friday"},
	{"0 0 13 * *", "2030-01-01T00:00:00Z", "2030-01-13T00:00:00.000000Z", "only dom restricted: dom alone"},
	{"0 0 * * 5", "2030-01-05T00:00:00Z", "2030-01-11T00:00:00.000000Z", "only dow restricted: dow alone"},
	{"0 0 1 * 1", "2030-01-02T00:00:00Z", "2030-01-07T00:00:00.000000Z", "1st or Monday: Monday first"},
	{"0 0 1 2 1", "2030-01-01T00:00:00Z", "2030-02-01T00:00:00.000000Z", "the OR rule stays within the month field"},

	/* month ends */
	{"0 0 31 * *", "2030-01-31T01:00:00Z", "2030-03-31T00:00:00.000000Z", "31st skips February"},
	{"0 0 31 * *", "2030-03-31T01:00:00Z", "2030-05-31T00:00:00.000000Z", "31st skips April"},
	{"0 0 30 * *", "2030-01-30T01:00:00Z", "2030-03-30T00:00:00.000000Z", "30th skips February"},
	{"0 0 * * *", "2030-02-28T12:00:00Z", "2030-03-01T00:00:00.000000Z", "daily across February's end"},
	{"59 23 31 12 *", "2030-12-31T23:59:00Z", "2031-12-31T23:59:00.000000Z", "last minute of the year"},
	{"0 0 30 2 1", "2030-01-01T00:00:00Z", "2030-02-04T00:00:00.000000Z", "Feb 30 or a Monday: Mondays"},
	{"0 0 31 4 *", "2030-01-01T00:00:00Z", "invalid", "April 31 never comes: refused"},
	{"0 0 31 4 0", "2030-04-01T00:00:00Z", "2030-04-07T00:00:00.000000Z", "April 31 or a Sunday: Sundays"},
	{"0 0 31 2,4 *", "2030-01-01T00:00:00Z", "invalid", "no 31st in February or April"},
	{"0 0 30,31 2 *", "2030-01-01T00:00:00Z", "invalid", "February 30th or 31st never comes"},
	{"0 0 31 4,5 *", "2030-01-01T00:00:00Z", "2030-05-31T00:00:00.000000Z", "the 31st of April or May: May"},
	{"0 0 29-31 2 *", "2030-01-01T00:00:00Z", "2032-02-29T00:00:00.000000Z", "a range reaching the 29th fires"},
	{"0 0 */30 2 *", "2030-01-01T00:00:00Z", "2030-02-01T00:00:00.000000Z", "*/30 is 1 and 31: the 1st"},
	{"0 0 30 */2 *", "2030-01-01T00:00:00Z", "2030-01-30T00:00:00.000000Z", "odd months have a 30th"},

	/* names, any case, in lists, ranges and steps; @midnight */
	{"0 3 * * MON", "2030-01-01T00:00:00Z", "2030-01-07T03:00:00.000000Z", "MON"},
	{"0 3 * * mon-fri", "2030-01-04T04:00:00Z", "2030-01-07T03:00:00.000000Z", "mon-fri: Friday to Monday"},
	{"0 0 1 JAN-MAR *", "2030-03-15T00:00:00Z", "2031-01-01T00:00:00.000000Z", "JAN-MAR"},
	{"0 0 1 jan,Jul *", "2030-01-15T00:00:00Z", "2030-07-01T00:00:00.000000Z", "jan,Jul"},
	{"0 0 1 feb-dec/5 *", "2030-01-01T00:00:00Z", "2030-02-01T00:00:00.000000Z", "feb-dec/5: Feb, Jul, Dec"},
	{"0 0 1 feb-dec/5 *", "2030-02-01T00:00:00Z", "2030-07-01T00:00:00.000000Z", "feb-dec/5 then July"},
	{"0 0 * * sun", "2030-01-01T00:00:00Z", "2030-01-06T00:00:00.000000Z", "sun is 0"},
	{"@midnight", "2030-01-01T10:15:00Z", "2030-01-02T00:00:00.000000Z", "@midnight"},
	{"@MIDNIGHT", "2030-01-01T10:15:00Z", "2030-01-02T00:00:00.000000Z", "@MIDNIGHT"},

	/* a day field covering its range is unrestricted (croniter) */
	{"0 0 */1 * 1", "2030-01-01T00:00:00Z", "2030-01-07T00:00:00.000000Z", "*/1 in dom: Mondays only"},
	{"0 0 1-31 * 1", "2030-01-01T00:00:00Z", "2030-01-07T00:00:00.000000Z", "1-31 in dom: Mondays only"},
	{"0 0 13 * */1", "2030-01-01T00:00:00Z", "2030-01-13T00:00:00.000000Z", "*/1 in dow: the 13th only"},
	{"0 0 13 * 0-7", "2030-01-01T00:00:00Z", "2030-01-13T00:00:00.000000Z", "0-7 in dow: the 13th only"},
	{"0 0 13 * 1-7", "2030-01-01T00:00:00Z", "2030-01-13T00:00:00.000000Z", "1-7 in dow covers the week"},
	{"0 0 13 * */2", "2030-01-01T00:00:00Z", "2030-01-03T00:00:00.000000Z", "*/2 in dow restricts: Thursday the 3rd"},

	/* the end of time: no overflow, no run */
	{"* * * * *", "9999-12-31T23:58:00Z", "9999-12-31T23:59:00.000000Z", "the last minute there is"},
	{"* * * * *", "9999-12-31T23:59:00Z", "none", "none after it"},
	{"0 0 1 1 *", "9999-06-01T00:00:00Z", "none", "nor a year later"},

	/* leap years */
	{"0 0 29 2 *", "2030-01-01T00:00:00Z", "2032-02-29T00:00:00.000000Z", "Feb 29 in the next leap year"},
	{"0 0 29 2 *", "2032-02-29T00:00:00Z", "2036-02-29T00:00:00.000000Z", "Feb 29 four years on"},
	{"0 0 29 2 *", "2097-01-01T00:00:00Z", "2104-02-29T00:00:00.000000Z", "2100 is not a leap year"},
	{"0 0 * * *", "2032-02-28T12:00:00Z", "2032-02-29T00:00:00.000000Z", "daily into a leap day"},
	{"0 0 * * *", "2100-02-28T12:00:00Z", "2100-03-01T00:00:00.000000Z", "no Feb 29 in 2100"},
	{"0 0 29 2 1", "2030-01-01T00:00:00Z", "2030-02-04T00:00:00.000000Z", "Feb 29 or a Monday of February"},
};

static const char *const invalid[] = {
	"", " ", "* * * *", "* * * * * *", "60 * * * *", "* 24 * * *", "* * 0 * *", "* * 32 * *",
	"* * * 0 *", "* * * 13 *", "* * * * 8", "-1 * * * *", "*/0 * * * *", "5-1 * * * *",
	"1- * * * *", "a * * * *", "* * * * mo", "* * * * monday", "* * * jan-dec-1 *", "* mon * * *",
	"+5 * * * *", "* * * * +1", "5-+9 * * * *", "*/+2 * * * *", "* * * * sat-sun", "*/ * * * *", "1-5-7 * * * *", "5/ * * * *",
	"@reboot", "@", "@0 * * * *", "fortnightly", ", * * * *", "1,,2 * * * *",
	"4294967296 * * * *", "*/4294967297 * * * *",
	/* can never fire */
	"0 0 30 2 *", "0 0 31 2 *", "0 0 31 4 *", "0 0 31 6 *", "0 0 31 9 *", "0 0 31 11 *",
	"0 0 31 4,6,9,11 *", "* * 30-31 2 *", "0 0 31 2-2 *", "0 0 30,31 2 *",
};

/* Expressions whose every next run must lie strictly after the time given. */
static const char *const walks[] = {
	"* * * * *", "0 * * * *", "*/7 */5 * * *", "59 23 31 12 *", "0 0 29 2 *", "0 0 29 2 1",
	"0 0 13 * 5", "30 9 * * 1-5", "0 0 31 * *", "5 4 1-7 * 0",
};

int
main(void)
{
	size_t nc = sizeof cases / sizeof cases[0], ni = sizeof invalid / sizeof invalid[0];
	size_t nw = sizeof walks / sizeof walks[0];
	plan((int)(nc + ni + nw + 5));
	for (size_t i = 0; i < nc; i++)
		is_str(next(cases[i].expr, cases[i].from), cases[i].want, "'%s' after %s: %s", cases[i].expr,
		    cases[i].from, cases[i].what);
	for (size_t i = 0; i < ni; i++) {
		cron_t c;
		const char *why = NULL;
		int rc = cron_parse(invalid[i], &c, &why);
		ok(rc < 0 && why && *why, "'%s' is refused with a reason", invalid[i]);
	}
	cron_t feb30;
	const char *never = NULL;
	cron_parse("0 0 30 2 *", &feb30, &never);
	ok(never && strstr(never, "never"), "the reason for 0 0 30 2 * says it can never fire (%s)",
	    never ? never : "none");

	/* from times spread over four centuries, at odd microseconds, each
	 * next run is strictly later: a schedule never fires on every tick */
	for (size_t i = 0; i < nw; i++) {
		cron_t c;
		const char *why = NULL;
		int later = cron_parse(walks[i], &c, &why) == 0;
		int64_t from = -86400LL * 1000000 * 365;   /* 1969 */
		for (int k = 0; later && k < 2000; k++) {
			int64_t n = cron_next(&c, from);
			later = n > from && n % 60000000 == 0;
			from += 6311520000000LL + 7 * k + 1;   /* ~73 days and some µs */
		}
		ok(later, "'%s': every next run is a whole minute after the time given", walks[i]);
	}

	/* aliases are the same sets as their expressions */
	cron_t a, b;
	const char *why;
	ok(cron_parse("@weekly", &a, &why) == 0 && cron_parse("0 0 * * 0", &b, &why) == 0 &&
	        cron_next(&a, 0) == cron_next(&b, 0),
	    "@weekly is 0 0 * * 0");
	ok(cron_parse("0 0 * * 0,7", &a, &why) == 0 && cron_parse("0 0 * * 0", &b, &why) == 0 &&
	        a.dow == b.dow,
	    "0,7 is one day, Sunday");
	/* every minute of a day, walked with cron_next, is 1440 runs */
	int64_t t;
	int runs = 0;
	clock_parse("2030-01-01T00:00:00Z", &t);
	t -= 1;
	ok(cron_parse("* * * * *", &a, &why) == 0, "* * * * * parses");
	int64_t end;
	clock_parse("2030-01-02T00:00:00Z", &end);
	while ((t = cron_next(&a, t)) >= 0 && t < end)
		runs++;
	ok(runs == 1440, "* * * * * runs 1440 times a day (got %d)", runs);
	return done();
}
