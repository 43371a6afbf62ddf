/*
 * abx-ctl — pause, resume, cancel, retry, repair.
 *
 * Each ID is acted on in its own commit; a bad or unknown ID is reported
 * and the others still done (exit 65 at the end).  An ID already in the
 * wanted state is a no-op, not an error.  repair runs the repair pass
 * (repair.h) and prints what it did as one JSON line.
 */
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "ctl.h"
#include "err.h"
#include "exitcodes.h"
#include "repair.h"
#include "sigreset.h"
#include "store.h"

static const char usage[] =
    "abx-ctl [-v] [-d DIR] pause|resume|cancel ID...\n"
    "       abx-ctl [-d DIR] retry SNAPSHOT_ID [--plugins P,...]\n"
    "       abx-ctl [-d DIR] repair";

static const struct {
	const char *name;
	int (*fn)(store_t *, const char *);
} ops[] = {
	{"pause", ctl_pause}, {"resume", ctl_resume}, {"cancel", ctl_cancel}, {NULL, NULL},
};

int
main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{"plugins", required_argument, 0, 'p'}, {"help", no_argument, 0, 'h'}, {0, 0, 0, 0},
	};
	const char *dir = NULL, *plugins = NULL;
	int c;
	err_init(argv[0]);
	sig_reset();
	signal(SIGPIPE, SIG_IGN);   /* a closed stdout is EPIPE, after the commit */
	while ((c = getopt_long(argc, argv, "d:hv", longopts, NULL)) != -1) {
		switch (c) {
		case 'd': dir = optarg; break;
		case 'p': plugins = optarg; break;
		case 'v': err_verbose(1); break;
		case 'h': cli_help(usage);
		default: cli_usage(usage);
		}
	}
	if (optind >= argc)
		cli_usage(usage);
	const char *cmd = argv[optind++];
	store_t s;
	int rc = 0;
	if (strcmp(cmd, "repair") == 0) {
		if (optind != argc)
			cli_usage(usage);
		if (store_open(&s, dir, 0) < 0)
			die(s.err, "%s", s.errmsg);
		repair_stats_t st;
		repair_run(&s, &st);
		if (s.nerr)
			die(s.err, "repair: %s", s.errmsg);
		printf("{\"type\":\"Repair\",\"active\":%d,\"torn\":%d,\"requeued\":%d,\"leases_dropped\":%d,"
		       "\"compacted\":%d,\"tmp_swept\":%d,\"locks_removed\":%d}\n",
		    st.active, st.torn, st.requeued, st.leases_dropped, st.compacted, st.tmp_swept,
		    st.locks_removed);
		store_close(&s);
		return 0;
	}
	if (strcmp(cmd, "retry") == 0) {
		if (optind + 1 != argc)
			cli_usage(usage);
		const char *id = argv[optind], *bad = NULL;
		char **names = NULL;
		if (!id_valid(id))
			die(EX_DATAERR_, "not an id: %s", id);
		if (plugins && !(names = cli_names(plugins, &bad)))
			die(EX_DATAERR_, "--plugins: not a plugin name: %s", bad);
		if (names && !names[0]) {
			cli_names_free(names);
			die(EX_DATAERR_, "--plugins wants one or more plugin names, separated by commas");
		}
		if (store_open(&s, dir, 0) < 0)
			die(s.err, "%s", s.errmsg);
		int r = ctl_retry(&s, id, names);
		cli_names_free(names);
		if (store_close(&s) < 0 || s.nerr)
			die(s.err, "retry %s: nothing changed: %s", id, s.errmsg);
		if (r == CTL_NOTFOUND)
			die(EX_DATAERR_, "no snapshot with id %s", id);
		return 0;
	}
	if (plugins)
		cli_usage(usage);
	int (*fn)(store_t *, const char *) = NULL;
	for (int i = 0; ops[i].name; i++)
		if (strcmp(ops[i].name, cmd) == 0)
			fn = ops[i].fn;
	if (!fn) {
		warnx_("unknown command: %s", cmd);
		cli_usage(usage);
	}
	if (optind >= argc)
		cli_usage(usage);
	if (store_open(&s, dir, 0) < 0)
		die(s.err, "%s", s.errmsg);
	for (int i = optind; i < argc; i++) {
		unsigned nerr = s.nerr;
		if (!id_valid(argv[i])) {
			warnx_("not an id: %s", argv[i]);
			rc = EX_DATAERR_;
			continue;
		}
		int r = fn(&s, argv[i]);
		if (s.nerr != nerr) {
			/* the store failed: this one changed nothing (store.h) */
			errorx("%s %s: nothing changed: %s", cmd, argv[i], s.errmsg);
			rc = s.err;
			continue;
		}
		switch (r) {
		case CTL_OK: break;
		case CTL_NOOP:
			if (err_verbose(-1))
				info("%s: nothing to %s", argv[i], cmd);
			break;
		case CTL_NOTFOUND:
			warnx_("no record with id %s", argv[i]);
			rc = EX_DATAERR_;
			break;
		case CTL_NEVER:
			warnx_("%s: cannot resume it: its cron expression is bad or can never fire; "
			       "cancel it and add a new schedule", argv[i]);
			rc = EX_DATAERR_;
			break;
		case CTL_BADSTATE:
			warnx_("%s: cannot %s it: only crawls, snapshots and schedules can be; "
			       "a snapshot of a paused crawl resumes with its crawl", argv[i], cmd);
			rc = EX_DATAERR_;
			break;
		}
	}
	store_close(&s);
	return rc;
}
