/* heartbeat.c — see heartbeat.h. */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "base/buf.h"
#include "base/err.h"
#include "base/fs.h"
#include "hook/heartbeat.h"

#define TMP_FILE HEARTBEAT_FILE ".tmp"

/* Write the file now (the real clock: readers compare it with theirs). */
static int
beat(heartbeat_t *hb)
{
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	char text[640];
	int n = snprintf(text, sizeof text, "%s%lld.%06ld,\"owner_pid\":%ld,\"runtime\":%s", hb->line,
	    (long long)ts.tv_sec, ts.tv_nsec / 1000, (long)hb->owner, hb->line + strlen(hb->line) + 1);
	if (n <= 0 || n >= (int)sizeof text)
		return -1;
	int fd = openat(hb->dirfd, TMP_FILE, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0644);
	if (fd < 0)
		return -1;
	int ok = write(fd, text, n) == n;
	int e = errno;
	close(fd);
	if (!ok || renameat(hb->dirfd, TMP_FILE, hb->dirfd, HEARTBEAT_FILE) < 0) {
		if (ok)
			e = errno;
		unlinkat(hb->dirfd, TMP_FILE, 0);
		errno = e ? e : EIO;
		return -1;
	}
	return 0;
}

static void
report(heartbeat_t *hb)
{
	if (hb->warned++)
		return;
	char msg[256];
	int n = snprintf(msg, sizeof msg, "%s: warning: unable to write the crawl's %s: %s\n", err_prog(),
	    HEARTBEAT_FILE, strerror(errno));
	if (n > 0 && write(2, msg, n < (int)sizeof msg ? n : (int)sizeof msg - 1) < 0) {
		/* stderr gone: nothing else to tell */
	}
}

static void *
refresh(void *arg)
{
	heartbeat_t *hb = arg;
	pthread_mutex_lock(&hb->mu);
	while (!hb->stopping) {
		struct timespec until;
		clock_gettime(CLOCK_MONOTONIC, &until);
		until.tv_sec += HEARTBEAT_INTERVAL;
		while (!hb->stopping && pthread_cond_timedwait(&hb->cv, &hb->mu, &until) != ETIMEDOUT)
			;
		if (!hb->stopping && beat(hb) < 0)
			report(hb);
	}
	pthread_mutex_unlock(&hb->mu);
	return NULL;
}

int
heartbeat_start(heartbeat_t *hb, int dfd, const char *crawl_rel, const char *crawl_id, const char *runtime)
{
	memset(hb, 0, sizeof *hb);
	hb->dirfd = -1;
	hb->owner = getpid();
	/* the fixed parts: line holds the prefix, NUL, then the runtime */
	buf_t rt = {0};
	buf_json_strz(&rt, runtime && *runtime ? runtime : "abx");
	int n = snprintf(hb->line, sizeof hb->line, "{\"crawl_id\":\"%s\",\"kill_after_seconds\":%d,"
	    "\"last_alive_at\":", crawl_id, HEARTBEAT_KILL_AFTER);
	int ok = n > 0 && (size_t)n + 1 + rt.len + 2 < sizeof hb->line;
	if (ok)
		snprintf(hb->line + n + 1, sizeof hb->line - n - 1, "%s}", buf_cstr(&rt));
	buf_free(&rt);
	if (!ok) {
		warnx_("crawl %s: ABX_RUNTIME is too long for the heartbeat; the crawl runs without it", crawl_id);
		return -1;
	}
	hb->dirfd = fs_opendir(dfd, crawl_rel);
	if (hb->dirfd < 0 && errno == ENOENT)
		hb->dirfd = fs_mkdirs_open(dfd, crawl_rel);
	if (hb->dirfd < 0 || beat(hb) < 0) {
		warnsys("crawl %s: unable to write %s/%s; other crawls may take it for dead", crawl_id,
		    crawl_rel, HEARTBEAT_FILE);
		if (hb->dirfd >= 0)
			close(hb->dirfd);
		hb->dirfd = -1;
		return -1;
	}
	pthread_condattr_t ca;
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&hb->cv, &ca);
	pthread_condattr_destroy(&ca);
	pthread_mutex_init(&hb->mu, NULL);
	/* every signal stays with the main thread */
	sigset_t all, old;
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	int rc = pthread_create(&hb->th, NULL, refresh, hb);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (rc) {
		errno = rc;
		warnsys("crawl %s: unable to start the heartbeat's thread; it is written once", crawl_id);
	}
	hb->running = rc == 0;
	return 0;
}

void
heartbeat_stop(heartbeat_t *hb)
{
	if (hb->dirfd < 0)
		return;
	if (hb->running) {
		pthread_mutex_lock(&hb->mu);
		hb->stopping = 1;
		pthread_cond_signal(&hb->cv);
		pthread_mutex_unlock(&hb->mu);
		pthread_join(hb->th, NULL);
		hb->running = 0;
	}
	pthread_cond_destroy(&hb->cv);
	pthread_mutex_destroy(&hb->mu);
	if (unlinkat(hb->dirfd, HEARTBEAT_FILE, 0) < 0 && errno != ENOENT)
		warnsys("unable to remove the crawl's %s", HEARTBEAT_FILE);
	close(hb->dirfd);
	hb->dirfd = -1;
}
