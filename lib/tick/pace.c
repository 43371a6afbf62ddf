/*
 * pace.c — host pacing as a crawl run applies it (the pacing itself, a
 * slot file a host under DIR/hosts/, is hostpace.h's).
 *
 * Choosing (pace_pick): the refill's candidates are taken in order; each
 * one's host key is read off its record once a run (a snapshot without a
 * host is not paced); with ROBOTS_TXT=obey one its host's robots.txt
 * disallows is sealed unrun instead (robotsgate.c); the others need a free
 * pacing slot of their host (hostslots_take: HOST_MAX_CONCURRENT at once,
 * HOST_DELAY apart, none while the host is paused after a 429; through
 * the run's host directories and slot files kept open).  A host
 * found waiting is not tried again in the same choice, so its slots go to
 * other hosts' snapshots; the earliest time one frees is kept in
 * cr->host_until, the candidates left to them counted in cr->host_blocked.
 * A host whose slot file cannot be used is not paced (said once a run).
 *
 * Releasing (pace_release): when a worker ends, its slot is given back,
 * with the delay before the host's next page: HOST_DELAY, or its
 * robots.txt's Crawl-delay if longer.
 *
 * Waiting (pace_wait): when nothing runs, something of the crawl may be
 * due soon enough to wait for in this run: due snapshots waiting on their
 * hosts (looked at again every half second), or a snapshot due within
 * INLINE_WAIT_US (one queued again after a 429).  It sleeps up to half a
 * second and says go on.  Due snapshots whose hosts wait longer are queued
 * again for the moment the first of those hosts frees (one write each,
 * once a wait), so that the crawl is not due meanwhile: a pass, a one-shot
 * tick and the daemon's clock see when it will be; the run then ends.
 */
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/err.h"
#include "store/queue.h"
#include "store/record.h"
#include "tick/crawlrun_int.h"

/* The host key of snapshot id (its record read once a run); NULL if it
 * has no host (then it is not paced). */
static const char *
host_of(crawlrun_t *cr, const char *id)
{
	const char *k = hostcache_get(&cr->hosts, id);
	if (k)
		return *k ? k : NULL;
	rec_t r;
	char key[200] = "";
	if (store_get(cr->t->s, id, &r) == 0) {
		char *url = rec_str(&r, "url");
		if (!url || hostpace_key(url, key, sizeof key) < 0)
			key[0] = 0;
		if (url && cr->robots)
			robotsgate_note(cr, id, url);
		free(url);
		rec_free(&r);
	}
	hostcache_put(&cr->hosts, id, key);
	return key[0] ? hostcache_get(&cr->hosts, id) : NULL;
}

/* The hosts found waiting in one choice. */
typedef struct {
	char (*key)[200];
	size_t n;
} waiting_t;

static int
is_waiting(const waiting_t *wt, const char *key)
{
	for (size_t k = 0; k < wt->n; k++)
		if (strcmp(wt->key[k], key) == 0)
			return 1;
	return 0;
}

/* Take a pacing slot of host key for snapshot id: its fd, or -1 (no slot:
 * the host waits, or is not paced). 1 in *skip if the candidate waits. */
static int
take_slot(crawlrun_t *cr, waiting_t *wt, const char *id, const char *key, int64_t now, int *skip)
{
	*skip = 0;
	if (is_waiting(wt, key)) {
		cr->host_blocked++;
		*skip = 1;
		return -1;
	}
	int64_t until;
	int fd = hostslots_take(&cr->hostdirs, cr->t->s->dfd, key, &cr->hp, id, now, &until);
	if (fd < 0 && errno == EAGAIN) {
		wt->key = xrealloc(wt->key, (wt->n + 1) * sizeof *wt->key);
		snprintf(wt->key[wt->n++], sizeof *wt->key, "%s", key);
		if (until && (!cr->host_until || until < cr->host_until))
			cr->host_until = until;
		cr->host_blocked++;
		*skip = 1;
		return -1;
	}
	if (fd < 0 && !cr->host_warned++)
		warnsys("crawl %s: host %s is not paced: unable to use %s/hosts/%s", cr->cid, key, cr->t->s->dir,
		    key);
	return fd;
}

/* The first *sorted of c are in order (topk_sort); the rest are sorted
 * only if the choice gets to them. */
size_t
pace_pick(crawlrun_t *cr, cand_t *c, size_t nc, size_t *sorted, char (*ids)[ID_LEN + 1], pick_t *pk,
    int want)
{
	size_t n = 0;
	waiting_t wt = {NULL, 0};
	int64_t now = clock_now();
	for (size_t i = 0; i < nc && (int)n < want; i++) {
		if (i == *sorted) {
			/* past the sorted front (topk_sort): the rest in order */
			qsort(c + i, nc - i, sizeof *c, cand_cmp);
			*sorted = nc;
		}
		const char *key = host_of(cr, c[i].id);
		int fd = -1, skip = 0;
		if (key && cr->robots && robotsgate_refuse(cr, c[i].id, key))
			continue;
		if (key)
			fd = take_slot(cr, &wt, c[i].id, key, now, &skip);
		if (skip)
			continue;
		memcpy(ids[n], c[i].id, ID_LEN + 1);
		memcpy(pk[n].id, c[i].id, ID_LEN + 1);
		snprintf(pk[n].key, sizeof pk[n].key, "%s", key ? key : "");
		pk[n].fd = fd;
		n++;
	}
	free(wt.key);
	return n;
}

void
pace_give(pick_t *pk, size_t n, worker_t *w)
{
	w->host_fd = -1;
	w->host_started = clock_now();
	for (size_t k = 0; k < n; k++)
		if (strcmp(pk[k].id, w->id) == 0) {
			w->host_fd = pk[k].fd;
			snprintf(w->host_key, sizeof w->host_key, "%s", pk[k].key);
			pk[k].fd = -1;
			return;
		}
}

void
pace_release(crawlrun_t *cr, worker_t *w)
{
	hostpace_t hp = cr->hp;
	if (w->host_fd >= 0)
		hp.delay_us = robotsgate_delay(cr, w->host_key);
	hostslots_give(&cr->hostdirs, w->host_fd, &hp, w->host_started, clock_now());
	w->host_fd = -1;
}

/* The run's due snapshots all wait on their hosts, longer than is worth
 * waiting for here: due again at `until`. */
static void
defer_blocked(crawlrun_t *cr, int64_t until)
{
	tick_t *t = cr->t;
	store_t *s = t->s;
	ient_t *v;
	size_t n = tick_active(t, "Snapshot", 0, &v);
	int64_t now = clock_now();
	if (store_lock(s) < 0) {
		free(v);
		crawlrun_unlock(cr, "unable to defer the snapshots of crawl %s", cr->cid);
		return;
	}
	int moved = 0;
	for (size_t i = 0; i < n; i++) {
		rec_t r;
		if (!queue_entry_due(&v[i], "Snapshot", cr->cid, now) || store_get(s, v[i].id, &r) < 0)
			continue;
		if (!record_is_final(&r) && !rec_streq(&r, "status", "paused") && rec_isnull(&r, "lease")) {
			record_status(&r, "queued", until);
			store_put(s, &r);
			moved++;
		}
		rec_free(&r);
	}
	free(v);
	crawlrun_unlock(cr, "unable to defer the snapshots of crawl %s", cr->cid);
	if (t->verbose && moved) {
		char iso[ISO_LEN + 1];
		clock_iso(until, iso);
		info("crawl %s: %d snapshots wait for their hosts until %s", cr->cid, moved, iso);
	}
}

int
pace_wait(crawlrun_t *cr)
{
	if (!crawlrun_may_start(cr))
		return 0;
	int64_t now = clock_now(), until = 0;
	if (cr->host_blocked)
		until = cr->host_until ? cr->host_until : now + 500000;
	else if (cr->next_due && cr->next_due - now <= INLINE_WAIT_US)
		until = cr->next_due;
	if (!until)
		return 0;
	if (until - now > INLINE_WAIT_US) {
		defer_blocked(cr, until);
		return 0;
	}
	int ms = until <= now ? 1 : (until - now) / 1000 + 1;
	if (ms > 500)
		ms = 500;
	poll(NULL, 0, ms);
	return 1;
}
