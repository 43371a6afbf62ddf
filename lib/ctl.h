/*
 * ctl.h — pause, resume, cancel and retry, with ArchiveBox's semantics
 * (archivebox-runner.md §1.1–1.3), each one commit under the store lock:
 *
 *   pause   queued/started -> paused, retry_at = 9999-12-31 (the marker);
 *           a crawl also pauses its queued and started snapshots.
 *   resume  paused -> queued, retry_at = now; a crawl also resumes its
 *           paused snapshots.  Resuming a snapshot of a paused crawl
 *           leaves it paused (a requeue never un-pauses a crawl: §8.9).
 *   cancel  -> sealed, retry_at = null; a crawl also seals its queued,
 *           started and paused snapshots.  Workers notice and stop.
 *   retry   a snapshot -> queued, retry_at = now, with a queued
 *           ArchiveResult per named plugin (none: every plugin); its crawl
 *           is requeued if it was sealed.
 *
 * Schedules (CrawlSchedule) pause, resume and cancel through is_enabled and
 * status; a schedule whose expression is bad or can never fire (stored
 * before abx-add refused those, and disabled by the tick) is not resumed.
 * Each function returns 0, CTL_NOOP (already in that state), CTL_NOTFOUND,
 * CTL_BADSTATE or, for resume, CTL_NEVER (the schedule would never fire).
 */
#ifndef ABX_CTL_H
#define ABX_CTL_H

#include "store.h"

enum { CTL_OK = 0, CTL_NOOP, CTL_NOTFOUND, CTL_BADSTATE, CTL_NEVER };

int ctl_pause(store_t *s, const char *id);
int ctl_resume(store_t *s, const char *id);
int ctl_cancel(store_t *s, const char *id);
int ctl_retry(store_t *s, const char *snapshot_id, char **plugins);

#endif
