/*
 * ctltable.h — abx-ctl's table: the line a record a verb found or changed
 * (ctl.h, ctl_verbs.h) is shown as on a terminal, in place of its JSON.
 *
 *   ctl_table_line()   puts in b (empty) the record's type in ten columns, then
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
 * Nothing here prints or exits.
 */
#ifndef ABX_CTLTABLE_H
#define ABX_CTLTABLE_H

#include "base/buf.h"
#include "base/json.h"

void ctl_table_line(const rec_t *r, buf_t *b);

#endif
