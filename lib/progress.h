/*
 * progress.h — abx-tick's live display on a terminal: one line per running
 * worker (seconds, depth, URL, the hook it runs), redrawn in place with
 * ANSI cursor moves; nothing when standard output is not a terminal.
 */
#ifndef ABX_PROGRESS_H
#define ABX_PROGRESS_H

#include "tick.h"
#include "worker.h"

/* Draw the lines of w[0..nw) over the *drawn lines drawn last time (final:
 * clear them); *drawn becomes how many are on screen. */
void progress_draw(const tick_t *t, const worker_t *w, int nw, int *drawn, int final);

#endif
