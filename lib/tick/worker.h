/*
 * worker.h — abx-tick's workers: one phase of one item (a snapshot's
 * hooks, or a crawl's CrawlSetup or CrawlCleanup) run by the toolkit's own
 * abx-hook, exec'd with a clean process image (toolspawn.h): stdin
 * /dev/null, stdout a pipe to the tick, the tick's stderr, the item's
 * lease as fd 3, nothing else.  The tick reads what it prints (the result
 * records: a first run's are kept to seal from, and "start HOOK" lines on
 * a terminal), waits for it (a pidfd), and releases it.  Its environment
 * adds $ABX_SYNC=parent (the tick syncs the filesystem before it reports
 * anything), $ABX_PARENT_PID (it stops when the tick dies), and
 * $ABX_SIZE_BUDGET (what is left of CRAWL_MAX_SIZE) when given.
 *
 * A serving worker (server_t: `abx-hook --serve`, hookserve.h) runs
 * snapshot after snapshot: its stdin is a SOCK_SEQPACKET socket on which
 * the tick sends each snapshot (id, plugins, budget, location hints) with
 * its lease attached (SCM_RIGHTS: the tick keeps its own descriptor of the
 * same lock, so the lease outlives neither, and the tick releases it as
 * for a one-shot worker); it ends each with a PhaseEnd line carrying the
 * exit status `abx-hook ID` would have had, which worker_read takes as
 * the end of that snapshot (w->done, w->exit_code).  It gets no lease at
 * start, nor $ABX_HINT or $ABX_SIZE_BUDGET; the rest is the same.  At end
 * of file on its stdin it exits, as it does when the tick dies
 * ($ABX_PARENT_PID) or after a signal.
 */
#ifndef ABX_WORKER_H
#define ABX_WORKER_H

#include <sys/types.h>
#include "base/buf.h"
#include "base/json.h"
#include "tick/tick.h"

typedef struct {
	pid_t pid;
	int pidfd, lease_fd, outfd;
	char id[ID_LEN + 1];
	char url[160];
	int depth;
	int64_t started;
	buf_t out;
	char hook[96];
	int hooks, failed;
	char fail_plugin[64];    /* the first failed hook's plugin */
	buf_t fail_why;          /* the first line of its reason (results.h) */
	buf_t fail_more;         /* the other plugins that failed: "a, b" */
	int signalled;           /* signals forwarded to it */
	int first_run;           /* no results before: seal from recs */
	rec_t *recs;             /* Process and ArchiveResult records it printed */
	size_t nrecs;
	int host_fd;             /* its host's pacing slot (hostpace.h), or -1 */
	char host_key[200];
	int64_t host_started;    /* clock_now() when it took the slot */
	int serving;             /* a serving worker runs it (sock, served) */
	int sock, served;
	int done, exit_code;     /* its PhaseEnd line was read, and its status */
	long long size;          /* its PhaseEnd's "size", or -1 */
} worker_t;

/* A serving worker between snapshots. */
typedef struct {
	pid_t pid;
	int pidfd, sock, outfd;
	int served;              /* snapshots it was given */
} server_t;

/* Start a worker for id (its lease: lease_fd); the pid, or -1 (reported). */
pid_t worker_spawn(tick_t *t, const char *family, const char *id, const char *plugins, int lease_fd,
    long long budget, int *outfd);
/* Start a serving worker (`abx-hook --serve`) into *sv; 0, or -1
 * (reported). */
int worker_serve_spawn(tick_t *t, server_t *sv);
/* Give snapshot id to serving worker sv (its lease: lease_fd, kept here
 * too); 0, or -1 if sv does not take it (dead: stop it and start another). */
int worker_serve_send(tick_t *t, server_t *sv, const char *id, const char *plugins, int lease_fd,
    long long budget);
/* The serving worker of w, from now on not w's (w's descriptors of it
 * set to -1), so that worker_release leaves it running. */
server_t worker_detach(worker_t *w);
/* Let a serving worker go: its stdin closed, then waited for (it exits at
 * end of file), SIGKILL after 5 s. */
void worker_serve_stop(server_t *sv);
/* Take in what the worker printed so far (non-blocking). */
void worker_read(worker_t *w);
/* Let go of an ended worker: its lease, fds and records. */
void worker_release(worker_t *w);
/* If hooks of w failed: one line on stderr, "WHAT: PLUGIN failed: REASON
 * (also failed: a, b)", counted in t->failed_hooks and failed_items. */
void worker_report_failures(tick_t *t, const worker_t *w, const char *what);
/* Run one crawl phase (CrawlSetup, CrawlCleanup) to its end; its exit
 * code (128 + signal if killed). */
int worker_phase(tick_t *t, const char *family, const char *cid, int cfd);

#endif
