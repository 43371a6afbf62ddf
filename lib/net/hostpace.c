/*
 * hostpace.c — see hostpace.h.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <time.h>
#include <unistd.h>

#include "base/buf.h"
#include "base/err.h"
#include "base/clock.h"
#include "base/fs.h"
#include "base/host.h"
#include "net/hostpace.h"
#include "base/json.h"
#include "store/store.h"
#include "net/url.h"

#define DSEC_MAX (30LL * 86400 * 1000000)

/* "0.25", "2", "1.5": decimal, at most 6 fraction digits; *out scaled by 1e6. */
static int
parse_decimal(const char *s, long long max, long long *out)
{
	long long v = 0, scale = 1000000;
	const char *p = s;
	if (!s || !*s)
		return -1;
	for (; *p >= '0' && *p <= '9'; p++) {
		v = v * 10 + (*p - '0');
		if (v > max / 1000000 + 1)
			return -1;
	}
	if (p == s)
		return -1;
	v *= 1000000;
	if (*p == '.') {
		const char *q = ++p;
		for (; *p >= '0' && *p <= '9'; p++) {
			if (p - q >= 6)
				return -1;
			scale /= 10;
			v += (*p - '0') * scale;
		}
		if (p == q)
			return -1;
	}
	if (*p || v > max)
		return -1;
	*out = v;
	return 0;
}

int
conf_parse_dsec(const char *s, long long *out)
{
	return parse_decimal(s, DSEC_MAX, out);
}

int
conf_parse_factor(const char *s, long long *out)
{
	return parse_decimal(s, 1000LL * 1000000, out);
}

void
hostpace_conf(const conf_t *c, hostpace_t *hp)
{
	long long v;
	const char *s = conf_get(c, "HOST_MAX_CONCURRENT");
	hp->max_concurrent = s && conf_parse_count(s, &v) == 0 && v >= 1 ?
	    (v > HOSTPACE_SLOTS_MAX ? HOSTPACE_SLOTS_MAX : (int)v) : 4;
	s = conf_get(c, "HOST_DELAY");
	hp->delay_us = s && conf_parse_dsec(s, &v) == 0 ? v : 0;
	s = conf_get(c, "HOST_DELAY_FACTOR");
	hp->factor = s && conf_parse_factor(s, &v) == 0 ? v / 1e6 : 0;
	s = conf_get(c, "HOST_MAX_DELAY");
	hp->max_delay_us = s && conf_parse_dsec(s, &v) == 0 ? v : 300 * 1000000LL;
	s = conf_get(c, "HOST_BACKOFF_RETRIES");
	hp->backoff_retries = s && conf_parse_count(s, &v) == 0 ? (v > 100 ? 100 : (int)v) : 5;
}

int
hostpace_key(const char *url, char *out, size_t n)
{
	static const char hex[] = "0123456789ABCDEF";
	char host[512];
	url_host(url, host, sizeof host);
	size_t o = 0;
	for (const unsigned char *p = (const unsigned char *)host; *p; p++) {
		if (o + 4 > n)
			return -1;
		if ((*p >= 'a' && *p <= 'z') || (*p >= '0' && *p <= '9') || *p == '-' ||
		    (*p == '.' && p != (const unsigned char *)host)) {
			out[o++] = *p;
		} else {
			out[o++] = '%';
			out[o++] = hex[*p >> 4];
			out[o++] = hex[*p & 15];
		}
	}
	if (o == 0)
		return -1;
	out[o] = 0;
	return 0;
}

int64_t
hostpace_wait(const hostpace_t *hp, int64_t dur)
{
	int64_t w = (int64_t)(hp->factor * (double)(dur < 0 ? 0 : dur));
	if (w < hp->delay_us)
		w = hp->delay_us;
	if (w > hp->max_delay_us)
		w = hp->max_delay_us;
	return w;
}

/* The pause file's "until" (0 if none or unreadable): REL under dfd. */
static int64_t
pause_read(int dfd, const char *rel, int *backoffs)
{
	buf_t b = {0};
	rec_t r;
	int64_t until = 0;
	*backoffs = 0;
	if (fs_read(dfd, rel, &b) == 0 && rec_parse(&r, b.p, b.len) == 0) {
		until = rec_int(&r, "until_us", 0);
		*backoffs = (int)rec_int(&r, "backoffs", 0);
		rec_free(&r);
	}
	buf_free(&b);
	return until;
}

static int64_t
pause_until(int dfd, const char *key, int *backoffs)
{
	char rel[600];
	snprintf(rel, sizeof rel, "hosts/%s/pause", key);
	return pause_read(dfd, rel, backoffs);
}

/* Replace the contents of a slot file we hold (a hint: not synced). */
static void
slot_write(int fd, const rec_t *r)
{
	buf_t b = {0};
	rec_line(r, &b);
	buf_addc(&b, '\n');
	if (pwrite(fd, b.p, b.len, 0) == (ssize_t)b.len)
		(void)!ftruncate(fd, b.len);
	buf_free(&b);
}

/* The not_before of the slot file fd holds locked, read from its start
 * (0 if none). */
static int64_t
slot_not_before(int fd)
{
	char line[1024];
	ssize_t n = pread(fd, line, sizeof line - 1, 0);
	rec_t r;
	int64_t nb = 0;
	if (n > 0 && rec_parse(&r, line, (size_t)n) == 0) {
		nb = rec_int(&r, "not_before_us", 0);
		rec_free(&r);
	}
	return nb;
}

/* The slot fd holds is taken for `what`: its running line. */
static void
slot_running(int dfd, int fd, const char *what, int64_t now)
{
	rec_t run = {0};
	char iso[ISO_LEN + 1], host[256] = "?", why[256];
	clock_iso(now, iso);
	host_name(dfd, host, sizeof host, why, sizeof why);   /* host.h: ABX_HOST, HOST */
	rec_set_str(&run, "state", "running");
	rec_set_str(&run, "snapshot", what);
	rec_set_int(&run, "pid", getpid());
	rec_set_str(&run, "host", host);
	rec_set_str(&run, "since", iso);
	slot_write(fd, &run);
	rec_free(&run);
}

/* The idle line of a slot after a run from started to ended. */
static void
slot_idle(int fd, const hostpace_t *hp, int64_t started, int64_t ended)
{
	int64_t dur = ended - started, nb = ended + hostpace_wait(hp, dur);
	char iso[ISO_LEN + 1];
	rec_t r = {0};
	rec_set_str(&r, "state", "idle");
	clock_iso(nb, iso);
	rec_set_str(&r, "not_before", iso);
	rec_set_int(&r, "not_before_us", nb);
	clock_iso(ended, iso);
	rec_set_str(&r, "last_end", iso);
	rec_set_int(&r, "last_ms", dur / 1000);
	slot_write(fd, &r);
	rec_free(&r);
}

int
hostpace_pause(int dfd, const char *key, int64_t until, const char *why, int *backoffs)
{
	char rel[600], iso[ISO_LEN + 1];
	int n;
	int64_t was = pause_until(dfd, key, &n);
	if (was > until)
		until = was;   /* another runner asked for longer */
	*backoffs = n + 1;
	rec_t r = {0};
	clock_iso(until, iso);
	rec_set_str(&r, "until", iso);
	rec_set_int(&r, "until_us", until);
	rec_set_int(&r, "backoffs", *backoffs);
	rec_set_str(&r, "why", why);
	buf_t b = {0};
	rec_line(&r, &b);
	buf_addc(&b, '\n');
	snprintf(rel, sizeof rel, "hosts/%s", key);
	int rc = fs_mkdirs(dfd, rel);
	snprintf(rel, sizeof rel, "hosts/%s/pause", key);
	if (rc == 0)
		rc = fs_replace(dfd, rel, b.p, b.len, 0);
	buf_free(&b);
	rec_free(&r);
	return rc;
}

int
hostpace_backoffs(int dfd, const char *key)
{
	int n;
	pause_until(dfd, key, &n);
	return n;
}

void
hostpace_calm(int dfd, const char *key)
{
	char rel[600];
	int n;
	int64_t until = pause_until(dfd, key, &n);
	if ((until == 0 && n == 0) || until > clock_now())
		return;   /* no pause; or one still in force: a page that started
		           * before it answered well, which says nothing of now */
	snprintf(rel, sizeof rel, "hosts/%s/pause", key);
	unlinkat(dfd, rel, 0);
}

int64_t
hostpace_retry_after(const char *v, int64_t now)
{
	if (!v)
		return -1;
	while (*v == ' ' || *v == '\t')
		v++;
	if (*v >= '0' && *v <= '9') {
		char *end;
		long long s = strtoll(v, &end, 10);
		while (*end == ' ' || *end == '\t')
			end++;
		if (*end || s < 0 || s > 10LL * 365 * 86400)
			return -1;
		return now + s * 1000000;
	}
	/* an HTTP-date (RFC 9110 5.6.7): IMF-fixdate, RFC 850, asctime */
	static const char *fmts[] = {"%a, %d %b %Y %H:%M:%S GMT", "%A, %d-%b-%y %H:%M:%S GMT",
	    "%a %b %e %H:%M:%S %Y"};
	for (size_t i = 0; i < sizeof fmts / sizeof fmts[0]; i++) {
		struct tm tm;
		memset(&tm, 0, sizeof tm);
		const char *end = strptime(v, fmts[i], &tm);
		if (end && *end == 0) {
			time_t t = timegm(&tm);
			if (t == (time_t)-1)
				return -1;
			int64_t at = (int64_t)t * 1000000;
			return at < now ? now : at;
		}
	}
	return -1;
}

/* ---------------------------------------------- slots kept open */

#define HOSTSLOTS_KEEP 32   /* host directories kept open when none is held */

static void
dir_close(hostdir_t *d)
{
	for (int k = 0; k < HOSTPACE_SLOTS_MAX; k++)
		if (d->fd[k] >= 0)
			close(d->fd[k]);
	if (d->hfd >= 0)
		close(d->hfd);
}

static int
dir_held(const hostdir_t *d)
{
	for (int k = 0; k < HOSTPACE_SLOTS_MAX; k++)
		if (d->held[k])
			return 1;
	return 0;
}

/* key's entry, its directory opened (made) the first time; NULL (errno)
 * if it cannot be.  Past HOSTSLOTS_KEEP, an entry none of whose slots is
 * held is closed to make room. */
static hostdir_t *
dir_of(hostslots_t *hs, int dfd, const char *key)
{
	for (size_t i = 0; i < hs->n; i++)
		if (strcmp(hs->v[i].key, key) == 0)
			return &hs->v[i];
	if (strlen(key) >= sizeof hs->v[0].key) {
		errno = ENAMETOOLONG;
		return NULL;
	}
	char rel[600];
	snprintf(rel, sizeof rel, "hosts/%s", key);
	int hfd = fs_opendir(dfd, rel);
	if (hfd < 0 && errno == ENOENT)
		hfd = fs_mkdirs_open(dfd, rel);
	if (hfd < 0)
		return NULL;
	size_t at = hs->n;
	for (size_t i = 0; hs->n >= HOSTSLOTS_KEEP && i < hs->n; i++)
		if (!dir_held(&hs->v[i])) {
			dir_close(&hs->v[i]);
			at = i;
			break;
		}
	if (at == hs->n)
		hs->v = xrealloc(hs->v, ++hs->n * sizeof *hs->v);
	hostdir_t *d = &hs->v[at];
	memset(d, 0, sizeof *d);
	snprintf(d->key, sizeof d->key, "%s", key);
	d->hfd = hfd;
	for (int k = 0; k < HOSTPACE_SLOTS_MAX; k++)
		d->fd[k] = -1;
	return d;
}

int
hostslots_take(hostslots_t *hs, int dfd, const char *key, const hostpace_t *hp, const char *what, int64_t now,
    int64_t *until)
{
	int backoffs;
	*until = 0;
	hostdir_t *d = dir_of(hs, dfd, key);
	if (!d)
		return -1;
	int64_t pu = pause_read(d->hfd, "pause", &backoffs);
	if (pu > now) {
		*until = pu;
		errno = EAGAIN;
		return -1;
	}
	int64_t soonest = 0;
	int max = hp->max_concurrent < HOSTPACE_SLOTS_MAX ? hp->max_concurrent : HOSTPACE_SLOTS_MAX;
	for (int k = 0; k < max; k++) {
		if (d->held[k])
			continue;   /* ours, running: a flock again would be granted */
		if (d->fd[k] < 0) {
			char name[32];
			snprintf(name, sizeof name, "slot-%d", k);
			d->fd[k] = openat(d->hfd, name, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0644);
			if (d->fd[k] < 0)
				return -1;
		}
		if (flock(d->fd[k], LOCK_EX | LOCK_NB) < 0)
			continue;   /* running elsewhere */
		int64_t nb = slot_not_before(d->fd[k]);
		if (nb > now) {
			if (!soonest || nb < soonest)
				soonest = nb;
			flock(d->fd[k], LOCK_UN);
			continue;
		}
		slot_running(dfd, d->fd[k], what, now);
		d->held[k] = 1;
		return d->fd[k];
	}
	*until = soonest;
	errno = EAGAIN;
	return -1;
}

/* The entry and slot of fd; NULL if it is not one of hs's. */
static hostdir_t *
slot_of(hostslots_t *hs, int fd, int *k)
{
	for (size_t i = 0; i < hs->n; i++)
		for (*k = 0; *k < HOSTPACE_SLOTS_MAX; (*k)++)
			if (hs->v[i].fd[*k] == fd)
				return &hs->v[i];
	return NULL;
}

void
hostslots_give(hostslots_t *hs, int fd, const hostpace_t *hp, int64_t started, int64_t ended)
{
	int k;
	hostdir_t *d = fd >= 0 ? slot_of(hs, fd, &k) : NULL;
	if (!d) {
		if (fd >= 0)
			close(fd);   /* not a slot of hs's: its lock, if any, goes with it */
		return;
	}
	if (!d->held[k])
		return;   /* given back already: it stays open, unlocked */
	slot_idle(fd, hp, started, ended);
	flock(fd, LOCK_UN);
	d->held[k] = 0;
}

void
hostslots_drop(hostslots_t *hs, int fd)
{
	int k;
	hostdir_t *d = fd >= 0 ? slot_of(hs, fd, &k) : NULL;
	if (!d) {
		if (fd >= 0)
			close(fd);
		return;
	}
	if (!d->held[k])
		return;
	rec_t r = {0};
	rec_set_str(&r, "state", "idle");
	slot_write(fd, &r);
	rec_free(&r);
	flock(fd, LOCK_UN);
	d->held[k] = 0;
}

void
hostslots_free(hostslots_t *hs)
{
	for (size_t i = 0; i < hs->n; i++)
		dir_close(&hs->v[i]);
	free(hs->v);
	memset(hs, 0, sizeof *hs);
}

struct hostcache_ent {
	char *id, *key;
};

static size_t
hc_hash(const char *s)
{
	size_t h = 5381;
	while (*s)
		h = h * 33 ^ (unsigned char)*s++;
	return h;
}

const char *
hostcache_get(const hostcache_t *hc, const char *id)
{
	if (!hc->cap)
		return NULL;
	for (size_t i = hc_hash(id) & (hc->cap - 1);; i = (i + 1) & (hc->cap - 1)) {
		if (!hc->v[i].id)
			return NULL;
		if (strcmp(hc->v[i].id, id) == 0)
			return hc->v[i].key;
	}
}

void
hostcache_put(hostcache_t *hc, const char *id, const char *key)
{
	if ((hc->n + 1) * 2 > hc->cap) {
		hostcache_t g = {xcalloc(hc->cap ? hc->cap * 2 : 64, sizeof *g.v), hc->cap ? hc->cap * 2 : 64, 0};
		for (size_t i = 0; i < hc->cap; i++)
			if (hc->v[i].id) {
				size_t j = hc_hash(hc->v[i].id) & (g.cap - 1);
				while (g.v[j].id)
					j = (j + 1) & (g.cap - 1);
				g.v[j] = hc->v[i];
				g.n++;
			}
		free(hc->v);
		*hc = g;
	}
	size_t i = hc_hash(id) & (hc->cap - 1);
	for (; hc->v[i].id; i = (i + 1) & (hc->cap - 1))
		if (strcmp(hc->v[i].id, id) == 0) {
			free(hc->v[i].key);
			hc->v[i].key = xstrdup(key);
			return;
		}
	hc->v[i].id = xstrdup(id);
	hc->v[i].key = xstrdup(key);
	hc->n++;
}

void
hostcache_free(hostcache_t *hc)
{
	for (size_t i = 0; i < hc->cap; i++)
		if (hc->v[i].id)
			free(hc->v[i].id), free(hc->v[i].key);
	free(hc->v);
	memset(hc, 0, sizeof *hc);
}
