/*
 * lstable.h — abx-ls's table: the line a record is shown as on a
 * terminal, in place of its JSON.
 *
 *   ls_table_line()   puts in b (empty): the type, the id, the status
 *                     ("template" for a schedule's template crawl), the
 *                     retry_at time, and what the record is about.  The
 *                     line is one line and terminal-safe (termsafe.h),
 *                     without trailing blanks, and, as ps(1) does, fits in
 *                     cols columns (a UTF-8 character is one): where it is
 *                     cut, "..." ends it (--jsonl has it all).
 *
 * The width decides the columns, so that what the record is about is never
 * cut away: from LS_WIDE (160) columns up, the whole id and retry_at; below,
 * the id's last 12 hex digits (its random part, as git abbreviates a hash:
 * the first ones are a timestamp that records made together share) and no
 * retry_at.  What the record is about:
 *   - a snapshot: its url, after "HTTP <code> " when the site answered it
 *     with 400 or above (its http_status), then two blanks and its title
 *     when it has one (cut before the url is);
 *   - a result: its plugin and its snapshot's url (read from s), and when it
 *     failed ": " and the first line of its reason (result_reason_line,
 *     results.h, without a leading "exit status N: "); when both do not fit, the url takes half of the room
 *     left (at least 16 columns), cut with "...", so that the reason
 *     shows too;
 *   - a schedule: its cron expression and its template's URLs (read from s;
 *     "(template gone)" if it is not there);
 *   - else its url, plugin, name or urls.
 *
 * Nothing here prints or exits.
 */
#ifndef ABX_LSTABLE_H
#define ABX_LSTABLE_H

#include "store/store.h"

#define LS_WIDE 160

void ls_table_line(store_t *s, const rec_t *r, int cols, buf_t *b);

#endif
