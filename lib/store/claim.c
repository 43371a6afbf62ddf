/* claim.c — see claim.h. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "store/claim.h"
#include "base/err.h"
#include "store/queue.h"
#include "base/exitcodes.h"
#include "store/lease.h"

static int
lease_is_flock(const rec_t *r)
{
	const char *l = rec_raw(r, "lease");
	return l && l[0] == '{' && strstr(l, "\"flock\":true");
}

static int64_t
lease_expiry(const rec_t *r)
{
	const char *l = rec_raw(r, "lease");
	if (!l || l[0] != '{')
		return -1;
	rec_t lr;
	if (rec_parse(&lr, l, strlen(l)) < 0)
		return -1;
	int64_t t = rec_time(&lr, "expires_at");
	rec_free(&lr);
	return t;
}

int
claim_due(const rec_t *r, int64_t now, int by_name)
{
	if (rec_streq(r, "status", "paused"))
		return CLAIM_PAUSED;
	int64_t ra = rec_time(r, "retry_at");
	if (record_is_final(r) && ra < 0)
		return CLAIM_FINAL;
	if (ra == INT64_MAX)
		return CLAIM_PAUSED;
	if (lease_is_flock(r))
		return CLAIM_OK;          /* its flock is free: the holder died */
	const char *l = rec_raw(r, "lease");
	if (l && l[0] == '{' && lease_expiry(r) > now)
		return CLAIM_BUSY;        /* an unexpired time lease */
	if (ra <= now || by_name)
		return CLAIM_OK;
	return CLAIM_NONE;
}

static int take_staged(store_t *s, const char *id, const claim_opts_t *o, int64_t now, rec_t *out);

/* Write each held lease's object into its lock file, for cat. */
static void
note_leases(const rec_t *out, const int *fds, int n)
{
	for (int i = 0; i < n; i++)
		if (fds[i] >= 0) {
			buf_t l = {0};
			buf_adds(&l, rec_raw(&out[i], "lease"));
			buf_addc(&l, '\n');
			lease_note(fds[i], l.p);
			buf_free(&l);
		}
}

/* Commit a batch of claims and unlock; if that failed, let go of them. */
static int
batch_done(store_t *s, rec_t *out, int *fds, int got)
{
	if (store_unlock(s) < 0) {
		for (int i = 0; i < got; i++) {
			rec_free(&out[i]);
			if (fds[i] >= 0)
				close(fds[i]);
		}
		return -1;
	}
	note_leases(out, fds, got);
	return got;
}

/* Under the store lock, with the flock held: check and take. */
static int
take(store_t *s, const char *id, const claim_opts_t *o, int64_t now, int fd, rec_t *out)
{
	int rc = take_staged(s, id, o, now, out);
	if (rc != CLAIM_OK)
		return rc;
	if (store_commit(s) < 0) {
		rec_free(out);
		return CLAIM_ERROR;
	}
	note_leases(out, &fd, 1);
	return CLAIM_OK;
}

/* Check id is due and stage its claimed version (no commit). */
static int
take_staged(store_t *s, const char *id, const claim_opts_t *o, int64_t now, rec_t *out)
{
	rec_t r;
	if (store_get(s, id, &r) < 0)
		return store_failed(s) ? CLAIM_ERROR : CLAIM_NOTFOUND;
	int rc = claim_due(&r, now, o->by_name);
	if (rc != CLAIM_OK) {
		rec_free(&r);
		return rc;
	}
	if (lease_is_flock(&r) && err_verbose(-1))
		info("%s: previous holder died; claiming again", id);
	if (rec_streq(&r, "status", "queued") && !rec_streq(&r, "type", "Binary"))
		rec_set_str(&r, "status", "started");
	rec_set_time(&r, "retry_at", now + o->lease_us);
	buf_t l = {0};
	lease_object(s, &l, now, now + o->lease_us, o->hold);
	rec_set_raw(&r, "lease", buf_cstr(&l));
	store_put(s, &r);
	buf_free(&l);
	*out = r;
	return CLAIM_OK;
}

int
claim_ids(store_t *s, char (*ids)[ID_LEN + 1], size_t nids, const claim_opts_t *o, int max,
    rec_t *out, int *fds)
{
	if (store_lock(s) < 0)
		return -1;
	int64_t now = clock_now();
	int got = 0;
	for (size_t i = 0; i < nids && got < max; i++) {
		int fd = -1;
		if (lease_take(s, ids[i], o->hold ? &fd : NULL) != LEASE_TAKEN)
			continue;
		if (take_staged(s, ids[i], o, now, &out[got]) != CLAIM_OK) {
			if (fd >= 0)
				close(fd);
			continue;
		}
		fds[got++] = fd;
	}
	/* one sync for the whole batch (none if s->lazy: abx-tick syncs on
	 * its own clock) */
	return batch_done(s, out, fds, got);
}

int
claim_next(store_t *s, const char *type, const char *crawl_id, const claim_opts_t *o, rec_t *out,
    int *fdp)
{
	return claim_next_except(s, type, crawl_id, NULL, 0, o, out, fdp);
}

int
claim_next_except(store_t *s, const char *type, const char *crawl_id, char (*except)[ID_LEN + 1],
    size_t nexcept, const claim_opts_t *o, rec_t *out, int *fdp)
{
	*fdp = -1;
	if (store_lock(s) < 0)
		return CLAIM_ERROR;
	int64_t now = clock_now();
	char (*skip)[ID_LEN + 1] = xmalloc((nexcept + 1) * sizeof *skip);
	size_t nskip = nexcept;
	if (nexcept)
		memcpy(skip, except, nexcept * sizeof *skip);
	int rc = CLAIM_NONE;
	for (;;) {
		const ient_t *e = queue_next_due(s, type, crawl_id, now, skip, nskip);
		if (!e)
			break;
		char id[ID_LEN + 1];
		memcpy(id, e->id, ID_LEN + 1);
		int fd = -1;
		/* a time lease keeps no lock: a probe will do (no inode made) */
		int t = lease_take(s, id, o->hold ? &fd : NULL) == LEASE_TAKEN ? take(s, id, o, now, fd, out)
		                                                                : CLAIM_BUSY;
		if (t == CLAIM_OK) {
			*fdp = fd;
			rc = CLAIM_OK;   /* even after one that could not be read */
			break;
		}
		if (fd >= 0)
			close(fd);   /* not due after all: leave any note as it was */
		if (t == CLAIM_ERROR) {
			/* a commit that failed (a full disk) fails them all; a
			 * record that could not be read is passed over */
			rc = CLAIM_ERROR;
			if (s->rollback)
				break;
		}
		skip = xrealloc(skip, (nskip + 1) * sizeof *skip);
		memcpy(skip[nskip++], id, ID_LEN + 1);
	}
	free(skip);
	if (store_unlock(s) < 0 && rc == CLAIM_OK) {
		rec_free(out);
		if (*fdp >= 0)
			close(*fdp);
		*fdp = -1;
		rc = CLAIM_ERROR;
	}
	return rc;
}

int
claim_next_batch(store_t *s, const char *type, const char *crawl_id, const claim_opts_t *o, int max,
    rec_t *out, int *fds)
{
	if (store_lock(s) < 0)
		return -1;
	int64_t now = clock_now();
	char (*skip)[ID_LEN + 1] = NULL;
	size_t nskip = 0;
	int got = 0;
	/* one pass picks the candidates; a rescan only if some were busy */
	const ient_t **first = xmalloc(sizeof *first * (max + 1));
	char (*cand)[ID_LEN + 1] = xmalloc(sizeof *cand * (max + 1));
	size_t ncand = queue_first_due(s, type, crawl_id, now, first, max), ci = 0;
	for (size_t k = 0; k < ncand; k++)
		memcpy(cand[k], first[k]->id, ID_LEN + 1);
	while (got < max) {
		char id[ID_LEN + 1];
		if (ci < ncand) {
			memcpy(id, cand[ci++], ID_LEN + 1);
		} else {
			const ient_t *e = queue_next_due(s, type, crawl_id, now, skip, nskip);
			if (!e)
				break;
			memcpy(id, e->id, ID_LEN + 1);
		}
		skip = xrealloc(skip, (nskip + 1) * sizeof *skip);
		memcpy(skip[nskip++], id, ID_LEN + 1);
		int fd = -1;
		if (lease_take(s, id, o->hold ? &fd : NULL) != LEASE_TAKEN)
			continue;
		if (take_staged(s, id, o, now, &out[got]) != CLAIM_OK) {
			if (fd >= 0)
				close(fd);
			continue;
		}
		fds[got++] = fd;
	}
	free(skip);
	free(first);
	free(cand);
	return batch_done(s, out, fds, got);   /* one sync for the batch */
}

int
claim_id(store_t *s, const char *id, const claim_opts_t *o, rec_t *out, int *fdp)
{
	*fdp = -1;
	if (store_lock(s) < 0)
		return CLAIM_ERROR;
	int fd = -1, rc;
	int t = lease_take(s, id, o->hold ? &fd : NULL);
	if (t != LEASE_TAKEN) {
		store_unlock(s);
		return CLAIM_BUSY;
	}
	rc = take(s, id, o, clock_now(), fd, out);
	if (rc != CLAIM_OK && fd >= 0) {
		/* keep any previous holder's note: don't truncate */
		close(fd);
		fd = -1;
	}
	*fdp = fd;
	if (store_unlock(s) < 0 && rc == CLAIM_OK) {
		rec_free(out);
		if (fd >= 0)
			close(fd);
		*fdp = -1;
		rc = CLAIM_ERROR;
	}
	return rc;
}

int
claim_renew(store_t *s, const char *id, int64_t lease_us)
{
	if (store_lock(s) < 0)
		return -1;
	rec_t r;
	int rc = 1;
	if (store_get(s, id, &r) == 0) {
		const char *l = rec_raw(&r, "lease");
		if (l && l[0] == '{') {
			int64_t now = clock_now();
			rec_t lr;
			if (rec_parse(&lr, l, strlen(l)) == 0) {
				rec_set_time(&lr, "expires_at", now + lease_us);
				buf_t b = {0};
				rec_line(&lr, &b);
				rec_set_raw(&r, "lease", buf_cstr(&b));
				buf_free(&b);
				rec_free(&lr);
			}
			/* a pause or cancel made meanwhile wins */
			if (!rec_streq(&r, "status", "paused") && !rec_isnull(&r, "retry_at"))
				rec_set_time(&r, "retry_at", now + lease_us);
			store_put(s, &r);
			rc = 0;
		}
		rec_free(&r);
	}
	if (store_unlock(s) < 0)
		rc = -1;
	return rc;
}

int
claim_release(store_t *s, const char *id, long only_pid)
{
	if (store_lock(s) < 0)
		return -1;
	rec_t r;
	int rc = 1;
	if (store_get(s, id, &r) == 0) {
		const char *l = rec_raw(&r, "lease");
		int mine = 1;
		if (l && l[0] == '{' && only_pid) {
			rec_t lr;
			if (rec_parse(&lr, l, strlen(l)) == 0) {
				mine = rec_int(&lr, "pid", 0) == only_pid;
				rec_free(&lr);
			} else {
				mine = 0;
			}
		}
		if (l && l[0] == '{' && mine) {
			rec_set_null(&r, "lease");
			int lfd;
			if (lease_take(s, id, &lfd) == LEASE_TAKEN)
				lease_drop(lfd);   /* clears the note cat shows */
			if (rec_streq(&r, "status", "paused")) {
				/* stays paused */
			} else if (record_is_final(&r))
				rec_set_null(&r, "retry_at");
			else
				rec_set_time(&r, "retry_at", clock_now());
			store_put(s, &r);
			rc = 0;
		}
		rec_free(&r);
	}
	if (store_unlock(s) < 0)
		rc = -1;
	return rc;
}

int
claim_leased(store_t *s, const char *id)
{
	if (lease_busy(s, id))
		return 1;
	rec_t r;
	int leased = 0;
	if (store_get(s, id, &r) == 0) {
		const char *l = rec_raw(&r, "lease");
		leased = l && l[0] == '{' && !lease_is_flock(&r) && lease_expiry(&r) > clock_now();
		rec_free(&r);
	}
	return leased;
}
