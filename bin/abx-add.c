/*
 * abx-add — queue one crawl of the given URLs.
 *
 * URLs come from the arguments, or from stdin when there are none: one per
 * line, "#" comments and blank lines skipped, or JSONL records with "url",
 * "title" and "tags" (urllist.h).  Each bad URL is reported with its line
 * number and skipped.  The crawl and its depth-0 snapshots are written in
 * one durable commit, queued and due now, so that abx-claim -k snapshot
 * finds them at once.  The Crawl record is printed on stdout.  Exit 65 if
 * no URL was valid.  A URL archived already (a sealed "archived" snapshot
 * of it exists: archived.h) is said on stderr and not queued, unless
 * --again; exit 1, nothing printed, if no URL was left to queue.
 *
 * With --schedule CRON nothing is queued: the crawl is stored sealed, as
 * the template of a CrawlSchedule (schedule.h), and the schedule record is
 * printed; each due period enqueues one copy of it.
 *
 * Values are checked before anything is stored (addcmd.h, settings.h):
 * a bad --config value, --plugins list or CRON (one that can never fire
 * too) exits 65 before the data directory is touched; a bad value in
 * abx.conf or the environment exits 78, since the crawl would run with it.
 */
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "base/cron.h"
#include "base/err.h"
#include "base/exitcodes.h"
#include "base/sigreset.h"
#include "ctl/addcmd.h"
#include "ctl/urllist.h"
#include "store/store.h"

static const char options[] =
    "  -d DIR          the data directory (default: $ABX_DIR, else ~/.local/share/abx)\n"
    "  --depth N       follow links N levels deep, 0 to 4 (default 0)\n"
    "  --tag T,...     tag the crawl and its snapshots\n"
    "  --plugins P,... run only these plugins (names found on the plugin search path)\n"
    "  --config K=V    a setting for this crawl (repeatable), e.g. --config TIMEOUT=120\n"
    "  --scope S       which outlinks to follow: any (default), page, prefix, host, domain\n"
    "  --schedule CRON store a recurring crawl instead: five cron fields or @daily ...\n"
    "  --again         queue URLs that are archived already too\n"
    "  URL...          the URLs; none: read them from stdin (lines or JSONL records)\n"
    "  -h, --help      print this help and exit\n"
    "  --version       print the version and exit\n";

static const char usage[] =
    "abx-add [-d DIR] [--depth N] [--tag T,...] [--plugins P,...] [--config KEY=VALUE]...\n"
    "               [--scope any|page|prefix|host|domain] [--schedule CRON] [--again] [URL...]";

static int
config_key_ok(const char *k, size_t n)
{
	if (n == 0 || !(k[0] >= 'A' && k[0] <= 'Z'))
		return 0;
	for (size_t i = 0; i < n; i++)
		if (!((k[i] >= 'A' && k[i] <= 'Z') || (k[i] >= '0' && k[i] <= '9') || k[i] == '_'))
			return 0;
	return 1;
}

/* --config KEY=VALUE: a setting of the crawl, or -1 if not of that form. */
static int
config_arg(addcmd_t *a, const char *arg)
{
	const char *eq = strchr(arg, '=');
	if (!eq || !config_key_ok(arg, eq - arg))
		return -1;
	char *k = xstrndup(arg, eq - arg);
	addcmd_set(a, k, eq + 1);
	free(k);
	return 0;
}

/*
 * Print a record that is committed (durably): from here on the work is
 * done, so a failure to print it is reported with the record's id and the
 * exit status stays 0 — a retry by a script would queue it twice.
 */
static void
committed_out(const char *line, size_t n, const char *what)
{
	if (fwrite(line, 1, n, stdout) == n && putchar('\n') != EOF && fflush(stdout) != EOF)
		return;
	if (errno == EPIPE)
		return;
	warnsys("the %s is queued, but its record could not be printed (%.*s)", what,
	    (int)(n > 60 ? 60 : n), line);
}

int
main(int argc, char **argv)
{
	static const struct option longopts[] = {
		CLI_VERSION_OPT,
		{"depth", required_argument, 0, 'D'}, {"tag", required_argument, 0, 't'},
		{"plugins", required_argument, 0, 'p'}, {"config", required_argument, 0, 'c'},
		{"schedule", required_argument, 0, 'S'}, {"help", no_argument, 0, 'h'},
		{"scope", required_argument, 0, 'o'}, {"again", no_argument, 0, 'a'}, {0, 0, 0, 0},
	};
	const char *dir = NULL, *why_cron;
	addcmd_t a = {.tags = ""};
	char *end;
	long v;
	cron_t cr;
	int c;
	err_init(argv[0]);
	sig_reset();
	signal(SIGPIPE, SIG_IGN);   /* a closed stdout is EPIPE, after the commit */
	while ((c = getopt_long(argc, argv, "d:h", longopts, NULL)) != -1) {
		switch (c) {
		case 'd': dir = optarg; break;
		case 'D':
			if ((v = strtol(optarg, &end, 10)) < 0 || v > 4 || *end || end == optarg)
				cli_usage_err(usage, "--depth must be 0 to 4: %s", optarg);
			a.depth = v;
			break;
		case 't': a.tags = optarg; break;
		case 'a': a.again = 1; break;
		case 'S':
			if (cron_parse(optarg, &cr, &why_cron) < 0)
				die(EX_DATAERR_, "--schedule %s: %s", optarg, why_cron);
			a.schedule = optarg;
			break;
		case 'p': a.plugins = optarg; break;
		case 'o': addcmd_set(&a, "CRAWL_SCOPE", optarg); break;   /* checked with the rest */
		case 'c':
			if (config_arg(&a, optarg) < 0)
				cli_usage_err(usage, "--config wants KEY=VALUE with KEY in [A-Z0-9_]: %s", optarg);
			break;
		case 'h': cli_help(usage, options);
		case CLI_VERSION: cli_version();
		default: cli_usage(usage);
		}
	}
	buf_t why = {0}, line = {0};
	int rc = addcmd_check(&a, cli_dir(dir), &why);
	if (rc)
		die(rc, "%s", why.p);
	urllist_t l = {0};
	for (int i = optind; i < argc; i++)
		urllist_add(&l, "argument", i - optind + 1, argv[i]);
	if (optind == argc)
		urllist_read(&l, stdin);
	if (l.n == 0)
		die(EX_DATAERR_, "no valid URL%s", l.bad ? " (all were rejected)" : " given");
	store_t s;
	if (store_open(&s, dir, 1) < 0)
		die(s.err, "%s", s.errmsg);
	if ((rc = addcmd_queue(&s, &a, &l, &line, &why)) == ADDCMD_NOTHING)
		info("%s", why.p);
	else if (rc)
		die(rc, "%s", why.p);
	else
		committed_out(line.p, line.len, a.schedule ? "schedule" : "crawl");
	store_close(&s);
	buf_free(&why);
	buf_free(&line);
	urllist_free(&l);
	addcmd_free(&a);
	return rc;
}
