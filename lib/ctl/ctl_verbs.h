/*
 * ctl_verbs.h — abx-ctl's everyday verbs, beside pause, resume, cancel and
 * retry of one snapshot (ctl.h): ArchiveBox's status, remove, update,
 * schedule, config and version, over abx's records.  Each verb's results
 * are records handed to emit (the main prints them as JSONL, or as a
 * table on a terminal); none prints, exits or holds the store lock longer
 * than one commit.  abx-ctl(1) is the user's copy of this.
 *
 *   ctl_status()   counts by kind and status (Count lines: kind, status,
 *                  count, output_size), the sealed snapshots the site
 *                  answered with a 4xx or 5xx by code (HttpStatus lines:
 *                  kind, http_status, count), what is running (the
 *                  started crawls and snapshots, with their lease), the
 *                  last nfailed failed results (Failed lines: url,
 *                  plugin, the first line of the reason) and the last
 *                  nfailed of those 4xx/5xx snapshots (HttpError lines:
 *                  at = downloaded_at, http_status, snapshot_id,
 *                  crawl_id, url).  Reads every journal.
 *   ctl_remove()   a sealed crawl or snapshot, as retention removes a
 *                  crawl (retention.h): under its lease and the store lock
 *                  the tombstone (deleted_at, notes; a snapshot's results
 *                  and processes too) is committed durably, then, with
 *                  delete_files, its directory is moved to crawls/.deleted
 *                  and removed after the lock; without, the record says
 *                  "files_kept": true and the files stay.  The site's
 *                  index.jsonl gets a deleted_at line for each snapshot
 *                  removed (none is taken out) and its pages are rebuilt
 *                  (seal_site_index()); a snapshot's crawl page is
 *                  rewritten without it (crawlpage.h).
 *                  CTL_BADSTATE: not final (cancel it first); CTL_BUSY:
 *                  leased.
 *   ctl_retry_select()  retry by filter: id a snapshot or a crawl (each of
 *                  its sealed snapshots), or NULL (every crawl's); failed:
 *                  only the plugins whose last result failed (and only the
 *                  snapshots that have one); plugins: only these.  Each
 *                  snapshot is one ctl_retry(), and a Retry line.
 *   ctl_cron_next()  the one place a cron expression is checked for abx-ctl:
 *                  0 and *next, or -1 and *why (bad, or never fires).
 *   ctl_schedule_edit()  a schedule's expression replaced, its next run
 *                  computed from now (a paused schedule stays paused).
 *   ctl_schedule_run()  run a schedule now: one crawl enqueued from its
 *                  template (as when it is due; the next run is counted
 *                  from now); CTL_BADSTATE if it is paused or cancelled.
 *   ctl_config()   the effective settings of the data directory, a crawl or
 *                  a snapshot (config.h's layers) with where each value
 *                  came from: Config lines key, value, source ("built-in",
 *                  "abx.conf line N", "environment", "crawl ID", "snapshot
 *                  ID").  Environment variables are shown when they set a
 *                  built-in, abx.conf or plugin key, or all with all.
 *   ctl_deps()     every binary the enabled plugins (PLUGINS) require, found
 *                  in PATH or as an installed Binary record: Dependency
 *                  lines plugin, name, abspath, version, status (found or
 *                  missing); *missing counts the missing ones.  s may be
 *                  NULL (no data directory yet): then the built-ins and the
 *                  environment say which plugins are enabled.
 */
#ifndef ABX_CTL_VERBS_H
#define ABX_CTL_VERBS_H

#include <stdint.h>
#include "ctl/ctl.h"
#include "store/store.h"

enum { CTL_BUSY = 16 };

typedef void (*ctl_emit_fn)(void *arg, const rec_t *line);

int ctl_status(store_t *s, int nfailed, ctl_emit_fn emit, void *arg);
int ctl_remove(store_t *s, const char *id, int delete_files, rec_t *out);
int ctl_retry_select(store_t *s, const char *id, int failed, char **plugins, ctl_emit_fn emit,
    void *arg, unsigned *count);
int ctl_cron_next(const char *expr, int64_t now, int64_t *next, const char **why);
int ctl_schedule_edit(store_t *s, const char *id, const char *expr, rec_t *out, const char **why);
int ctl_schedule_run(store_t *s, const char *id, rec_t *crawl_out);
int ctl_config(store_t *s, const char *id, int all, ctl_emit_fn emit, void *arg);
int ctl_deps(store_t *s, ctl_emit_fn emit, void *arg, int *missing);

#endif
