/*
 * ctlcmd.h — abx-ctl's commands, once its options are read: which
 * operands and options each takes, and each one run over the verbs of
 * ctl.h and ctl_verbs.h, its outcome on each ID said as abx-ctl(1) says.
 *
 *   ctlcmd_check()  cmd known, its operand count right, and no option
 *                   given that it does not take (retry: an ID or --failed).
 *                   0, or -1 and the usage error in why.
 *   ctlcmd_run()    cmd (any but version) on the open store:
 *                     pause, resume, cancel, remove  each ID in its own
 *                                  commit; a bad or unknown one is reported
 *                                  ("abx-ctl: error: ...") and the others
 *                                  still done; an ID already in the wanted
 *                                  state is a no-op (said with -v)
 *                     retry        each ID, or every crawl (--failed); 1 if
 *                                  the filters matched nothing
 *                     status, config, run, schedule  as ctl_verbs.h
 *                     repair       the repair pass (repair.h), and one
 *                                  Repair JSON line on o->out
 *                   Records found or changed go to o->emit.  Returns the
 *                   exit status (the last error's: 65 a bad ID, 75 busy,
 *                   the store's); a fatal error (a bad --plugins, a bad ID
 *                   of run, schedule or config, a bad cron expression, a
 *                   failed repair) stops at once with its message in fatal,
 *                   for the main to exit with the status returned.
 *   ctlcmd_deps()   version's check: ctl_deps() (s may be NULL), and, if a
 *                   binary the enabled plugins need is missing, an error
 *                   saying how to install it or disable the plugin; 69.
 *
 * Nothing here exits.
 */
#ifndef ABX_CTLCMD_H
#define ABX_CTLCMD_H

#include <stdio.h>

#include "ctl/ctl_verbs.h"
#include "store/store.h"

typedef struct {
	const char *plugins;      /* retry --plugins, or NULL */
	int failed;               /* retry --failed */
	int delete_files;         /* remove --delete */
	int last;                 /* status --last (5 unless given) */
	int all;                  /* config --all */
	ctl_emit_fn emit;         /* a record found or changed */
	void *arg;
	FILE *out;                /* repair's line */
} ctlcmd_t;

int ctlcmd_check(const char *cmd, int nargs, const ctlcmd_t *o, buf_t *why);
int ctlcmd_run(store_t *s, const char *cmd, int nargs, char **args, const ctlcmd_t *o, buf_t *fatal);
int ctlcmd_deps(store_t *s, const ctlcmd_t *o);

#endif
