/*
 * crawldaemons.h — CrawlSetup daemons, which outlive the abx-hook that
 * started them and are stopped at the end of their crawl.
 *
 * A .daemon.bg CrawlSetup hook still running when its phase ends is left
 * running, and recorded in
 *     crawls/<crawl>/<plugin>/<hook_name>.daemon.json
 *     {"pid":N,"pgid":N,"starttime":T,"boot_id":"..","host":"..",
 *      "process_id":"..","hook_name":"..","run":"..","timeout":N}
 * (written by rename, so cat shows it whole), with its Process record
 * status "running".  "run" is the ABX_RUN token of the run that started it
 * (runmark.h): the processes carrying it are the daemon's, which the
 * search for a dead run's leftovers must keep (crawl_daemon_runs).
 *
 * hook_stop_daemons() stops every daemon of a crawl: a state file from
 * another host cannot be acted on (a warning says so and it is kept); one
 * from an earlier boot is stale (its processes are gone).  Otherwise, if
 * the process with that pid has another start time, the daemon is long gone
 * and the pid reused: nothing is killed.  Else the group gets SIGTERM, and
 * SIGKILL min(10 s, timeout) later if anything of it is still alive.  Then
 * the Process record becomes "exited" (exit_code null: it is not our child
 * any more), and its pid file <hook_name>.pid (kept while it ran, as
 * abx-dl keeps a running hook's: the chrome plugin's kill-zombies reads
 * it) and the state file are removed.  abx-hook calls it in CrawlSetup
 * before the hooks run (a crawl's daemons start afresh: ones left by an
 * earlier run that was not cleaned up are stopped, not run twice) and in
 * CrawlCleanup after its hooks ran, whether it has hooks or not.
 */
#ifndef ABX_CRAWLDAEMONS_H
#define ABX_CRAWLDAEMONS_H

#include <stdio.h>
#include "base/hookrun.h"
#include "store/store.h"

/* rel: the hook's cwd relative to the data dir (crawls/<crawl>/<plugin>). */
int crawl_daemon_record(store_t *s, const char *rel, const char *hook_name, const proc_t *p,
    const char *process_id, const char *run);

/* Returns the number of daemons stopped; the updated Process records are
 * committed and, if out is set, printed to it as JSONL.  Call it without
 * the store lock (it takes it for each record). */
int hook_stop_daemons(store_t *s, const char *crawl_id, FILE *out);

/* The run tokens of the crawl's recorded daemons: a NULL-terminated array
 * (free each and it), or NULL if there is none. */
char **crawl_daemon_runs(store_t *s, const char *crawl_id);

#endif
