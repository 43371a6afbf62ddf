/* daemon.c — see daemon.h. */
#include <errno.h>
#include <inotifytools/inotify.h>
#include <inotifytools/inotifytools.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/vfs.h>
#include <time.h>

#include "base/config.h"
#include "tick/settings.h"
#include "tick/daemon.h"
#include "base/exitcodes.h"
#include "base/err.h"
#include "tick/repair.h"
#include "tick/retention.h"

volatile sig_atomic_t daemon_mode_active;

int
daemon_remote_fs(int dfd)
{
	struct statfs st;
	if (fstatfs(dfd, &st) < 0)
		return 1;
	switch ((unsigned long)st.f_type) {
	case 0x6969:        /* NFS */
	case 0xFF534D42:    /* CIFS */
	case 0xFE534D42:    /* SMB2 */
	case 0x517B:        /* SMB */
	case 0x65735546:    /* FUSE: GlusterFS, ceph-fuse, sshfs */
	case 0x00C36400:    /* CephFS */
	case 0x5346414F:    /* AFS */
	case 0x47504653:    /* GPFS */
	case 0x0BD00BD0:    /* Lustre */
		return 1;
	}
	return 0;
}

int64_t
daemon_next_due(store_t *s)
{
	store_lock(s);
	ient_t *v;
	size_t n = store_active(s, NULL, &v);
	store_unlock(s);
	int64_t best = -1;
	for (size_t i = 0; i < n; i++) {
		if (v[i].retry_at < 0 || v[i].retry_at == INT64_MAX || !strcmp(v[i].status, "paused"))
			continue;
		if (best < 0 || v[i].retry_at < best)
			best = v[i].retry_at;
	}
	free(v);
	return best;
}

#define ERROR_BACKOFF 5.0   /* seconds after a pass that failed */

typedef struct {
	double poll, repair;
} dconf_t;

/* The daemon's settings; 0, or 78 (reported) if abx.conf or the
 * environment holds a bad value. */
static int
load_conf(tick_t *t, dconf_t *d, double poll_flag, int remote)
{
	buf_t why = {0};
	int bad = settings_check_global(t->s->dfd, &why);
	if (bad) {
		errorx("%s: %s", t->s->dir, why.p);
		buf_free(&why);
		return bad;
	}
	buf_free(&why);
	conf_t c = {0};
	conf_load_file(&c, t->s->dfd, "abx.conf");
	extern char **environ;
	conf_load_environ(&c, environ);
	const char *p = conf_get(&c, "DAEMON_POLL_INTERVAL"), *r = conf_get(&c, "DAEMON_REPAIR_INTERVAL");
	d->poll = poll_flag > 0 ? poll_flag : p && atof(p) > 0 ? atof(p) : remote ? 2 : 60;
	d->repair = r && atof(r) > 0 ? atof(r) : 60;
	conf_free(&c);
	return 0;
}

static void
maintain(tick_t *t)
{
	repair_stats_t st;
	repair_run(t->s, &st);
	if (t->verbose && (st.requeued || st.torn || st.leases_dropped))
		info("repair: %d requeued, %d torn lines cut, %d stale leases dropped", st.requeued, st.torn,
		    st.leases_dropped);
	int gone = retention_run(t->s, 100, t->verbose);
	if (t->verbose && gone)
		info("retention: %d expired items removed", gone);
}

int
daemon_run(tick_t *t, double poll_flag, volatile sig_atomic_t *hup)
{
	daemon_mode_active = 1;
	store_t *s = t->s;
	int remote = daemon_remote_fs(s->dfd);
	dconf_t d;
	if (load_conf(t, &d, poll_flag, remote))
		return EX_CONFIG_;
	int watching = 0;
	if (!remote && inotifytools_initialize()) {
		char path[4200];
		snprintf(path, sizeof path, "%s/index", s->dir);
		watching = inotifytools_watch_file(path, IN_MODIFY | IN_MOVED_TO | IN_CREATE | IN_CLOSE_WRITE);
		if (!watching)
			warnx_("inotify watch on %s failed (%s); polling every %.0f s", path,
			    strerror(inotifytools_error()), d.poll);
	}
	if (t->verbose)
		info("daemon started on %s: %s, poll %g s, repair every %g s", s->dir,
		    watching ? "inotify" : "polling", d.poll, d.repair);
	maintain(t);
	int64_t last_repair = clock_mono();
	int rc = TICK_STOPPED;
	while (!*t->signals) {
		if (*hup) {
			*hup = 0;
			if (load_conf(t, &d, poll_flag, remote)) {
				rc = EX_CONFIG_;   /* a bad setting: stop, as abx-tick(1) says */
				break;
			}
			tick_forget_plugins(t);
			info("SIGHUP: abx.conf re-read (poll %g s, repair every %g s)", d.poll, d.repair);
		}
		if (watching)
			while (inotifytools_next_events(0, 1))
				;   /* drain (0 = do not wait): the pass below sees every change */
		int did = tick_pass(t);
		err_repeats_flush();   /* a full disk said once a pass (err.h) */
		if (*t->signals)
			break;
		if (clock_mono() - last_repair >= (int64_t)(d.repair * 1e6)) {
			maintain(t);
			last_repair = clock_mono();
		}
		int64_t next = daemon_next_due(s), now = clock_now();
		double wait = d.poll;
		if (next >= 0) {
			double until = (next - now) / 1e6;
			if (until < wait)
				wait = until;
		}
		double to_repair = d.repair - (clock_mono() - last_repair) / 1e6;
		if (to_repair < wait)
			wait = to_repair;
		if (did == TICK_FAILED && wait < ERROR_BACKOFF) {
			/* the store failed (reported): a full disk, say; try
			 * again later, never exit and never spin */
			wait = ERROR_BACKOFF;
		}
		if (wait <= 0) {
			if (did == TICK_DID)
				continue;   /* it ran something: look again at once */
			/* due items this pass could not run (a crawl leased
			 * elsewhere, say): never spin on them */
			wait = d.poll < 1 ? d.poll : 1;
		}
		long secs = (long)wait + ((double)(long)wait < wait);   /* ceil */
		store_disarm(s);   /* no lock held while asleep (store.h) */
		if (watching) {
			/* returns on a change, a signal (EINTR) or the timeout */
			inotifytools_next_event(secs);
		} else {
			struct timespec ts = {(time_t)wait, (long)((wait - (long)wait) * 1e9)};
			nanosleep(&ts, NULL);
		}
	}
	if (watching)
		inotifytools_cleanup();
	daemon_mode_active = 0;
	return rc;
}
