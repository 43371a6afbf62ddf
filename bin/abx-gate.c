/*
 * abx-gate — the egress gate on its own, to try it or to put it in front
 * of a fetcher by hand (abx-gate(1)).
 *
 * gate_start() makes N listeners on 127.0.0.1 and forks the gate; their
 * addresses go to stdout, "127.0.0.1:PORT" a line, flushed.  Then, until
 * SIGTERM (or SIGINT) or the end of stdin, the refusals the gate logs are
 * copied to stdout as JSON lines, a tenth of a second or less after each.
 * The gate itself is the library's: net/gate.h.
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
#include "net/netzone.h"

static const char options[] =
    "  --allow ZONES   the zones let through besides public: zone names, or true (default: none)\n"
    "  --page URL      the page's URL: its refusals and its redirects' are \"page\":true\n"
    "  --listen N      listen on N ports (default 1)\n"
    "  -h, --help      print this help and exit\n"
    "  --version       print the version and exit\n";
static const char usage[] = "abx-gate [--allow ZONES] [--page URL] [--listen N]";
static volatile sig_atomic_t stop;

static void on_stop(int sig) { stop = sig; }

static void
print(void *ctx, const gate_refusal_t *r)
{
	buf_t b = {0};
	buf_addf(&b, "{\"listener\":%d,\"url\":", r->listener);
	buf_json_strz(&b, r->url);
	buf_adds(&b, ",\"host\":");
	buf_json_strz(&b, r->host);
	buf_addf(&b, ",\"address\":\"%s\",\"zone\":\"%s\",\"page\":%s}", r->address, r->zone, r->page ? "true" : "false");
	cli_out(b.p, b.len);
	buf_free(&b);
}

int
main(int argc, char **argv)
{
	static const struct option longopts[] = {
		CLI_VERSION_OPT, {"allow", required_argument, 0, 'a'}, {"page", required_argument, 0, 'p'},
		{"listen", required_argument, 0, 'n'}, {"help", no_argument, 0, 'h'},
		{"serve", required_argument, 0, 's'}, {"parent", required_argument, 0, 'P'}, {0, 0, 0, 0},
	};
	err_init(argv[0]);
	sig_reset();
	unsigned allow = 0;
	const char *page = NULL;
	char *end;
	long n = 1, serve = 0, parent = 0;
	for (int c; (c = getopt_long(argc, argv, "h", longopts, NULL)) != -1;) {
		switch (c) {
		case 'a':
			if (netzone_parse_allow(optarg, &allow) < 0)
				cli_usage_err(usage, "--allow: not zone names or a boolean: %s", optarg);
			break;
		case 'p': page = optarg; break;
		case 'n':
			n = strtol(optarg, &end, 10);
			if (*end || n < 1 || n > 1024)
				cli_usage_err(usage, "--listen: not a number from 1 to 1024: %s", optarg);
			break;
		case 's': serve = strtol(optarg, &end, 10); break;   /* gate_start's, gate.h */
		case 'P': parent = strtol(optarg, &end, 10); break;
		case 'h': cli_help(usage, options);
		case CLI_VERSION: cli_version();
		default: cli_usage(usage);
		}
	}
	if (optind < argc)
		cli_usage_err(usage, "no operands: %s", argv[optind]);
	if (serve > 0 && gate_serve_fds((int)serve, allow, page, (pid_t)parent) < 0)
		diesys(EX_SOFT_, "--serve %ld: the gate cannot start", serve);
	struct sigaction sa = {.sa_handler = on_stop};
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	gate_t g;
	if (gate_start(&g, (int)n, allow, page) < 0)
		diesys(EX_SOFT_, "cannot start the gate");
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
