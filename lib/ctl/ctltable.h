/*
 * ctltable.h — abx-ctl's table: the line a record a verb found or changed
 * (ctl.h, ctl_verbs.h) is shown as on a terminal, in place of its JSON.
 *
 *   ctl_table_line(R, COLS, B)
 *                      puts in b (empty) the record's type in ten columns, then
 *                      the fields that matter for its kind:
 *
 *                        Count       kind status count output_size sealed_reason
 *                        Running     kind id url
 *                        Failed      at plugin url reason
 *                        HttpStatus  kind http_status count
 *                        HttpError   http_status url (newest first)
 *                        Retry       snapshot_id plugins
 *                        Config      key value source
 *                        Dependency  status plugin name abspath version
 *                        any other   id status url urls schedule
 *
 *                      output_size in a human unit (1.5M), http_status as
 *                      "HTTP 404" in ten columns (a Count's status); a
 *                      missing field is a dash only if a later one is
 *                      shown.  The line is
 *                      one line (a list of URLs is joined by blanks) and
 *                      terminal-safe: a URL's or a reason's controls are
 *                      shown, never sent (termsafe.h).
 *
 *                      COLS above 0 is the terminal's width: the line fits
 *                      in COLS - 1 columns, as abx-ls's (fitcol.h: cut
 *                      with "..."; a URL followed by a reason is cut first,
 *                      to half the room left, at least 16 columns, so
 *                      that the reason's start shows too).  Below
 *                      CTL_TABLE_WIDE columns, an id (a Running line's,
 *                      a Retry's snapshot_id) is its last 12 hex digits
 *                      (as abx-ls shows it) and a Failed line's time is
 *                      "MM-DD hh:mm", so that the URL's start shows.
 *                      COLS 0 (not a terminal): nothing is cut.
 *
 * Nothing here prints or exits.
 */
#ifndef ABX_CTLTABLE_H
#define ABX_CTLTABLE_H

#include "base/buf.h"
#include "base/json.h"

#define CTL_TABLE_WIDE 160

void ctl_table_line(const rec_t *r, int cols, buf_t *b);

#endif
