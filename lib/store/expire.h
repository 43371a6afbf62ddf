/*
 * expire.h — the store's index of when each final crawl expires, kept as
 * it keeps index/active.jsonl: written by the commit, read by retention
 * (tick/retention.h), which removes what has expired.
 *
 * The files (hints, in index/: a crawl without its line is only kept
 * longer; rewritten whole only by expire_rebuild(), which the repair pass
 * calls, and retention once in a data directory without index/sealed.pos):
 *   index/sealed.jsonl        {"id":C,"at":T}: a crawl without its own
 *                             DELETE_AFTER, at its seal (T its
 *                             modified_at), in the order of the seals;
 *   index/sealed.pos          the byte offset of its first line not yet
 *                             handled (retention advances it);
 *   index/expire/DAY.jsonl    {"id":C,"at":T}: a crawl with its own
 *                             DELETE_AFTER, in the bucket of the day
 *                             (YYYY-MM-DD, UTC) it expires, T its expiry.
 * The log expires in its own order under the global DELETE_AFTER (abx.conf
 * or the environment, which a crawl's own overrides), so a reader reads it
 * from its position and stops at the first line not yet due; a reader
 * reads only the buckets of days that have come.  A line is a candidate
 * only: the crawl's record decides, under the lock.  Retention also cuts
 * the handled head off the log (under the store lock, as the appenders
 * hold it) and removes a bucket once every line of it is handled.
 *
 * A crawl gets its line when its record is committed final (sealed, no
 * retry_at, no deleted_at, not a template): store_commit() appends it,
 * synced unless ABX_SYNC=0 or parent, before the crawl's journal line, so
 * that a crash leaves an extra line, never a missing one.  A crawl whose
 * own DELETE_AFTER is 0 (never) or malformed (warned of) gets none.
 */
#ifndef ABX_EXPIRE_H
#define ABX_EXPIRE_H

#include "store/store.h"

#define EXPIRE_SEALED_LOG "index/sealed.jsonl"
#define EXPIRE_SEALED_POS "index/sealed.pos"
#define EXPIRE_DIR        "index/expire"

/* A crawl record's own DELETE_AFTER (its config): *has says it sets one;
 * the seconds, 0 for disabled, -1 for malformed (warned of: the crawl is
 * kept).  The syntax is conf_parse_duration()'s (base/config.h). */
long long expire_after(const rec_t *r, int *has);

/* Under the store lock: rewrite the files above from crawls.jsonl (it costs
 * the whole journal), the position at 0.  0, or -1 (s->err set). */
int expire_rebuild(store_t *s);

#endif
