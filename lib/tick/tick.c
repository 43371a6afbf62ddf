/*
 * tick.c — see tick.h: the pass (schedules, due crawls, due snapshots of
 * crawls that are not due, due binaries), its outcome and its summary.
 * The context it works with is tickctx.c's; a crawl run is crawlrun.h's
 * (below the pass: it calls nothing here), the terminal display
 * progress.h's.
 */
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hook/binary.h"
#include "store/claim.h"
#include "base/err.h"
#include "store/queue.h"
#include "base/exitcodes.h"
#include "store/lease.h"
#include "hook/plugin.h"
#include "tick/progress.h"
#include "tick/repair.h"
#include "tick/retention.h"
#include "tick/schedule.h"
#include "seal/seal.h"
#include "tick/crawlrun.h"
#include "tick/tick.h"


/* ----------------------------------------------------------- the pass */

static int
resolve_due_binaries(tick_t *t)
{
	store_t *s = t->s;
	ient_t *v;
	size_t n = tick_active(t, "Binary", 1, &v);
	int64_t now = clock_now();
	int did = 0;
	for (size_t i = 0; i < n && !*t->signals; i++) {
		if (v[i].retry_at < 0 || v[i].retry_at > now)
			continue;
		rec_t r;
		if (store_get(s, v[i].id, &r) < 0)
			continue;
		binreq_t req = {0};
		req.name = rec_str(&r, "name");
		req.binproviders = rec_str(&r, "binproviders");
		if (!req.binproviders)
			req.binproviders = xstrdup("env");
		if (req.name) {
			binres_t res = {0};
			binary_resolve(s, &req, getenv("PATH"), NULL, NULL, &res);
			if (res.changed) {
				store_lock(s);
				binary_commit(s, &res);
				if (store_unlock(s) < 0)
					tick_error(t, "unable to record binary %s", req.name);
				else
					did = 1;
			}
			if (t->verbose)
				info("binary %s: %s", req.name, res.ok ? res.abspath : res.why);
			binres_free(&res);
		}
		free(req.name), free(req.binproviders);
		rec_free(&r);
	}
	free(v);
	return did;
}

/* Crawls passed over for the rest of a pass: busy, or the store failed
 * on them (each is tried once a pass, never spun on). */
#define SKIP_MAX 64   /* a pass that fails on this many crawls ends */

typedef struct {
	char id[SKIP_MAX][ID_LEN + 1];
	size_t n;
} skiplist_t;

static int
skipped(const skiplist_t *k, const char *id)
{
	for (size_t i = 0; i < k->n; i++)
		if (!strcmp(k->id[i], id))
			return 1;
	return 0;
}

static void
skip_add(skiplist_t *k, const char *id)
{
	if (k->n < SKIP_MAX && !skipped(k, id))
		memcpy(k->id[k->n++], id, ID_LEN + 1);
}

/* Run a claimed crawl; one that failed is not claimed again this pass. */
static void
run_claimed(tick_t *t, rec_t *c, int fd, skiplist_t *skip)
{
	char *id = rec_str(c, "id");
	if (crawl_run(t, c, fd) < 0 && id_valid(id))
		skip_add(skip, id);
	free(id);
	rec_free(c);
}

/* A due snapshot whose crawl is not due: claim that crawl and run it. */
static int
due_orphan(tick_t *t, skiplist_t *skip)
{
	store_t *s = t->s;
	ient_t *v;
	size_t n = tick_active(t, "Snapshot", 1, &v);
	int64_t now = clock_now();
	int did = 0;
	for (size_t i = 0; i < n && !did; i++) {
		ient_t *e = &v[i];
		if (!queue_entry_due(e, "Snapshot", t->only_crawl, now))
			continue;
		if (skipped(skip, e->crawl_id) || lease_busy(s, e->id))
			continue;
		claim_opts_t o = {LEASE_US, 1, 1};
		rec_t c;
		int fd;
		int rc = claim_id(s, e->crawl_id, &o, &c, &fd);
		if (rc == CLAIM_OK) {
			run_claimed(t, &c, fd, skip);
			did = 1;
		} else {
			if (rc == CLAIM_ERROR)
				tick_error(t, "unable to claim crawl %s", e->crawl_id);
			skip_add(skip, e->crawl_id);
		}
	}
	free(v);
	return did;
}

int
tick_pass(tick_t *t)
{
	store_t *s = t->s;
	int did = 0;
	int sealed_before = t->snapshots, crawls_before = t->crawls, errors_before = t->errors;
	skiplist_t skip = {.n = 0};
	while (!*t->signals) {
		if (!t->only_crawl && schedule_enqueue_due(s, t->verbose) > 0)
			did = 1;
		claim_opts_t o = {LEASE_US, 1, 0};
		rec_t c;
		int fd;
		/* a tick's claim need not be synced: its lease is the flock it
		 * holds, which no crash outlives; the run syncs on its clock */
		int lazy = s->lazy;
		s->lazy = s->durable;
		int rc = t->only_crawl ? (skipped(&skip, t->only_crawl) ? CLAIM_NONE
		                                                        : claim_id(s, t->only_crawl, &o, &c, &fd))
		                       : claim_next_except(s, "Crawl", NULL, skip.id, skip.n, &o, &c, &fd);
		s->lazy = lazy;
		if (rc == CLAIM_ERROR) {
			tick_error(t, "unable to claim a crawl");
			break;
		}
		if (rc == CLAIM_OK) {
			run_claimed(t, &c, fd, &skip);
			did = 1;
			if (skip.n == SKIP_MAX) {
				/* one more failure could not be remembered, and
				 * would be claimed again at once: end the pass */
				errorx("%d crawls failed in this pass; ending it", SKIP_MAX);
				break;
			}
			if (t->only_crawl && !due_orphan(t, &skip))
				break;
			continue;
		}
		if (due_orphan(t, &skip)) {
			did = 1;
			continue;
		}
		if (!t->only_crawl && resolve_due_binaries(t)) {
			did = 1;
			continue;
		}
		break;
	}
	if (t->snapshots != sealed_before || t->crawls != crawls_before)
		seal_site_index(s);
	if (*t->signals)
		return TICK_STOPPED;
	if (t->errors != errors_before)
		return TICK_FAILED;
	return did ? TICK_DID : TICK_IDLE;
}

int
tick_oneshot(tick_t *t)
{
	store_t *s = t->s;
	repair_stats_t st;
	if (repair_pass(s, &st, 0) < 0) {
		errorx("repair: %s", s->errmsg);
		t->errors++;
		t->err = s->err;
	}
	if (t->verbose && (st.requeued || st.torn || st.leases_dropped))
		info("repair: %d requeued, %d torn lines cut, %d stale leases dropped", st.requeued, st.torn,
		    st.leases_dropped);
	int gone = retention_run(s, 100, t->verbose);
	if (t->verbose && gone)
		info("retention: %d expired crawls removed", gone);
	int rc = tick_pass(t);
	return gone && rc == TICK_IDLE ? TICK_DID : rc;
}

int
tick_dry(tick_t *t)
{
	store_t *s = t->s;
	ient_t *v;
	size_t n = tick_active(t, NULL, 1, &v);
	int64_t now = clock_now();
	int due = 0;
	for (size_t i = 0; i < n; i++) {
		ient_t *e = &v[i];
		int is_due = e->retry_at != INT64_MAX && strcmp(e->status, "paused") &&
		             (e->retry_at <= now || (e->lease && !lease_busy(s, e->id)));
		if (!is_due || !strcmp(e->type, "CrawlSchedule"))
			continue;
		if (t->only_crawl && strcmp(e->id, t->only_crawl) && strcmp(e->crawl_id, t->only_crawl))
			continue;
		rec_t r;
		if (store_get(s, e->id, &r) == 0) {
			buf_t b = {0};
			rec_line(&r, &b);
			buf_addc(&b, '\n');
			fwrite(b.p, 1, b.len, stdout);
			buf_free(&b);
			rec_free(&r);
			due++;
		}
	}
	due += schedule_list_due(s, stdout);
	if (!due) {
		/* say when something will be (a host's pause, a back-off) */
		const ient_t *next = NULL;
		for (size_t i = 0; i < n; i++)
			if (v[i].retry_at > now && v[i].retry_at != INT64_MAX && strcmp(v[i].status, "paused") &&
			    (!t->only_crawl || !strcmp(v[i].id, t->only_crawl) || !strcmp(v[i].crawl_id, t->only_crawl)) &&
			    (!next || v[i].retry_at < next->retry_at))
				next = &v[i];
		if (next) {
			char iso[ISO_LEN + 1];
			clock_iso(next->retry_at, iso);
			info("nothing is due now; the next, %s %s, is due at %s", next->type, next->id, iso);
		}
	}
	free(v);
	return due ? 0 : 1;
}


/* ------------------------------------------------------ the outcome */

int
tick_exit(const tick_t *t, int rc, int lastsig)
{
	if (rc == EX_CONFIG_)
		return rc;
	if (rc == TICK_STOPPED)
		return 128 + lastsig;
	if (rc == TICK_FAILED || t->err)
		return t->err ? t->err : EX_IOERR_;
	if (t->failed_hooks)
		return EX_HOOKSFAILED;
	return rc == TICK_DID ? EX_DONE : EX_NOTHING;
}

/* Append a part of the summary, after ", ", starting a new line (indented)
 * where the part would not fit in the terminal's width. */
static void
part(buf_t *b, size_t *line, int cols, const char *text, size_t vis)
{
	if (b->len) {
		if (b->len - *line + 2 + vis >= (size_t)cols) {
			buf_adds(b, ",\n ");
			*line = b->len - 1;
		} else {
			buf_adds(b, ", ");
		}
	}
	buf_adds(b, text);
}

void
tick_summary(const tick_t *t)
{
	if (!t->tty || !(t->crawls || t->snapshots || t->failed_hooks))
		return;
	int cols = t->cols ? t->cols : progress_width();
	const char *on = t->color ? "\033[1;31m" : "", *off = t->color ? "\033[0m" : "";
	buf_t b = {0};
	size_t line = 0;
	char x[128];
	int n = snprintf(x, sizeof x, "abx-tick: %d snapshot%s sealed", t->snapshots, t->snapshots == 1 ? "" : "s");
	part(&b, &line, cols, x, n);
	if (t->failed_hooks) {
		n = snprintf(x, sizeof x, "%d hook%s failed in %d snapshot%s", t->failed_hooks,
		    t->failed_hooks == 1 ? "" : "s", t->failed_items, t->failed_items == 1 ? "" : "s");
		buf_t c = {0};
		buf_addf(&c, "%s%s%s", on, x, off);
		part(&b, &line, cols, c.p, n);
		buf_free(&c);
	}
	if (t->discovered) {
		n = snprintf(x, sizeof x, "%d outlink%s queued", t->discovered, t->discovered == 1 ? "" : "s");
		part(&b, &line, cols, x, n);
	}
	if (t->requeued) {
		n = snprintf(x, sizeof x, "%d requeued", t->requeued);
		part(&b, &line, cols, x, n);
	}
	if (t->failed_workers) {
		n = snprintf(x, sizeof x, "%d worker failure%s", t->failed_workers, t->failed_workers == 1 ? "" : "s");
		part(&b, &line, cols, x, n);
	}
	n = snprintf(x, sizeof x, "%d crawl%s in %.1f s", t->crawls, t->crawls == 1 ? "" : "s",
	    (clock_mono() - t->started_us) / 1e6);
	part(&b, &line, cols, x, n);
	printf("%s\n", b.p);
	fflush(stdout);
	buf_free(&b);
}
