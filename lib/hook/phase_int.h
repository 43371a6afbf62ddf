/*
 * phase_int.h — internal to phase_run: what its files share.  Not an
 * interface: other code uses phase.h, which describes the algorithm.
 *
 *   phase.c           the algorithm: the order hooks start in, waiting,
 *                     signals, the end of a phase (phase.h)
 *   phase_target.c    the item a phase runs for: its records, directory
 *                     and layered config
 *   phase_hook.c      one hook's run: its cwd, logs, environment, argv
 *                     and pid file; starting it and letting it go
 *   phase_binaries.c  the required binaries of the phase's plugins
 *   phase_record.c    committing and printing what a finished hook did
 *   phase_size.c      the size watch (SNAPSHOT_MAX_SIZE, the crawl's budget)
 *   phase_gate.c      the egress gate every hook fetches through
 *
 * Everything works on one phase_t, owned by phase_run for one call.
 */
#ifndef ABX_PHASE_INT_H
#define ABX_PHASE_INT_H

#include <stdint.h>
#include "base/config.h"
#include "base/hookrun.h"
#include "base/ids.h"
#include "base/json.h"
#include "hook/outfiles.h"
#include "hook/phase.h"
#include "hook/plugin.h"
#include "hook/results.h"
#include "hook/runmark.h"
#include "net/gate.h"
#include "store/store.h"

/* One hook of the phase (or a BinaryRequest hook run for a binary). */
typedef struct {
	hook_t *h;
	plugin_t *pl;
	proc_t p;
	int started, spawn_err, recorded;
	const char *not_run;       /* why it was skipped without running */
	int cwdfd, outfd, errfd;
	int memlogs;               /* outfd, errfd are memfds, written out at the end */
	ftree_t before;            /* the files of its cwd before it ran */
	char **argv;
	char *rel, *pwd;           /* its cwd, relative and absolute */
	char process_id[ID_LEN + 1];
	char *interp_note;         /* its #! interpreter is missing: why */
} run_t;

/* The id an earlier result of (plugin, hook) had: a rerun keeps it. */
typedef struct {
	char *plugin, *hook, *id, *created_at;
} prior_t;

/* A binary resolved once for the phase, whoever requires it. */
typedef struct {
	char *name, *abspath, *why;
	int ok;
} bincache_t;

/* The size watch (phase_size.c). */
typedef struct {
	long long max;             /* bytes; 0: no limit */
	char *note;                /* what a hook stopped by it is told */
	int64_t next;              /* monotonic µs of the next measure */
	int stopped;               /* the limit was passed */
} sizewatch_t;

typedef struct {
	store_t *s;
	const phase_opts_t *o;
	int snapshot;              /* the Snapshot family */
	rec_t snap, crawl;
	int have_snap, have_crawl;
	char *crawl_id, *snap_id, *url;
	long depth;
	char *base_rel, *base_abs, *data_abs;
	conf_t conf;
	plugins_t ps;
	conf_t *pconf;             /* each plugin's config, made when needed */
	char *pconf_ok;
	char **binfail;            /* per plugin: why its binary is missing */
	bincache_t *bins;
	size_t nbins;
	hook_t **hooks;
	size_t nhooks;
	run_t *runs;
	prior_t *prior;
	size_t nprior;
	const char *requester;     /* plugin whose binary a provider resolves */
	int interrupted, out_broken;
	int signals;               /* how many of *o->stop were acted on */
	int wait_err;              /* errno of a wait that failed */
	sizewatch_t size;
	runmark_t mark;
	gate_t gate;               /* the egress gate (phase_gate.c), pid 0 if none */
	buf_t *gate_notes;         /* per hook: the refusals it was told of */
	int *gate_count;           /* per hook: how many */
	char **gate_zone;          /* per hook: the zone of its page's refused fetch */
	buf_t *gate_paced;         /* per hook: the connections pacing gave up on, and how many */
	int *gate_npaced;
} phase_t;

static inline int
run_running(const run_t *r)
{
	return r->started && !r->spawn_err &&
	       (r->p.state == PROC_RUN || r->p.state == PROC_TERM || r->p.state == PROC_KILL);
}

static inline int
hook_is_daemon(const hook_t *h)
{
	return h->bg && h->daemon;
}

/* phase_target.c: the records and directories (an exit code, 0 if found),
 * the config layers and ABX_RUN, each plugin's config. */
int phase_load_target(phase_t *ph);
void phase_load_config(phase_t *ph);
conf_t *phase_plugin_config(phase_t *ph, plugin_t *p);

/* phase_hook.c: a hook's cwd (created), logs and the files there before
 * it runs (-1 on error); start it (r->spawn_err says if it did not); let
 * go of what it held (fds, pid file, argv). */
int run_prepare(phase_t *ph, run_t *r, const char *rel);
void run_spawn(phase_t *ph, run_t *r, conf_t *pc, long timeout);
void run_release(run_t *r);
char **run_argv(const char *path, const char *url);

/* phase_binaries.c: resolve the required binaries of the plugins with
 * hooks to run; a plugin whose binary is missing gets binfail set. */
void phase_resolve_binaries(phase_t *ph);
/* What a plugin lacks (interpreters, binaries) as a JSON array: -n. */
char *phase_plugin_missing(phase_t *ph, plugin_t *p);

/* phase_record.c: the ids of earlier results; a finished (or skipped)
 * hook's records committed and printed; a record printed on o->out. */
void phase_load_prior(phase_t *ph);
void run_record(phase_t *ph, run_t *r);
void phase_emit(phase_t *ph, const rec_t *r);

/* phase_gate.c: the egress gate of the phase (-1: it cannot start, and
 * no hook may run); a hook's proxy variables; its refusals added to its
 * notes (the zone of its page's own refused fetch, or NULL); stop, free. */
int phase_gate_start(phase_t *ph);
void phase_gate_env(phase_t *ph, size_t i, conf_t *pc);
const char *phase_gate_note(phase_t *ph, run_t *r, buf_t *notes);
void phase_gate_stop(phase_t *ph);
void phase_gate_free(phase_t *ph);

/* phase_size.c: the limit; the next time to measure (0: never); measure
 * now, stopping the running hooks if over; the notes of a stopped hook. */
void size_watch_init(phase_t *ph);
int64_t size_watch_next(const phase_t *ph);
void size_watch_check(phase_t *ph);
void size_watch_note(const phase_t *ph, verdict_t *v);

#endif
