/* durable.c — see durable.h. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>

#include "base/fs.h"
#include "store/durable.h"

/* f_type values (linux/magic.h) whose syncfs reaches stable storage */
static const unsigned long reaches[] = {
	0xEF53,       /* ext2, ext3, ext4 */
	0x58465342,   /* xfs */
	0x9123683E,   /* btrfs */
	0xF2F52010,   /* f2fs */
	0x3153464A,   /* jfs */
	0x52654973,   /* reiserfs */
	0xCA451A4E,   /* bcachefs */
	0x794C7630,   /* overlayfs: syncs its upper filesystem */
	0x01021994,   /* tmpfs: nothing to reach */
	0x858458F6,   /* ramfs: nothing to reach */
};

int
durable_syncfs_reaches(long f_type)
{
	for (size_t i = 0; i < sizeof reaches / sizeof reaches[0]; i++)
		if ((unsigned long)f_type == reaches[i] || (unsigned int)f_type == reaches[i])
			return 1;
	return 0;
}

int
durable_mode(int dfd)
{
	const char *v = getenv("ABX_DURABILITY");
	if (v && strcmp(v, "syncfs") == 0)
		return DURABLE_SYNCFS;
	if (v && strcmp(v, "perfile") == 0)
		return DURABLE_PERFILE;
	if (v && *v && strcmp(v, "auto") != 0) {
		errno = EINVAL;
		return -1;
	}
	struct statfs sf;
	if (fstatfs(dfd, &sf) < 0)
		return DURABLE_PERFILE;
	return durable_syncfs_reaches((long)sf.f_type) ? DURABLE_SYNCFS : DURABLE_PERFILE;
}

static void
keep_first(int *rc, int *err, int failed)
{
	if (failed && *rc == 0) {
		*rc = -1;
		*err = errno;
	}
}

/* fsync fd and, if it is a directory, everything under it first (depth
 * levels of it; -1: all), closes fd.  0 or -1 (errno in *err). */
static int
sync_fd(int fd, int *err, int depth)
{
	struct stat st;
	int rc = 0;
	if (fstat(fd, &st) < 0) {
		keep_first(&rc, err, 1);
		close(fd);
		return rc;
	}
	if (S_ISDIR(st.st_mode) && depth != 0) {
		int dup_fd = dup(fd);
		DIR *d = dup_fd >= 0 ? fdopendir(dup_fd) : NULL;
		if (!d) {
			keep_first(&rc, err, 1);
			if (dup_fd >= 0)
				close(dup_fd);
		}
		struct dirent *e;
		while (d && (e = readdir(d))) {
			if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
				continue;
			if (e->d_type != DT_REG && e->d_type != DT_DIR && e->d_type != DT_UNKNOWN)
				continue;   /* symlinks, fifos: their entry is the directory's */
			if (depth == 1 && e->d_type == DT_DIR)
				continue;   /* a subdirectory's entry is this one's */
			int c = openat(dirfd(d), e->d_name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
			if (c < 0) {
				/* a symlink (ELOOP) or a file gone meanwhile */
				keep_first(&rc, err, errno != ELOOP && errno != ENOENT && errno != ENXIO);
				continue;
			}
			if (sync_fd(c, err, depth < 0 ? -1 : depth - 1) < 0)
				rc = -1;
		}
		if (d)
			closedir(d);
	} else if (!S_ISREG(st.st_mode)) {
		close(fd);
		return rc;
	}
	keep_first(&rc, err, fsync(fd) < 0);
	close(fd);
	return rc;
}

static int
durable_depth(int dfd, const char *rel, int depth)
{
	int fd = fs_open(dfd, rel, O_RDONLY | O_NONBLOCK, 0);
	if (fd < 0)
		return errno == ENOENT ? 0 : -1;
	int err = 0;
	int rc = sync_fd(fd, &err, depth);
	/* rel's own entry: the directory that holds it */
	char parent[4096];
	snprintf(parent, sizeof parent, "%s", rel);
	size_t n = strlen(parent);
	while (n > 0 && parent[n - 1] == '/')
		parent[--n] = 0;
	char *sl = strrchr(parent, '/');
	if (sl)
		*sl = 0;
	else
		parent[0] = 0;
	if (fs_fsync_dir(dfd, parent) < 0 && rc == 0) {
		rc = -1;
		err = errno;
	}
	errno = err;
	return rc;
}

int
durable_tree(int dfd, const char *rel)
{
	return durable_depth(dfd, rel, -1);
}

int
durable_tree_fd(int fd)
{
	int c = fcntl(fd, F_DUPFD_CLOEXEC, 0);
	if (c < 0)
		return -1;
	int err = 0;
	int rc = sync_fd(c, &err, -1);
	errno = err;
	return rc;
}

int
durable_dir_files(int dfd, const char *rel)
{
	return durable_depth(dfd, rel, 1);
}
