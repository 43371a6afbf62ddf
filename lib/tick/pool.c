/*
 * pool.c — a crawl run's workers (worker.h), up to cr->slots at once.
 *
 * Refill, at every turn of the run's loop while it may start work:
 *   1. the crawl's due snapshots not running here are the candidates (the
 *      earliest future retry_at of its queued ones is kept in
 *      cr->next_due, for pace_wait), read under the lock when none runs,
 *      else from the index as the run's last lock left it (each end of a
 *      snapshot takes it; a candidate another process took meanwhile is
 *      not claimed: step 3 checks under the lock);
 *   2. they are taken in (depth, created_at, id) order, each only if its
 *      host has a free pacing slot and robots.txt allows it (pace.c): only
 *      the first few are sorted (topk_sort) unless hosts that wait make the
 *      choice go further, since the queue may hold tens of thousands and
 *      this runs at every snapshot's end;
 *   3. the chosen are claimed in one durable commit (claim_ids);
 *   4. a worker is started for each claimed, with its host slot, its lease
 *      and what is left of CRAWL_MAX_SIZE; one that does not start is put
 *      back, due in a minute, and its slots let go.  Unless
 *      WORKER_MAX_SNAPSHOTS is 0, the snapshot goes to a serving worker
 *      (worker.h): an idle one of the run's, else one started now.
 * A slot taken for a snapshot that was not claimed after all is let go.
 * The queue is not read while every slot is taken, nor, while some run,
 * within REFILL_US of a refill that left a slot free unless a snapshot
 * ended since (its outlinks, its host's slot: ended.c clears the wait);
 * a host slot another tick let go is seen that much later.
 *
 * Reap: poll the workers' pidfds and output pipes, take in what they
 * printed, and judge those that ended (ended.c), below the display.  A
 * serving worker's snapshot ends at its PhaseEnd line; the worker is then
 * kept idle for the next one, unless the snapshot's status was not 0 or 1
 * (a failure of the phase itself, or 75: interrupted), it was signalled,
 * a signal came, the run may start no new work, or it has served
 * WORKER_MAX_SNAPSHOTS: then its stdin is closed and it is waited for.
 * One that exits (or is killed) mid-snapshot is judged as a one-shot
 * worker is, by its exit status.
 */
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "base/err.h"
#include "base/hookrun.h"
#include "base/topk.h"
#include "store/claim.h"
#include "store/lease.h"
#include "store/queue.h"
#include "tick/crawlrun_int.h"
#include "tick/progress.h"

int
cand_cmp(const void *a, const void *b)
{
	const cand_t *x = a, *y = b;
	if (x->depth != y->depth)
		return x->depth - y->depth;
	if (x->created != y->created)
		return x->created < y->created ? -1 : 1;
	return strcmp(x->id, y->id);
}

static int
running(const crawlrun_t *cr, const char *id)
{
	for (int i = 0; i < cr->nw; i++)
		if (strcmp(cr->w[i].id, id) == 0)
			return 1;
	return 0;
}

/* The crawl's due snapshots that are not running here (*nc of them, in
 * no order); cr->next_due the earliest future retry_at of the others. */
static cand_t *
candidates(crawlrun_t *cr, size_t *nc)
{
	ient_t *v;
	/* while some run, the index as the run's last lock left it: every
	 * snapshot's end takes the lock (its seal, its outlinks), and the
	 * claim checks each candidate again under it */
	size_t n = cr->nw > 0 ? store_active_unordered(cr->t->s, "Snapshot", &v)
	                      : tick_active(cr->t, "Snapshot", 0, &v);
	int64_t now = clock_now();
	cand_t *c = xmalloc(sizeof(cand_t) * (n + 1));
	*nc = 0;
	cr->next_due = 0;
	for (size_t i = 0; i < n; i++) {
		ient_t *e = &v[i];
		if (!queue_entry_due(e, "Snapshot", cr->cid, now)) {
			if (strcmp(e->crawl_id, cr->cid) == 0 && strcmp(e->status, "queued") == 0 &&
			    e->retry_at > now && e->retry_at != INT64_MAX && (!cr->next_due || e->retry_at < cr->next_due))
				cr->next_due = e->retry_at;
			continue;
		}
		if (running(cr, e->id))
			continue;
		memcpy(c[*nc].id, e->id, ID_LEN + 1);
		c[*nc].depth = e->depth;
		c[*nc].created = e->created_at;
		(*nc)++;
	}
	free(v);
	return c;
}

/* Give w's snapshot (its lease: fd) to a serving worker: an idle one,
 * else a new one; its pid, or -1. */
static pid_t
serve(crawlrun_t *cr, worker_t *w, const char *plugins, int fd)
{
	server_t sv;
	for (;;) {
		if (cr->nidle > 0)
			sv = cr->idle[--cr->nidle];
		else if (worker_serve_spawn(cr->t, &sv) < 0)
			return -1;
		if (worker_serve_send(cr->t, &sv, w->id, plugins, fd, limits_budget(cr)) == 0)
			break;
		int fresh = sv.served == 0;
		worker_serve_stop(&sv);   /* it died idle: another */
		if (fresh)
			return -1;
	}
	w->serving = 1;
	w->pidfd = sv.pidfd, w->sock = sv.sock, w->outfd = sv.outfd, w->served = sv.served;
	return sv.pid;
}

/* Start a worker on claimed snapshot r (its lease: fd) in the next slot. */
static void
start(crawlrun_t *cr, rec_t *r, int fd, pick_t *pk, size_t npk)
{
	tick_t *t = cr->t;
	char *rid = rec_str(r, "id");
	worker_t *w = &cr->w[cr->nw];
	memset(w, 0, sizeof *w);
	memcpy(w->id, rid, ID_LEN + 1);
	free(rid);
	pace_give(pk, npk, w);
	char *url = rec_str(r, "url"), *plugins = rec_str(r, "retry_plugins");
	snprintf(w->url, sizeof w->url, "%s", url ? url : "");
	w->depth = rec_int(r, "depth", 0);
	const char *hr = rec_raw(r, "has_results");
	w->first_run = !(hr && strcmp(hr, "true") == 0);
	w->lease_fd = fd;
	w->size = -1;
	w->started = clock_mono();
	if (cr->max_served > 0)
		w->pid = serve(cr, w, plugins, fd);
	else
		w->pid = worker_spawn(t, "Snapshot", w->id, plugins, fd, limits_budget(cr), &w->outfd);
	if (w->pid < 0) {
		/* put it back: due again after a pause, not at once */
		hostslots_drop(&cr->hostdirs, w->host_fd);
		w->host_fd = -1;
		lease_drop(fd);
		ended_requeue(t, w->id, "its worker did not start", 60 * 1000000LL);
	} else {
		if (!w->serving)
			w->pidfd = proc_pidfd(w->pid);
		cr->nw++;
		if (t->verbose)
			info("snapshot %s started: %s (depth %d)", w->id, w->url, w->depth);
	}
	free(url), free(plugins);
}

/* Claim the chosen ids in one commit and start their workers; how many. */
static int
claim_and_start(crawlrun_t *cr, char (*ids)[ID_LEN + 1], size_t nids, pick_t *pk, int free_slots)
{
	rec_t got_r[MAX_SLOTS];
	int got_fd[MAX_SLOTS];
	claim_opts_t o = {LEASE_US, 1, 0};
	int got = nids ? claim_ids(cr->t->s, ids, nids, &o, free_slots, got_r, got_fd) : 0;
	if (got < 0) {
		tick_error(cr->t, "crawl %s: unable to claim its snapshots", cr->cid);
		cr->broken = 1;
		got = 0;
	}
	for (int g = 0; g < got; g++) {
		start(cr, &got_r[g], got_fd[g], pk, nids);
		rec_free(&got_r[g]);
	}
	/* slots taken for snapshots that were not claimed after all */
	for (size_t k = 0; k < nids; k++)
		if (pk[k].fd >= 0)
			hostslots_drop(&cr->hostdirs, pk[k].fd);
	return got;
}

int
pool_refill(crawlrun_t *cr)
{
	int free_slots = cr->slots - cr->nw;
	/* nothing to start, or nothing changed since a refill that could not
	 * fill the slots: the queue is not read (a lock and the active index
	 * each time, which on a network filesystem are round trips) */
	if (free_slots <= 0)
		return 0;
	int64_t mono = clock_mono();
	if (cr->nw > 0 && mono < cr->refill_at)
		return 0;
	size_t nc;
	cand_t *c = candidates(cr, &nc);
	cr->host_blocked = 0;
	cr->host_until = 0;
	if (nc == 0 || !crawlrun_may_start(cr)) {
		cr->refill_at = mono + REFILL_US;
		free(c);
		return (int)nc;
	}
	size_t sorted = topk_sort(c, nc, 4 * (size_t)free_slots + 16, sizeof *c, cand_cmp);
	char (*ids)[ID_LEN + 1] = xmalloc(sizeof *ids * nc);
	pick_t *pk = xcalloc(free_slots, sizeof *pk);
	size_t nids = pace_pick(cr, c, nc, &sorted, ids, pk, free_slots);
	int got = claim_and_start(cr, ids, nids, pk, free_slots);
	if (got < free_slots)
		cr->refill_at = mono + REFILL_US;
	free(ids);
	free(pk);
	free(c);
	return (int)nc - got;
}

/* Between two ended workers of one reap: the slot (and the host's pacing
 * slot) the first gave back is filled before the next one's seal, which on
 * a network filesystem takes a while, rather than after every seal of the
 * pass.  Started workers join cr->w after the ones not looked at yet; the
 * reap looks at them too, and finds them running. */
static void
refill_between(crawlrun_t *cr)
{
	if (!*cr->t->signals && !cr->broken && crawlrun_may_start(cr))
		pool_refill(cr);
}

void
pool_reap(crawlrun_t *cr, int timeout_ms)
{
	struct pollfd p[2 * MAX_SLOTS];
	int np = 0;
	for (int i = 0; i < cr->nw; i++) {
		if (cr->w[i].pidfd >= 0)
			p[np++] = (struct pollfd){cr->w[i].pidfd, POLLIN, 0};
		if (cr->w[i].outfd >= 0)
			p[np++] = (struct pollfd){cr->w[i].outfd, POLLIN, 0};
	}
	if (np)
		poll(p, np, timeout_ms);
	for (int i = 0; i < cr->nw;) {
		worker_t *w = &cr->w[i];
		worker_read(w);
		int status;
		if (w->serving && w->done) {
			progress_clear(cr->t, &cr->drawn);
			server_t sv = worker_detach(w);
			int keep = (w->exit_code == 0 || w->exit_code == 1) && !w->signalled && !*cr->t->signals &&
			           sv.served < cr->max_served && crawlrun_may_start(cr) && w->out.len == 0;
			ended(cr, w, (w->exit_code & 0xff) << 8);
			if (keep && cr->nidle < MAX_SLOTS)
				cr->idle[cr->nidle++] = sv;
			else
				worker_serve_stop(&sv);
			cr->w[i] = cr->w[--cr->nw];
			refill_between(cr);
		} else if (waitpid(w->pid, &status, WNOHANG) == w->pid) {
			worker_read(w);
			/* what ended prints goes below the display, not into it */
			progress_clear(cr->t, &cr->drawn);
			ended(cr, w, status);
			cr->w[i] = cr->w[--cr->nw];
			refill_between(cr);
		} else {
			i++;
		}
	}
}

/* Forward each signal once: abx-hook takes a second one as "kill the
 * hooks now", so a repeat would cut their grace. */
void
pool_forward_signals(crawlrun_t *cr)
{
	for (int i = 0; i < cr->nw; i++)
		while (cr->w[i].signalled < *cr->t->signals && cr->w[i].signalled < 2) {
			kill(cr->w[i].pid, cr->w[i].signalled ? SIGINT : SIGTERM);
			cr->w[i].signalled++;
		}
}

void
pool_close(crawlrun_t *cr)
{
	while (cr->nidle > 0)
		worker_serve_stop(&cr->idle[--cr->nidle]);
}

void
pool_interrupt(crawlrun_t *cr)
{
	for (int i = 0; i < cr->nw; i++)
		if (!cr->w[i].signalled) {
			kill(cr->w[i].pid, SIGTERM);
			cr->w[i].signalled = 1;
		}
}
