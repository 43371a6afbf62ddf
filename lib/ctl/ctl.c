/* ctl.c — see ctl.h. */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "seal/crawlpage.h"
#include "ctl/ctl.h"
#include "base/err.h"
#include "base/fs.h"
#include "store/lease.h"
#include "hook/plugin.h"
#include "store/record.h"
#include "tick/schedule.h"

typedef int (*apply_fn)(rec_t *r, int64_t now);

/* The snapshot's results (latest versions), for a retry to queue again. */
typedef struct {
	const char *sid;
	rec_t *v;
	size_t n;
} results_t;

static int
collect_results(rec_t *r, void *arg)
{
	results_t *rs = arg;
	if (rec_streq(r, "type", "ArchiveResult") && rec_streq(r, "snapshot_id", rs->sid)) {
		rs->v = xrealloc(rs->v, (rs->n + 1) * sizeof(rec_t));
		rec_copy(&rs->v[rs->n++], r);
	}
	return 0;
}


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
	/* sealed without being archived (or while it ran): it says why; a
	 * sealed one given a maintenance run keeps its reason */
	if (!rec_streq(r, "status", "sealed") || rec_isnull(r, "sealed_reason"))
		rec_set_str(r, "sealed_reason", "cancelled");
	record_status(r, "sealed", -1);
	/* a final record has no holder: a worker still running notices the
	 * cancel and stops; its flock, not the record, says it is alive */
	rec_set_null(r, "lease");
	return CTL_OK;
}

/*
 * The next locker clears a dead lease: a flock lease whose holder is gone
 * (the kernel freed its lock), or a time lease past its expiry.  A live
 * holder clears its own when it moves the record on.  1 if cleared.
 */
static int
drop_dead_lease(store_t *s, rec_t *r)
{
	const char *l = rec_raw(r, "lease");
	if (!l || l[0] != '{')
		return 0;
	char *id = rec_str(r, "id");
	int dead;
	if (strstr(l, "\"flock\":true")) {
		dead = id && !lease_busy(s, id);
	} else {
		rec_t lr;
		int64_t exp = -1;
		if (rec_parse(&lr, l, strlen(l)) == 0) {
			exp = rec_time(&lr, "expires_at");
			rec_free(&lr);
		}
		dead = exp <= clock_now();
	}
	free(id);
	if (dead)
		rec_set_null(r, "lease");
	return dead;
}

/* The results a retry queued, of a snapshot cancelled before its rerun:
 * skipped, with a note (a sealed snapshot has no queued result). */
static void
settle_retry(store_t *s, rec_t *r)
{
	if (!rec_raw(r, "retry_plugins"))
		return;   /* only a retry queues results ahead */
	rec_del(r, "retry_plugins");
	char *sid = rec_str(r, "id"), *cid = rec_str(r, "crawl_id");
	results_t rs = {sid, NULL, 0};
	if (sid && cid) {
		char j[128];
		store_crawl_journal(cid, j, sizeof j);
		store_each(s, j, sid, collect_results, &rs);
	}
	for (size_t i = 0; i < rs.n; i++) {
		if (rec_streq(&rs.v[i], "status", "queued")) {
			rec_set_str(&rs.v[i], "status", "skipped");
			rec_set_str(&rs.v[i], "notes", "queued by abx-ctl retry; cancelled before it ran again");
			store_put(s, &rs.v[i]);
		}
		rec_free(&rs.v[i]);
	}
	free(rs.v);
	free(sid), free(cid);
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
		int rc = fn(&r, now);
		if (rc == CTL_OK && fn == do_cancel)
			settle_retry(s, &r);
		if (drop_dead_lease(s, &r) || rc == CTL_OK)
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
		if (rc == CTL_OK && fn == do_cancel && !is_crawl)
			settle_retry(s, &r);
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
		int put = drop_dead_lease(s, &r) || rc == CTL_OK;
		if (put && crawl_first)
			store_put(s, &r);
		if (is_crawl && (rc == CTL_OK || rc == CTL_NOOP))
			cascade(s, id, fn, now);
		if (put && !crawl_first)
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
	int rc = apply(s, id, do_cancel, "cancel");
	if (rc != CTL_OK)
		return rc;
	/* a cancelled crawl is sealed here, not by a run: its page too
	 * (crawlpage.h), a hint whose failure is reported, not the cancel's */
	rec_t r;
	int found = store_lock(s) == 0 && store_get(s, id, &r) == 0;
	store_unlock(s);
	char dir[ID_LEN + 8];
	snprintf(dir, sizeof dir, "crawls/%s", id);
	/* one that never ran has no directory, no snapshot, no page */
	if (found && rec_streq(&r, "type", "Crawl") && fs_exists(s->dfd, dir) && crawlpage_write(s, &r) < 0)
		warnx_("unable to write %s/crawls/%s/index.html: %s", s->dir, id, strerror(errno));
	if (found)
		rec_free(&r);
	return rc;
}

/* A new queued result of (plugin, hook) for the rerun to fill in. */
static void
stage_new_result(store_t *s, const char *cid, const char *sid, const char *plugin, const char *hook,
    int64_t now)
{
	rec_t ar = {0};
	char id[ID_LEN + 1];
	id_new(id);
	rec_set_str(&ar, "type", "ArchiveResult");
	rec_set_str(&ar, "id", id);
	rec_set_str(&ar, "crawl_id", cid);
	rec_set_str(&ar, "snapshot_id", sid);
	rec_set_str(&ar, "plugin", plugin);
	if (hook)
		rec_set_str(&ar, "hook_name", hook);
	else
		rec_set_null(&ar, "hook_name");
	rec_set_str(&ar, "status", "queued");
	rec_set_null(&ar, "retry_at");
	rec_set_time(&ar, "created_at", now);
	store_put(s, &ar);
	rec_free(&ar);
}

/*
 * Queue plugin's results of the snapshot again.  A result is keyed by
 * (snapshot, plugin, hook_name) and the rerun keeps the id of the earlier
 * one (abx-hook), so each earlier result is staged queued under its own id
 * and hook_name: the rerun's result replaces it.  A plugin that has no
 * result yet gets one queued result per Snapshot hook it has now (found
 * through the plugin search path); one that is not installed, a result
 * without a hook_name, which abx-seal settles (seal.h).  Returns how many.
 */
static int
stage_plugin(store_t *s, const results_t *rs, plugins_t *ps, const char *cid, const char *sid,
    const char *plugin, int64_t now)
{
	int n = 0;
	for (size_t i = 0; i < rs->n; i++) {
		rec_t *r = &rs->v[i];
		if (!rec_streq(r, "plugin", plugin) || rec_isnull(r, "hook_name"))
			continue;
		rec_set_str(r, "status", "queued");
		rec_set_null(r, "retry_at");
		store_put(s, r);
		n++;
	}
	if (n)
		return n;
	plugin_t *p = ps ? plugins_find(ps, plugin) : NULL;
	for (size_t i = 0; p && i < p->nhooks; i++)
		if (!strcmp(p->hooks[i].family, "Snapshot")) {
			stage_new_result(s, cid, sid, plugin, p->hooks[i].stem, now);
			n++;
		}
	if (!n) {
		stage_new_result(s, cid, sid, plugin, NULL, now);
		n++;
	}
	return n;
}

int
ctl_retry(store_t *s, const char *sid, char **plugins)
{
	/* the plugins as installed now, before the lock: a directory scan */
	plugins_t ps = {0};
	int have_ps = 0;
	char real[PATH_MAX];
	if (plugins && *plugins && realpath(s->dir, real)) {
		char **path = plugins_path(real);
		plugins_discover(&ps, path);
		for (char **d = path; *d; d++)
			free(*d);
		free(path);
		have_ps = 1;
	}
	store_lock(s);
	rec_t r, c;
	if (store_get(s, sid, &r) < 0 || !rec_streq(&r, "type", "Snapshot")) {
		store_unlock(s);
		if (have_ps)
			plugins_free(&ps);
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
			rec_del(&c, "sealed_reason");
			store_put(s, &c);
		}
		rec_free(&c);
	}
	results_t rs = {sid, NULL, 0};
	if (plugins && *plugins && cid) {
		const char *hr = rec_raw(&r, "has_results");
		if (hr && !strcmp(hr, "true")) {
			char j[128];
			store_crawl_journal(cid, j, sizeof j);
			store_each(s, j, sid, collect_results, &rs);
		}
	}
	int staged = 0;
	for (char **p = plugins; p && *p && cid; p++)
		staged += stage_plugin(s, &rs, have_ps ? &ps : NULL, cid, sid, *p, now);
	for (size_t i = 0; i < rs.n; i++)
		rec_free(&rs.v[i]);
	free(rs.v);
	if (have_ps)
		plugins_free(&ps);
	/* the journal holds results for it now: the rerun looks them up */
	if (staged)
		rec_set_raw(&r, "has_results", "true");
	record_status(&r, crawl_paused ? "paused" : "queued", crawl_paused ? INT64_MAX : now);
	rec_set_null(&r, "lease");
	rec_del(&r, "sealed_reason");   /* the rerun's seal says it again */
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
