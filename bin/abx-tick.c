/*
 * abx-tick — one scheduling pass (for cron), or a resident loop (--daemon).
 *
 * A pass takes the per-host tick lock (locks/tick@HOST: another tick of
 * this data directory on this host makes it exit 75, quietly, so that
 * overlapping cron runs are harmless), runs the repair pass, then
 * tick_pass() (tick.h) until nothing is due.  Exit 0 if it did work, 1 if
 * nothing was due.  The first SIGINT, SIGTERM or SIGHUP requeues the work
 * in flight and exits 128+signal; a second one kills the hooks at once.
 * On a terminal it shows one line per running snapshot and a summary;
 * under cron it prints nothing but errors; -v logs each transition.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <unistd.h>

#include "cli.h"
#include "base/config.h"
#include "tick/settings.h"
#include "tick/daemon.h"
#include "base/err.h"
#include "base/exitcodes.h"
#include "base/fs.h"
#include "tick/repair.h"
#include "tick/retention.h"
#include "base/sigreset.h"
#include "store/store.h"
#include "tick/tick.h"

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

/* The per-host tick lock: one tick per data directory per host. */
static int
tick_lock(store_t *s)
{
	char host[256], path[300];
	snprintf(host, sizeof host, "%s", s->host);
	for (char *p = host; *p; p++)
		if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') ||
		        *p == '-' || *p == '.'))
			*p = '_';
	snprintf(path, sizeof path, "locks/tick@%s", host);
	int fd = fs_open(s->dfd, path, O_RDWR | O_CREAT, 0644);
	if (fd < 0)
		diesys(EX_CANTCREAT_, "unable to open %s/%s", s->dir, path);
	if (flock(fd, LOCK_EX | LOCK_NB) < 0) {
		close(fd);
		return -1;
	}
	char note[64];
	int n = snprintf(note, sizeof note, "%ld\n", (long)getpid());
	if (pwrite(fd, note, n, 0) == n && ftruncate(fd, n) == 0) {
		/* cat shows the pid of the running tick */
	}
	return fd;
}

int
main(int argc, char **argv)
{
	static const struct option longopts[] = {
		CLI_VERSION_OPT,
		{"crawl", required_argument, 0, 'C'}, {"daemon", no_argument, 0, 'D'},
		{"poll", required_argument, 0, 'P'}, {"help", no_argument, 0, 'h'}, {0, 0, 0, 0},
	};
	const char *dir = NULL, *crawl = NULL;
	int c, dry = 0, verbose = 0, daemon = 0;
	double poll_s = 0;
	err_init(argv[0]);
	sig_reset();
	while ((c = getopt_long(argc, argv, "d:nvh", longopts, NULL)) != -1) {
		switch (c) {
		case 'd': dir = optarg; break;
		case 'n': dry = 1; break;
		case 'v': verbose = 1; break;
		case 'C': crawl = optarg; break;
		case 'D': daemon = 1; break;
		case 'P': {
			char *end;
			poll_s = strtod(optarg, &end);
			if (*end || poll_s <= 0) {
				cli_usage_err(usage, "--poll wants a number of seconds: %s", optarg);
			}
			break;
		}
		case 'h': cli_help(usage, options);
		case CLI_VERSION: cli_version();
		default: cli_usage(usage);
		}
	}
	if (optind != argc)
		cli_usage_err(usage, "no operand is taken: %s", argv[optind]);
	if ((daemon && (dry || crawl)) || (poll_s > 0 && !daemon))
		cli_usage_err(usage, daemon ? "--daemon takes neither -n nor --crawl" : "--poll goes with --daemon");
	if (crawl && !id_valid(crawl))
		die(EX_DATAERR_, "not an id: %s", crawl);
	err_verbose(verbose);
	store_t s;
	if (store_open(&s, dir, 0) < 0)
		die(s.err, "%s", s.errmsg);
	buf_t why = {0};
	int bad = settings_check_global(s.dfd, &why);
	if (bad)
		die(bad, "%s: %s", s.dir, why.p);
	buf_free(&why);
	tick_t t;
	tick_init(&t, &s);
	t.verbose = verbose;
	t.only_crawl = crawl;
	t.signals = &nsignals;
	t.tty = isatty(1);
	t.winch = &winch;
	const char *nc = getenv("NO_COLOR");
	t.color = t.tty && !(nc && *nc);
	if (dry) {
		int rc = tick_dry(&t);
		if (store_close(&s) < 0 || s.nerr)
			die(s.err, "%s", s.errmsg);
		return rc;
	}
	int lfd = tick_lock(&s);
	t.tick_lock_fd = lfd;
	if (lfd < 0) {
		if (verbose)
			info("another abx-tick is running on %s; exiting", s.dir);
		store_close(&s);
		return EX_TEMPFAIL_;
	}
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

	int rc;
	if (daemon) {
		rc = daemon_run(&t, poll_s, &hup);
	} else {
		repair_stats_t st;
		if (repair_pass(&s, &st, 0) < 0) {
			errorx("repair: %s", s.errmsg);
			t.errors++;
			t.err = s.err;
		}
		if (verbose && (st.requeued || st.torn || st.leases_dropped))
			info("repair: %d requeued, %d torn lines cut, %d stale leases dropped", st.requeued,
			    st.torn, st.leases_dropped);
		int gone = retention_run(&s, 100, verbose);
		if (verbose && gone)
			info("retention: %d expired crawls removed", gone);
		rc = tick_pass(&t);
		if (gone && rc == 1)
			rc = 0;
	}
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
