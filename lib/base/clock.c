/* clock.c — see clock.h. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/clock.h"

int64_t
clock_now(void)
{
	const char *fake = getenv("ABX_NOW");
	int64_t us;
	if (fake && *fake) {
		if (fake[0] == '@')
			return (int64_t)(strtod(fake + 1, NULL) * 1e6);
		if (clock_parse(fake, &us) == 0)
			return us;
	}
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	return (int64_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

int64_t
clock_mono(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

void
clock_iso(int64_t us, char out[ISO_LEN + 1])
{
	time_t s = us / 1000000;
	int frac = us % 1000000;
	struct tm tm;
	if (us >= INT64_C(253402300799000000)) {
		memcpy(out, TIME_MAX_ISO, ISO_LEN + 1);
		return;
	}
	char tmp[96];
	if (us < 0)
		s = 0, frac = 0;
	gmtime_r(&s, &tm);
	snprintf(tmp, sizeof tmp, "%04d-%02d-%02dT%02d:%02d:%02d.%06dZ",
	    tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec, frac);
	memcpy(out, tmp, ISO_LEN);
	out[ISO_LEN] = 0;
}

int
clock_parse(const char *iso, int64_t *us)
{
	struct tm tm = {0};
	int frac = 0, n = 0;
	if (sscanf(iso, "%4d-%2d-%2dT%2d:%2d:%2d%n", &tm.tm_year, &tm.tm_mon, &tm.tm_mday,
	        &tm.tm_hour, &tm.tm_min, &tm.tm_sec, &n) != 6)
		return -1;
	const char *p = iso + n;
	if (*p == '.') {
		int digits = 0;
		for (p++; *p >= '0' && *p <= '9'; p++, digits++)
			if (digits < 6)
				frac = frac * 10 + (*p - '0');
		for (; digits < 6; digits++)
			frac *= 10;
	}
	if (*p == 'Z')
		p++;
	else if (strncmp(p, "+00:00", 6) == 0)
		p += 6;
	if (*p)
		return -1;
	tm.tm_year -= 1900;
	tm.tm_mon -= 1;
	time_t s = timegm(&tm);
	*us = (int64_t)s * 1000000 + frac;
	return 0;
}
