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
 * prints their records.
 */
#include <errno.h>
#include <getopt.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "store/claim.h"
#include "cli.h"
#include "base/err.h"
#include "base/exitcodes.h"
#include "store/lease.h"
#include "base/sigreset.h"
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

static volatile sig_atomic_t forward_sig;

static void
on_signal(int sig)
{
	forward_sig = sig;
}

static const char *
kind_type(const char *k)
{
	if (strcmp(k, "crawl") == 0)
		return "Crawl";
	if (strcmp(k, "snapshot") == 0)
		return "Snapshot";
	if (strcmp(k, "binary") == 0)
		return "Binary";
	return NULL;
}

static int
run_cmd(store_t *s, const char *kind, const char *id, int fd, int64_t lease_us, char **cmd)
{
	char fdbuf[16];
	snprintf(fdbuf, sizeof fdbuf, "%d", fd);
	struct sigaction sa = {0};
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	/* where its records are, from our index (store.h: Lean mode) */
	buf_t hint = {0};
	int hinted = store_hint(s, id, &hint) == 0;
	fflush(stdout);
	pid_t pid = fork();
	if (pid < 0)
		diesys(EX_SOFT_, "unable to fork");
	if (pid == 0) {
		signal(SIGINT, SIG_DFL);
		signal(SIGTERM, SIG_DFL);
		signal(SIGHUP, SIG_DFL);
		signal(SIGPIPE, SIG_DFL);   /* ours, not the command's */
		setenv("ABX_DIR", s->dir, 1);
		setenv("ABX_KIND", kind, 1);
		setenv("ABX_ID", id, 1);
		setenv("ABX_LEASE_FD", fdbuf, 1);
		if (hinted)
			setenv("ABX_HINT", buf_cstr(&hint), 1);
		else
			unsetenv("ABX_HINT");
		execvp(cmd[0], cmd);
		int e = errno;
		warnsys("unable to run %s", cmd[0]);
		_exit(e == ENOENT ? 127 : 126);
	}
	buf_free(&hint);
	int pidfd = syscall(SYS_pidfd_open, pid, 0);
	int64_t every = lease_us / 3 / 1000;   /* ms */
	int64_t next = clock_mono() / 1000 + every;
	int status = 0, renewing = 1;
	for (;;) {
		if (forward_sig) {
			kill(pid, forward_sig);
			forward_sig = 0;
		}
		pid_t w = waitpid(pid, &status, WNOHANG);
		if (w == pid)
			break;
		if (w < 0 && errno != EINTR)
			diesys(EX_SOFT_, "waitpid");
		int64_t now = clock_mono() / 1000;
		if (renewing && now >= next) {
			/* the record's expiry is the fallback where locks are
			 * not trusted; the flock is the truth */
			renewing = claim_renew(s, id, lease_us) == 0;
			next = now + every;
		}
		int wait_ms = renewing ? (int)(next - now) : 1000;
		if (wait_ms < 1)
			wait_ms = 1;
		if (pidfd >= 0) {
			struct pollfd p = {pidfd, POLLIN, 0};
			poll(&p, 1, wait_ms);
		} else {
			poll(NULL, 0, wait_ms < 100 ? wait_ms : 100);
		}
	}
	if (pidfd >= 0)
		close(pidfd);
	claim_release(s, id, (long)getpid());
	lease_drop(fd);
	if (WIFEXITED(status))
		return WEXITSTATUS(status);
	return 128 + WTERMSIG(status);
}

int
main(int argc, char **argv)
{
	static const struct option longopts[] = {
		CLI_VERSION_OPT,
		{"renew", required_argument, 0, 'R'}, {"release", required_argument, 0, 'U'},
		{"test", required_argument, 0, 'T'}, {"help", no_argument, 0, 'h'}, {0, 0, 0, 0},
	};
	const char *dir = NULL, *kind = "snapshot", *id = NULL, *op_id = NULL;
	int op = 0, c, count = 0;
	double lease = 60;
	err_init(argv[0]);
	sig_reset();
	signal(SIGPIPE, SIG_IGN);   /* a closed stdout is EPIPE, after the commit */
	/* '+': options stop at CMD, as in flock(1) */
	while ((c = getopt_long(argc, argv, "+d:k:l:i:n:hv", longopts, NULL)) != -1) {
		switch (c) {
		case 'n': {
			char *end;
			long v = strtol(optarg, &end, 10);
			if (*end || v < 1 || v > 100000) {
				cli_usage_err(usage, "-n wants a count from 1 to 100000: %s", optarg);
			}
			count = v;
			break;
		}
		case 'd': dir = optarg; break;
		case 'k': kind = optarg; break;
		case 'i': id = optarg; break;
		case 'v': err_verbose(1); break;
		case 'l': {
			char *end;
			lease = strtod(optarg, &end);
			if (*end || end == optarg || lease <= 0 || lease > 86400 * 365) {
				cli_usage_err(usage, "-l wants a number of seconds: %s", optarg);
			}
			break;
		}
		case 'R': case 'U': case 'T':
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
	const char *type = kind_type(kind);
	if (!type)
		die(EX_DATAERR_, "-k: unknown kind %s; the kinds abx-claim takes are: crawl snapshot binary", kind);
	if ((op && (id || optind < argc)) || (count && (op || id || optind < argc)))
		cli_usage_err(usage, "%s takes no -i and no CMD", count ? "-n" : op == 'R' ? "--renew" :
		    op == 'U' ? "--release" : "--test");
	const char *check = op ? op_id : id;
	if (check && !id_valid(check))
		die(EX_DATAERR_, "not an id: %s", check);
	int64_t lease_us = (int64_t)(lease * 1e6);
	store_t s;
	if (store_open(&s, dir, 0) < 0)
		die(s.err, "%s", s.errmsg);
	int rc;
	if (op == 'R' || op == 'U') {
		int r = op == 'R' ? claim_renew(&s, op_id, lease_us) : claim_release(&s, op_id, 0);
		if (r < 0)
			die(s.err, "%s %s: nothing changed: %s", op == 'R' ? "renew" : "release", op_id,
			    s.errmsg);
		rc = r == 0 ? 0 : 1;
		if (rc)
			warnx_("%s carries no lease", op_id);
	} else if (op == 'T') {
		rc = claim_leased(&s, op_id) ? 0 : 1;
	} else if (count) {
		claim_opts_t o = {lease_us, 0, 0};
		rec_t *v = xcalloc(count, sizeof(rec_t));
		int *fds = xcalloc(count, sizeof(int));
		int got = claim_next_batch(&s, type, NULL, &o, count, v, fds);
		if (got < 0)
			die(s.err, "nothing claimed: %s", s.errmsg);
		for (int i = 0; i < got; i++) {
			buf_t b = {0};
			rec_line(&v[i], &b);
			cli_out(b.p, b.len);
			buf_free(&b);
			rec_free(&v[i]);
		}
		free(v);
		free(fds);
		rc = got ? 0 : 1;
	} else {
		claim_opts_t o = {lease_us, optind < argc, id != NULL};
		rec_t r;
		int fd = -1;
		int cr = id ? claim_id(&s, id, &o, &r, &fd) : claim_next(&s, type, NULL, &o, &r, &fd);
		switch (cr) {
		case CLAIM_OK: break;
		case CLAIM_NONE: store_close(&s); return id ? (warnx_("%s is not due", id), 1) : 1;
		case CLAIM_BUSY: warnx_("%s is leased by someone else", id); store_close(&s); return EX_TEMPFAIL_;
		case CLAIM_PAUSED: warnx_("%s is paused", id); store_close(&s); return 1;
		case CLAIM_FINAL: warnx_("%s is sealed", id); store_close(&s); return 1;
		case CLAIM_NOTFOUND: die(EX_DATAERR_, "no record with id %s", id);
		case CLAIM_ERROR: die(s.err ? s.err : EX_IOERR_, "nothing claimed: %s", s.errmsg);
		default: die(EX_SOFT_, "internal error: claim returned %d", cr);
		}
		char *rid = rec_str(&r, "id");
		if (optind < argc) {
			/* the item's own kind: -i may name a crawl under -k snapshot */
			const char *k = rec_streq(&r, "type", "Crawl") ? "crawl"
			              : rec_streq(&r, "type", "Binary") ? "binary" : "snapshot";
			rc = run_cmd(&s, k, rid, fd, lease_us, argv + optind);
		} else {
			buf_t b = {0};
			rec_line(&r, &b);
			cli_out(b.p, b.len);
			buf_free(&b);
			rc = 0;
		}
		free(rid);
		rec_free(&r);
	}
	if (store_close(&s) < 0 && rc == 0)
		die(s.err, "%s", s.errmsg);
	if (s.nerr)
		warnx_("%s (passed over)", s.errmsg);
	return rc;
}
