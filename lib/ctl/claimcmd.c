/* claimcmd.c — abx-claim's operations on the due queue: see claimcmd.h. */
#include <stdlib.h>
#include <string.h>

#include "base/err.h"
#include "base/exitcodes.h"
#include "ctl/claimcmd.h"
#include "ctl/claimrun.h"
#include "store/claim.h"

const char *
claimcmd_opname(int op)
{
	return op == CLAIMCMD_RENEW ? "--renew" : op == CLAIMCMD_RELEASE ? "--release" : "--test";
}

const char *
claimcmd_type(const char *k)
{
	if (strcmp(k, "crawl") == 0)
		return "Crawl";
	if (strcmp(k, "snapshot") == 0)
		return "Snapshot";
	if (strcmp(k, "binary") == 0)
		return "Binary";
	return NULL;
}

int
claimcmd_lease(store_t *s, int op, const char *id, int64_t lease_us, buf_t *why)
{
	if (op == CLAIMCMD_TEST)
		return claim_leased(s, id) ? 0 : 1;
	int r = op == CLAIMCMD_RENEW ? claim_renew(s, id, lease_us) : claim_release(s, id, 0);
	if (r < 0) {
		buf_addf(why, "%s %s: nothing changed: %s", claimcmd_opname(op) + 2, id, s->errmsg);
		return s->err;
	}
	if (r == 0)
		return 0;
	warnx_("%s carries no lease", id);
	return 1;
}

int
claimcmd_batch(store_t *s, const claimcmd_t *c, int count, buf_t *why)
{
	claim_opts_t o = {c->lease_us, 0, 0};
	rec_t *v = xcalloc(count, sizeof(rec_t));
	int *fds = xcalloc(count, sizeof(int));
	int got = claim_next_batch(s, c->type, NULL, &o, count, v, fds);
	if (got < 0) {
		buf_addf(why, "nothing claimed: %s", s->errmsg);
		free(v);
		free(fds);
		return s->err;
	}
	for (int i = 0; i < got; i++) {
		c->emit(c->arg, &v[i]);
		rec_free(&v[i]);
	}
	free(v);
	free(fds);
	return got ? 0 : 1;
}

/* What a claim that took nothing means; sets *settled unless fatal. */
static int
not_claimed(store_t *s, const char *id, int cr, int *settled, buf_t *why)
{
	*settled = 1;
	switch (cr) {
	case CLAIM_NONE:
		if (id)
			warnx_("%s is not due", id);
		return 1;
	case CLAIM_BUSY: warnx_("%s is leased by someone else", id); return EX_TEMPFAIL_;
	case CLAIM_PAUSED: warnx_("%s is paused", id); return 1;
	case CLAIM_FINAL: warnx_("%s is sealed", id); return 1;
	}
	*settled = 0;
	if (cr == CLAIM_NOTFOUND) {
		buf_addf(why, "no record with id %s", id);
		return EX_DATAERR_;
	}
	if (cr == CLAIM_ERROR) {
		buf_addf(why, "nothing claimed: %s", s->errmsg);
		return s->err ? s->err : EX_IOERR_;
	}
	buf_addf(why, "internal error: claim returned %d", cr);
	return EX_SOFT_;
}

int
claimcmd_one(store_t *s, const claimcmd_t *c, int *settled, buf_t *why)
{
	claim_opts_t o = {c->lease_us, c->cmd != NULL, c->id != NULL};
	rec_t r;
	int fd = -1, rc = 0;
	int cr = c->id ? claim_id(s, c->id, &o, &r, &fd) : claim_next(s, c->type, NULL, &o, &r, &fd);
	*settled = 0;
	if (cr != CLAIM_OK)
		return not_claimed(s, c->id, cr, settled, why);
	char *rid = rec_str(&r, "id");
	if (c->cmd) {
		/* the item's own kind: -i may name a crawl under -k snapshot */
		const char *k = rec_streq(&r, "type", "Crawl") ? "crawl"
		              : rec_streq(&r, "type", "Binary") ? "binary" : "snapshot";
		rc = claim_run(s, k, rid, fd, c->lease_us, c->cmd, c->on_signal, c->forward, why);
		if (rc < 0)
			rc = EX_SOFT_;
	} else {
		c->emit(c->arg, &r);
	}
	free(rid);
	rec_free(&r);
	return rc;
}
