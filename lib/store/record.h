/*
 * record.h — making the records abx stores, with ArchiveBox's field names.
 *
 *   Crawl      type id created_at modified_at urls max_depth tags_str config
 *              status retry_at label notes schedule_id created_by
 *   Snapshot   type id crawl_id url timestamp bookmarked_at title tags depth
 *              parent_snapshot_id config status retry_at created_at
 *              modified_at
 *
 * Every record is one JSON object; "type" and "id" always come first (the
 * journal scan relies on finding "id" in a line's first 64 bytes).  Times
 * are ISO 8601 UTC with microseconds.  status/retry_at follow ArchiveBox:
 * queued+now is due, paused carries 9999-12-31T23:59:59.999999Z, sealed
 * carries null.
 */
#ifndef ABX_RECORD_H
#define ABX_RECORD_H

#include <stdint.h>
#include "base/json.h"

void record_crawl(rec_t *r, int64_t now, const char *urls, int max_depth, const char *tags,
    const char *config_raw);
void record_snapshot(rec_t *r, int64_t now, const char *crawl_id, const char *url, int depth,
    const char *parent_id, const char *title, const char *tags);
/* Set status and retry_at together (retry_at < 0: null). */
void record_status(rec_t *r, const char *status, int64_t retry_at);

#endif
