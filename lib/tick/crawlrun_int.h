/*
 * crawlrun_int.h — what the files of a crawl run share (crawlrun.h): the
 * run's state and each file's entry points.  Not an interface: the pass
 * uses crawlrun.h.
 *
 *   crawlrun.c   the run: settings, setup, the loop, cleanup, the seal
 *   limits.c     CRAWL_MAX_URLS, CRAWL_MAX_SIZE, CRAWL_TIMEOUT
 *   seed.c       the URLs the crawl has, and its first snapshots
 *   watch.c      the crawl's record re-read (pause, cancel), leases renewed
 *   pool.c       the workers: refilled from the due snapshots, reaped
 *   pace.c       host pacing as the run applies it; waiting for hosts
 *   robotsgate.c ROBOTS_TXT=obey
 *   ended.c      what becomes of a snapshot whose worker ended
 *   backoff.c    a 429 or 503: the host backs off, the page runs again
 *   found.c      a snapshot's outlinks queued as its crawl's children
 *
 * Every store transaction of the run ends in crawlrun_unlock: a failure is
 * reported and sets cr->broken, after which the run starts no new work.
 */
#ifndef ABX_CRAWLRUN_INT_H
#define ABX_CRAWLRUN_INT_H

#include "base/config.h"
#include "net/hostpace.h"
#include "net/robots.h"
#include "net/scope.h"
#include "tick/crawlrun.h"
#include "tick/outlinks.h"
#include "tick/worker.h"

#define RENEW_US (10 * 1000000LL)         /* leases renewed this often */
#define SYNC_US (250 * 1000LL)            /* the group-commit clock */
#define REFILL_US (200 * 1000LL)          /* a refill that left slots free: the next */
#define MAX_SLOTS 64                      /* CRAWL_MAX_CONCURRENT_SNAPSHOTS' cap */
#define INLINE_WAIT_US (10 * 1000000LL)   /* waited for in the run, not requeued */

typedef struct {
	tick_t *t;
	char cid[ID_LEN + 1];
	int cfd;
	conf_t conf;
	outlinks_t ol;           /* discovery's rules, the crawl's URLs (outlinks.h) */
	int slots;
	long long max_size, total_size;
	long timeout;
	int64_t started_at;
	char stop_reason[32];    /* the limit that stopped the crawl, or "" */
	int paused, cancelled;
	int broken;              /* the store failed: no new work, then released */
	worker_t w[MAX_SLOTS];
	int nw;
	int max_served;          /* WORKER_MAX_SNAPSHOTS (0: one-shot workers) */
	server_t idle[MAX_SLOTS]; /* serving workers between snapshots */
	int nidle;
	int drawn;               /* progress lines on screen */
	int64_t last_renew, last_check, last_sync;
	hostpace_t hp;           /* host pacing (hostpace.h) */
	hostcache_t hosts;       /* snapshot id -> host key */
	hostslots_t hostdirs;    /* their directories and slot files, open */
	int host_blocked;        /* due snapshots the last refill left to their hosts */
	int64_t host_until;      /* the earliest a blocked host frees (0: unknown) */
	int host_warned;
	int64_t next_due;        /* the earliest future retry_at of its queued snapshots */
	int64_t refill_at;       /* no refill before (monotonic; 0: at once): pool.c */
	int robots;              /* ROBOTS_TXT=obey */
	hostcache_t urls;        /* snapshot id -> URL (robots.txt is read by URL) */
	struct hostrobots {
		char key[200];
		robots_t r;
	} *rob;
	int nrob;
} crawlrun_t;

/* A due snapshot that may be run: the refill's candidates, in cand_cmp's
 * (depth, created_at, id) order. */
typedef struct {
	char id[ID_LEN + 1];
	int depth;
	int64_t created;
} cand_t;

/* A host slot taken for a candidate, until its worker starts. */
typedef struct {
	char id[ID_LEN + 1];
	char key[200];
	int fd;
} pick_t;

/* crawlrun.c */
/* Unlock; a failed transaction is reported (crawl ID: what: s->errmsg)
 * and breaks the run.  0 or -1. */
int crawlrun_unlock(crawlrun_t *cr, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Report a failure of the store (crawl ID, then s->errmsg); break the run. */
void crawlrun_broke(crawlrun_t *cr);
/* May the run start new work (no signal, pause, cancel, limit, failure)? */
int crawlrun_may_start(const crawlrun_t *cr);

/* limits.c */
/* Read CRAWL_MAX_SIZE and CRAWL_TIMEOUT from cr->conf (CRAWL_MAX_URLS is
 * a rule of discovery: outlinks.h). */
void limits_conf(crawlrun_t *cr);
/* The crawl's "limits" field: its first run's time, the size so far, the
 * stop reason (cleared if its limit was raised or removed); saved now if
 * this is its first run. */
void limits_load(crawlrun_t *cr, const rec_t *crawl);
/* A sealed snapshot of `size` bytes: counted; CRAWL_MAX_SIZE reached? */
void limits_count(crawlrun_t *cr, long long size);
/* CRAWL_TIMEOUT: stop the crawl if it has run that long. */
void limits_check_time(crawlrun_t *cr);
/* A limit stopped the crawl: seal its queued snapshots unrun. */
void limits_seal_queued(crawlrun_t *cr);
/* What is left of CRAWL_MAX_SIZE for a worker ($ABX_SIZE_BUDGET; 0: none). */
long long limits_budget(const crawlrun_t *cr);

/* seed.c */
/* Read the URLs of the crawl's snapshots into cr->ol.seen; if it has
 * none, queue its depth-0 snapshots from its urls. */
void seed_run(crawlrun_t *cr, const rec_t *crawl);

/* watch.c */
/* Every half second: re-read the crawl (pause, cancel: interrupt the
 * workers) and the running snapshots (one cancelled: interrupt it), check
 * CRAWL_TIMEOUT; every RENEW_US: renew the leases. */
void watch(crawlrun_t *cr);

/* pool.c */
/* Start workers on due snapshots until the slots are full; returns the
 * number of due snapshots left waiting (0: none due). */
int pool_refill(crawlrun_t *cr);
/* Wait up to timeout_ms for a worker to print or end; those that ended
 * are judged (ended.c) and their slots freed. */
void pool_reap(crawlrun_t *cr, int timeout_ms);
/* Forward each signal received to every worker, once (the second one as
 * SIGINT: abx-hook kills its hooks at once). */
void pool_forward_signals(crawlrun_t *cr);
/* SIGTERM to every worker not yet signalled (a cancel). */
void pool_interrupt(crawlrun_t *cr);
/* Let the idle serving workers go (the run's end). */
void pool_close(crawlrun_t *cr);
/* The candidates' order: depth, created_at, id. */
int cand_cmp(const void *a, const void *b);

/* pace.c */
/* Choose up to `want` candidates whose host has a free pacing slot (see
 * pace.c); their ids into ids, the slots into pk.  How many. */
size_t pace_pick(crawlrun_t *cr, cand_t *c, size_t nc, size_t *sorted, char (*ids)[ID_LEN + 1], pick_t *pk,
    int want);
/* Hand the slot picked for w's snapshot to w. */
void pace_give(pick_t *pk, size_t n, worker_t *w);
/* w ended: its host's slot given back, paced from now. */
void pace_release(crawlrun_t *cr, worker_t *w);
/* Nothing runs: wait (up to half a second) for what is due soon; 1, or 0
 * to end the run (see pace.c). */
int pace_wait(crawlrun_t *cr);

/* robotsgate.c */
/* ROBOTS_TXT=obey and the host's robots.txt disallows snapshot id's URL:
 * sealed unrun, with the reason.  1 if so. */
int robotsgate_refuse(crawlrun_t *cr, const char *id, const char *key);
/* The delay between a host's pages: HOST_DELAY, or its robots.txt's
 * Crawl-delay if longer (read this run). */
int64_t robotsgate_delay(const crawlrun_t *cr, const char *key);
/* Remember the URL of snapshot id (robots.txt is read by URL). */
void robotsgate_note(crawlrun_t *cr, const char *id, const char *url);
void robotsgate_free(crawlrun_t *cr);

/* ended.c */
/* A worker ended with status: judge, seal or requeue its snapshot. */
void ended(crawlrun_t *cr, worker_t *w, int status);
/* Put a snapshot back in the queue, due after `after` µs. */
void ended_requeue(tick_t *t, const char *id, const char *why, int64_t after);

/* backoff.c */
/* Did the server ask to back off (429, 503)?  Then the host is paused and
 * the snapshot queued again for after the pause: 1 (see backoff.c). */
int backoff(crawlrun_t *cr, worker_t *w, const rec_t *snap, const char *dir);

/* found.c */
/* Queue the outlinks of snapshot r (w's) as the crawl's children
 * (outlinks_queue: the code abx-seal runs for a stage finished by hand). */
void found_outlinks(crawlrun_t *cr, worker_t *w, rec_t *r);

#endif
