/* hookserve.c — see hookserve.h. */
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "base/err.h"
#include "base/exitcodes.h"
#include "base/hookrun.h"
#include "base/fs.h"
#include "base/ids.h"
#include "ctl/hookserve.h"
#include "ctl/pluginsarg.h"
#include "hook/phase.h"
#include "hook/plugin.h"
#include "seal/seal.h"
#include "store/lease.h"
#include "store/store.h"
#include "tick/settings.h"

#define MSG_MAX 16384

/* One message and the descriptor that came with it (*fd, or -1); its
 * length, 0 at end of file, -1 on error. */
static ssize_t
receive(int in, char *msg, size_t size, int *fd)
{
	union {
		struct cmsghdr h;
		char b[CMSG_SPACE(sizeof(int))];
	} c;
	struct iovec iov = {msg, size - 1};
	struct msghdr m = {.msg_iov = &iov, .msg_iovlen = 1, .msg_control = c.b, .msg_controllen = sizeof c.b};
	*fd = -1;
	ssize_t n = recvmsg(in, &m, MSG_CMSG_CLOEXEC);
	if (n < 0)
		return -1;
	for (struct cmsghdr *h = CMSG_FIRSTHDR(&m); h; h = CMSG_NXTHDR(&m, h))
		if (h->cmsg_level == SOL_SOCKET && h->cmsg_type == SCM_RIGHTS && h->cmsg_len >= CMSG_LEN(sizeof(int)))
			memcpy(fd, CMSG_DATA(h), sizeof(int));
	if (m.msg_flags & (MSG_TRUNC | MSG_CTRUNC)) {
		warnx_("a request longer than %d bytes: refused", MSG_MAX);
		msg[0] = 0;
		return (ssize_t)size;   /* handled as an unreadable request */
	}
	msg[n] = 0;
	return n;
}

/* Split msg at tabs into want fields; 0, or -1 if there are fewer. */
static int
fields(char *msg, char **f, int want)
{
	for (int i = 0; i < want; i++) {
		f[i] = msg;
		char *tab = strchr(msg, '\t');
		if (i < want - 1) {
			if (!tab)
				return -1;
			*tab = 0;
			msg = tab + 1;
		}
	}
	return 0;
}

/* The bytes under the snapshot's directory once its phase ran (0 or 1):
 * what the tick counts against CRAWL_MAX_SIZE and the seal records, walked
 * here, in the worker, rather than in the tick, which serves every
 * worker's snapshots one after another; -1 if unknown. */
static long long
phase_size(store_t *s, const char *id)
{
	rec_t r;
	char dir[256];
	long long size = -1;
	if (store_get(s, id, &r) < 0)
		return -1;
	if (seal_dir_of(&r, dir, sizeof dir) == 0)
		size = fs_du(s->dfd, dir);
	rec_free(&r);
	return size;
}

/* Run one request: what `abx-hook ID` does; its exit status, and in *size
 * the bytes phase_size found (-1 if not walked). */
static int
serve_one(const char *dir, char *msg, int fd, FILE *out, const sigset_t *waitmask, volatile sig_atomic_t *stop,
    int reap_orphans, char *idout, long long *size)
{
	*size = -1;
	char *f[4];
	if (fields(msg, f, 4) < 0) {
		warnx_("a request that is not ID, PLUGINS, BUDGET and HINT separated by tabs: %.80s", msg);
		return EX_DATAERR_;
	}
	if (!id_valid(f[0])) {
		warnx_("not an id: %.80s", f[0]);
		return EX_DATAERR_;
	}
	snprintf(idout, ID_LEN + 1, "%s", f[0]);
	char *end;
	long long budget = strtoll(f[2], &end, 10);
	if (*end || budget < 0) {
		warnx_("snapshot %s: budget %.40s: not a number of bytes", f[0], f[2]);
		return EX_DATAERR_;
	}
	char **names = NULL;
	buf_t why = {0};
	int rc = *f[1] ? plugins_arg(f[1], &names, &why) : 0;
	if (rc) {
		warnx_("snapshot %s: %s", f[0], why.p);
		buf_free(&why);
		return rc;
	}
	store_t s;
	if (store_open(&s, dir, 0) < 0) {
		warnx_("%s", s.errmsg);
		name_list_free(names);
		return s.err;
	}
	if (*f[3] && store_lean(&s, f[3]) < 0)
		warnx_("snapshot %s: hints %.80s: not location hints (ID=JOURNAL:OFFSET words); ignored", f[0], f[3]);
	if ((rc = settings_check_global(s.dfd, &why)) != 0) {
		warnx_("%s: %s", s.dir, why.p);
	} else if (fd < 0 || lease_held(&s, f[0], fd) != 1) {
		warnx_("snapshot %s: the lease that came with it is not a lock on locks/%s; not run", f[0], f[0]);
		rc = EX_TEMPFAIL_;
	} else {
		phase_opts_t o = {
			.family = "Snapshot", .id = f[0], .plugins = names, .reap_orphans = reap_orphans,
			.out = out, .waitmask = waitmask, .stop = stop, .size_budget = budget,
		};
		rc = phase_run(&s, &o);
		if ((rc == 0 || rc == 1) && !*stop)
			*size = phase_size(&s, f[0]);
	}
	buf_free(&why);
	name_list_free(names);
	if (store_close(&s) < 0 || s.nerr) {
		if (rc == 0 || rc == 1)
			rc = s.err ? s.err : EX_IOERR_;
	}
	return rc;
}

int
hook_serve(const char *dir, int in, FILE *out, const sigset_t *waitmask, volatile sig_atomic_t *stop,
    int reap_orphans)
{
	char *msg = xmalloc(MSG_MAX + 1);
	int rc = 0;
	/* this worker, for a hook that keeps a process up across its
	 * snapshots (the chrome plugin's browser; phase.h, step 9) */
	char w[48];
	snprintf(w, sizeof w, "%ld.%lld", (long)getpid(), proc_starttime(getpid()));
	setenv("ABX_WORKER", w, 1);
	phase_gate_keep();   /* one egress gate for all its snapshots */
	plugins_keep();      /* and one discovery of the plugins, while it holds */
	while (!*stop) {
		struct pollfd p = {in, POLLIN, 0};
		if (ppoll(&p, 1, NULL, waitmask) < 0) {
			if (errno == EINTR)
				continue;
			warnsys("unable to wait for a request on stdin");
			rc = EX_IOERR_;
			break;
		}
		int fd;
		ssize_t n = receive(in, msg, MSG_MAX + 1, &fd);
		if (n == 0)
			break;
		if (n < 0) {
			if (errno == EINTR || errno == EAGAIN)
				continue;
			warnsys("unable to read a request on stdin (a SOCK_SEQPACKET socket from abx-tick)");
			rc = EX_IOERR_;
			break;
		}
		char id[ID_LEN + 1] = "";
		long long size;
		int code = serve_one(dir, msg, fd, out, waitmask, stop, reap_orphans, id, &size);
		if (fd >= 0)
			close(fd);
		if (size >= 0)
			fprintf(out, "{\"type\":\"PhaseEnd\",\"id\":\"%s\",\"exit\":%d,\"size\":%lld}\n", id, code,
			    size);
		else
			fprintf(out, "{\"type\":\"PhaseEnd\",\"id\":\"%s\",\"exit\":%d}\n", id, code);
		if (fflush(out) == EOF) {
			rc = EX_IOERR_;
			break;
		}
	}
	free(msg);
	phase_end_kept();
	return *stop && !rc ? EX_TEMPFAIL_ : rc;
}
