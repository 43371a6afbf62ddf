/*
 * heartbeat.h — a crawl's liveness file, <crawl dir>/.heartbeat.json, in
 * the format of abx-dl 1.10.71 (abx_dl/heartbeat.py):
 *
 *     {"crawl_id":"..","kill_after_seconds":180,"last_alive_at":1764567890.123456,
 *      "owner_pid":4242,"runtime":"abx"}
 *
 * one line, keys sorted, no newline, replaced whole (".heartbeat.json.tmp"
 * renamed over it).  ArchiveBox's chrome plugin reads it
 * (on_CrawlSetup__89_chrome_kill_zombies): a crawl is live while owner_pid
 * is a live process and last_alive_at is at most kill_after_seconds old;
 * the browsers and chrome hooks of any other crawl under crawls/ are
 * killed as zombies.  Without the file, setting up crawl B killed crawl
 * A's running Chrome.
 *
 * Who owns it: the process that runs the whole crawl — abx-tick's crawl
 * run (tick/crawlrun.c), from before CrawlSetup to after CrawlCleanup — since a
 * per-phase abx-hook would leave the crawl looking dead between phases.
 * heartbeat_start() writes it and starts a thread that rewrites it every
 * HEARTBEAT_INTERVAL seconds whatever the crawl run is doing (a CrawlSetup
 * that installs a browser may block the run for minutes); heartbeat_stop()
 * ends the thread and removes the file, as abx-dl's stop() does on every
 * way out but a kill.  Killed with SIGKILL (or the machine lost), the file
 * is left as it was: its owner_pid is dead, so it is stale at once, and
 * the next crawl's kill-zombies reclaims the dead crawl's browser — what
 * abx-dl leaves in the same case.  The next run of the crawl overwrites it.
 *
 * The thread touches nothing but the crawl's directory fd (write, rename:
 * no malloc, no stdio, no lock), with every signal blocked, so a
 * posix_spawn in the main thread and the tick's signal handling are as
 * without it.  A failed write is reported once on stderr (a stale
 * heartbeat costs the crawl its browser, not its records).
 */
#ifndef ABX_HEARTBEAT_H
#define ABX_HEARTBEAT_H

#include <pthread.h>
#include <sys/types.h>

#define HEARTBEAT_FILE ".heartbeat.json"
#define HEARTBEAT_INTERVAL 5        /* s, abx-dl's update_interval_seconds */
#define HEARTBEAT_KILL_AFTER 180    /* s, abx-dl's kill_after_seconds */

typedef struct {
	int dirfd;                  /* the crawl's directory */
	char line[512];             /* the JSON up to last_alive_at */
	pid_t owner;
	int running, stopping, warned;
	pthread_t th;
	pthread_mutex_t mu;
	pthread_cond_t cv;
} heartbeat_t;

/* Write dfd-relative crawl_rel/.heartbeat.json (the directory is created)
 * for crawl_id, owned by this process, runtime as ABX_RUNTIME says, and
 * keep it fresh.  0, or -1 (reported; the crawl runs without it). */
int heartbeat_start(heartbeat_t *hb, int dfd, const char *crawl_rel, const char *crawl_id,
    const char *runtime);
/* Stop refreshing and remove the file. */
void heartbeat_stop(heartbeat_t *hb);

#endif
