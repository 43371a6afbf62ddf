/*
 * lstable.h — abx-ls's table: the line a record is shown as on a
 * terminal, in place of its JSON.
 *
 *   ls_table_line()   puts in b (empty): the type, the id, the status
 *                     ("template" for a schedule's template crawl), the
 *                     retry_at time, and what the record is about: its url,
 *                     plugin, name or urls, or for a schedule its cron
 *                     expression and its template's URLs (read from s;
 *                     "(template gone)" if it is not there).  The line is
 *                     one line and terminal-safe (termsafe.h), without
 *                     trailing blanks, and, as ps(1) does, fits in cols
 *                     columns (a UTF-8 character is one): where it is cut,
 *                     "..." ends it (--jsonl has it all).
 *
 * Nothing here prints or exits.
 */
#ifndef ABX_LSTABLE_H
#define ABX_LSTABLE_H

#include "store/store.h"

void ls_table_line(store_t *s, const rec_t *r, int cols, buf_t *b);

#endif
