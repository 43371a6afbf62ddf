/*
 * phase_size.c — the size watch: a snapshot's hooks stopped when its
 * directory grows over its limit, not only when a hook exits (one wget
 * could otherwise fill the disk before its timeout).
 *
 * The limit is SNAPSHOT_MAX_SIZE, or o->size_budget (the part of the
 * crawl's CRAWL_MAX_SIZE the tick has left for this snapshot), the smaller;
 * the Snapshot family only.  The snapshot's directory is measured (fs_du:
 * the sizes of its regular files) every SIZE_CHECK_US while hooks run,
 * whenever one exits, and before a hook starts if a measure is due.  Once
 * it is over the limit: the running hooks are stopped as at a timeout
 * (SIGTERM, SIGKILL after the grace; WHY_LIMIT), recorded failed with
 * "stopped: SNAPSHOT_MAX_SIZE 10mb exceeded", and the hooks not yet started
 * are skipped without running.
 */
#include <string.h>

#include "base/clock.h"
#include "base/err.h"
#include "base/fs.h"
#include "hook/phase_int.h"

#define SIZE_CHECK_US 2000000

void
size_watch_init(phase_t *ph)
{
	const char *v = conf_get(&ph->conf, "SNAPSHOT_MAX_SIZE");
	long long snap = parse_size(v), budget = ph->o->size_budget;
	sizewatch_t *w = &ph->size;
	if (!ph->snapshot || (snap <= 0 && budget <= 0))
		return;
	if (budget > 0 && (snap <= 0 || budget < snap)) {
		const char *c = conf_get(&ph->conf, "CRAWL_MAX_SIZE");
		w->max = budget;
		w->note = xasprintf("stopped: CRAWL_MAX_SIZE%s%s exceeded (%lld bytes were left "
		    "for this snapshot)", c ? " " : "", c ? c : "", budget);
	} else {
		w->max = snap;
		w->note = xasprintf("stopped: SNAPSHOT_MAX_SIZE %s exceeded", v);
	}
	w->next = clock_mono() + SIZE_CHECK_US;
}

int64_t
size_watch_next(const phase_t *ph)
{
	return ph->size.max > 0 && !ph->size.stopped ? ph->size.next : 0;
}

void
size_watch_check(phase_t *ph)
{
	sizewatch_t *w = &ph->size;
	if (w->max <= 0 || w->stopped)
		return;
	w->next = clock_mono() + SIZE_CHECK_US;
	if (fs_du(ph->s->dfd, ph->base_rel) <= w->max)
		return;
	w->stopped = 1;
	for (size_t i = 0; i < ph->nhooks; i++)
		if (run_running(&ph->runs[i]))
			proc_stop(&ph->runs[i].p, WHY_LIMIT);
}

/* results.c words a WHY_LIMIT stop without the limit, as the first
 * "; "-separated part of the notes: ours takes its place. */
void
size_watch_note(const phase_t *ph, verdict_t *v)
{
	if (!ph->size.note)
		return;
	char *old = buf_cstr(&v->notes);
	const char *rest = old;
	if (strncmp(old, "stopped:", 8) == 0) {
		const char *sep = strstr(old, "; ");
		rest = sep ? sep + 2 : "";
	}
	buf_t b = {0};
	buf_adds(&b, ph->size.note);
	if (*rest)
		buf_addf(&b, "; %s", rest);
	buf_free(&v->notes);
	v->notes = b;
	buf_cstr(&v->notes);
}
