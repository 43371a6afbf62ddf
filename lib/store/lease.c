/* lease.c — see lease.h. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/err.h"
#include "base/fs.h"
#include "store/lease.h"
#include "store/nolock.h"
#include "store/storefd.h"

static void
lock_path(const char *id, char *out, size_t n)
{
	snprintf(out, n, "locks/%s", id);
}

/* The directory to open id's lock file in and its name there: locks/ and
 * id (one name, not a path walk), or, while locks/ is not there yet, the
 * data directory and p. */
static int
lock_at(store_t *s, const char *id, const char *p, const char **name)
{
	int ld = store_locks_dir(s, 0);
	*name = ld >= 0 ? id : p;
	return ld >= 0 ? ld : s->dfd;
}

int
lease_take(store_t *s, const char *id, int *fdp)
{
	char p[64];
	if (!id_valid(id))
		return LEASE_UNKNOWN;
	lock_path(id, p, sizeof p);
	const char *name;
	int ld = lock_at(s, id, p, &name);
	for (int tries = 0; tries < 10; tries++) {
		/* no O_CLOEXEC: the lease is inherited by CMD on purpose;
		 * callers that exec other things close it themselves */
		/* the index may know there is no file (nolock.h): no look */
		int fd = -1;
		if (nolock_known(s, id))
			errno = ENOENT;
		else
			fd = fs_open(ld, name, O_RDWR, 0);
		if (fd < 0 && errno == ENOENT) {
			if (!fdp) {
				nolock_seen(s, id);
				return LEASE_TAKEN;   /* no file: no holder (see lease.h) */
			}
			/* lock files are created only under the store lock,
			 * so a probe under it that finds none is exact; the
			 * index is told first (nolock.h) */
			int had = s->locked;
			if (!had && store_lock(s) < 0)
				return LEASE_UNKNOWN;
			if (nolock_made(s, id) < 0) {
				if (!had)
					store_unlock(s);
				warnx_("unable to note the lock file %s/%s in %s/%s; taking the lease as held",
				    s->dir, p, s->dir, "index/active.jsonl");
				return LEASE_UNKNOWN;
			}
			fd = fs_open(ld, name, O_RDWR | O_CREAT, 0644);
			if (fd < 0 && errno == ENOENT && fs_mkdirs(s->dfd, "locks") == 0)
				fd = fs_open(s->dfd, p, O_RDWR | O_CREAT, 0644);
			if (!had)
				store_unlock(s);
		}
		if (fd < 0) {
			warnsys("unable to open %s/%s", s->dir, p);
			return LEASE_UNKNOWN;
		}
		int fl = fcntl(fd, F_GETFD);
		if (fl >= 0)
			fcntl(fd, F_SETFD, fl & ~FD_CLOEXEC);
		if (flock(fd, LOCK_EX | LOCK_NB) < 0) {
			int e = errno;
			close(fd);
			if (e == EWOULDBLOCK)
				return LEASE_BUSY;
			if (e == EINTR)
				continue;
			errno = e;
			warnsys("unable to lock %s/%s; taking the lease as held", s->dir, p);
			return LEASE_UNKNOWN;
		}
		struct stat a, b;
		if (fstat(fd, &a) == 0 && fstatat(ld, name, &b, AT_SYMLINK_NOFOLLOW) == 0 &&
		    a.st_ino == b.st_ino && a.st_dev == b.st_dev) {
			if (fdp)
				*fdp = fd;
			else
				close(fd);    /* a probe: free now */
			return LEASE_TAKEN;
		}
		close(fd);   /* unlinked under us: lock the new file */
	}
	return LEASE_UNKNOWN;
}

int
lease_busy(store_t *s, const char *id)
{
	char p[64];
	if (nolock_known(s, id))
		return 0;   /* nolock.h */
	lock_path(id, p, sizeof p);
	const char *name;
	int ld = lock_at(s, id, p, &name);
	int fd = fs_open(ld, name, O_RDONLY, 0);
	if (fd < 0 && errno != ENOENT)
		return 1;
	if (fd < 0) {
		nolock_seen(s, id);
		return 0;
	}
	int busy = 0;
	if (flock(fd, LOCK_SH | LOCK_NB) < 0)
		busy = 1;    /* EWOULDBLOCK, or unknown: both count as held */
	close(fd);
	return busy;
}

void
lease_note(int fd, const char *text)
{
	size_t n = strlen(text);
	if (pwrite(fd, text, n, 0) != (ssize_t)n || ftruncate(fd, n) < 0)
		warnsys("unable to write the lease record");
}

void
lease_drop(int fd)
{
	if (fd < 0)
		return;
	if (ftruncate(fd, 0) < 0) {
		/* a stale note only misleads cat; the lock is what counts */
	}
	flock(fd, LOCK_UN);
	close(fd);
}

int
lease_inherited(store_t *s, const char *id)
{
	const char *fds = getenv("ABX_LEASE_FD"), *eid = getenv("ABX_ID");
	if (!fds || !eid || strcmp(eid, id) != 0)
		return -1;
	char *end;
	long fd = strtol(fds, &end, 10);
	if (*end || fd < 3 || fd > 1 << 20)
		return -1;
	char p[64];
	lock_path(id, p, sizeof p);
	const char *name;
	int ld = lock_at(s, id, p, &name);
	struct stat a, b;
	if (fstat(fd, &a) < 0 || fstatat(ld, name, &b, AT_SYMLINK_NOFOLLOW) < 0 ||
	    a.st_ino != b.st_ino || a.st_dev != b.st_dev)
		return -1;
	/* flock on our own (inherited) open file description succeeds
	 * if we hold it; a separate description would fail */
	if (flock(fd, LOCK_EX | LOCK_NB) < 0)
		return -1;
	return fd;
}

int
lease_held(store_t *s, const char *id, int fd)
{
	char p[64];
	struct stat a, b;
	if (fd < 0 || !id_valid(id))
		return 0;
	lock_path(id, p, sizeof p);
	int r;
	while ((r = flock(fd, LOCK_EX | LOCK_NB)) < 0 && errno == EINTR)
		;
	if (r < 0) {
		warnsys("the lease of %s is lost (its lock in %s/%s)", id, s->dir, p);
		return 0;
	}
	const char *name;
	int ld = lock_at(s, id, p, &name);
	if (fstat(fd, &a) < 0 || fstatat(ld, name, &b, AT_SYMLINK_NOFOLLOW) < 0 ||
	    a.st_ino != b.st_ino || a.st_dev != b.st_dev) {
		warnx_("the lease of %s is lost (%s/%s is not the file locked)", id, s->dir, p);
		return 0;
	}
	return 1;
}

void
lease_object(store_t *s, buf_t *out, int64_t claimed, int64_t expires, int flk)
{
	char c[ISO_LEN + 1], e[ISO_LEN + 1];
	clock_iso(claimed, c);
	clock_iso(expires, e);
	buf_adds(out, "{\"host\":");
	buf_json_strz(out, s->host);
	buf_addf(out, ",\"pid\":%ld,\"boot_id\":", (long)getpid());
	buf_json_strz(out, s->boot_id);
	buf_addf(out, ",\"claimed_at\":\"%s\",\"expires_at\":\"%s\",\"flock\":%s}", c, e,
	    flk ? "true" : "false");
}
