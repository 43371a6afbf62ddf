/*
 * crawlpage.h — a crawl's page, crawls/<id>/index.html, for a person.
 *
 * crawlpage_write() writes it from the crawl's record and its journal
 * (latest versions: the Snapshot and ArchiveResult records), by temp +
 * rename: the seeds, the settings (depth, tags, config, limits), the
 * outcomes (snapshots by why each was sealed or what it is doing, how
 * many the site answered with a 4xx or 5xx, results by status) and one
 * row a snapshot in (depth, created_at) order: its URL, title, status and
 * sealed_reason, "HTTP 404" when its http_status is 4xx or 5xx (html.h),
 * results succeeded / failed / other,
 * size, the first failed plugin with the first line of its reason, and a
 * link to its own index.html when that exists.  A removed snapshot
 * (deleted_at: abx-ctl remove, with its files kept or not) and its
 * results are left out, as abx-ls leaves them out.  seal_crawl() calls it
 * when a crawl is sealed and at every reseal (abx-seal CRAWL), abx-ctl
 * cancel when it seals a crawl, and abx-ctl remove when it removes one of
 * its snapshots; the site index links it by this
 * path.  Like every page it is a hint, rebuilt by
 * the next seal.  0, or -1 with errno set (nothing half-written is left).
 */
#ifndef ABX_CRAWLPAGE_H
#define ABX_CRAWLPAGE_H

#include "store/store.h"

int crawlpage_write(store_t *s, const rec_t *crawl);

#endif
