/*
 * abx-gate — the egress gate on its own, to try it or to put it in front
 * of a fetcher by hand (abx-gate(1)).
 *
 * gate_start() makes N listeners on 127.0.0.1 and forks the gate; their
 * addresses go to stdout, "127.0.0.1:PORT" a line, flushed.  Then, until
 * SIGTERM (or SIGINT) or the end of stdin, the refusals the gate logs are
 * copied to stdout as JSON lines, a tenth of a second or less after each.
 * With --pace and --data, it paces its connections a host with every
 * other gate on that data directory.  The gate itself is the library's:
 * net/gate.h.
 */
#include <errno.h>
#include <getopt.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli.h"
#include "base/err.h"
#include "base/exitcodes.h"
#include "base/sigreset.h"
#include "net/gate.h"
#include "net/hostpace.h"
#include "net/netzone.h"

static const char options[] =
    "  --allow ZONES    the zones let through besides public: zone names, or true (default: none)\n"
    "  --page URL       the page's URL: its refusals and its redirects' are \"page\":true\n"
    "  --listen N       listen on N ports (default 1)\n"
    "  --pace N         at most N connections to a host at once (1 to 64), with --data\n"
    "  --data DIR       the data directory whose locks/ counts them, with every gate on it\n"
    "  --pace-wait S    how long a connection waits for one, 1 to 3600 seconds (default 60)\n"
    "  -h, --help       print this help and exit\n"
    "  --version        print the version and exit\n";
static const char usage[] = "abx-gate [--allow ZONES] [--page URL] [--listen N] [--pace N --data DIR [--pace-wait S]]";
static volatile sig_atomic_t stop;

typedef struct {
	unsigned allow;
	const char *page;
	long n, serve, parent;
	gate_pace_t pace;
	int kept;
} opts_t;

static void on_stop(int sig) { stop = sig; }

static void
print(void *ctx, const gate_refusal_t *r)
{
	buf_t b = {0};
	buf_addf(&b, "{\"listener\":%d,\"url\":", r->listener);
	buf_json_strz(&b, r->url);
	buf_adds(&b, ",\"host\":");
	buf_json_strz(&b, r->host);
	if (r->paced)
		buf_addf(&b, ",\"paced\":%d,\"page\":%s}", r->paced, r->page ? "true" : "false");
	else
		buf_addf(&b, ",\"address\":\"%s\",\"zone\":\"%s\",\"page\":%s}", r->address, r->zone,
		    r->page ? "true" : "false");
	cli_out(b.p, b.len);
	buf_free(&b);
}

/* A number from lo to hi, or a usage error naming the option. */
static long
number(const char *opt, const char *s, long lo, long hi)
{
	char *end;
	errno = 0;
	long v = strtol(s, &end, 10);
	if (errno || end == s || *end || v < lo || v > hi)
		cli_usage_err(usage, "%s: not a number from %ld to %ld: %s", opt, lo, hi, s);
	return v;
}

static void
parse(int argc, char **argv, opts_t *o)
{
	static const struct option longopts[] = {
		CLI_VERSION_OPT, {"allow", required_argument, 0, 'a'}, {"page", required_argument, 0, 'p'},
		{"listen", required_argument, 0, 'n'}, {"help", no_argument, 0, 'h'},
		{"pace", required_argument, 0, 'c'}, {"data", required_argument, 0, 'd'},
		{"pace-wait", required_argument, 0, 'w'},
		{"serve", required_argument, 0, 's'}, {"parent", required_argument, 0, 'P'},
		{"kept", no_argument, 0, 'k'}, {0, 0, 0, 0},
	};
	for (int c; (c = getopt_long(argc, argv, "h", longopts, NULL)) != -1;) {
		switch (c) {
		case 'a':
			if (netzone_parse_allow(optarg, &o->allow) < 0)
				cli_usage_err(usage, "--allow: not zone names or a boolean: %s", optarg);
			break;
		case 'p': o->page = optarg; break;
		case 'n': o->n = number("--listen", optarg, 1, 1024); break;
		case 'c': o->pace.max = (int)number("--pace", optarg, 1, HOSTPACE_SLOTS_MAX); break;
		case 'd': o->pace.dir = optarg; break;
		case 'w': o->pace.wait = (int)number("--pace-wait", optarg, 1, 3600); break;
		case 's': o->serve = number("--serve", optarg, 1, GATE_MAX_LISTENERS); break;   /* gate_start's, gate.h */
		case 'P': o->parent = number("--parent", optarg, 1, 1L << 30); break;
		case 'k': o->kept = 1; break;   /* gate_start_kept's, gate.h */
		case 'h': cli_help(usage, options);
		case CLI_VERSION: cli_version();
		default: cli_usage(usage);
		}
	}
	if (optind < argc)
		cli_usage_err(usage, "no operands: %s", argv[optind]);
	if (!o->pace.max != !o->pace.dir)
		cli_usage_err(usage, "--pace and --data go together: the number, and the data directory that counts");
	if (o->pace.wait && !o->pace.max)
		cli_usage_err(usage, "--pace-wait needs --pace");
}

int
main(int argc, char **argv)
{
	err_init(argv[0]);
	sig_reset();
	opts_t o = {0, NULL, 1, 0, 0, {0, NULL, 0}, 0};
	parse(argc, argv, &o);
	if (o.kept && gate_serve_kept(3, (pid_t)o.parent) < 0)
		diesys(EX_SOFT_, "--kept: the gate cannot start");
	if (o.kept)
		return 0;
	const gate_pace_t *pace = o.pace.max ? &o.pace : NULL;
	const char *why = "";
	if (o.serve > 0 && gate_serve_fds((int)o.serve, o.allow, o.page, (pid_t)o.parent, pace, &why) < 0) {
		if (*why)
			diesys(EX_SOFT_, "--serve: --data %s: %s", o.pace.dir, why);
		diesys(EX_SOFT_, "--serve %ld: the gate cannot start", o.serve);
	}
	struct sigaction sa = {.sa_handler = on_stop};
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	gate_t g;
	if (gate_start(&g, (int)o.n, o.allow, o.page, pace, &why) < 0) {
		if (*why)
			diesys(EX_USAGE_, "--data %s: %s", o.pace.dir, why);
		diesys(EX_SOFT_, "cannot start the gate");
	}
	for (int i = 0; i < g.n; i++)
		printf("127.0.0.1:%d\n", g.port[i]);
	fflush(stdout);
	struct pollfd in = {0, POLLIN, 0};
	char b[512];
	int rc = EX_DONE;
	siginfo_t si;
	while (!stop) {
		ssize_t k = 1;
		if (poll(&in, 1, 100) > 0 && (in.revents & POLLNVAL))
			in.fd = -1;   /* no stdin: until SIGTERM */
		else if (in.revents && (k = read(0, b, sizeof b)) == 0)
			break;
		if (k < 0 && errno != EINTR && errno != EAGAIN)
			break;
		gate_refusals(&g, print, NULL);
		si.si_pid = 0;
		if (waitid(P_PID, (id_t)g.pid, &si, WEXITED | WNOHANG | WNOWAIT) == 0 && si.si_pid) {
			errorx("the gate (pid %d) ended by itself", (int)g.pid);
			rc = EX_SOFT_;
			break;
		}
	}
	gate_refusals(&g, print, NULL);
	gate_stop(&g);
	return rc;
}
