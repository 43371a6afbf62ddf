/*
 * abx-claim — take the lease on the next due item, or on a named one, in
 * the manner of flock(1).
 *
 * Without CMD: claim, print the new record, exit; the lease is a time
 * lease that lasts -l seconds (default 60) unless renewed (--renew ID) or
 * released (--release ID).  With CMD: claim with a flock lease, run CMD
 * holding it (the lock fd is inherited: $ABX_LEASE_FD), with ABX_DIR,
 * ABX_KIND, ABX_ID and ABX_HINT (where its records are: store.h, Lean
 * mode) in its environment; renew the record's expiry every
 * third of the lease while CMD runs; forward SIGINT, SIGTERM and SIGHUP to
 * CMD; release the lease when CMD exits (unless CMD moved the item on, e.g.
 * sealed it), and exit with CMD's status.  If abx-claim itself is killed,
 * CMD keeps the lease: the kernel frees it only when the last holder dies.
 * --test ID exits 0 if ID is leased, 1 if not.  -n COUNT takes time leases
 * on up to COUNT due items with one durable commit (a group commit) and
 * prints their records.  The library does the work: claimcmd.h, and
 * claimrun.h for CMD.
 */
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "base/err.h"
#include "base/exitcodes.h"
#include "base/ids.h"
#include "base/sigreset.h"
#include "ctl/claimcmd.h"
#include "store/store.h"

static const char options[] =
    "  -d DIR          the data directory (default: $ABX_DIR, else ~/.local/share/abx)\n"
    "  -k KIND         claim only a crawl, snapshot or binary\n"
    "  -i ID           claim this item, not the next due one\n"
    "  -l SECONDS      the lease's length (renewed while CMD runs)\n"
    "  -n COUNT        claim up to COUNT due items at once and print them\n"
    "  --renew ID      extend the lease on ID held by this host\n"
    "  --release ID    give up the lease on ID\n"
    "  --test ID       exit 0 if ID is leased by a live holder, else 1\n"
    "  -v              say what was claimed, on stderr\n"
    "  CMD [ARG...]    run CMD holding the lease (as flock(1) does)\n"
    "  -h, --help      print this help and exit\n"
    "  --version       print the version and exit\n";

static const char usage[] =
    "abx-claim [-v] [-d DIR] [-k crawl|snapshot|binary] [-l SECONDS] [-i ID] [CMD [ARG...]]\n"
    "       abx-claim [-d DIR] [-k crawl|snapshot|binary] [-l SECONDS] -n COUNT\n"
    "       abx-claim [-d DIR] [-l SECONDS] --renew ID | --release ID | --test ID";

static volatile sig_atomic_t forward_sig;   /* for CMD (claimrun.h) */

static void
on_signal(int sig)
{
	forward_sig = sig;
}

static void
emit(void *arg, const rec_t *r)
{
	buf_t b = {0};
	rec_line(r, &b);
	cli_out(b.p, b.len);
	buf_free(&b);
}

int
main(int argc, char **argv)
{
	static const struct option longopts[] = {
		CLI_VERSION_OPT, {"renew", required_argument, 0, CLAIMCMD_RENEW},
		{"release", required_argument, 0, CLAIMCMD_RELEASE},
		{"test", required_argument, 0, CLAIMCMD_TEST}, {"help", no_argument, 0, 'h'}, {0, 0, 0, 0},
	};
	const char *dir = NULL, *kind = "snapshot", *op_id = NULL;
	claimcmd_t cc = {.on_signal = on_signal, .forward = &forward_sig, .emit = emit};
	int op = 0, c, count = 0, settled = 0;
	double lease = 60;
	char *end;
	err_init(argv[0]);
	sig_reset();
	signal(SIGPIPE, SIG_IGN);   /* a closed stdout is EPIPE, after the commit */
	/* '+': options stop at CMD, as in flock(1) */
	while ((c = getopt_long(argc, argv, "+d:k:l:i:n:hv", longopts, NULL)) != -1) {
		switch (c) {
		case 'n': {
			long v = strtol(optarg, &end, 10);
			if (*end || v < 1 || v > 100000)
				cli_usage_err(usage, "-n wants a count from 1 to 100000: %s", optarg);
			count = v;
			break;
		}
		case 'd': dir = optarg; break;
		case 'k': kind = optarg; break;
		case 'i': cc.id = optarg; break;
		case 'v': err_verbose(1); break;
		case 'l':
			lease = strtod(optarg, &end);
			if (*end || end == optarg || lease <= 0 || lease > 86400 * 365)
				cli_usage_err(usage, "-l wants a number of seconds: %s", optarg);
			break;
		case CLAIMCMD_RENEW: case CLAIMCMD_RELEASE: case CLAIMCMD_TEST:
			if (op)
				cli_usage_err(usage, "one of --renew, --release, --test at a time");
			op = c;
			op_id = optarg;
			break;
		case 'h': cli_help(usage, options);
		case CLI_VERSION: cli_version();
		default: cli_usage(usage);
		}
	}
	if (!(cc.type = claimcmd_type(kind)))
		die(EX_DATAERR_, "-k: unknown kind %s; the kinds abx-claim takes are: crawl snapshot binary", kind);
	if ((op && (cc.id || optind < argc)) || (count && (op || cc.id || optind < argc)))
		cli_usage_err(usage, "%s takes no -i and no CMD", count ? "-n" : claimcmd_opname(op));
	const char *check = op ? op_id : cc.id;
	if (check && !id_valid(check))
		die(EX_DATAERR_, "not an id: %s", check);
	cc.lease_us = (int64_t)(lease * 1e6);
	cc.cmd = optind < argc ? argv + optind : NULL;
	store_t s;
	if (store_open(&s, dir, 0) < 0)
		die(s.err, "%s", s.errmsg);
	buf_t why = {0};
	int rc = op ? claimcmd_lease(&s, op, op_id, cc.lease_us, &why)
	       : count ? claimcmd_batch(&s, &cc, count, &why) : claimcmd_one(&s, &cc, &settled, &why);
	if (why.len)
		die(rc, "%s", why.p);
	if (settled) {
		store_close(&s);
		return rc;
	}
	if (store_close(&s) < 0 && rc == 0)
		die(s.err, "%s", s.errmsg);
	if (s.nerr)
		warnx_("%s (passed over)", s.errmsg);
	return rc;
}
