/*
 * ctl.h — pause, resume, cancel and retry, with ArchiveBox's semantics
 * (ArchiveBox's Crawl and Snapshot state machines), each one commit under the store lock:
 *
 *   pause   queued/started -> paused, retry_at = 9999-12-31 (the marker);
 *           a crawl also pauses its queued and started snapshots.
 *   resume  paused -> queued, retry_at = now; a crawl also resumes its
 *           paused snapshots.  Resuming a snapshot of a paused crawl
 *           leaves it paused (a requeue never un-pauses a crawl, as in ArchiveBox).
 *   cancel  -> sealed, retry_at = null, lease = null, sealed_reason =
 *           "cancelled" (unless it was sealed before); a crawl also seals
 *           its queued, started and paused snapshots, and gets its page
 *           (crawlpage.h).  Workers notice and stop.  The results a retry
 *           queued for a snapshot cancelled before its rerun are made
 *           skipped, with a note.
 *   retry   a snapshot -> queued, retry_at = now, sealed_reason removed;
 *           each named plugin's earlier results of the snapshot are queued
 *           again under their own ids (the rerun replaces them: a result
 *           is keyed by snapshot, plugin and hook), and a named plugin
 *           without results gets a queued one per Snapshot hook it has;
 *           no plugins named: every plugin runs, nothing is queued ahead.
 *           Its crawl is requeued if it was sealed.
 *
 * Leases: a record handed on by one of these keeps a live holder's lease
 * (the holder clears it when it moves the record on), except that a
 * cancelled record has none; a dead one (a flock nobody holds, a time
 * lease past its expiry) is cleared, here and on the snapshots a crawl's
 * command cascades to.
 *
 * Schedules (CrawlSchedule) pause, resume and cancel through is_enabled and
 * status; a schedule whose expression is bad or can never fire (stored
 * before abx-add refused those, and disabled by the tick) is not resumed.
 * Each function returns 0, CTL_NOOP (already in that state), CTL_NOTFOUND,
 * CTL_BADSTATE or, for resume, CTL_NEVER (the schedule would never fire).
 */
#ifndef ABX_CTL_H
#define ABX_CTL_H

#include "store/store.h"

enum { CTL_OK = 0, CTL_NOOP, CTL_NOTFOUND, CTL_BADSTATE, CTL_NEVER };

int ctl_pause(store_t *s, const char *id);
int ctl_resume(store_t *s, const char *id);
int ctl_cancel(store_t *s, const char *id);
int ctl_retry(store_t *s, const char *snapshot_id, char **plugins);

#endif
