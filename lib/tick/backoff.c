/*
 * backoff.c — did the server ask us to back off?  Read when a snapshot's
 * worker ended well (ended.c), off the page's status as the headers hook
 * recorded it: DIR/<snapshot>/headers/headers.json, its "status" (or
 * "status_code"), and a Retry-After header (at the top, abx's form, or
 * under "headers", ArchiveBox's; either case).
 *
 *   - not 429 or 503: the host's back-off count is cleared (hostpace_calm);
 *   - 429 or 503: the host is paused (hostpace_pause) for its Retry-After
 *     (seconds or an HTTP date), else exponentially: max(HOST_DELAY, 1 s)
 *     doubled for each consecutive back-off; never past HOST_MAX_DELAY;
 *     the snapshot's "host_backoffs" is counted, and it is queued again for
 *     after the pause, up to HOST_BACKOFF_RETRIES times; past that it is
 *     sealed as it answered, the reason in its notes.
 *
 * A snapshot without a host, or without the headers hook's file, is not
 * looked at.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/err.h"
#include "base/fs.h"
#include "store/record.h"
#include "tick/crawlrun_int.h"

/* The Retry-After of headers.json's record h, in either form; NULL if none. */
static char *
retry_after(const rec_t *h)
{
	char *ra = rec_str(h, "retry-after");
	if (!ra)
		ra = rec_str(h, "Retry-After");
	if (ra)
		return ra;
	rec_t hs;
	const char *raw = rec_raw(h, "headers");
	if (raw && rec_parse(&hs, raw, strlen(raw)) == 0) {
		ra = rec_str(&hs, "retry-after");
		if (!ra)
			ra = rec_str(&hs, "Retry-After");
		rec_free(&hs);
	}
	return ra;
}

/* When the host may be asked again: Retry-After, else doubled, capped. */
static int64_t
pause_until(crawlrun_t *cr, const char *key, const char *ra, int64_t now)
{
	int64_t until = hostpace_retry_after(ra, now);
	if (until < 0) {
		/* no usable Retry-After: double the wait each time */
		int prior = hostpace_backoffs(cr->t->s->dfd, key);
		int64_t base = cr->hp.delay_us > 1000000 ? cr->hp.delay_us : 1000000;
		until = now + (base << (prior < 20 ? prior : 20));
	}
	if (until > now + cr->hp.max_delay_us)
		until = now + cr->hp.max_delay_us;
	return until;
}

/* Count the snapshot's back-off: queued for `until`, or (past the
 * retries) left to be sealed with the reason.  1 if queued again. */
static int
requeue(crawlrun_t *cr, worker_t *w, const rec_t *snap, int64_t until, const char *why)
{
	store_t *s = cr->t->s;
	long n = rec_int(snap, "host_backoffs", 0) + 1;
	int again = n <= cr->hp.backoff_retries;
	store_lock(s);
	rec_t cur;
	if (store_get(s, w->id, &cur) == 0) {
		rec_set_int(&cur, "host_backoffs", n);
		if (again) {
			record_status(&cur, "queued", until);
			rec_set_null(&cur, "lease");
		} else {
			char note[256];
			snprintf(note, sizeof note, "the server asked to back off %ld times (%s); archived as it answered",
			    n, why);
			rec_set_str(&cur, "notes", note);
		}
		store_put(s, &cur);
		rec_free(&cur);
	}
	crawlrun_unlock(cr, "unable to requeue snapshot %s", w->id);
	return again;
}

int
backoff(crawlrun_t *cr, worker_t *w, const rec_t *snap, const char *dir)
{
	store_t *s = cr->t->s;
	char rel[512];
	buf_t b = {0};
	rec_t h;
	snprintf(rel, sizeof rel, "%s/headers/headers.json", dir);
	if (!w->host_key[0] || fs_read(s->dfd, rel, &b) < 0 || rec_parse(&h, b.p, b.len) < 0) {
		buf_free(&b);
		return 0;
	}
	buf_free(&b);
	long long code = rec_int(&h, "status", rec_int(&h, "status_code", 0));
	if (code != 429 && code != 503) {
		rec_free(&h);
		hostpace_calm(s->dfd, w->host_key);
		return 0;
	}
	char *ra = retry_after(&h);
	rec_free(&h);
	int64_t now = clock_now(), until = pause_until(cr, w->host_key, ra, now);
	char why[160];
	snprintf(why, sizeof why, "HTTP %lld%s%s", code, ra ? ", Retry-After: " : "", ra ? ra : "");
	free(ra);
	int backoffs = 0;
	if (hostpace_pause(s->dfd, w->host_key, until, why, &backoffs) < 0)
		warnsys("unable to pause host %s", w->host_key);
	if (!requeue(cr, w, snap, until, why))
		return 0;
	cr->t->requeued++;
	char iso[ISO_LEN + 1];
	clock_iso(until, iso);
	info("snapshot %s: %s answered %s; host paused, the page runs again at %s", w->id, w->url, why, iso);
	return 1;
}
