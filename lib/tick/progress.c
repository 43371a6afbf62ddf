/* progress.c — see progress.h. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "base/buf.h"
#include "base/clock.h"
#include "tick/progress.h"
#include "base/termsafe.h"

#define URL_COLS 60    /* a URL column this wide aligns the hooks */
#define HOOK_COLS 32
#define MIN_COLS 20

int
progress_width(void)
{
	struct winsize ws;
	int cols = 0;
	if (ioctl(1, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0)
		cols = ws.ws_col;
	const char *c = getenv("COLUMNS");
	if (!cols && c && *c)
		cols = atoi(c);
	if (cols <= 0)
		cols = 80;
	return cols < MIN_COLS ? MIN_COLS : cols > 1000 ? 1000 : cols;
}

/* Columns of s (UTF-8: a character is a column). */
static int
columns(const char *s)
{
	int n = 0;
	for (; *s; s++)
		n += ((unsigned char)*s & 0xC0) != 0x80;
	return n;
}

/* Append s in at most cols columns ("..." where it is cut), padded with
 * spaces to cols if pad; control characters become "?". */
static void
fit(buf_t *b, const char *s, int cols, int pad)
{
	int have = columns(s), keep = have <= cols ? have : cols > 3 ? cols - 3 : cols, n = 0;
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		int lead = (*p & 0xC0) != 0x80;
		if (lead && n == keep)
			break;
		n += lead;
		buf_addc(b, *p < 0x20 || *p == 0x7f ? '?' : (char)*p);
	}
	if (have > cols && cols > 3)
		buf_adds(b, "..."), n += 3;
	while (pad && n++ < cols)
		buf_addc(b, ' ');
}

static void
line(buf_t *b, const tick_t *t, const worker_t *w, int64_t now)
{
	const char *dim = t->color ? "\033[2m" : "", *bold = t->color ? "\033[1m" : "",
	           *off = t->color ? "\033[0m" : "";
	char secs[32], head[64];
	snprintf(secs, sizeof secs, "%5.1fs", (now - w->started) / 1e6);
	int hn = snprintf(head, sizeof head, "  %s  d%d  ", secs, w->depth);
	int avail = t->cols - 1 - hn;   /* never the last column: no wrap */
	const char *hook = w->hook[0] ? w->hook : "starting";
	int hookw = columns(hook) < HOOK_COLS ? columns(hook) : HOOK_COLS;
	int urlw = avail - 2 - hookw;
	if (urlw > URL_COLS)
		urlw = URL_COLS;
	int with_hook = urlw >= 16;
	if (!with_hook)
		urlw = avail;
	buf_adds(b, "\033[2K");
	if (avail < 1) {
		buf_addc(b, '\n');
		return;
	}
	buf_addf(b, "  %s%s%s  d%d  ", bold, secs, off, w->depth);
	/* a page's controls are shown, never sent (termsafe.h) */
	char *url = termsafe(w->url), *safe_hook = termsafe(hook);
	fit(b, url, urlw, with_hook);
	if (with_hook) {
		buf_addf(b, "  %s", dim);
		fit(b, safe_hook, hookw, 0);
		buf_adds(b, off);
	}
	free(url), free(safe_hook);
	buf_addc(b, '\n');
}

void
progress_draw(tick_t *t, const worker_t *ws, int nw, int *drawn, int final)
{
	if (!t->tty)
		return;
	if (!t->cols || (t->winch && *t->winch)) {
		if (t->winch)
			*t->winch = 0;
		t->cols = progress_width();
	}
	if (*drawn == 0 && (final || nw == 0))
		return;
	buf_t b = {0};
	/* back over what was drawn, and erase it and anything below */
	if (*drawn)
		buf_addf(&b, "\033[%dA", *drawn);
	buf_adds(&b, "\r\033[J");
	int64_t now = clock_mono();
	int lines = 0;
	for (int i = 0; i < nw && !final; i++, lines++)
		line(&b, t, &ws[i], now);
	*drawn = lines;
	ssize_t wr = write(1, b.p, b.len);
	(void)wr;
	buf_free(&b);
}

void
progress_clear(tick_t *t, int *drawn)
{
	if (*drawn)
		progress_draw(t, NULL, 0, drawn, 1);
}
