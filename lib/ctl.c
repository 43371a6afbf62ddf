/* ctl.c — see ctl.h. */
#include <stdlib.h>
#include <string.h>

#include "ctl.h"
#include "err.h"
#include "record.h"
#include "schedule.h"

typedef int (*apply_fn)(rec_t *r, int64_t now);

static int
do_pause(rec_t *r, int64_t now)
{
	(void)now;
	if (record_is_final(r) || rec_streq(r, "status", "paused"))
		return CTL_NOOP;
	record_status(r, "paused", INT64_MAX);
	return CTL_OK;
}

static int
do_resume(rec_t *r, int64_t now)
{
	if (!rec_streq(r, "status", "paused"))
		return CTL_NOOP;
	record_status(r, "queued", now);
	return CTL_OK;
}

static int
do_cancel(rec_t *r, int64_t now)
{
	(void)now;
	if (record_is_final(r) && rec_isnull(r, "retry_at"))
		return CTL_NOOP;
	record_status(r, "sealed", -1);
	return CTL_OK;
}

/* Apply fn to the active snapshots of a crawl. */
static void
cascade(store_t *s, const char *crawl_id, apply_fn fn, int64_t now)
{
	ient_t *v;
	size_t n = store_active(s, "Snapshot", &v);
	for (size_t i = 0; i < n; i++) {
		if (strcmp(v[i].crawl_id, crawl_id) != 0)
			continue;
		rec_t r;
		if (store_get(s, v[i].id, &r) < 0)
			continue;
		if (fn(&r, now) == CTL_OK)
			store_put(s, &r);
		rec_free(&r);
	}
	free(v);
}

static int
schedule_apply(store_t *s, rec_t *r, const char *op)
{
	if (strcmp(op, "cancel") == 0) {
		if (rec_streq(r, "status", "sealed"))
			return CTL_NOOP;
		rec_set_raw(r, "is_enabled", "false");
		record_status(r, "sealed", -1);
	} else {
		int en = strcmp(op, "resume") == 0;
		if (rec_streq(r, "status", "sealed"))
			return CTL_BADSTATE;
		const char *cur = rec_raw(r, "is_enabled");
		if (cur && strcmp(cur, en ? "true" : "false") == 0)
			return CTL_NOOP;
		/* paused: the marker; resumed: the next run from now, so a
		 * resume never fires the periods missed while paused */
		int64_t next = INT64_MAX, now = clock_now();
		if (en) {
			char *expr = rec_str(r, "schedule");
			cron_t cr;
			const char *why;
			next = expr && cron_parse(expr, &cr, &why) == 0 ? cron_next(&cr, now) : -1;
			free(expr);
			if (next <= now)
				return CTL_NEVER;   /* it would never fire: left paused */
		}
		rec_set_raw(r, "is_enabled", en ? "true" : "false");
		rec_set_str(r, "status", en ? "queued" : "paused");
		rec_set_time(r, "retry_at", next);
	}
	store_put(s, r);
	return CTL_OK;
}

static int
apply(store_t *s, const char *id, apply_fn fn, const char *op)
{
	store_lock(s);
	rec_t r;
	if (store_get(s, id, &r) < 0) {
		store_unlock(s);
		return CTL_NOTFOUND;
	}
	int64_t now = clock_now();
	int rc;
	if (rec_streq(&r, "type", "CrawlSchedule")) {
		rc = schedule_apply(s, &r, op);
	} else if (!rec_streq(&r, "type", "Crawl") && !rec_streq(&r, "type", "Snapshot")) {
		rc = CTL_BADSTATE;
	} else {
		int is_crawl = rec_streq(&r, "type", "Crawl");
		if (fn == do_resume && !is_crawl) {
			/* a snapshot of a paused crawl stays paused */
			char *cid = rec_str(&r, "crawl_id");
			rec_t c;
			if (cid && store_get(s, cid, &c) == 0) {
				if (rec_streq(&c, "status", "paused")) {
					free(cid);
					rec_free(&c);
					rec_free(&r);
					store_unlock(s);
					return CTL_BADSTATE;
				}
				rec_free(&c);
			}
			free(cid);
		}
		rc = fn(&r, now);
		/* cascade even if the crawl itself was already in that state:
		 * it repairs snapshots left behind by a crash.  The order of
		 * the puts is the order the journals are written and synced
		 * in: a power loss between the two must leave the state that
		 * holds work back first.  A pause puts the crawl first (its
		 * snapshots wait behind a paused crawl); a resume or a cancel
		 * puts the snapshots first (a resumed crawl over paused
		 * snapshots would never finish; a cancelled one over queued
		 * snapshots would leave them queued).  The command, run
		 * again, completes what a power loss cut */
		int crawl_first = fn == do_pause;
		if (rc == CTL_OK && crawl_first)
			store_put(s, &r);
		if (is_crawl && (rc == CTL_OK || rc == CTL_NOOP))
			cascade(s, id, fn, now);
		if (rc == CTL_OK && !crawl_first)
			store_put(s, &r);
	}
	rec_free(&r);
	store_unlock(s);
	return rc;
}

int
ctl_pause(store_t *s, const char *id)
{
	return apply(s, id, do_pause, "pause");
}

int
ctl_resume(store_t *s, const char *id)
{
	return apply(s, id, do_resume, "resume");
}

int
ctl_cancel(store_t *s, const char *id)
{
	return apply(s, id, do_cancel, "cancel");
}

int
ctl_retry(store_t *s, const char *sid, char **plugins)
{
	store_lock(s);
	rec_t r, c;
	if (store_get(s, sid, &r) < 0 || !rec_streq(&r, "type", "Snapshot")) {
		store_unlock(s);
		return CTL_NOTFOUND;
	}
	int64_t now = clock_now();
	char *cid = rec_str(&r, "crawl_id");
	int crawl_paused = 0;
	if (cid && store_get(s, cid, &c) == 0) {
		crawl_paused = rec_streq(&c, "status", "paused");
		if (!crawl_paused && record_is_final(&c)) {
			/* the crawl runs the snapshot, and an active
			 * snapshot needs an active crawl */
			record_status(&c, "queued", now);
			rec_set_null(&c, "lease");
			store_put(s, &c);
		}
		rec_free(&c);
	}
	for (char **p = plugins; p && *p; p++) {
		rec_t ar = {0};
		char id[ID_LEN + 1];
		id_new(id);
		rec_set_str(&ar, "type", "ArchiveResult");
		rec_set_str(&ar, "id", id);
		rec_set_str(&ar, "crawl_id", cid);
		rec_set_str(&ar, "snapshot_id", sid);
		rec_set_str(&ar, "plugin", *p);
		rec_set_null(&ar, "hook_name");
		rec_set_str(&ar, "status", "queued");
		rec_set_null(&ar, "retry_at");
		rec_set_time(&ar, "created_at", now);
		store_put(s, &ar);
		rec_free(&ar);
	}
	record_status(&r, crawl_paused ? "paused" : "queued", crawl_paused ? INT64_MAX : now);
	rec_set_null(&r, "lease");
	/* the worker runs only these plugins; sealing clears the field */
	buf_t pl = {0};
	for (char **p = plugins; p && *p; p++) {
		if (pl.len)
			buf_addc(&pl, ',');
		buf_adds(&pl, *p);
	}
	if (pl.len)
		rec_set_str(&r, "retry_plugins", pl.p);
	else
		rec_del(&r, "retry_plugins");
	buf_free(&pl);
	store_put(s, &r);
	free(cid);
	rec_free(&r);
	store_unlock(s);
	return CTL_OK;
}
