/* record.c — see record.h. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/clock.h"
#include "base/ids.h"
#include "store/record.h"
#include "store/store.h"

static void
head(rec_t *r, const char *type, int64_t now)
{
	char id[ID_LEN + 1];
	memset(r, 0, sizeof *r);
	id_new(id);
	rec_set_str(r, "type", type);
	rec_set_str(r, "id", id);
	rec_set_time(r, "created_at", now);
	rec_set_time(r, "modified_at", now);
}

void
record_crawl(rec_t *r, int64_t now, const char *urls, int max_depth, const char *tags,
    const char *config_raw)
{
	const char *user = getenv("USER");
	head(r, "Crawl", now);
	rec_set_str(r, "urls", urls);
	rec_set_int(r, "max_depth", max_depth);
	rec_set_str(r, "tags_str", tags ? tags : "");
	rec_set_raw(r, "config", config_raw && *config_raw ? config_raw : "{}");
	rec_set_str(r, "status", "queued");
	rec_set_time(r, "retry_at", now);
	rec_set_str(r, "label", "");
	rec_set_str(r, "notes", "");
	rec_set_null(r, "schedule_id");
	rec_set_str(r, "created_by", user && *user ? user : "system");
}

void
record_snapshot(rec_t *r, int64_t now, const char *crawl_id, const char *url, int depth,
    const char *parent_id, const char *title, const char *tags)
{
	char ts[32];
	static int64_t last_ts;
	head(r, "Snapshot", now);
	/* ArchiveBox keeps timestamps unique: later snapshots of one batch
	 * get the next microsecond */
	int64_t t = now > last_ts ? now : last_ts + 1;
	last_ts = t;
	rec_set_str(r, "crawl_id", crawl_id);
	rec_set_str(r, "url", url);
	/* ArchiveBox's legacy timestamp: epoch seconds with microseconds */
	snprintf(ts, sizeof ts, "%lld.%06lld", (long long)(t / 1000000), (long long)(t % 1000000));
	rec_set_str(r, "timestamp", ts);
	rec_set_time(r, "bookmarked_at", now);
	rec_set_str(r, "title", title);
	rec_set_str(r, "tags", tags ? tags : "");
	rec_set_int(r, "depth", depth);
	rec_set_str(r, "parent_snapshot_id", parent_id);
	rec_set_raw(r, "config", "{}");
	rec_set_str(r, "status", "queued");
	rec_set_time(r, "retry_at", now);
}

void
record_status(rec_t *r, const char *status, int64_t retry_at)
{
	rec_set_str(r, "status", status);
	rec_set_time(r, "retry_at", retry_at);
}
