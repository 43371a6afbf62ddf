/*
 * abx-tick — the scheduler: one pass over what is due (for cron), or a
 * resident loop (--daemon).  abx-tick(1) is its manual.
 *
 *   1. options: -d DIR, -n, -v, --crawl ID, --daemon [--poll SECONDS]; a
 *      usage error exits 64, a --crawl that is not an id 65; DIR must be a
 *      data directory whose abx.conf (and environment) has good values,
 *      else 78;
 *   2. -n prints what is due (tick_dry) and runs nothing: no lock, no
 *      repair; exit 0 if something is due, else 1;
 *   3. the per-host tick lock (ticklock.h): another tick of this data
 *      directory on this host makes it exit 75, quietly (unless -v), so
 *      that overlapping cron runs are harmless; a lock file that cannot be
 *      opened, 73;
 *   4. one pass (tick_oneshot): the light repair pass, retention
 *      (DELETE_AFTER), then tick_pass (tick.h) until nothing is due; or,
 *      with --daemon, daemon_run (daemon.h), which repeats repair,
 *      retention and passes, and exits only on a signal (or 78, a bad
 *      setting at a SIGHUP);
 *   5. on a terminal, a summary; the store closed (synced) before the exit.
 *
 * Exit status (tick_exit, exitcodes.h): 0 work was done (a removal by
 * retention counts), 1 nothing was due, 2 work was done but hooks failed
 * in it (each snapshot said on stderr), 73 or 74 the store failed in some
 * work (the rest of the pass ran), 70 out of memory, 128+N stopped by
 * signal N.  The first SIGINT, SIGTERM or SIGHUP (in a one-shot pass; the
 * daemon re-reads abx.conf on SIGHUP) requeues the work in flight and
 * stops; a second one kills the hooks at once.  On a terminal it shows
 * one line per running snapshot and a summary; under cron it prints
 * nothing but errors; -v logs each transition.
 */
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "base/config.h"
#include "tick/settings.h"
#include "tick/daemon.h"
#include "base/err.h"
#include "base/exitcodes.h"
#include "base/sigreset.h"
#include "store/store.h"
#include "tick/tick.h"
#include "tick/ticklock.h"

static const char options[] =
    "  -d DIR          the data directory (default: $ABX_DIR, else ~/.local/share/abx)\n"
    "  -n              print what is due as JSONL and run nothing\n"
    "  -v              say what each stage does, on stderr\n"
    "  --crawl ID      work only on this crawl\n"
    "  --daemon        keep running: wake on changes (inotify) and on a timer\n"
    "  --poll SECONDS  with --daemon, look for work at least this often\n"
    "  -h, --help      print this help and exit\n"
    "  --version       print the version and exit\n";

static const char usage[] =
    "abx-tick [-d DIR] [-n] [-v] [--crawl ID] [--daemon [--poll SECONDS]]";

static volatile sig_atomic_t nsignals, lastsig, hup, winch;

static void
on_winch(int sig)
{
	(void)sig;
	winch = 1;   /* the display fits the terminal's new width */
}

static void
on_signal(int sig)
{
	if (sig == SIGHUP && daemon_mode_active) {
		hup = 1;   /* the daemon re-reads abx.conf */
		return;
	}
	nsignals++;
	lastsig = sig;
}

typedef struct {
	const char *dir, *crawl;
	int dry, verbose, daemon;
	double poll_s;
} opts_t;

static void
parse_opts(int argc, char **argv, opts_t *o)
{
	static const struct option longopts[] = {
		CLI_VERSION_OPT,
		{"crawl", required_argument, 0, 'C'}, {"daemon", no_argument, 0, 'D'},
		{"poll", required_argument, 0, 'P'}, {"help", no_argument, 0, 'h'}, {0, 0, 0, 0},
	};
	int c;
	char *end;
	while ((c = getopt_long(argc, argv, "d:nvh", longopts, NULL)) != -1) {
		switch (c) {
		case 'd': o->dir = optarg; break;
		case 'n': o->dry = 1; break;
		case 'v': o->verbose = 1; break;
		case 'C': o->crawl = optarg; break;
		case 'D': o->daemon = 1; break;
		case 'P':
			o->poll_s = strtod(optarg, &end);
			if (*end || o->poll_s <= 0)
				cli_usage_err(usage, "--poll wants a number of seconds: %s", optarg);
			break;
		case 'h': cli_help(usage, options);
		case CLI_VERSION: cli_version();
		default: cli_usage(usage);
		}
	}
	if (optind != argc)
		cli_usage_err(usage, "no operand is taken: %s", argv[optind]);
	if ((o->daemon && (o->dry || o->crawl)) || (o->poll_s > 0 && !o->daemon))
		cli_usage_err(usage, o->daemon ? "--daemon takes neither -n nor --crawl" : "--poll goes with --daemon");
	if (o->crawl && !id_valid(o->crawl))
		die(EX_DATAERR_, "not an id: %s", o->crawl);
}

/* INT, TERM, HUP stop the pass (on_signal); WINCH redraws; no SIGPIPE. */
static void
catch_signals(void)
{
	struct sigaction sa = {0};
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	/* a resize must not fail a blocking call (a flock, a write to the
	 * terminal) with EINTR: restarted; poll() still wakes to redraw */
	sa.sa_handler = on_winch;
	sa.sa_flags = SA_RESTART;
	sigaction(SIGWINCH, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
}

int
main(int argc, char **argv)
{
	opts_t o = {0};
	err_init(argv[0]);
	sig_reset();
	parse_opts(argc, argv, &o);
	err_verbose(o.verbose);
	store_t s;
	if (store_open(&s, o.dir, 0) < 0)
		die(s.err, "%s", s.errmsg);
	s.arm = 1;   /* it commits often, and disarms before it sleeps */
	buf_t why = {0};
	int bad = settings_check_global(s.dfd, &why);
	if (bad)
		die(bad, "%s: %s", s.dir, why.p);
	buf_free(&why);
	tick_t t;
	tick_init(&t, &s);
	t.verbose = o.verbose;
	t.only_crawl = o.crawl;
	t.signals = &nsignals;
	t.tty = isatty(1);
	t.winch = &winch;
	const char *nc = getenv("NO_COLOR");
	t.color = t.tty && !(nc && *nc);
	if (o.dry) {
		int rc = tick_dry(&t);
		if (store_close(&s) < 0 || s.nerr)
			die(s.err, "%s", s.errmsg);
		return rc;
	}
	char lock[300];
	int lfd = tick_lock(&s, lock, sizeof lock);
	if (lfd == TICK_LOCK_FAIL)
		diesys(EX_CANTCREAT_, "unable to open %s/%s", s.dir, lock);
	if (lfd == TICK_LOCK_BUSY) {
		if (o.verbose)
			info("another abx-tick is running on %s; exiting", s.dir);
		store_close(&s);
		return EX_TEMPFAIL_;
	}
	t.tick_lock_fd = lfd;
	catch_signals();
	int rc = o.daemon ? daemon_run(&t, o.poll_s, &hup) : tick_oneshot(&t);
	tick_summary(&t);
	close(lfd);
	tick_free(&t);
	/* acknowledge after durable: what the pass did is synced now */
	if (store_close(&s) < 0) {
		errorx("%s", s.errmsg);
		if (!t.err)
			t.err = s.err;
	}
	return tick_exit(&t, rc, lastsig);
}
