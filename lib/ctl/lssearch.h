/*
 * lssearch.h — abx-ls --search WORDS: the snapshots whose archived text
 * holds every word (search.h), in abx-ls's order.
 *
 * ls_search() lists the snapshots that pass the filters (f->type is
 * Snapshot; ids: those records, else listing_all), then hands emit each
 * whose title (its record's) or text holds each word: its text is
 * DIR/crawls/C/S/text.txt, written at seal (sealtext.h; a snapshot sealed
 * before abx had it is matched by its title alone).
 *
 * The text files are read here, once each (at most SEARCH_MAX_FILE bytes),
 * in the process: no program is started, so no shell ever sees the words
 * (ripgrep as a prefilter was slower: lssearch.c).  Returns 0, or -1 with
 * *why (no word).
 */
#ifndef ABX_LSSEARCH_H
#define ABX_LSSEARCH_H

#include "ctl/ctl_verbs.h"
#include "ctl/verbs_filter.h"
#include "store/store.h"

#define SEARCH_MAX_FILE (2 << 20)

int ls_search(store_t *s, filter_t *f, char **ids, int nids, const char *words, ctl_emit_fn emit,
    void *arg, buf_t *why);

#endif
