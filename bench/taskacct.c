/*
 * taskacct — run a command and say, by program, how many processes it and
 * its descendants ran and how much CPU they used.
 *
 *   taskacct [-o FILE] -- COMMAND [ARG...]
 *
 * The kernel's per-task exit accounting (taskstats over generic netlink,
 * Documentation/accounting/taskstats.rst) is listened to on every CPU
 * before COMMAND starts: each task that exits while it runs is one record
 * (its pid, thread group, parent's thread group, comm, CPU time).  taskacct is a child subreaper
 * (PR_SET_CHILD_SUBREAPER), so a daemon that double-forks stays below
 * it.  When COMMAND ends, its orphans are waited for (SIGTERM to those
 * still up after a second is not ours to do: they are waited for as long
 * as they live), the socket is drained, and the records whose parent
 * chain reaches COMMAND (or taskacct itself) are kept: other processes on
 * the machine exit too and are not counted.
 *
 * Output, to FILE (default standard error), one line a program, most CPU
 * first:
 *   PROCS THREADS CPU_US COMM
 * then "total PROCS THREADS CPU_US".  A process is a thread group, counted
 * under its leader's comm (the kernel's 15-byte name of its last exec),
 * its threads' CPU with it.  CPU_US is the scheduler's exact runtime
 * where the kernel reports it, else user + system time (sampled at the
 * tick).  The exit status is
 * COMMAND's (128 + signal if killed); 69 if taskstats is not available
 * (no CONFIG_TASKSTATS, or not root: CAP_NET_ADMIN is needed), with the
 * reason on standard error; 1 if the kernel dropped records (ENOBUFS:
 * the figures would be short), with a line saying so.
 */
#include <errno.h>
#include <linux/genetlink.h>
#include <linux/netlink.h>
#include <linux/taskstats.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define BUFSZ (1 << 16)

struct rec {
	uint32_t pid, tgid, ppid;
	uint64_t cpu_us;
	uint64_t start_s;   /* when the task began (s since the epoch) */
	uint64_t end_s;     /* when its record came: its exit, within a second */
	char comm[TS_COMM_LEN];
};

static struct rec *recs;
static size_t nrec, caprec;
static int dropped;

static int
nl_send(int s, uint16_t type, uint8_t cmd, uint16_t attr, const void *val, size_t len)
{
	char buf[512] = {0};
	struct nlmsghdr *n = (struct nlmsghdr *)buf;
	struct genlmsghdr *g = NLMSG_DATA(n);
	struct nlattr *a = (struct nlattr *)((char *)g + GENL_HDRLEN);
	if (NLA_HDRLEN + len > sizeof buf - NLMSG_HDRLEN - GENL_HDRLEN - 8)
		return -1;
	n->nlmsg_type = type;
	n->nlmsg_flags = NLM_F_REQUEST;
	n->nlmsg_pid = (uint32_t)getpid();
	g->cmd = cmd;
	g->version = 1;
	a->nla_type = attr;
	a->nla_len = (uint16_t)(NLA_HDRLEN + len);
	memcpy((char *)a + NLA_HDRLEN, val, len);
	n->nlmsg_len = (uint32_t)(NLMSG_HDRLEN + GENL_HDRLEN + NLA_ALIGN(a->nla_len));
	struct sockaddr_nl to = {.nl_family = AF_NETLINK};
	return sendto(s, buf, n->nlmsg_len, 0, (struct sockaddr *)&to, sizeof to) < 0 ? -1 : 0;
}

/* The generic netlink family id of TASKSTATS, or -1. */
static int
family_id(int s)
{
	if (nl_send(s, GENL_ID_CTRL, CTRL_CMD_GETFAMILY, CTRL_ATTR_FAMILY_NAME,
	    TASKSTATS_GENL_NAME, sizeof TASKSTATS_GENL_NAME) < 0)
		return -1;
	static char buf[BUFSZ];
	ssize_t r = recv(s, buf, sizeof buf, 0);
	if (r <= 0)
		return -1;
	struct nlmsghdr *n = (struct nlmsghdr *)buf;
	if (!NLMSG_OK(n, (size_t)r) || n->nlmsg_type == NLMSG_ERROR)
		return -1;
	struct nlattr *a = (struct nlattr *)((char *)NLMSG_DATA(n) + GENL_HDRLEN);
	int left = (int)(n->nlmsg_len - NLMSG_HDRLEN - GENL_HDRLEN);
	while (left >= NLA_HDRLEN && a->nla_len >= NLA_HDRLEN && a->nla_len <= left) {
		if (a->nla_type == CTRL_ATTR_FAMILY_ID)
			return *(uint16_t *)((char *)a + NLA_HDRLEN);
		left -= NLA_ALIGN(a->nla_len);
		a = (struct nlattr *)((char *)a + NLA_ALIGN(a->nla_len));
	}
	return -1;
}

static void
keep(const struct taskstats *t)
{
	if (nrec == caprec) {
		caprec = caprec ? caprec * 2 : 4096;
		recs = realloc(recs, caprec * sizeof *recs);
		if (!recs) {
			perror("taskacct");
			exit(1);
		}
	}
	struct rec *r = &recs[nrec++];
	r->pid = t->ac_pid;
	r->tgid = t->ac_tgid;
	r->ppid = t->ac_ppid;
	r->start_s = t->ac_btime64 ? t->ac_btime64 : t->ac_btime;
	r->end_s = (uint64_t)time(NULL);
	/* the scheduler's exact runtime (ns, cpu_run_virtual_total) where the
	 * kernel gives it; else
	 * utime + stime, which are sampled at the tick (4 ms at HZ=250) */
	r->cpu_us = t->cpu_run_virtual_total ? t->cpu_run_virtual_total / 1000 : t->ac_utime + t->ac_stime;
	memcpy(r->comm, t->ac_comm, TS_COMM_LEN);
	r->comm[TS_COMM_LEN - 1] = 0;
}

/* The per-task records (TASKSTATS_TYPE_AGGR_PID) of one message. */
static void
take(const char *buf, ssize_t len)
{
	for (const struct nlmsghdr *n = (const void *)buf; NLMSG_OK(n, (size_t)len); n = NLMSG_NEXT(n, len)) {
		if (n->nlmsg_type == NLMSG_ERROR || n->nlmsg_type == NLMSG_DONE)
			continue;
		const struct nlattr *a = (const void *)((const char *)NLMSG_DATA(n) + GENL_HDRLEN);
		int left = (int)(n->nlmsg_len - NLMSG_HDRLEN - GENL_HDRLEN);
		for (; left >= NLA_HDRLEN && a->nla_len >= NLA_HDRLEN && a->nla_len <= left;
		     left -= NLA_ALIGN(a->nla_len), a = (const void *)((const char *)a + NLA_ALIGN(a->nla_len))) {
			if (a->nla_type != TASKSTATS_TYPE_AGGR_PID)
				continue;
			const struct nlattr *b = (const void *)((const char *)a + NLA_HDRLEN);
			int bl = a->nla_len - NLA_HDRLEN;
			for (; bl >= NLA_HDRLEN && b->nla_len >= NLA_HDRLEN && b->nla_len <= bl;
			     bl -= NLA_ALIGN(b->nla_len), b = (const void *)((const char *)b + NLA_ALIGN(b->nla_len)))
				if (b->nla_type == TASKSTATS_TYPE_STATS)
					keep((const struct taskstats *)((const char *)b + NLA_HDRLEN));
		}
	}
}

/*
 * The records that arrive within ms: a deadline, not a wait for quiet,
 * since the machine's other processes exit too (a shell loop beside us
 * would otherwise keep us here until it stops).
 */
static void
drain(int s, int ms)
{
	static char buf[BUFSZ];
	struct pollfd p = {s, POLLIN, 0};
	struct timespec t0, t;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (;;) {
		clock_gettime(CLOCK_MONOTONIC, &t);
		long left = ms - ((t.tv_sec - t0.tv_sec) * 1000 + (t.tv_nsec - t0.tv_nsec) / 1000000);
		if (left < 0 || poll(&p, 1, (int)left) <= 0)
			break;
		ssize_t r = recv(s, buf, sizeof buf, 0);
		if (r < 0 && errno == ENOBUFS) {
			dropped = 1;
			continue;
		}
		if (r <= 0)
			break;
		take(buf, r);
	}
}

/*
 * The processes (thread group leaders' records), sorted by tgid, to walk
 * up from a record to its ancestors.  Pids are reused (pid_max is 32768
 * here, and a busy machine goes round it in minutes), so a parent is the
 * process of that tgid that was alive when the child began: it began no
 * later, and its record came no earlier (a second of slack each way:
 * start times are in seconds, and the kernel derives each at exit from
 * the time since boot, so a child's may round to a second before its
 * parent's: without it a hook or a browser was now and then lost, with
 * everything it started).
 */
static struct rec **procs;
static size_t nprocs;
static uint64_t root_start;

static int
bytgid(const void *a, const void *b)
{
	const struct rec *x = *(const struct rec *const *)a, *y = *(const struct rec *const *)b;
	return x->tgid < y->tgid ? -1 : x->tgid > y->tgid;
}

static void
index_procs(void)
{
	procs = calloc(nrec + 1, sizeof *procs);
	for (size_t i = 0; i < nrec; i++)
		if (recs[i].pid == recs[i].tgid)
			procs[nprocs++] = &recs[i];
	qsort(procs, nprocs, sizeof *procs, bytgid);
}

/* The process tgid alive at second t, or NULL. */
static const struct rec *
process_at(uint32_t tgid, uint64_t t)
{
	size_t lo = 0, hi = nprocs;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		if (procs[mid]->tgid < tgid)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (; lo < nprocs && procs[lo]->tgid == tgid; lo++)
		if (procs[lo]->start_s <= t + 1 && procs[lo]->end_s + 1 >= t)
			return procs[lo];
	return NULL;
}

/* Did the task of r begin below root (or below taskacct, its orphans'
 * reaper), by the parents the records name? */
static int
ours(const struct rec *r, uint32_t root, uint32_t self)
{
	uint32_t ppid = r->ppid;
	uint64_t t = r->start_s;
	for (int hops = 0; hops < 64; hops++) {
		if (ppid == self || (ppid == root && t >= root_start))
			return 1;
		const struct rec *p = process_at(ppid, t);
		if (!p || p->ppid == p->tgid)
			return 0;
		ppid = p->ppid;
		t = p->start_s;
	}
	return 0;
}

struct prog {
	char comm[TS_COMM_LEN];
	unsigned procs, threads;
	uint64_t cpu_us;
};

static int
bycpu(const void *a, const void *b)
{
	const struct prog *x = a, *y = b;
	return x->cpu_us < y->cpu_us ? 1 : x->cpu_us > y->cpu_us ? -1 : strcmp(x->comm, y->comm);
}

static void
report(FILE *f, uint32_t root)
{
	struct prog *p = calloc(nrec + 1, sizeof *p);
	size_t np = 0;
	unsigned tp = 0, tt = 0;
	uint64_t tc = 0;
	uint32_t self = (uint32_t)getpid();
	index_procs();
	for (size_t i = 0; i < nrec; i++) {
		struct rec *r = &recs[i];
		/* a thread counts under its process's name and ancestry */
		const struct rec *lead = r->pid == r->tgid ? r : process_at(r->tgid, r->start_s);
		if (!lead || (lead->tgid != root && !ours(lead, root, self)))
			continue;
		const char *comm = lead->comm;
		size_t k = 0;
		while (k < np && strcmp(p[k].comm, comm))
			k++;
		if (k == np)
			memcpy(p[np++].comm, comm, TS_COMM_LEN);
		p[k].threads++;
		p[k].cpu_us += r->cpu_us;
		if (r->pid == r->tgid)
			p[k].procs++, tp++;
		tt++;
		tc += r->cpu_us;
	}
	qsort(p, np, sizeof *p, bycpu);
	for (size_t k = 0; k < np; k++)
		fprintf(f, "%u %u %llu %s\n", p[k].procs, p[k].threads, (unsigned long long)p[k].cpu_us, p[k].comm);
	fprintf(f, "total %u %u %llu\n", tp, tt, (unsigned long long)tc);
	free(p);
}

int
main(int argc, char **argv)
{
	const char *out = NULL;
	int i = 1;
	if (i + 1 < argc && !strcmp(argv[i], "-o"))
		out = argv[i + 1], i += 2;
	if (i < argc && !strcmp(argv[i], "--"))
		i++;
	if (i >= argc) {
		fprintf(stderr, "usage: taskacct [-o FILE] -- COMMAND [ARG...]\n");
		return 64;
	}
	int s = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_GENERIC);
	int big = 32 << 20;
	if (s >= 0)
		setsockopt(s, SOL_SOCKET, SO_RCVBUFFORCE, &big, sizeof big);
	struct sockaddr_nl me = {.nl_family = AF_NETLINK};
	int fam = s < 0 || bind(s, (struct sockaddr *)&me, sizeof me) < 0 ? -1 : family_id(s);
	char mask[32];
	snprintf(mask, sizeof mask, "0-%ld", sysconf(_SC_NPROCESSORS_CONF) - 1);
	if (fam < 0 || nl_send(s, (uint16_t)fam, TASKSTATS_CMD_GET, TASKSTATS_CMD_ATTR_REGISTER_CPUMASK, mask, strlen(mask) + 1) < 0) {
		fprintf(stderr, "taskacct: taskstats is not available here (%s): needs CONFIG_TASKSTATS and CAP_NET_ADMIN\n",
		    errno ? strerror(errno) : "no TASKSTATS family");
		return 69;
	}
	prctl(PR_SET_CHILD_SUBREAPER, 1);
	root_start = (uint64_t)time(NULL);
	pid_t kid = fork();
	if (kid < 0) {
		perror("taskacct: fork");
		return 71;
	}
	if (kid == 0) {
		execvp(argv[i], argv + i);
		fprintf(stderr, "taskacct: cannot run %s: %s\n", argv[i], strerror(errno));
		_exit(127);
	}
	int st = 0, rc = -1;
	for (;;) {
		drain(s, 50);
		int w;
		pid_t got;
		while ((got = waitpid(-1, &w, WNOHANG)) > 0)
			if (got == kid)
				st = w, rc = 0;
		if (got < 0 && errno == ECHILD)
			break;   /* COMMAND and every orphan of it are gone */
	}
	drain(s, 200);
	FILE *f = out ? fopen(out, "w") : stderr;
	if (!f) {
		fprintf(stderr, "taskacct: cannot write %s: %s\n", out, strerror(errno));
		return 73;
	}
	report(f, (uint32_t)kid);
	if (out)
		fclose(f);
	if (dropped) {
		fprintf(stderr, "taskacct: the kernel dropped exit records (ENOBUFS): the figures are short\n");
		return 1;
	}
	(void)rc;
	return WIFSIGNALED(st) ? 128 + WTERMSIG(st) : WEXITSTATUS(st);
}
