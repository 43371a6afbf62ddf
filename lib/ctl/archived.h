/*
 * archived.h — which of abx-add's URLs are archived already, so that
 * adding one again queues nothing unless asked (ArchiveBox's add skips a
 * URL it has unless told to overwrite; abx-add --again).
 *
 * A URL is archived when a snapshot of it, in any crawl, is sealed with
 * sealed_reason "archived" (its hooks ran: a page the site answered with
 * 404 below a seed is archived as answered, http_status kept), one of its
 * hooks succeeded (its index.jsonl says so), and neither it nor its crawl
 * is removed.  One whose every hook failed (a seed that gave no answer),
 * cancelled, refused (network_zone, robots_txt), sealed unrun by a limit,
 * or whose worker failed is not: adding its URL queues it.
 *
 * archived_drop() reads the site index, DIR/index.jsonl (a line appended
 * by every seal, seal.h), without the store lock: for each URL of l found
 * there, its snapshots are checked against their records (store_get),
 * newest first, and the first that is archived takes the URL out of l,
 * with one line on stderr naming the URL, the snapshot and when it was
 * archived:
 *
 *     abx-add: http://x/ is archived already, as snapshot 01a2... (crawl
 *     01a2..., 2026-12-01T10:00:00Z); not queued (--again queues it)
 *
 * Reading index.jsonl costs a parse of each line, a line at a time, once
 * for all the URLs (looked up in them sorted): it grows with the number of
 * seals, not with the archive's files.
 * The site index is a hint: a snapshot missing from it (a crash between
 * its line and its seal cannot make one; only a hand edit can) is not
 * found, and its URL is queued, as before; so is every URL, after a
 * warning, when index.jsonl exists but cannot be read.  Returns how many
 * URLs were taken out.
 */
#ifndef ABX_ARCHIVED_H
#define ABX_ARCHIVED_H

#include "ctl/urllist.h"
#include "store/store.h"

int archived_drop(store_t *s, urllist_t *l);

#endif
