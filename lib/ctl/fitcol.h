/*
 * fitcol.h — a table row made to fit the terminal, as ps(1) does: for
 * abx-ls's table (lstable.h) and abx-ctl's (ctltable.h).  The rows are
 * terminal-safe already (termsafe.h: no control left in them), so a
 * column is a UTF-8 character: a byte that does not continue one.
 *
 *   fit_columns(S, N)   the columns of the first N bytes of S.
 *   fit_cut(B, FROM, MAX)
 *                       B from byte FROM on cut to at most MAX columns,
 *                       at a character's start, "..." ending it there (so
 *                       MAX - 3 columns of it are kept); unchanged if it
 *                       fits, or if MAX is below 4.  A row is cut to the
 *                       terminal's width less one (a character in the
 *                       last column makes some terminals wrap).
 *   fit_pair(B, AT, LEFT, AFTER, N)
 *                       B from byte AT on is a URL that N bytes of AFTER
 *                       (a reason) follow, in LEFT columns: when both do
 *                       not fit, the URL is cut (fit_cut) to half of LEFT,
 *                       at least 16 columns, so that the reason's start
 *                       shows too; then AFTER is appended.
 *
 * Nothing here prints or exits.
 */
#ifndef ABX_FITCOL_H
#define ABX_FITCOL_H

#include <stddef.h>
#include "base/buf.h"

int fit_columns(const char *s, size_t n);
void fit_cut(buf_t *b, size_t from, int max);
void fit_pair(buf_t *b, size_t at, int left, const char *after, size_t n);

#endif
