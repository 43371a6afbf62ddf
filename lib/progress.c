/* progress.c — see progress.h. */
#include <stdint.h>
#include <stdlib.h>
#include <unistd.h>

#include "buf.h"
#include "clock.h"
#include "progress.h"
#include "termsafe.h"


void
progress_draw(const tick_t *t, const worker_t *ws, int nw, int *drawn, int final)
{
	if (!t->tty)
		return;
	buf_t b = {0};
	if (*drawn)
		buf_addf(&b, "\033[%dA", *drawn);
	int64_t now = clock_mono();
	const char *dim = t->color ? "\033[2m" : "", *bold = t->color ? "\033[1m" : "",
	           *off = t->color ? "\033[0m" : "";
	int lines = 0;
	for (int i = 0; i < nw && !final; i++) {
		const worker_t *w = &ws[i];
		char *url = termsafe(w->url), *hook = termsafe(w->hook[0] ? w->hook : "starting");
		buf_addf(&b, "\033[2K  %s%5.1fs%s  d%d  %-60.60s  %s%s%s\n", bold,
		    (now - w->started) / 1e6, off, w->depth, url, dim, hook, off);
		free(url), free(hook);
		lines++;
	}
	for (int i = lines; i < *drawn; i++)
		buf_adds(&b, "\033[2K\n");
	if (*drawn > lines)
		buf_addf(&b, "\033[%dA", *drawn - lines);
	*drawn = lines;
	ssize_t wr = write(1, b.p, b.len);
	(void)wr;
	buf_free(&b);
}

