/*
 * abx-hook — run the plugin hooks of one phase for one snapshot or crawl
 * (abx-hook(1); the library does the work: phase.h).
 *
 *  1. check ID and the --plugins names before touching the filesystem
 *     (exit 65: they become paths);
 *  2. open the data directory and hold the item's lease: inherited from
 *     `abx-claim -i ID abx-hook ID` ($ABX_LEASE_FD), else taken here (a
 *     by-hand repair run: the record's status is left alone); exit 75 if
 *     another worker holds it;
 *  3. reset what signal state was inherited, become a child subreaper,
 *     block SIGINT/SIGTERM/SIGHUP except while waiting, and run the phase
 *     (at most $ABX_SIZE_BUDGET bytes in the snapshot, if set: what the
 *     tick has left of the crawl's CRAWL_MAX_SIZE): records on stdout,
 *     results committed;
 *  4. drop the lease if it was taken here.
 * With --serve (no ID): steps 1 to 3 for each snapshot abx-tick sends on
 * stdin, its lease with it (hookserve.h), until end of file.
 */
#include <fcntl.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <unistd.h>

#include "cli.h"
#include "base/config.h"
#include "base/err.h"
#include "base/exitcodes.h"
#include "base/ids.h"
#include "base/sigreset.h"
#include "ctl/hookserve.h"
#include "ctl/itemlease.h"
#include "ctl/pluginsarg.h"
#include "hook/phase.h"
#include "store/lease.h"
#include "store/store.h"
#include "tick/settings.h"

static const char options[] =
    "  -d DIR          the data directory (default: $ABX_DIR, else ~/.local/share/abx)\n"
    "  --plugins P,... run only these plugins (default: PLUGINS, else every plugin)\n"
    "  -n              print the hooks that would run, run nothing\n"
    "  --family F      Snapshot (default), CrawlSetup or CrawlCleanup\n"
    "  -v              more detail on stderr\n"
    "  --serve         run the snapshots abx-tick sends on stdin, one after another\n"
    "  ID              the snapshot (or, for CrawlSetup and CrawlCleanup, the crawl)\n"
    "  -h, --help      print this help and exit\n"
    "  --version       print the version and exit\n";

static const char usage[] =
    "abx-hook [-d DIR] [--plugins P,...] [-n] [--family Snapshot|CrawlSetup|CrawlCleanup] ID\n"
    "       abx-hook [-d DIR] [-v] --serve";

static volatile sig_atomic_t stop;

/* Counts signals: the first stops the hooks as at a timeout, a second
 * kills them at once. */
static void
on_signal(int sig)
{
	(void)sig;
	if (stop < 100)
		stop++;
}

/*
 * Run by abx-tick ($ABX_PARENT_PID names it): stop, as at SIGTERM, when it
 * dies, instead of running on as an orphan whose results nobody seals (the
 * next tick runs the snapshot again).  PR_SET_PDEATHSIG is set first, then
 * the parent checked, so a tick that died before is seen too.
 */
static void
parent_watch(void)
{
	const char *p = getenv("ABX_PARENT_PID");
	char *end;
	long pid = p && *p ? strtol(p, &end, 10) : 0;
	if (pid <= 1 || *end)
		return;
	if (prctl(PR_SET_PDEATHSIG, SIGTERM) == 0 && getppid() != (pid_t)pid)
		raise(SIGTERM);
}

/* $ABX_SIZE_BUDGET: bytes, 0 if unset; exit 65 if not a size. */
static long long
size_budget(void)
{
	long long budget = 0;
	const char *b = getenv("ABX_SIZE_BUDGET");
	if (b && *b && (budget = parse_size(b)) <= 0)
		die(EX_DATAERR_, "ABX_SIZE_BUDGET=%s: not a size (bytes, or with a unit: 45mb)", b);
	return budget;
}

/* --serve: abx-tick's worker for snapshot after snapshot (hookserve.h). */
static int
serve_main(const char *dir, int alone)
{
	if (!alone)
		cli_usage_err(usage, "--serve takes no ID, --plugins, -n or --family: they come on stdin");
	store_t s;
	if (store_open(&s, dir, 0) < 0)
		die(s.err, "%s", s.errmsg);
	char *d = xstrdup(s.dir);
	store_close(&s);
	parent_watch();
	sigset_t waitmask;
	phase_signals(on_signal, &waitmask);
	int subreaper = prctl(PR_SET_CHILD_SUBREAPER, 1) == 0;
	int rc = hook_serve(d, 0, stdout, &waitmask, &stop, subreaper);
	free(d);
	return rc;
}

int
main(int argc, char **argv)
{
	static const struct option longopts[] = {
		CLI_VERSION_OPT,
		{"plugins", required_argument, 0, 'p'}, {"family", required_argument, 0, 'f'},
		{"serve", no_argument, 0, 's'}, {"help", no_argument, 0, 'h'}, {0, 0, 0, 0},
	};
	const char *dir = NULL, *plugins = NULL, *family = "Snapshot";
	int dry = 0, serve = 0, c;
	err_init(argv[0]);
	sig_reset();
	while ((c = getopt_long(argc, argv, "d:nhv", longopts, NULL)) != -1) {
		switch (c) {
		case 'd': dir = optarg; break;
		case 'p': plugins = optarg; break;
		case 'f': family = optarg; break;
		case 'n': dry = 1; break;
		case 's': serve = 1; break;
		case 'v': err_verbose(err_verbose(-1) + 1); break;
		case 'h': cli_help(usage, options);
		case CLI_VERSION: cli_version();
		default: cli_usage(usage);
		}
	}
	if (!phase_family_valid(family))
		cli_usage_err(usage, "--family wants Snapshot, CrawlSetup or CrawlCleanup: %s", family);
	if (serve)
		return serve_main(dir, optind == argc && !plugins && !dry && !strcmp(family, "Snapshot"));
	if (optind != argc - 1)
		cli_usage_err(usage, optind == argc ? "no ID given" : "one ID only: %s", argv[argc - 1]);
	const char *id = argv[optind];
	if (!id_valid(id))
		die(EX_DATAERR_, "not an id: %s (ids are UUIDv7 strings such as those abx-ls prints)", id);
	long long budget = size_budget();
	char **names = NULL;
	buf_t why = {0};
	int rc = plugins ? plugins_arg(plugins, &names, &why) : 0;
	if (rc)
		die(rc, "%s", why.p);

	store_t s;
	if (store_open(&s, dir, 0) < 0)
		die(s.err, "%s", s.errmsg);
	/* where the claimer's index says the records are (store.h) */
	const char *hint = getenv("ABX_HINT");
	if (hint && *hint && store_lean(&s, hint) < 0)
		warnx_("ABX_HINT=%s: not location hints (ID=JOURNAL:OFFSET words); ignored", hint);
	if ((rc = settings_check_global(s.dfd, &why)) != 0)
		die(rc, "%s: %s", s.dir, why.p);
	buf_free(&why);
	parent_watch();
	const char *kind = strcmp(family, "Snapshot") == 0 ? "snapshot" : "crawl";
	int own = 0, fd = -1;
	if (!dry && (rc = item_lease(&s, id, ITEMLEASE_NOTE | ITEMLEASE_CLOEXEC, &fd, &own)) != 0)
		die(EX_TEMPFAIL_, rc == LEASE_BUSY ? "%s %s is leased by another worker; try again later"
		    : "the lease of %s %s is in an unknown state; try again later", kind, id);

	sigset_t waitmask;
	phase_signals(on_signal, &waitmask);
	int subreaper = prctl(PR_SET_CHILD_SUBREAPER, 1) == 0;

	phase_opts_t o = {
		.family = family, .id = id, .plugins = names, .dry_run = dry,
		.reap_orphans = subreaper, .out = stdout, .waitmask = &waitmask, .stop = &stop,
		.size_budget = budget,
	};
	rc = phase_run(&s, &o);
	if (own)
		lease_drop(fd);
	name_list_free(names);
	/* a result the store could not take (a full disk) was reported and
	 * not printed; the exit status says so (74), whatever the hooks did */
	if (store_close(&s) < 0 || s.nerr) {
		if (rc == 0 || rc == 1)
			rc = s.err ? s.err : EX_IOERR_;
	}
	return rc;
}
