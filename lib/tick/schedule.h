/*
 * schedule.h — recurring crawls (ArchiveBox's CrawlSchedule).
 *
 * A schedule is a CrawlSchedule record in schedules.jsonl:
 *   {"type":"CrawlSchedule","id":..,"template_id":<crawl>,"schedule":"0 * * * *",
 *    "is_enabled":true,"status":"queued","label":..,"last_run_at":..,
 *    "retry_at":<next run>,"created_at":..}
 * Its template is a sealed Crawl whose urls, config, max_depth and tags_str
 * each new crawl copies; the copy's snapshots are made by its run (seed.c),
 * so each period captures every URL again, archived or not (abx-add's
 * check of archived URLs, archived.h, is abx-add's own).  retry_at holds the next run time, so the active
 * index finds due schedules at no cost.  When one is due, one crawl is
 * enqueued and the next run is computed from now: missed periods are not
 * back-filled.  Paused schedules carry the paused marker; cancelled ones
 * are sealed.
 *
 * CRON is a cron expression as cron.h reads it (five fields, names,
 * steps, @daily and the other aliases; the next run in UTC).  An
 * expression that can never fire is refused like a malformed one.
 *
 * A schedule has a next run (retry_at) later than the time it was computed
 * at, or none: then it is disabled (is_enabled false, paused marker) with
 * a warning, and never fires, not even once.  That is what becomes of a
 * stored schedule whose expression is bad or can never fire (written by
 * hand, or before abx-add refused it) the first time it is due.
 */
#ifndef ABX_SCHEDULE_H
#define ABX_SCHEDULE_H

#include <stdint.h>
#include <stdio.h>
#include "base/cron.h"
#include "store/store.h"

/* Make a schedule for template crawl rec (staged: hold the lock). */
void schedule_create(store_t *s, const rec_t *template_crawl, const char *expr, rec_t *out);
/* Enqueue a crawl for every due schedule; returns how many. */
int schedule_enqueue_due(store_t *s, int verbose);
/* Print due schedules as JSONL (for abx-tick -n); returns how many. */
int schedule_list_due(store_t *s, FILE *out);

#endif
