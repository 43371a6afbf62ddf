/*
 * cron.h — cron expressions as cron reads them, and their next run.
 *
 * An expression is five fields separated by spaces or tabs:
 *   minute 0-59, hour 0-23, day of month 1-31, month 1-12 or JAN-DEC,
 *   day of week 0-7 or SUN-SAT (0 and 7 are both Sunday),
 * or one of the aliases @yearly = @annually (0 0 1 1 *), @monthly
 * (0 0 1 * *), @weekly (0 0 * * 0), @daily = @midnight (0 0 * * *),
 * @hourly (0 * * * *), any case; abx also takes the older spellings
 * minute(ly), hour(ly), day/daily, week(ly), month(ly), year(ly) with or
 * without the "@".  @reboot is refused: a schedule needs a time.
 * A field is a comma list of items; an item is "*", a value N, a range
 * N-M (N <= M), each optionally followed by "/S" (every S-th value of the
 * range, S >= 1 and no larger than the field's maximum); "N/S" is N-max/S.
 * Values are unsigned decimal numbers (no sign, no spaces) or, in the
 * month and weekday fields, three-letter English names in any case, also
 * in ranges ("MON-FRI", "jan-mar/2").
 *
 * Days: a day field is unrestricted when its values cover its whole range
 * ("*", "*" + "/1", "1-31", "0-6", "0-7"), as croniter reads it (ArchiveBox's
 * schedules).  When both day fields are restricted, a day matches if
 * either does (Vixie cron's OR); when one is, it alone decides.  Times
 * are UTC.
 *
 * An expression that can never fire is refused like a malformed one:
 * a day of the month that none of its months has (February 30, April 31)
 * with an unrestricted day of the week.
 *
 * Differences from cronie: no "L", "W", "#", "?" or "~"; "@reboot" is
 * refused; a day field is unrestricted by what it covers, not by whether
 * it starts with "*" (so "*" + "/2" in day-of-month restricts it, and
 * "1-31" does not); names may start a range or step in both day fields and
 * months; an expression that can never fire is an error, not silence;
 * no CRON_TZ: UTC.
 */
#ifndef ABX_CRON_H
#define ABX_CRON_H

#include <stdint.h>

typedef struct {
	uint64_t min;       /* bit sets: bit N set if value N matches */
	uint32_t hour, dom, mon;
	uint8_t dow;        /* bits 0-6, Sunday 0 */
	int dom_star, dow_star;   /* the field is unrestricted */
} cron_t;

/* 0, or -1 with *why set to a reason that names the field. */
int cron_parse(const char *expr, cron_t *c, const char **why);
/* The first matching minute strictly after t (µs), or -1 if none within
 * 28 years (the calendar's cycle) or before the year 10000.  It always
 * terminates: every step of its search moves forward. */
int64_t cron_next(const cron_t *c, int64_t t);

#endif
