/*
 * phase.c — see phase.h: the algorithm.  The parts it calls are in
 * phase_target.c, phase_hook.c, phase_binaries.c, phase_record.c and
 * phase_size.c (phase_int.h lists them).
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/clock.h"
#include "hook/crawldaemons.h"
#include "base/err.h"
#include "base/exitcodes.h"
#include "base/fs.h"
#include "hook/phase_int.h"

enum { UNTIL_DONE, UNTIL_FINITE, UNTIL_ALL, UNTIL_EXTRACTORS };

/* Hooks numbered from PARSER_ORDER on read what earlier hooks saved
 * (parse_*_urls at 7x, hashes at 90): before one starts, the finite
 * background extractors numbered below it (wget at 06) are waited for, so
 * a parser never reads a page still being written (as ArchiveBox orders its hooks). */
#define PARSER_ORDER 50

int
phase_family_valid(const char *f)
{
	return f && (strcmp(f, "Snapshot") == 0 || strcmp(f, "CrawlSetup") == 0 ||
	             strcmp(f, "CrawlCleanup") == 0);
}

static int
pending(const phase_t *ph, int what, size_t which)
{
	if (what == UNTIL_DONE)
		return run_running(&ph->runs[which]);
	if (what == UNTIL_EXTRACTORS) {
		for (size_t i = 0; i < which; i++)
			if (run_running(&ph->runs[i]) && ph->runs[i].h->bg && !hook_is_daemon(ph->runs[i].h) &&
			    ph->runs[i].h->order < PARSER_ORDER)
				return 1;
		return 0;
	}
	for (size_t i = 0; i < ph->nhooks; i++)
		if (run_running(&ph->runs[i]) && (what == UNTIL_ALL || !hook_is_daemon(ph->runs[i].h)))
			return 1;
	return 0;
}

/* A signal: stop the hooks as at a timeout; a second one kills them now. */
static void
on_signals(phase_t *ph)
{
	ph->signals = ph->o->stop ? *ph->o->stop : 1;
	ph->interrupted = 1;
	for (size_t i = 0; i < ph->nhooks; i++)
		if (run_running(&ph->runs[i])) {
			if (ph->signals > 1)
				proc_kill(&ph->runs[i].p, WHY_INTERRUPTED);
			else
				proc_stop(&ph->runs[i].p, WHY_INTERRUPTED);
		}
}

/* proc_wait cannot wait (ppoll failed): end the running hooks now. */
static void
on_wait_error(phase_t *ph)
{
	ph->wait_err = errno;
	warnsys("unable to wait for the hooks of %s %s; killing them", ph->o->family, ph->o->id);
	ph->interrupted = 1;
	for (size_t i = 0; i < ph->nhooks; i++)
		if (run_running(&ph->runs[i])) {
			proc_reap(&ph->runs[i].p, WHY_INTERRUPTED);
			run_record(ph, &ph->runs[i]);
			run_release(&ph->runs[i]);
		}
}

static void
wait_runs(phase_t *ph, int what, size_t which)
{
	proc_t **ps = xmalloc((ph->nhooks + 1) * sizeof *ps);
	run_t **rs = xmalloc((ph->nhooks + 1) * sizeof *rs);
	while (pending(ph, what, which)) {
		size_t n = 0;
		for (size_t i = 0; i < ph->nhooks; i++)
			if (run_running(&ph->runs[i])) {
				ps[n] = &ph->runs[i].p;
				rs[n++] = &ph->runs[i];
			}
		int k = proc_wait(ps, n, size_watch_next(ph), ph->o->waitmask, ph->o->stop, ph->signals);
		if (k >= 0) {
			run_record(ph, rs[k]);
			run_release(rs[k]);
			size_watch_check(ph);
		} else if (k == -1) {
			size_watch_check(ph);
		} else if (k == -2) {
			on_signals(ph);
		} else {
			on_wait_error(ph);
		}
	}
	free(ps);
	free(rs);
}

static void
start_hook(phase_t *ph, size_t i)
{
	run_t *r = &ph->runs[i];
	hook_t *h = ph->hooks[i];
	r->h = h;
	r->cwdfd = r->outfd = r->errfd = -1;
	if (ph->binfail[h->plugin - ph->ps.v]) {
		run_record(ph, r);
		return;
	}
	char *rel = xasprintf("%s/%s", ph->base_rel, h->plugin->name);
	conf_t *pc = phase_plugin_config(ph, h->plugin);
	long t = plugin_timeout(h->plugin, pc);
	r->argv = run_argv(h->path, ph->url);
	if (run_prepare(ph, r, rel) < 0) {
		r->started = 1;
		r->spawn_err = errno ? errno : EIO;
	} else {
		run_spawn(ph, r, pc, hook_is_daemon(h) ? 0 : t);
		r->p.grace = t < 10 ? t : 10;
	}
	if (r->spawn_err) {
		run_record(ph, r);
		run_release(r);
	}
	free(rel);
}

/* -n: the hooks that would run, each with what its plugin lacks
 * ("missing": interpreters and binaries not on its PATH), and a warning
 * per plugin that lacks something, so a user sees what to install. */
static void
print_plan(phase_t *ph)
{
	char **missing = xcalloc(ph->ps.n + 1, sizeof(char *));
	for (size_t i = 0; i < ph->nhooks; i++) {
		size_t pi = ph->hooks[i]->plugin - ph->ps.v;
		if (missing[pi])
			continue;
		missing[pi] = phase_plugin_missing(ph, ph->hooks[i]->plugin);
		if (strcmp(missing[pi], "[]") != 0)
			warnx_("plugin %s lacks %s (interpreters of its hooks, binaries it requires)",
			    ph->hooks[i]->plugin->name, missing[pi]);
	}
	for (size_t i = 0; i < ph->nhooks; i++) {
		hook_t *h = ph->hooks[i];
		conf_t *pc = phase_plugin_config(ph, h->plugin);
		rec_t r = {0};
		rec_set_str(&r, "plugin", h->plugin->name);
		rec_set_str(&r, "hook_name", h->stem);
		rec_set_str(&r, "path", h->path);
		rec_set_int(&r, "order", h->order);
		rec_set_int(&r, "timeout", plugin_timeout(h->plugin, pc));
		rec_set_raw(&r, "background", h->bg ? "true" : "false");
		rec_set_raw(&r, "daemon", hook_is_daemon(h) ? "true" : "false");
		rec_set_raw(&r, "missing", missing[h->plugin - ph->ps.v]);
		phase_emit(ph, &r);
		rec_free(&r);
	}
	for (size_t i = 0; i < ph->ps.n; i++)
		free(missing[i]);
	free(missing);
}

/* Is pid kept for this worker's later snapshots: does the environment it
 * was exec'd with hold ABX_KEPT=<our $ABX_WORKER> (hookserve.h)? */
static int
kept(pid_t pid)
{
	const char *w = getenv("ABX_WORKER");
	char path[64];
	snprintf(path, sizeof path, "/proc/%ld/environ", (long)pid);
	int fd = w && *w ? open(path, O_RDONLY | O_CLOEXEC) : -1, found = 0;
	buf_t b = {0};
	if (fd >= 0 && fs_read_fd(fd, &b) == 0)
		for (const char *e = buf_cstr(&b); e < b.p + b.len && !found; e += strlen(e) + 1)
			found = !strncmp(e, "ABX_KEPT=", 9) && !strcmp(e + 9, w);
	if (fd >= 0)
		close(fd);
	buf_free(&b);
	return found;
}

void
phase_end_kept(void)
{
	char path[64];
	snprintf(path, sizeof path, "/proc/self/task/%ld/children", (long)getpid());
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	buf_t b = {0};
	pid_t pid[64];
	int pfd[64], n = 0;
	if (fd >= 0 && fs_read_fd(fd, &b) == 0) {
		char *save = NULL;
		for (char *t = strtok_r(buf_cstr(&b), " \n", &save); t && n < 64; t = strtok_r(NULL, " \n", &save)) {
			pid_t p = atoi(t);
			if (p <= 1 || !kept(p))
				continue;   /* a daemon of a hook lives on, as after a one-shot run */
			pid[n] = p;
			pfd[n] = proc_pidfd(p);
			if (pfd[n] < 0 || kill(p, SIGTERM) < 0)
				kill(p, SIGKILL);
			n++;
		}
	}
	if (fd >= 0)
		close(fd);
	buf_free(&b);
	/* all told at once, then waited for together: 5 s in all, not each */
	int64_t end = (clock_mono() / 1000) + 5000;
	for (int i = 0; i < n; i++) {
		struct pollfd p = {pfd[i], POLLIN, 0};
		int64_t left = end - (clock_mono() / 1000);
		if (pfd[i] >= 0 && poll(&p, 1, left > 0 ? (int)left : 0) != 1)
			kill(pid[i], SIGKILL);
		if (pfd[i] >= 0) {
			while (waitpid(pid[i], NULL, 0) < 0 && errno == EINTR)
				;
			close(pfd[i]);
		}
	}
}

/* Kill the children left: descendants that escaped their group were
 * reparented to us (a subreaper).  Daemons left running are kept, and so
 * is a process a hook left for this worker's later snapshots (kept). */
static void
reap_orphans(phase_t *ph)
{
	char path[64];
	snprintf(path, sizeof path, "/proc/self/task/%ld/children", (long)getpid());
	for (int round = 0; round < 100; round++) {
		buf_t b = {0};
		int fd = open(path, O_RDONLY | O_CLOEXEC), killed = 0;
		if (fd < 0 || fs_read_fd(fd, &b) < 0) {
			if (fd >= 0)
				close(fd);
			buf_free(&b);
			return;
		}
		close(fd);
		char *save = NULL;
		for (char *t = strtok_r(buf_cstr(&b), " \n", &save); t; t = strtok_r(NULL, " \n", &save)) {
			pid_t pid = atoi(t);
			int keep = pid <= 1;
			for (size_t i = 0; i < ph->nhooks && !keep; i++)
				keep = ph->runs[i].p.state == PROC_DETACHED && ph->runs[i].p.pid == pid;
			if (keep || kept(pid))
				continue;
			if (getpgid(pid) == pid)
				killpg(pid, SIGKILL);
			kill(pid, SIGKILL);
			while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
				;
			killed++;
		}
		buf_free(&b);
		if (!killed)
			return;
	}
}

static void
phase_free(phase_t *ph)
{
	rec_free(&ph->snap);
	rec_free(&ph->crawl);
	free(ph->crawl_id), free(ph->snap_id), free(ph->url);
	free(ph->base_rel), free(ph->base_abs), free(ph->data_abs);
	conf_free(&ph->conf);
	for (size_t i = 0; i < ph->ps.n; i++) {
		if (ph->pconf_ok && ph->pconf_ok[i])
			conf_free(&ph->pconf[i]);
		if (ph->binfail)
			free(ph->binfail[i]);
	}
	free(ph->pconf), free(ph->pconf_ok), free(ph->binfail);
	for (size_t i = 0; i < ph->nbins; i++)
		free(ph->bins[i].name), free(ph->bins[i].abspath), free(ph->bins[i].why);
	free(ph->bins);
	for (size_t i = 0; i < ph->nprior; i++)
		free(ph->prior[i].plugin), free(ph->prior[i].hook), free(ph->prior[i].id),
		    free(ph->prior[i].created_at);
	free(ph->prior);
	free(ph->size.note);
	runmark_free(&ph->mark);
	phase_gate_free(ph);
	free(ph->hooks);
	free(ph->runs);
	plugins_free(&ph->ps);
}

void
phase_signals(void (*handler)(int), sigset_t *waitmask)
{
	static const int sigs[] = {SIGINT, SIGTERM, SIGHUP};
	sigset_t block;
	sigemptyset(&block);
	sigemptyset(waitmask);
	struct sigaction sa = {0};
	sa.sa_handler = handler;
	sigemptyset(&sa.sa_mask);
	for (int i = 0; i < 3; i++) {
		sigaddset(&block, sigs[i]);
		sigaction(sigs[i], &sa, NULL);
	}
	signal(SIGPIPE, SIG_IGN);
	/* the handlers are in place before a pending signal is let through */
	sigprocmask(SIG_SETMASK, &block, NULL);
}

/* Before the first hook starts: end what a dead run of this item left
 * (runmark.h) and mark ours.  The crawl phases keep the recorded daemons
 * (CrawlCleanup stops them itself, gracefully), and CrawlSetup starts the
 * crawl's daemons afresh: ones an earlier run left running (its tick was
 * stopped before the crawl's cleanup) are stopped first, not run twice.
 * Returns 0, or an exit code. */
static int
phase_begin(phase_t *ph, int setup)
{
	char **keep = ph->snapshot ? NULL : crawl_daemon_runs(ph->s, ph->crawl_id);
	int dead = runmark_clear_dead(ph->s, &ph->mark, keep);
	for (char **k = keep; k && *k; k++)
		free(*k);
	free(keep);
	if (dead < 0)
		return EX_TEMPFAIL_;
	if (!ph->nhooks)
		return 0;
	if (setup)
		hook_stop_daemons(ph->s, ph->crawl_id, ph->o->out);
	if (runmark_begin(ph->s, &ph->mark) < 0) {
		warnsys("unable to mark %s/%s as running hooks (its sticky bit)", ph->s->dir, ph->base_rel);
		return EX_CANTCREAT_;
	}
	return 0;
}

/* The crawl's end: its daemons get SIGTERM and their grace; then whatever
 * carries a token of the crawl's runs (what a daemon started in a session
 * of its own) is ended.  Returns the number of daemons stopped. */
static int
stop_crawl_daemons(phase_t *ph)
{
	int n = hook_stop_daemons(ph->s, ph->crawl_id, ph->o->out);
	if (n > 0)
		run_sweep(ph->crawl_id, ph->mark.token, NULL, NULL, 0);
	return n;
}

int
phase_run(store_t *s, const phase_opts_t *o)
{
	phase_t ph;
	memset(&ph, 0, sizeof ph);
	ph.s = s;
	ph.o = o;
	ph.snapshot = strcmp(o->family, "Snapshot") == 0;
	ph.mark.dirfd = -1;
	int cleanup = strcmp(o->family, "CrawlCleanup") == 0;
	int setup = strcmp(o->family, "CrawlSetup") == 0;
	int rc = phase_load_target(&ph);
	if (rc)
		goto out;
	runmark_init(&ph.mark, o->id, ph.base_rel);
	phase_load_config(&ph);
	char **path = plugins_path(ph.data_abs);
	plugins_discover(&ph.ps, path);
	const char *missing = NULL;
	if (plugins_select(&ph.ps, &ph.conf, o->plugins, &missing) < 0) {
		buf_t b = {0};
		for (char **d = path; *d; d++)
			buf_addf(&b, "%s%s", d == path ? "" : ":", *d);
		warnx_("no plugin named %s in %s", missing, b.p ? b.p : "(no plugin directory)");
		buf_free(&b);
		rc = EX_UNAVAIL_;
	}
	for (char **d = path; *d; d++)
		free(*d);
	free(path);
	if (rc)
		goto out;
	ph.pconf = xcalloc(ph.ps.n + 1, sizeof(conf_t));
	ph.pconf_ok = xcalloc(ph.ps.n + 1, 1);
	ph.binfail = xcalloc(ph.ps.n + 1, sizeof(char *));
	ph.nhooks = plugins_hooks(&ph.ps, o->family, &ph.hooks);
	if (o->dry_run) {
		print_plan(&ph);
		rc = ph.nhooks ? 0 : EX_NOTHING;
		goto out;
	}
	if ((rc = phase_begin(&ph, setup)))
		goto out;
	if (!ph.nhooks) {
		rc = cleanup && stop_crawl_daemons(&ph) > 0 ? 0 : EX_NOTHING;
		goto out;
	}
	phase_load_prior(&ph);
	phase_resolve_binaries(&ph);
	ph.runs = xcalloc(ph.nhooks, sizeof(run_t));
	if (phase_gate_start(&ph) < 0) {
		rc = EX_TEMPFAIL_;
		goto out;
	}
	size_watch_init(&ph);
	for (size_t i = 0; i < ph.nhooks; i++) {
		if (o->stop && *o->stop > ph.signals)
			on_signals(&ph);
		if (ph.interrupted)
			break;
		if (!ph.hooks[i]->bg && ph.hooks[i]->order >= PARSER_ORDER)
			wait_runs(&ph, UNTIL_EXTRACTORS, i);
		if (ph.interrupted)
			break;
		int64_t due = size_watch_next(&ph);
		if (due && clock_mono() >= due)
			size_watch_check(&ph);
		if (ph.size.stopped) {
			ph.runs[i].h = ph.hooks[i];
			ph.runs[i].not_run = "not run: the snapshot reached SNAPSHOT_MAX_SIZE";
			run_record(&ph, &ph.runs[i]);
			continue;
		}
		start_hook(&ph, i);
		if (!ph.hooks[i]->bg)
			wait_runs(&ph, UNTIL_DONE, i);
	}
	wait_runs(&ph, UNTIL_FINITE, 0);
	for (size_t i = 0; i < ph.nhooks; i++) {
		run_t *r = &ph.runs[i];
		if (!run_running(r))
			continue;
		if (setup && !ph.interrupted &&
		    crawl_daemon_record(s, r->rel, r->h->stem, &r->p, r->process_id, ph.mark.token) == 0) {
			proc_detach(&r->p);
			run_record(&ph, r);
			run_release(r);
		} else {
			proc_stop(&r->p, WHY_STOPPED);
		}
	}
	wait_runs(&ph, UNTIL_ALL, 0);
	if (cleanup)
		stop_crawl_daemons(&ph);
	phase_gate_stop(&ph);
	if (o->reap_orphans) {
		reap_orphans(&ph);
		runmark_end(&ph.mark);   /* else what escaped is ended by the next run */
	}
	rc = ph.wait_err ? EX_SOFT_ : ph.interrupted ? EX_TEMPFAIL_ : 0;
out:
	phase_free(&ph);
	return rc;
}
