/* outdir.c — see outdir.h. */
#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/err.h"
#include "base/fs.h"
#include "hook/outdir.h"

/* What is at REL instead of a directory, said with the cause; the errno
 * the hook fails with (ELOOP for a symlink: its result says so). */
static int
refuse(int dfd, const char *dir, const char *rel, int e)
{
	struct stat st;
	char to[512];
	ssize_t n;
	if (fstatat(dfd, rel, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISLNK(st.st_mode) &&
	    (n = readlinkat(dfd, rel, to, sizeof to - 1)) >= 0) {
		to[n] = 0;
		warnx_("refusing to run hooks in %s/%s: it is a symlink to %s, not a directory abx made", dir, rel,
		    to);
		return ELOOP;
	}
	if (e == ELOOP || e == ENOTDIR) {
		warnx_("refusing to run hooks in %s/%s: it or a directory above it is not a directory "
		    "(a symlink, or a file)", dir, rel);
	} else {
		errno = e;
		warnsys("unable to create %s/%s", dir, rel);
	}
	return e;
}

int
outdir_open(int dfd, const char *dir, const char *rel)
{
	int fd = fs_opendir(dfd, rel);
	if (fd < 0 && errno == ENOENT)
		fd = fs_mkdirs_open(dfd, rel);   /* the walk's last fd: not opened again */
	if (fd < 0) {
		errno = refuse(dfd, dir, rel, errno);
		return -1;
	}
	struct stat st;
	if (fstat(fd, &st) < 0) {
		int e = errno;
		warnsys("unable to stat %s/%s", dir, rel);
		close(fd);
		errno = e;
		return -1;
	}
	if (st.st_uid != geteuid()) {
		warnx_("refusing to run hooks in %s/%s: it belongs to uid %u, not to this user (uid %u)", dir,
		    rel, (unsigned)st.st_uid, (unsigned)geteuid());
		close(fd);
		errno = EPERM;
		return -1;
	}
	return fd;
}
