/*
 * retention.h — DELETE_AFTER: expired final items are removed.
 *
 * DELETE_AFTER (abx.conf, the environment, or a crawl's config) uses
 * ArchiveBox's syntax: 0, empty, none/false/no/off disable it; else
 * <int><unit> with unit h|hr|hrs|hour|hours|d|day|days|w|week|weeks|
 * mo|month|months|y|yr|yrs|year|years (a month is 30 days, a year 365);
 * durations under an hour are refused.  A crawl expires at its last change
 * (its modified_at: when it was sealed, after every snapshot of it was made)
 * plus the duration; the unit of removal is the crawl, since its journal
 * and directory hold all of its snapshots.
 *
 * retention_run() removes, oldest first and at most `batch` per call, sealed
 * crawls whose every snapshot is sealed and expired: the crawl directory
 * (snapshots, outputs, journal) goes, the crawl gets a final "deleted"
 * line in crawls.jsonl (so the audit trail says when and why), and its
 * snapshots leave the site index.  Nothing unfinished is ever removed:
 * a crawl is only removed when it and all of its snapshots are sealed and
 * no lease is held on it.  Returns how many crawls were removed.
 */
#ifndef ABX_RETENTION_H
#define ABX_RETENTION_H

#include <stdint.h>
#include "store.h"

/* Seconds, 0 for disabled, -1 for malformed or under an hour. */
long long retention_parse(const char *s);
int retention_run(store_t *s, int batch, int verbose);

#endif
