/*
 * progress.h — abx-tick's live display on a terminal: one line per running
 * worker (seconds, depth, URL, the hook it runs), redrawn in place with
 * ANSI cursor moves; nothing when standard output is not a terminal.
 *
 * Every line fits the terminal: its width is read from TIOCGWINSZ on
 * standard output, else $COLUMNS, else 80, and read again after SIGWINCH
 * (*t->winch); a line is cut to one column less than the width, so that
 * no line wraps and a redraw (cursor up over the lines drawn last time,
 * erase to the end of the screen, draw) leaves nothing stale behind.  The
 * URL is cut with "..." and the hook name dropped on a narrow terminal;
 * control characters are shown as "?".  A terminal that reflows its lines
 * when it is narrowed may keep fragments of the block drawn before the
 * resize above the new one; one that cuts them (xterm, the console) keeps
 * none.
 */
#ifndef ABX_PROGRESS_H
#define ABX_PROGRESS_H

#include "tick/tick.h"
#include "tick/worker.h"

/* Draw the lines of w[0..nw) over the *drawn lines drawn last time (final:
 * clear them); *drawn becomes how many are on screen. */
void progress_draw(tick_t *t, const worker_t *w, int nw, int *drawn, int final);
/* Clear the lines (before anything else is printed on the terminal). */
void progress_clear(tick_t *t, int *drawn);
/* The terminal's width (see above); at least 20. */
int progress_width(void);

#endif
