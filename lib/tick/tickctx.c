/*
 * tickctx.c — see tickctx.h: the context of abx-tick's work and what the
 * pass and the crawl run both do with it.
 */
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/err.h"
#include "base/exitcodes.h"
#include "tick/tickctx.h"

void
tick_init(tick_t *t, store_t *s)
{
	memset(t, 0, sizeof *t);
	t->s = s;
	t->tick_lock_fd = -1;
	t->started_us = clock_mono();
}

void
tick_free(tick_t *t)
{
	tick_forget_plugins(t);
	free(t->hook_prog);
	t->hook_prog = NULL;
}

void
tick_error(tick_t *t, const char *fmt, ...)
{
	char what[256];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(what, sizeof what, fmt, ap);
	va_end(ap);
	errorx("%s: %s", what, t->s->errmsg[0] ? t->s->errmsg : "unknown error");
	if (t->errors++ == 0)
		t->err = t->s->err ? t->s->err : EX_IOERR_;
}

size_t
tick_active(tick_t *t, const char *type, int ordered, ient_t **v)
{
	store_t *s = t->s;
	if (store_lock(s) < 0) {
		tick_error(t, "unable to read the queue");
		*v = NULL;
		return 0;
	}
	size_t n = ordered ? store_active(s, type, v) : store_active_unordered(s, type, v);
	store_unlock(s);
	return n;
}

/* Kept for a minute: a daemon sees a plugin installed meanwhile within
 * that time (or at SIGHUP). */
void
tick_discover_plugins(tick_t *t)
{
	int64_t now = clock_mono();
	if (t->have_ps && now - t->ps_at < 60 * 1000000LL)
		return;
	if (t->have_ps)
		plugins_free(&t->ps);
	t->have_ps = 0;
	char real[PATH_MAX];
	if (!realpath(t->s->dir, real))
		return;
	char **path = plugins_path(real);
	plugins_discover(&t->ps, path);
	for (char **d = path; *d; d++)
		free(*d);
	free(path);
	t->have_ps = 1;
	t->ps_at = now;
}

void
tick_forget_plugins(tick_t *t)
{
	if (t->have_ps)
		plugins_free(&t->ps);
	t->have_ps = 0;
}
