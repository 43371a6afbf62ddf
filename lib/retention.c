/* retention.c — see retention.h. */
#include <ctype.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "config.h"
#include "err.h"
#include "fs.h"
#include "lease.h"
#include "retention.h"
#include "seal.h"

extern char **environ;

long long
retention_parse(const char *s)
{
	if (!s)
		return 0;
	while (isspace((unsigned char)*s))
		s++;
	if (!*s || !strcmp(s, "0") || !strcasecmp(s, "none") || !strcasecmp(s, "false") ||
	    !strcasecmp(s, "no") || !strcasecmp(s, "off"))
		return 0;
	char *end;
	long long n = strtoll(s, &end, 10);
	if (end == s || n < 0)
		return -1;
	while (isspace((unsigned char)*end))
		end++;
	static const struct {
		const char *u;
		long long secs;
	} units[] = {
		{"h", 3600}, {"hr", 3600}, {"hrs", 3600}, {"hour", 3600}, {"hours", 3600},
		{"d", 86400}, {"day", 86400}, {"days", 86400}, {"w", 604800}, {"week", 604800},
		{"weeks", 604800}, {"mo", 2592000}, {"month", 2592000}, {"months", 2592000},
		{"y", 31536000}, {"yr", 31536000}, {"yrs", 31536000}, {"year", 31536000},
		{"years", 31536000}, {NULL, 0},
	};
	for (int i = 0; units[i].u; i++)
		if (!strcasecmp(end, units[i].u)) {
			long long secs = n * units[i].secs;
			return secs == 0 ? 0 : secs < 3600 ? -1 : secs;
		}
	return -1;
}

typedef struct {
	char id[ID_LEN + 1];
	int64_t expires;
	long long secs;      /* its DELETE_AFTER */
} cand_t;

typedef struct {
	store_t *s;
	long long global;
	int64_t now;
	cand_t *v;
	size_t n;
} scan_t;

static int
crawl_candidate(rec_t *r, void *arg)
{
	scan_t *sc = arg;
	if (!rec_streq(r, "type", "Crawl") || !record_is_final(r) || !rec_isnull(r, "retry_at"))
		return 0;
	const char *tpl = rec_raw(r, "is_template");
	if (tpl && !strcmp(tpl, "true"))
		return 0;   /* a schedule's template lives as long as the schedule */
	if (!rec_isnull(r, "deleted_at")) {
		/* removed, but a crash may have cut the rm -rf short */
		char *id = rec_str(r, "id");
		char dir[128];
		snprintf(dir, sizeof dir, "crawls/%s", id ? id : "");
		if (id_valid(id) && fs_exists(sc->s->dfd, dir))
			fs_rmtree(sc->s->dfd, dir);
		free(id);
		return 0;
	}
	long long d = sc->global;
	const char *cfg = rec_raw(r, "config");
	if (cfg && strstr(cfg, "DELETE_AFTER")) {
		conf_t c = {0};
		conf_load_json(&c, cfg, CONF_CRAWL);
		const char *v = conf_get(&c, "DELETE_AFTER");
		if (v) {
			d = retention_parse(v);
			if (d < 0) {
				char *id = rec_str(r, "id");
				warnx_("crawl %s: DELETE_AFTER=%s is not a duration of an hour or more "
				       "(e.g. 30d, 12w, 1y); the crawl is kept", id ? id : "?", v);
				free(id);
			}
		}
		conf_free(&c);
	}
	if (d <= 0)
		return 0;
	int64_t mod = rec_time(r, "modified_at");
	/* the crawl's last change (its seal) is after every snapshot of it
	 * was made, so nothing younger than the duration goes */
	if (mod < 0 || mod + d * 1000000 > sc->now)
		return 0;
	sc->v = xrealloc(sc->v, (sc->n + 1) * sizeof(cand_t));
	char *id = rec_str(r, "id");
	snprintf(sc->v[sc->n].id, sizeof sc->v[sc->n].id, "%s", id ? id : "");
	sc->v[sc->n].expires = mod + d * 1000000;
	sc->v[sc->n].secs = d;
	sc->n++;
	free(id);
	return 0;
}

static int
by_expiry(const void *a, const void *b)
{
	const cand_t *x = a, *y = b;
	return x->expires < y->expires ? -1 : x->expires > y->expires;
}

typedef struct {
	const char *cid;
	int unfinished;
} kids_t;

static int
check_kids(rec_t *r, void *arg)
{
	kids_t *k = arg;
	if (rec_streq(r, "type", "Snapshot") && (!record_is_final(r) || !rec_isnull(r, "retry_at")))
		k->unfinished++;
	return 0;
}

/* Drop the removed crawls' lines from the site index (a hint). */
static void
prune_site_index(store_t *s, cand_t *gone, size_t n)
{
	buf_t in = {0}, out = {0};
	if (fs_read(s->dfd, "index.jsonl", &in) < 0) {
		buf_free(&in);
		return;
	}
	char *q = in.p, *end = in.p + in.len;
	while (q < end) {
		char *nl = memchr(q, '\n', end - q);
		size_t len = nl ? (size_t)(nl - q) : (size_t)(end - q);
		int drop = 0;
		for (size_t i = 0; i < n && !drop; i++)
			drop = memmem(q, len, gone[i].id, ID_LEN) != NULL;
		if (!drop && nl) {
			buf_add(&out, q, len);
			buf_addc(&out, '\n');
		}
		q += len + 1;
	}
	if (fs_replace(s->dfd, "index.jsonl", out.p ? out.p : "", out.len, 0) < 0)
		warnsys("unable to rewrite %s/index.jsonl", s->dir);
	unlinkat(s->dfd, "index/site.json", 0);   /* the pages are rebuilt */
	buf_free(&in);
	buf_free(&out);
}

int
retention_run(store_t *s, int batch, int verbose)
{
	conf_t c = {0};
	conf_load_file(&c, s->dfd, "abx.conf");
	conf_load_environ(&c, environ);
	const char *g = conf_get(&c, "DELETE_AFTER");
	scan_t sc = {s, retention_parse(g), clock_now(), NULL, 0};
	if (sc.global < 0) {
		warnx_("DELETE_AFTER=%s is not a duration of an hour or more (e.g. 30d, 12w, 1y); ignored", g);
		sc.global = 0;
	}
	conf_free(&c);
	/* with no global DELETE_AFTER only crawls configuring one can expire:
	 * a substring pre-filter skips the rest without parsing them */
	store_each(s, "crawls.jsonl", sc.global ? "\"sealed\"" : "DELETE_AFTER", crawl_candidate, &sc);
	if (sc.global == 0 && sc.n == 0) {
		free(sc.v);
		return 0;
	}
	if (sc.n)
		qsort(sc.v, sc.n, sizeof(cand_t), by_expiry);
	size_t removed = 0;
	cand_t *gone = xcalloc(sc.n + 1, sizeof(cand_t));
	for (size_t i = 0; i < sc.n && (int)removed < batch; i++) {
		int fd;
		if (lease_take(s, sc.v[i].id, &fd) != LEASE_TAKEN)
			continue;
		store_lock(s);
		rec_t r;
		char j[128], dir[128];
		store_crawl_journal(sc.v[i].id, j, sizeof j);
		snprintf(dir, sizeof dir, "crawls/%s", sc.v[i].id);
		kids_t k = {sc.v[i].id, 0};
		store_each(s, j, "\"Snapshot\"", check_kids, &k);
		if (k.unfinished == 0 && store_get(s, sc.v[i].id, &r) == 0) {
			/* re-checked under the lock: a crawl retried and sealed
			 * again since the scan is younger now */
			int64_t mod = rec_time(&r, "modified_at");
			if (record_is_final(&r) && rec_isnull(&r, "retry_at") && rec_isnull(&r, "deleted_at") &&
			    mod >= 0 && mod + sc.v[i].secs * 1000000 <= clock_now()) {
				rec_set_time(&r, "deleted_at", clock_now());
				rec_set_str(&r, "notes", "removed by retention (DELETE_AFTER)");
				store_put(s, &r);
				store_commit(s);
				if (fs_rmtree(s->dfd, dir) < 0)
					warnsys("unable to remove all of %s/%s", s->dir, dir);
				gone[removed++] = sc.v[i];
				if (verbose)
					info("crawl %s expired and removed", sc.v[i].id);
			}
			rec_free(&r);
		}
		store_unlock(s);
		lease_drop(fd);
	}
	if (removed) {
		store_lock(s);   /* seals append to index.jsonl under it */
		prune_site_index(s, gone, removed);
		store_unlock(s);
		seal_site_index(s);
	}
	free(gone);
	free(sc.v);
	return (int)removed;
}
