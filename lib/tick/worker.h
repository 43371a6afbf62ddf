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
} worker_t;

/* Start a worker for id (its lease: lease_fd); the pid, or -1 (reported). */
pid_t worker_spawn(tick_t *t, const char *family, const char *id, const char *plugins, int lease_fd,
    long long budget, int *outfd);
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
