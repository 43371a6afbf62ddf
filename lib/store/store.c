/*
 * store.c — see store.h for the layout and the protocol.  This file holds
 * the opening and closing of a data directory (made on first use, durably;
 * a network filesystem abx cannot trust is refused: fscheck.h) and the
 * failures (store_fail, store_failed).  The rest of the store is in files
 * of one concern each, sharing store_int.h:
 *   storerec.c     records: times, final or active, the journal of a record
 *   storelock.c    the store lock: lock, catch-up replay, unlock
 *   storeperm.c    the modes of what is made (the umask), the lock's file
 *   storeget.c     reads: a record by id, the active items
 *   storecommit.c  staging and the commit: journals, then the index lines
 *   storeloc.c     location hints of finished records (index/loc/)
 *   storelean.c    lean mode
 *   index.c        the active index (index/active.jsonl)
 *   journal.c      journals: scan, replay, rebuild, compaction
 *   expire.c       the index of expiries (expire.h)
 *   storefd.c      descriptors kept open: journals, locks/ (storefd.h)
 *   nolock.c       what the index knows of lock files (nolock.h)
 */
#include <errno.h>
#include <stdarg.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/err.h"
#include "base/exitcodes.h"
#include "base/fs.h"
#include "base/host.h"
#include "store/durable.h"
#include "store/fscheck.h"
#include "store/storefd.h"
#include "store/storeperm.h"
#include "store/store_int.h"

#define CONF_DEFAULT \
	"# abx.conf — settings of this data directory, KEY=value, one a line.\n" \
	"# See abx(7) and abx-tick(1).  Environment variables override these.\n" \
	"# TIMEOUT=60\n# CRAWL_MAX_CONCURRENT_SNAPSHOTS=4\n# DELETE_AFTER=0\n"

/* ---------------------------------------------------------------- open */

const char *
store_default_dir(void)
{
	static char buf[4096];
	const char *d = getenv("ABX_DIR");
	if (d && *d)
		return d;
	const char *x = getenv("XDG_DATA_HOME");
	const char *h = getenv("HOME");
	if (x && *x)
		snprintf(buf, sizeof buf, "%s/abx", x);
	else
		snprintf(buf, sizeof buf, "%s/.local/share/abx", h && *h ? h : ".");
	return buf;
}

static void
read_boot_id(store_t *s)
{
	/* the power-loss tests simulate a reboot with a boot id of their own */
	const char *fake = getenv("ABX_TEST_BOOT_ID");
	if (fake && *fake) {
		snprintf(s->boot_id, sizeof s->boot_id, "%s", fake);
		return;
	}
	int fd = open("/proc/sys/kernel/random/boot_id", O_RDONLY | O_CLOEXEC);
	ssize_t n = fd >= 0 ? read(fd, s->boot_id, sizeof s->boot_id - 1) : -1;
	if (fd >= 0)
		close(fd);
	if (n <= 0)
		n = 0;
	s->boot_id[n] = 0;
	char *nl = strchr(s->boot_id, '\n');
	if (nl)
		*nl = 0;
	if (!*s->boot_id)
		strcpy(s->boot_id, "unknown");
}

/* fsync the directory that holds path (a directory just made in it). */
static int
sync_parent(store_t *s, const char *path)
{
	if (!s->durable)
		return 0;
	char parent[4096];
	snprintf(parent, sizeof parent, "%s", path);
	size_t n = strlen(parent);
	while (n > 1 && parent[n - 1] == '/')
		parent[--n] = 0;
	char *sl = strrchr(parent, '/');
	if (!sl)
		snprintf(parent, sizeof parent, ".");
	else if (sl == parent)
		parent[1] = 0;
	else
		*sl = 0;
	int fd = open(parent, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0 || fsync(fd) < 0) {
		int e = errno;
		if (fd >= 0)
			close(fd);
		return store_fail(s, EX_IOERR_, e, "unable to sync %s (making %s)", parent, path);
	}
	close(fd);
	return 0;
}

static int
make_dirs(store_t *s)
{
	static const char *dirs[] = {"crawls", "locks", "index", "tmp", NULL};
	int made = 0;
	for (int i = 0; dirs[i]; i++) {
		made |= !fs_exists(s->dfd, dirs[i]);
		if (fs_mkdirs(s->dfd, dirs[i]) < 0)
			return store_fail(s, EX_CANTCREAT_, errno, "unable to create %s/%s", s->dir, dirs[i]);
	}
	if (made && s->durable && fs_fsync_dir(s->dfd, "") < 0)
		return store_fail(s, EX_IOERR_, errno, "unable to sync %s", s->dir);
	return 0;
}

/* abx.conf made on first use, durably: it is what marks a data dir. */
static int
make_conf(store_t *s)
{
	if (fs_exists(s->dfd, "abx.conf"))
		return 0;
	if (make_dirs(s) < 0)
		return -1;
	if (fs_replace(s->dfd, "abx.conf", CONF_DEFAULT, strlen(CONF_DEFAULT), s->durable) < 0)
		return store_fail(s, EX_CANTCREAT_, errno, "unable to create %s/abx.conf", s->dir);
	return 0;
}

static int
open_failed(store_t *s)
{
	store_close(s);   /* keeps err and errmsg */
	return -1;
}

int
store_open(store_t *s, const char *dir, int create)
{
	memset(s, 0, sizeof *s);
	s->lockfd = s->idxfd = s->dfd = s->locksfd = -1;
	s->dir = xstrdup(dir ? dir : store_default_dir());
	const char *sync = getenv("ABX_SYNC");
	s->durable = !(sync && strcmp(sync, "0") == 0);
	s->parent_syncs = sync && strcmp(sync, "parent") == 0;
	s->lazy = (sync && strcmp(sync, "batch") == 0) || s->parent_syncs;
	read_boot_id(s);
	store_perm(s);   /* the umask, before anything is made */
	s->dfd = open(s->dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (s->dfd < 0 && errno == ENOENT && create) {
		char tmp[4096];
		snprintf(tmp, sizeof tmp, "%s", s->dir);
		for (char *p = tmp + 1; *p; p++)
			if (*p == '/') {
				*p = 0;
				if (mkdir(tmp, 0755) == 0)
					sync_parent(s, tmp);
				*p = '/';
			}
		if (mkdir(s->dir, 0755) < 0 && errno != EEXIST) {
			store_fail(s, EX_CANTCREAT_, errno, "unable to create %s", s->dir);
			return open_failed(s);
		}
		/* the new directory's name is durable before abx-add says
		 * anything was queued in it */
		if (sync_parent(s, s->dir) < 0)
			return open_failed(s);
		s->dfd = open(s->dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	}
	if (s->dfd < 0) {
		if (errno == ENOENT)
			store_fail(s, EX_CONFIG_, 0, "%s is not an abx data directory (it does not exist); "
			    "create one with abx-add -d %s URL", s->dir, s->dir);
		else
			store_fail(s, EX_CONFIG_, errno, "unable to open data directory %s", s->dir);
		return open_failed(s);
	}
	store_perm(s);   /* ... as its abx.conf says; setgid before its subdirectories */
	int mode = durable_mode(s->dfd);   /* syncfs, or fsync of each file */
	if (mode < 0) {
		store_fail(s, EX_CONFIG_, 0, "ABX_DURABILITY=%s: not syncfs, perfile or auto",
		    getenv("ABX_DURABILITY"));
		return open_failed(s);
	}
	s->perfile = mode == DURABLE_PERFILE;
	if (!fs_exists(s->dfd, "abx.conf") && !create) {
		store_fail(s, EX_CONFIG_, 0, "%s is not an abx data directory (no abx.conf); "
		    "create one with abx-add -d %s URL", s->dir, s->dir);
		return open_failed(s);
	}
	if (create && make_conf(s) < 0)
		return open_failed(s);
	buf_t refusal = {0};
	if (fscheck(s->dfd, s->dir, &refusal)) {   /* a network filesystem abx cannot trust */
		store_fail(s, EX_CONFIG_, 0, "%s", buf_cstr(&refusal));
		buf_free(&refusal);
		return open_failed(s);
	}
	buf_free(&refusal);
	char why[256];
	if (host_name(s->dfd, s->host, sizeof s->host, why, sizeof why) < 0) {
		store_fail(s, EX_CONFIG_, 0, "%s", why);
		return open_failed(s);
	}
	/* the lock file is opened by the first store_lock: a reader never
	 * opens it (storeperm.h) */
	s->nerr = s->txerr = 0;
	return 0;
}

int
store_close(store_t *s)
{
	int rc = 0;
	if (s->locked && store_unlock(s) < 0)
		rc = -1;
	if (store_sync(s) < 0)
		rc = -1;
	free(s->unsynced);
	free(s->named);
	free(s->presynced);
	index_drop(s);
	index_chain_forget(s);
	jfd_close_all(s);
	if (s->lockfd >= 0)
		close(s->lockfd);
	if (s->dfd >= 0)
		close(s->dfd);
	free(s->pend);
	free(s->leasednew);
	free(s->dir);
	int err = s->err;
	unsigned nerr = s->nerr;
	char msg[sizeof s->errmsg];
	memcpy(msg, s->errmsg, sizeof msg);
	memset(s, 0, sizeof *s);
	s->dfd = s->lockfd = s->idxfd = s->locksfd = -1;
	s->err = err;
	s->nerr = nerr;
	memcpy(s->errmsg, msg, sizeof msg);
	return rc;
}

int
store_fail(store_t *s, int code, int errnum, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(s->errmsg, sizeof s->errmsg, fmt, ap);
	va_end(ap);
	if (n < 0)
		n = 0;
	if (errnum && (size_t)n < sizeof s->errmsg)
		snprintf(s->errmsg + n, sizeof s->errmsg - n, ": %s", strerror(errnum));
	s->err = code;
	s->nerr++;
	return -1;
}

int
store_failed(const store_t *s)
{
	return s->nerr != s->txerr;
}
