/*
 * hostpace.h — politeness per host, shared by every crawl, tick and
 * machine on a data directory (Heritrix's frontier rules, one queue a host).
 *
 * A snapshot's host is its URL's host[:port], lowercased (url_host()).
 * Its state is the directory DIR/hosts/<key>/ (key: the host with every
 * byte outside [a-z0-9.-] written %XX, so "[::1]:8080" is "%5B%3A%3A1%5D%3A8080"):
 *
 *   slot-K    K = 0 .. HOST_MAX_CONCURRENT-1.  A snapshot of the host runs
 *             only while its runner holds an flock on one slot file: the
 *             limit holds across processes and machines (flock on the
 *             shared filesystem), and a dead holder frees its slot at once.
 *             The file says, as one JSON line a person can cat:
 *               running: {"state":"running","snapshot":..,"pid":..,"host":..,"since":T}
 *               idle:    {"state":"idle","not_before":T,"last_end":T,"last_ms":N}
 *             A slot is free when unlocked and now >= not_before: the end
 *             of its last snapshot plus the wait
 *               min(HOST_MAX_DELAY, max(HOST_DELAY, HOST_DELAY_FACTOR * duration))
 *             (Heritrix's minDelay, delayFactor and maxDelay, per slot).
 *   pause     {"until":T,"backoffs":N,"why":".."}: the host answered 429
 *             or 503; no slot of it is free before T (by rename).
 *
 * T are µs since the epoch (clock_now()).  None of it is synced: it is
 * politeness, not a record; a power loss forgets a wait, never work.
 *
 * hostpace_conf() reads the four settings and HOST_BACKOFF_RETRIES from a
 * crawl's configuration (bad values were refused by settings_check()).
 * The slots are taken and given back through a runner's hostslots_t
 * (below).  hostpace_pause() records a server's
 * request to back off (until, capped by the caller), counting consecutive
 * ones; hostpace_calm() clears the count after a good answer, once the
 * pause is over (a page that started before it may answer well meanwhile).
 * hostpace_retry_after() reads a Retry-After value (delta seconds or an
 * HTTP-date) into an absolute time, or -1.
 */
#ifndef ABX_HOSTPACE_H
#define ABX_HOSTPACE_H

#include <stddef.h>
#include <stdint.h>

#include "base/config.h"

typedef struct {
	int max_concurrent;        /* HOST_MAX_CONCURRENT, >= 1 */
	int64_t delay_us;          /* HOST_DELAY */
	double factor;             /* HOST_DELAY_FACTOR */
	int64_t max_delay_us;      /* HOST_MAX_DELAY */
	int backoff_retries;       /* HOST_BACKOFF_RETRIES */
} hostpace_t;

#define HOSTPACE_SLOTS_MAX 64

void hostpace_conf(const conf_t *c, hostpace_t *hp);
/* The directory name of a URL's host under hosts/; -1 if it has none. */
int hostpace_key(const char *url, char *out, size_t n);
int hostpace_pause(int dfd, const char *key, int64_t until, const char *why, int *backoffs);
void hostpace_calm(int dfd, const char *key);
/* The consecutive back-offs of a host so far. */
int hostpace_backoffs(int dfd, const char *key);
int64_t hostpace_retry_after(const char *value, int64_t now);
/* The wait after a snapshot of `dur` µs. */
int64_t hostpace_wait(const hostpace_t *hp, int64_t dur);

/*
 * A runner's host directories and slot files, kept open from one take to
 * the next (abx-tick's crawl run): on a network filesystem each open by
 * path is a round trip for each component, and a refill tries every slot
 * of a host that is busy.
 *
 * hostslots_take() tries the slots of a host without blocking (the pause
 * file read below the host's directory, each slot file opened once and
 * then only locked and read from its start): it returns the locked slot's
 * fd (close-on-exec; it stays hs's, the caller keeps it while the snapshot
 * runs), or -1 with *until = the earliest time a slot frees by the clock
 * (0 if all are held: unknown, the caller looks again later) and errno
 * EAGAIN; -1 with another errno if the state cannot be used (then the
 * caller runs the snapshot unpaced and says so: politeness never stops the
 * archive).  hostslots_give() writes the slot's idle line from the run's
 * start and end, hostslots_drop() an idle line with no wait (nothing ran),
 * and both unlock it, not close it (an fd that is not one of hs's is
 * closed).  A slot hs holds is skipped by its takes (a flock on it again
 * would be granted).  At most
 * HOSTSLOTS_KEEP (32) hosts are kept open beyond those with a held slot.
 * Slot files are never replaced or removed (hosts/ is abx's own); one
 * removed by hand while a run holds it open paces that run apart from the
 * others until it ends.  hostslots_free() closes them all.
 */
typedef struct {
	char key[200];
	int hfd;
	int fd[HOSTPACE_SLOTS_MAX];
	unsigned char held[HOSTPACE_SLOTS_MAX];
} hostdir_t;
typedef struct {
	hostdir_t *v;
	size_t n;
} hostslots_t;
int hostslots_take(hostslots_t *hs, int dfd, const char *key, const hostpace_t *hp, const char *what, int64_t now,
    int64_t *until);
void hostslots_give(hostslots_t *hs, int fd, const hostpace_t *hp, int64_t started, int64_t ended);
void hostslots_drop(hostslots_t *hs, int fd);
void hostslots_free(hostslots_t *hs);

/* A crawl run's memory of its snapshots' host keys (id -> key), so that
 * a refill reads a snapshot's record once, not once a pass. */
typedef struct {
	struct hostcache_ent *v;
	size_t cap, n;
} hostcache_t;
const char *hostcache_get(const hostcache_t *hc, const char *id);
void hostcache_put(hostcache_t *hc, const char *id, const char *key);
void hostcache_free(hostcache_t *hc);

/* Settings parsers for settings_check(): decimal seconds ("0.5", "2") as µs
 * up to 30 days; a factor ("1.5") from 0 to 1000. */
int conf_parse_dsec(const char *s, long long *out);
int conf_parse_factor(const char *s, long long *out);

#endif
