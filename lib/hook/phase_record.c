/*
 * phase_record.c — what a finished hook did, committed and printed.
 *
 * When a hook exits (or could not start, or was skipped), in one commit
 * under the store lock: its Process record (if it ran), its ArchiveResult
 * (Snapshot family; the id of the earlier result of the same (snapshot,
 * plugin, hook_name) is kept, so a rerun replaces it: phase_load_prior),
 * the snapshot's title, tags and http_status if they changed (the status
 * from a Snapshot line, results.h), and the Binary records it
 * printed.  Then they are printed on o->out as JSON lines; a closed output
 * stops the printing, never the phase.
 *
 * The verdict (status and notes) is results.h's, from the exit status,
 * the hook's ArchiveResult line and its stderr; the size watch words its
 * own stops (phase_size.c).  The title comes from a Snapshot line, else
 * from a "title" plugin that succeeded (title/title.txt, else its
 * output_str), and replaces only an empty, placeholder or shorter title.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/wait.h>

#include "hook/binary.h"
#include "base/clock.h"
#include "base/err.h"
#include "base/fs.h"
#include "hook/phase_int.h"

void
phase_emit(phase_t *ph, const rec_t *r)
{
	if (!ph->o->out || ph->out_broken)
		return;
	buf_t b = {0};
	rec_line(r, &b);
	buf_addc(&b, '\n');
	if (fwrite(b.p, 1, b.len, ph->o->out) != b.len || fflush(ph->o->out) == EOF) {
		/* a closed pipe: keep running the hooks, stop printing */
		if (errno != EPIPE)
			warnsys("unable to write records to stdout");
		ph->out_broken = 1;
	}
	buf_free(&b);
}

static int
load_prior(rec_t *r, void *arg)
{
	phase_t *ph = arg;
	if (!rec_streq(r, "type", "ArchiveResult") || !rec_streq(r, "snapshot_id", ph->snap_id))
		return 0;
	prior_t p = {rec_str(r, "plugin"), rec_str(r, "hook_name"), rec_str(r, "id"), NULL};
	const char *ca = rec_raw(r, "created_at");
	p.created_at = ca ? xstrdup(ca) : NULL;
	if (!p.plugin || !p.hook || !id_valid(p.id)) {
		free(p.plugin), free(p.hook), free(p.id), free(p.created_at);
		return 0;
	}
	ph->prior = xrealloc(ph->prior, (ph->nprior + 1) * sizeof(prior_t));
	ph->prior[ph->nprior++] = p;
	return 0;
}

/* The ids of the snapshot's earlier results, so that a rerun keeps them. */
void
phase_load_prior(phase_t *ph)
{
	const char *hr = ph->snapshot ? rec_raw(&ph->snap, "has_results") : NULL;
	if (!hr || strcmp(hr, "true") != 0)   /* else no result exists */
		return;
	char j[128];
	store_crawl_journal(ph->crawl_id, j, sizeof j);
	store_each(ph->s, j, ph->snap_id, load_prior, ph);
}

/* The result id for (plugin, hook): the existing one, else a new one. */
static prior_t *
result_key(phase_t *ph, const hook_t *h)
{
	for (size_t i = ph->nprior; i-- > 0;)
		if (strcmp(ph->prior[i].plugin, h->plugin->name) == 0 &&
		    strcmp(ph->prior[i].hook, h->stem) == 0)
			return &ph->prior[i];
	char id[ID_LEN + 1];
	id_new(id);
	ph->prior = xrealloc(ph->prior, (ph->nprior + 1) * sizeof(prior_t));
	ph->prior[ph->nprior] = (prior_t){xstrdup(h->plugin->name), xstrdup(h->stem), xstrdup(id), NULL};
	return &ph->prior[ph->nprior++];
}

/* Collapse whitespace; NULL if it is no title at all (ArchiveBox's rules). */
static char *
clean_title(const char *t, const char *url)
{
	if (!t)
		return NULL;
	buf_t b = {0};
	int space = 0;
	for (const char *p = t; *p && b.len < 4096; p++) {
		if (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r' || *p == '\f' || *p == '\v') {
			space = b.len > 0;
			continue;
		}
		if (space)
			buf_addc(&b, ' ');
		space = 0;
		buf_addc(&b, *p);
	}
	char *s = buf_cstr(&b);
	size_t n = strlen(s);
	if (!n || strncasecmp(s, "pending", 7) == 0 || strcasecmp(s, "no title found") == 0 ||
	    (url && strcmp(s, url) == 0) || (n > 4 && strcmp(s + n - 4, ".txt") == 0)) {
		free(s);
		return NULL;
	}
	return s;
}

/* A new title for the snapshot from this hook, or NULL. */
static char *
new_title(phase_t *ph, const run_t *r, const hookout_t *o, const char *status, const rec_t *cur)
{
	if (o && o->title)
		return clean_title(o->title, ph->url);
	if (strcmp(r->h->plugin->name, "title") != 0 ||
	    (strcmp(status, "succeeded") != 0 && strcmp(status, "noresults") != 0))
		return NULL;
	buf_t b = {0};
	char *path = xasprintf("%s/title/title.txt", ph->base_rel);
	char *t = NULL;
	if (fs_read(ph->s->dfd, path, &b) == 0 && b.len < 65536)
		t = clean_title(buf_cstr(&b), ph->url);
	free(path);
	buf_free(&b);
	if (!t && o && o->have_ar) {
		char *os = rec_str(&o->ar, "output_str");
		t = clean_title(os, ph->url);
		free(os);
	}
	char *old = rec_str(cur, "title"), *oc = clean_title(old, ph->url);
	int better = !oc || (t && strlen(t) > strlen(oc));
	free(old), free(oc);
	if (!better) {
		free(t);
		t = NULL;
	}
	return t;
}

/* Add tags to the snapshot's comma-separated "tags"; 1 if it changed. */
static int
merge_tags(rec_t *snap, char *const *tags, size_t n)
{
	char *cur = rec_str(snap, "tags");
	buf_t b = {0};
	buf_adds(&b, cur ? cur : "");
	int changed = 0;
	for (size_t i = 0; i < n; i++) {
		int have = 0;
		char *dup = xstrdup(b.p ? buf_cstr(&b) : ""), *save = NULL;
		for (char *t = strtok_r(dup, ",", &save); t && !have; t = strtok_r(NULL, ",", &save))
			have = strcmp(t, tags[i]) == 0;
		free(dup);
		if (have)
			continue;
		if (b.len)
			buf_addc(&b, ',');
		buf_adds(&b, tags[i]);
		changed = 1;
	}
	if (changed)
		rec_set_str(snap, "tags", buf_cstr(&b));
	buf_free(&b);
	free(cur);
	return changed;
}

/* Stage the snapshot's new title and tags; 1 and *out if it changed. */
static int
update_snapshot(phase_t *ph, const run_t *r, const hookout_t *o, const char *status, rec_t *out)
{
	rec_t cur;
	if (!ph->snapshot || store_get(ph->s, ph->snap_id, &cur) < 0)
		return 0;
	int changed = 0;
	char *t = new_title(ph, r, o, status, &cur);
	if (t) {
		char *old = rec_str(&cur, "title");
		if (!old || strcmp(old, t) != 0) {
			rec_set_str(&cur, "title", t);
			changed = 1;
		}
		free(old);
		free(t);
	}
	if (o && o->ntags)
		changed |= merge_tags(&cur, o->tags, o->ntags);
	if (o && o->http_status && rec_int(&cur, "http_status", 0) != o->http_status) {
		rec_set_int(&cur, "http_status", o->http_status);
		changed = 1;
	}
	/* "has_results": the snapshot's journal holds results for it, so the
	 * next phase must look them up (load_prior) to reuse their ids; a
	 * snapshot without it never had any and skips that scan */
	const char *hr = rec_raw(&cur, "has_results");
	if (!hr || strcmp(hr, "true") != 0) {
		rec_set_raw(&cur, "has_results", "true");
		changed = 1;
	}
	if (!changed) {
		rec_free(&cur);
		return 0;
	}
	store_put(ph->s, &cur);
	*out = cur;
	return 1;
}

/* A Binary record a hook printed, as an installed Binary record. */
static void
stdout_binary(const rec_t *in, const char *plugin, binres_t *res)
{
	memset(res, 0, sizeof *res);
	rec_t *r = &res->rec;
	char id[ID_LEN + 1];
	id_new(id);
	char *name = rec_str(in, "name"), *ap = rec_str(in, "abspath");
	char *ver = rec_str(in, "version"), *by = rec_str(in, "binprovider");
	rec_set_str(r, "type", "Binary");
	rec_set_str(r, "id", id);
	rec_set_str(r, "name", name);
	rec_set_str(r, "binprovider", by ? by : plugin);
	rec_set_str(r, "abspath", ap);
	rec_set_str(r, "version", ver);
	rec_set_str(r, "status", "installed");
	rec_set_null(r, "retry_at");
	rec_set_int(r, "num_uses_failed", 0);
	rec_set_time(r, "created_at", clock_now());
	res->changed = 1;
	free(name), free(ap), free(ver), free(by);
}

/*
 * A Snapshot hook that ran to its end and printed no ArchiveResult, judged
 * as abx-dl 1.10.71 judges it (archive_result_service.py): exit status 0
 * with new files of its own (not *.log, *.pid, *.sh) succeeded, exit 0
 * with none noresults, any other end failed — exit 10 too (skipped needs
 * the hook to say so), and a daemon that SIGTERM ended at the end of the
 * phase, which printed nothing, did not succeed.
 */
static void
judge_silent(const run_t *r, const outputs_t *files, const char *tail, verdict_t *v)
{
	const proc_t *p = &r->p;
	if (p->why == WHY_TIMEOUT || p->why == WHY_INTERRUPTED || p->why == WHY_LIMIT || p->status == -1)
		return;   /* failed already, with the reason */
	if (WIFEXITED(p->status) && WEXITSTATUS(p->status) == 0) {
		v->status = files->content ? "succeeded" : "noresults";
		return;
	}
	if (strcmp(v->status, "failed") == 0)
		return;
	v->status = "failed";
	buf_reset(&v->notes);
	if (WIFSIGNALED(p->status))
		buf_addf(&v->notes, "%s by signal %d, without an ArchiveResult",
		    p->why == WHY_STOPPED ? "stopped at the end of the phase: ended" : "killed", WTERMSIG(p->status));
	else
		buf_addf(&v->notes, "exit status %d without an ArchiveResult", WEXITSTATUS(p->status));
	if (tail && *tail)
		buf_addf(&v->notes, "; %s", tail);
	buf_cstr(&v->notes);
}

/* A hook has finished (or could not start): commit and print its records. */
void
run_record(phase_t *ph, run_t *r)
{
	hookout_t o;
	outputs_t files;
	buf_t tail = {0};
	verdict_t v;
	memset(&o, 0, sizeof o);
	memset(&files, 0, sizeof files);
	memset(&v, 0, sizeof v);
	r->recorded = 1;
	int ran = r->started && !r->spawn_err;
	int detached = ran && r->p.state == PROC_DETACHED;
	size_t pi = r->h->plugin - ph->ps.v;
	if (ran && !detached) {
		ftree_t after;
		ftree_scan(r->cwdfd, &after);
		ftree_outputs(&r->before, &after, &files);
		ftree_free(&after);
		hookout_read(r->outfd, ph->url, &o);
		log_tail(r->errfd, &tail);
	}
	if (!r->started) {
		v.status = r->not_run ? "skipped" : "failed";
		buf_adds(&v.notes, r->not_run ? r->not_run : ph->binfail[pi] ? ph->binfail[pi] : "not run");
		buf_cstr(&v.notes);
	} else if (detached) {
		v.status = "started";
		buf_adds(&v.notes, "daemon left running until the crawl's cleanup");
		buf_cstr(&v.notes);
	} else {
		result_verdict(&r->p, r->spawn_err, r->h->path, ran ? &o : NULL, tail.p, &v);
		if (ran && ph->snapshot && !o.have_ar)
			judge_silent(r, &files, tail.p, &v);
		if (r->interp_note) {
			buf_reset(&v.notes);
			buf_adds(&v.notes, r->interp_note);
			buf_cstr(&v.notes);
		}
		if (r->p.why == WHY_LIMIT)
			size_watch_note(ph, &v);
	}
	const char *refused = phase_gate_note(ph, r, &v.notes);
	prior_t *key = ph->snapshot ? result_key(ph, r->h) : NULL;
	result_t x = {
		.crawl_id = ph->crawl_id, .snapshot_id = ph->snap_id, .plugin = r->h->plugin->name,
		.hook_name = r->h->stem, .id = key ? key->id : NULL,
		.created_at = key ? key->created_at : NULL, .process_id = ran ? r->process_id : NULL,
		.proc = ran ? &r->p : NULL, .argv = r->argv, .pwd = r->pwd, .out = ran ? &o : NULL,
		.files = ran && !detached ? &files : NULL, .status = v.status, .notes = v.notes.p,
		.now = clock_now(),
	};
	rec_t ar = {0}, pr = {0}, snap = {0};
	binres_t *bins = xcalloc(o.nbins + 1, sizeof(binres_t));
	int have_snap = 0;
	/* where each file is fsync'd (perfile), this process pays for its
	 * hook's tree before the lock, not under it: the hook has exited, so
	 * nothing writes it for this result any more (store.h); a failure
	 * here leaves the syncs to the commit, which reports it */
	if (ran && !detached && ph->snapshot)
		(void)store_presync_result(ph->s, ph->crawl_id, ph->snap_id, r->h->plugin->name, r->cwdfd,
		    ph->mark.dirfd);
	store_lock(ph->s);
	/* the files the result names are made durable before its line
	 * (store.h: a barrier; one syncfs, or the deferred sync is one) */
	if (ran && ph->snapshot)
		store_barrier(ph->s);
	if (ran) {
		result_process(&pr, &x, ph->s->host, detached);
		rec_set_str(&pr, "notes", v.notes.p ? v.notes.p : "");
		store_put(ph->s, &pr);
	}
	if (ph->snapshot) {
		result_archive(&ar, &x);
		if (refused)
			rec_set_str(&ar, "network_zone", refused);
		store_put(ph->s, &ar);
		have_snap = update_snapshot(ph, r, ran ? &o : NULL, v.status, &snap);
	}
	for (size_t i = 0; i < o.nbins; i++) {
		stdout_binary(&o.bins[i], r->h->plugin->name, &bins[i]);
		binary_commit(ph->s, &bins[i]);
	}
	/* print only what is committed: the record never says what is not so */
	int committed = store_unlock(ph->s) == 0;
	if (!committed)
		errorx("%s %s: its result is not recorded: %s", ph->o->family, r->h->stem, ph->s->errmsg);
	if (ran && committed)
		phase_emit(ph, &pr);
	if (have_snap && committed)
		phase_emit(ph, &snap);
	for (size_t i = 0; i < o.nbins; i++) {
		if (committed)
			phase_emit(ph, &bins[i].rec);
		binres_free(&bins[i]);
	}
	if (ph->snapshot && committed)
		phase_emit(ph, &ar);
	else if (strcmp(v.status, "failed") == 0)
		warnx_("%s %s: %s", ph->o->family, r->h->stem, v.notes.p ? v.notes.p : "failed");
	free(bins);
	rec_free(&ar), rec_free(&pr), rec_free(&snap);
	hookout_free(&o);
	outputs_free(&files);
	buf_free(&tail);
	buf_free(&v.notes);
}
