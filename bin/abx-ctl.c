/*
 * abx-ctl — pause, resume, cancel, retry, remove, run and edit schedules,
 * show status, config and dependencies, repair.
 *
 * Each ID is acted on in its own commit; a bad or unknown ID is reported
 * and the others still done (exit 65 at the end).  An ID already in the
 * wanted state is a no-op, not an error.  The commands are ctlcmd.h's,
 * over the verbs of ctl.h and ctl_verbs.h; what they change or find is
 * printed as JSONL (a table on a terminal: ctltable.h).  repair runs the
 * repair pass (repair.h) and prints what it did as one JSON line.
 */
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "base/err.h"
#include "base/exitcodes.h"
#include "base/sigreset.h"
#include "ctl/ctlcmd.h"
#include "ctl/ctltable.h"
#include "store/store.h"
#include "tick/progress.h"

static const char usage[] =
    "abx-ctl [-v] [-d DIR] pause|resume|cancel ID...\n"
    "       abx-ctl [-d DIR] retry [--plugins P,...] [--failed] [ID...]\n"
    "       abx-ctl [-d DIR] remove [--delete] ID...\n"
    "       abx-ctl [-d DIR] status [--last N]\n"
    "       abx-ctl [-d DIR] run SCHEDULE_ID\n"
    "       abx-ctl [-d DIR] schedule SCHEDULE_ID CRON\n"
    "       abx-ctl [-d DIR] config [--all] [ID]\n"
    "       abx-ctl [-d DIR] version\n"
    "       abx-ctl [-d DIR] repair";

static const char options[] =
    "  -d DIR          the data directory (default: $ABX_DIR, else ~/.local/share/abx)\n"
    "  -v              say what was a no-op, on stderr\n"
    "  --plugins P,... retry: only these plugins (names found on the plugin search path)\n"
    "  --failed        retry: only the plugins whose last result failed; no ID: every crawl\n"
    "  --delete        remove: remove the files too (default: records only, files kept)\n"
    "  --last N        status: show the N latest failed results and 4xx/5xx pages (default 5)\n"
    "  --all           config: show every environment variable, not only settings\n"
    "  --jsonl         JSONL even to a terminal\n"
    "  -h, --help      print this help and exit\n"
    "  --version       print the version and exit\n"
    "commands:\n"
    "  pause, resume, cancel ID...   crawls, snapshots and schedules\n"
    "  retry ID...     snapshots (or every sealed snapshot of a crawl) queued again\n"
    "  remove ID...    sealed crawls or snapshots removed, as retention does\n"
    "  status          counts by kind and status, sizes, what runs, what failed last\n"
    "  run ID          a schedule's crawl enqueued now\n"
    "  schedule ID CRON  a schedule's cron expression replaced\n"
    "  config [ID]     the effective settings (of a crawl or snapshot) and their source\n"
    "  version         the version, and every binary the enabled plugins need\n"
    "  repair          the repair pass: torn lines, dead leases, the index\n";

/* A record as JSONL, or as a line of the table on a terminal. */
static void
emit(void *arg, const rec_t *r)
{
	buf_t b = {0};
	if (*(int *)arg)
		ctl_table_line(r, *(int *)arg, &b);
	else
		rec_line(r, &b);
	cli_out(b.p, b.len);
	buf_free(&b);
}

/* version: the version, then the dependency check; 69 if one is missing. */
static int
cmd_version(store_t *s, const ctlcmd_t *o)
{
	printf(*(int *)o->arg ? "abx %s\n" : "{\"type\":\"Version\",\"version\":\"%s\"}\n",
	    ABX_VERSION);
	return ctlcmd_deps(s, o);
}

int
main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{"plugins", required_argument, 0, 'p'}, {"failed", no_argument, 0, 'F'},
		{"delete", no_argument, 0, 'D'}, {"last", required_argument, 0, 'L'},
		{"all", no_argument, 0, 'A'}, {"jsonl", no_argument, 0, 'J'},
		{"help", no_argument, 0, 'h'}, CLI_VERSION_OPT, {0, 0, 0, 0},
	};
	const char *dir = NULL;
	int c, jsonl = 0, table;
	ctlcmd_t o = {.last = 5, .emit = emit, .arg = &table, .out = stdout};
	err_init(argv[0]);
	sig_reset();
	signal(SIGPIPE, SIG_IGN);   /* a closed stdout is EPIPE, after the commit */
	while ((c = getopt_long(argc, argv, "d:hv", longopts, NULL)) != -1) {
		switch (c) {
		case 'd': dir = optarg; break;
		case 'p': o.plugins = optarg; break;
		case 'F': o.failed = 1; break;
		case 'D': o.delete_files = 1; break;
		case 'A': o.all = 1; break;
		case 'J': jsonl = 1; break;
		case 'L': {
			char *end;
			long v = strtol(optarg, &end, 10);
			if (*end || end == optarg || v < 0 || v > 1000)
				cli_usage_err(usage, "--last wants a count from 0 to 1000: %s", optarg);
			o.last = v;
			break;
		}
		case 'v': err_verbose(1); break;
		case 'h': cli_help(usage, options);
		case CLI_VERSION: cli_version();
		default: cli_usage(usage);
		}
	}
	if (optind >= argc)
		cli_usage_err(usage, "no command given");
	const char *cmd = argv[optind++];
	buf_t why = {0};
	if (ctlcmd_check(cmd, argc - optind, &o, &why) < 0)
		cli_usage_err(usage, "%s", why.p);
	table = !jsonl && cli_isatty_out() ? progress_width() : 0;   /* the table's width */
	store_t s;
	if (store_open(&s, dir, 0) < 0) {
		if (strcmp(cmd, "version") != 0 || s.err != EX_CONFIG_)
			die(s.err, "%s", s.errmsg);
		/* before the first abx-add: the version and what the plugins
		 * would need, with the built-in settings */
		return cmd_version(NULL, &o);
	}
	int rc = !strcmp(cmd, "version") ? cmd_version(&s, &o)
	       : ctlcmd_run(&s, cmd, argc - optind, argv + optind, &o, &why);
	if (why.len)
		die(rc, "%s", why.p);
	if (store_close(&s) < 0 || (s.nerr && !rc)) {
		errorx("%s", s.errmsg);
		rc = s.err ? s.err : EX_IOERR_;
	}
	return rc;
}
