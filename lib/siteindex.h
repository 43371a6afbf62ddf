/*
 * siteindex.h — the site's index: index.jsonl (a line per sealed
 * snapshot) and the paged index.html built from it.
 *
 * site_index_append() appends the sealed snapshot's line (id, crawl_id,
 * url, title, tags, depth, bookmarked_at, downloaded_at, output_size,
 * path = dir) under the store lock, before the seal's barrier, cutting a
 * torn last line off first.  seal_site_index() (declared in seal.h, for
 * its callers) writes the pages: see the comment above it.
 */
#ifndef ABX_SITEINDEX_H
#define ABX_SITEINDEX_H

#include "store.h"

void site_index_append(store_t *s, const rec_t *snap, const char *dir);

#endif
