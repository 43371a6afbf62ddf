/*
 * phase.h — run the hooks of one phase for one snapshot or crawl: what
 * abx-hook(1) does, whether a person runs it or abx-tick execs it as a
 * worker (the one code path: abx-tick never calls this in its own process).
 *
 * Families: Snapshot (id: a snapshot; cwd <snapshot dir>/<plugin>/,
 * --url= the snapshot's URL), CrawlSetup and CrawlCleanup (id: a crawl;
 * cwd <crawl dir>/<plugin>/, --url= the crawl's root snapshot's URL, else
 * its first URL).
 *
 * The algorithm:
 *  1. read the records (snapshot, crawl), layer the config (config.h),
 *     find and select the plugins, list the phase's hooks in (NN, stem)
 *     order;
 *  2. if the item's directory carries the mark of a run that died, end
 *     what that run left (runmark.h: found by the ABX_RUN token every hook
 *     gets); 75 if some of it would not die.  No hook: return 1
 *     (CrawlCleanup still stops the crawl's daemons);
 *  3. set the mark of a running phase (73 if it cannot be set); in
 *     CrawlSetup, first stop the crawl's daemons an earlier run left
 *     running (crawldaemons.h), so that none runs twice;
 *  4. resolve each selected plugin's required_binaries (binary.h) and
 *     commit the Binary records that changed; a plugin whose binary is
 *     missing gets a failed result for each of its hooks, and none run;
 *  4b. start the phase's egress gate (gate.h, phase_gate.c) unless the
 *     crawl may enter every network zone: each hook's proxy variables
 *     point at a listener of its own, and what the gate refused is added
 *     to that hook's notes (the page's own fetch: "network_zone" in its
 *     result); 75 if the gate cannot start (no hook runs unchecked).  It
 *     is stopped after the last hook, before step 9;
 *  5. run the hooks in order: a foreground hook is waited for (up to its
 *     timeout) before the next starts; a .bg. hook starts and runs
 *     alongside; a foreground hook numbered 50 or more (a parser, hashes)
 *     first waits for the finite .bg. hooks numbered below 50 (the
 *     extractors whose files it reads, such as wget, as ArchiveBox orders them);
 *     a hook whose #! interpreter is not on its PATH is not started and
 *     fails with a note naming it ("uv: not found — ..."); whenever a
 *     hook exits, its results are derived (results.h; without an
 *     ArchiveResult, from its exit status and files, as abx-dl does)
 *     and committed at once, one commit per hook: the ArchiveResult
 *     (Snapshot family only; upserted by (snapshot, plugin, hook_name)),
 *     its Process record, the snapshot's title and tags, Binary records;
 *     and printed to out;
 *  6. the size watch (Snapshot family): every 2 s while hooks run and
 *     whenever one exits, the snapshot's directory is measured (fs_du);
 *     over SNAPSHOT_MAX_SIZE, or over o->size_budget (what the tick has
 *     left of CRAWL_MAX_SIZE), the running hooks are stopped as at a
 *     timeout and recorded failed ("stopped: SNAPSHOT_MAX_SIZE 10mb
 *     exceeded"), and the remaining ones are skipped without running;
 *  7. after the last hook started: the finite background hooks are waited
 *     for up to their own timeouts; then daemons are stopped (SIGTERM,
 *     SIGKILL after the grace) — except in CrawlSetup, where a daemon
 *     still running is left running and recorded (crawldaemons.h) with a
 *     Process record "running";
 *  8. CrawlCleanup: hook_stop_daemons() after its hooks (SIGTERM and the
 *     grace, then SIGKILL), then whatever still carries a token of the
 *     crawl's runs is ended (what a daemon left in another session);
 *  9. if reap_orphans: kill every child left (descendants that moved to
 *     another session were reparented to us, a child subreaper), and clear
 *     the mark; without a subreaper the mark stays, and the next run ends
 *     what escaped.  A serving worker's child whose environment holds
 *     ABX_KEPT=$ABX_WORKER (hookserve.h) is left: a hook started it to
 *     serve the worker's later snapshots (the chrome plugin's kept
 *     browser), and it ends itself when the worker does.
 * When $ABX_PROGRESS_FD names an fd, "start <hook_name>" is written to it as
 * each hook starts (abx-tick shows it).
 * If *stop becomes set (a signal), every running hook is stopped as at a
 * timeout, recorded failed ("interrupted"), and 75 is returned.  If the
 * hooks cannot be waited for (ppoll fails), they are killed, recorded
 * failed, and 70 is returned.
 *
 * The caller holds the item's lease (abx-hook does; phase_run does not
 * take it) for the whole call, which the search for a dead run's hooks
 * relies on, and must not hold the store lock; nothing else may reap with
 * waitpid(-1) while it runs.  Results are committed by phase_run itself;
 * it does not change the item's status.
 *
 * Returns an exit code (exitcodes.h): 0 the phase ran (hooks may have
 * failed: the results say so), 1 no hook selected, 65 no such record,
 * 69 a plugin named in plugins is not installed, 70 the hooks could not be
 * waited for, 73 the mark could not be set, 75 interrupted, or processes
 * of a dead run would not die.
 */
#ifndef ABX_PHASE_H
#define ABX_PHASE_H

#include <signal.h>
#include <stdio.h>
#include "store/store.h"

typedef struct {
	const char *family;         /* "Snapshot", "CrawlSetup", "CrawlCleanup" */
	const char *id;
	char **plugins;             /* explicit whitelist (--plugins), or NULL */
	int dry_run;                /* print the hooks that would run; run none */
	int reap_orphans;           /* we are a subreaper with no other children */
	FILE *out;                  /* records as JSONL, or NULL */
	const sigset_t *waitmask;   /* signal mask while waiting, or NULL */
	volatile sig_atomic_t *stop;
	long long size_budget;      /* bytes the snapshot may hold: what is
	                             * left of CRAWL_MAX_SIZE; 0: no limit */
} phase_opts_t;

/*
 * What a process that runs a phase sets up, after its main reset what it
 * inherited (sig_reset, sigreset.h: an ignored SIGCHLD would reap the
 * hooks for us, an ignored SIGTERM would make it unstoppable): SIGINT,
 * SIGTERM and SIGHUP blocked except while waiting (*waitmask: the mask to
 * wait with, empty) and counted by handler; SIGPIPE ignored.
 */
void phase_signals(void (*handler)(int), sigset_t *waitmask);

int phase_run(store_t *s, const phase_opts_t *o);

/* A serving worker's end: each child kept for it (step 9: a kept browser's
 * keeper, its egress gate) gets SIGTERM, all at once, and they are waited
 * for together (SIGKILL to those left after 5 s): they end before the
 * worker does, well within the 5 s abx-tick gives the worker. */
void phase_end_kept(void);
/* A serving worker's start: its phases keep one egress gate process
 * between them (phase_gate.c, gate.h "Kept") instead of one a phase. */
void phase_gate_keep(void);

/* Is family one that phase_run runs? */
int phase_family_valid(const char *family);

#endif
