/* sealcmd.c — abx-seal's work on one item: see sealcmd.h. */
#include <stddef.h>
#include <string.h>

#include "base/err.h"
#include "base/exitcodes.h"
#include "ctl/sealcmd.h"
#include "pack/pack.h"
#include "seal/seal.h"
#include "tick/outlinks.h"

int
sealcmd_find(store_t *s, const char *id, int packing, int *is_crawl, buf_t *why)
{
	rec_t r;
	if (store_get(s, id, &r) < 0) {
		if (s->nerr) {
			buf_adds(why, s->errmsg);
			return s->err;
		}
		buf_addf(why, "no record with id %s", id);
		return EX_DATAERR_;
	}
	int rc = 0;
	*is_crawl = rec_streq(&r, "type", "Crawl");
	if (!*is_crawl && !rec_streq(&r, "type", "Snapshot")) {
		buf_addf(why, "%s is not a snapshot or a crawl", id);
		rc = EX_DATAERR_;
	} else if (packing && !record_is_final(&r)) {
		buf_addf(why, "%s is not sealed yet; seal it before packing", id);
		rc = EX_DATAERR_;
	}
	rec_free(&r);
	return rc;
}

int
sealcmd_pack(store_t *s, const char *id, const char *file, int force, buf_t *why)
{
	int rc = seal_pack(s, id, file, force ? SEAL_PACK_FORCE : 0);
	if (rc == SEAL_OK)
		return 0;
	if (rc == SEAL_BADFORMAT)
		buf_addf(why, "unable to pack %s into %s: unknown suffix (want .wacz .tar.gz "
		    ".tgz .tar.zst .tar.xz .tar .zip)", id, file);
	else if (rc == SEAL_EXISTS)
		buf_addf(why, "unable to pack %s: %s exists (remove it, or pass -f to replace it)",
		    id, file);
	else
		buf_addf(why, "unable to pack %s into %s: %s", id, file,
		    s->errmsg[0] ? s->errmsg : "internal error");
	return rc == SEAL_BADFORMAT || rc == SEAL_EXISTS || !s->err ? EX_CANTCREAT_ : s->err;
}

/*
 * A snapshot finished by hand queues its outlinks as a tick would
 * (outlinks.h), before it is sealed, as in a tick: the children are
 * committed before their parent says it is done.  Only at its first seal,
 * and only when its hooks ran (started, or results recorded): one sealing
 * would refuse (SEAL_UNRUN, SEAL_PAUSED) queues nothing.  0, or the exit
 * status with the message in why.
 */
static int
queue_outlinks(store_t *s, const char *id, buf_t *why)
{
	rec_t r;
	if (store_get(s, id, &r) < 0)
		return 0;   /* the seal says what is wrong */
	const char *hr = rec_raw(&r, "has_results");
	int ran = rec_streq(&r, "status", "started") || (rec_streq(&r, "status", "queued") && hr &&
	          strcmp(hr, "true") == 0);
	int made = ran ? outlinks_by_hand(s, &r) : 0;
	rec_free(&r);
	if (made >= 0)
		return 0;
	buf_addf(why, "unable to queue the outlinks of snapshot %s, so it is not sealed: %s", id,
	    s->errmsg);
	return s->err ? s->err : EX_SOFT_;
}

int
sealcmd_seal(store_t *s, const char *id, int is_crawl, ctl_emit_fn emit, void *arg, buf_t *why)
{
	rec_t out;
	int rc = is_crawl ? 0 : queue_outlinks(s, id, why);
	if (rc)
		return rc;
	rc = is_crawl ? seal_crawl(s, id, &out) : seal_snapshot(s, id, &out);
	switch (rc) {
	case SEAL_OK:
		/* acknowledge after durable: a reseal's files too */
		if (store_sync(s) < 0) {
			buf_addf(why, "unable to seal %s: %s", id, s->errmsg);
			return s->err;
		}
		emit(arg, &out);
		rec_free(&out);
		if (is_crawl)
			seal_site_index(s);
		return 0;
	case SEAL_REQUEUED:
		warnx_("crawl %s has unfinished snapshots; requeued at its earliest child's time", id);
		rec_free(&out);
		return 1;
	case SEAL_PAUSED:
		warnx_("%s is paused; resume it first", id);
		return 1;
	case SEAL_UNRUN:
		buf_addf(why, "snapshot %s is queued and none of its hooks ran; sealing it would say "
		    "it was archived: run it (abx-tick) or cancel it (abx-ctl cancel %s)", id, id);
		return EX_DATAERR_;
	}
	buf_addf(why, "unable to seal %s: %s", id, s->errmsg[0] ? s->errmsg : "internal error");
	return s->err ? s->err : EX_SOFT_;
}
