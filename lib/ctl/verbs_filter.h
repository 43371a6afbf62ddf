/*
 * verbs_filter.h — which records a listing (abx-ls) or a verb over many
 * records (abx-ctl retry, remove) is about, ArchiveBox's filters over
 * abx's records:
 *
 *   type     a record type (names_kind())
 *   status   its status; "template" selects the sealed crawls that are
 *            schedules' templates (is_template), which "sealed" leaves out
 *   url      a substring of a snapshot's url or of a crawl's urls
 *   tag      one of a snapshot's tags or of a crawl's tags_str (whole
 *            comma-separated names, compared exactly)
 *   crawl    a crawl id: the crawl and the records of its journal
 *   since    when the record last changed (modified_at, which every
 *            store_put() sets; created_at if it has none) at or after
 *            DATE; until: before DATE
 *
 * DATE is a day (2026-12-01) or a time of ISO 8601 UTC cut anywhere after
 * the day (2026-12-01T05, 2026-12-01T05:33:24.878287Z); times in records
 * are ISO strings, so they compare as strings.  url and tag select crawls
 * and snapshots; a result or process goes with its snapshot (filter_match
 * must see a crawl journal's records in order: a snapshot before its
 * results, as store_each() gives them); other records never match them.
 * Deleted records (deleted_at: abx-ctl remove, retention) never match.
 */
#ifndef ABX_VERBS_FILTER_H
#define ABX_VERBS_FILTER_H

#include "base/ids.h"
#include "base/json.h"

typedef struct {
	const char *type, *status, *url, *tag, *crawl;
	char since[32], until[32];      /* normalized, "" for none */
	/* the snapshots that matched url and tag, sorted, for their results */
	char (*snaps)[ID_LEN + 1];
	size_t nsnaps, capsnaps;
} filter_t;

/* Normalize a DATE into out (at least 32 bytes); 0, or -1 if malformed. */
int filter_date(const char *arg, char *out);
/* 1 if r passes every filter, else 0. */
int filter_match(filter_t *f, const rec_t *r);
/* Do url or tag filters apply? (then whole journals must be read) */
int filter_by_content(const filter_t *f);
void filter_free(filter_t *f);

#endif
