/*
 * siteindex.h — the site's index: index.jsonl (a line per sealed
 * snapshot) and the paged index.html built from it.
 *
 * site_index_append() appends the sealed snapshot's line (id, crawl_id,
 * url, title, tags, depth, bookmarked_at, downloaded_at, output_size,
 * http_status when the record has one, path = dir) under the store lock,
 * before the seal's barrier, cutting a torn last line off first; the
 * pages show "HTTP 404" before the URL of a line whose http_status is
 * 4xx or 5xx (html.h).  index.jsonl is read as a journal: the last
 * line of an id is the snapshot's current one (a reseal appends another),
 * and one with deleted_at says it was removed.  seal_site_index() (declared in seal.h, for
 * its callers) writes the pages: see the comment above it.
 */
#ifndef ABX_SITEINDEX_H
#define ABX_SITEINDEX_H

#include "store/store.h"

void site_index_append(store_t *s, const rec_t *snap, const char *dir);
/* Under the store lock: the snapshot is removed (retention): a line
 * {"type":"Snapshot","id":S,"crawl_id":C,"deleted_at":T} takes it off
 * the site index (the last line of an id is its row). */
void site_index_remove(store_t *s, const char *snap_id, const char *crawl_id);

#endif
