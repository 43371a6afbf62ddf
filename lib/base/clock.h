/*
 * clock.h — time as abx records it.
 *
 * Times are microseconds since the epoch (int64) in memory and ISO 8601 UTC
 * with microseconds in records ("2026-11-29T17:15:32.123456Z"), so that jq
 * and sort compare them as strings.  RETRY_AT_MAX is ArchiveBox's paused
 * marker.  $ABX_NOW (an ISO time or @epoch-seconds), when set, replaces the
 * wall clock: the schedule tests drive time with it.
 */
#ifndef ABX_CLOCK_H
#define ABX_CLOCK_H

#include <stdint.h>

#define TIME_MAX_ISO "9999-12-31T23:59:59.999999Z"
#define ISO_LEN 27

int64_t clock_now(void);                   /* µs, honours $ABX_NOW */
int64_t clock_mono(void);                  /* µs, monotonic */
void clock_iso(int64_t us, char out[ISO_LEN + 1]);
int clock_parse(const char *iso, int64_t *us);   /* 0 ok, -1 bad */

#endif
