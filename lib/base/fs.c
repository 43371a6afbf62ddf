/* fs.c — see fs.h. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <stdint.h>
#include <sys/syscall.h>
#include <linux/openat2.h>

#include "base/err.h"
#include "base/fs.h"

/* Open the directory holding rel's last component; *base gets that name. */
static int
walk_parent(int dfd, const char *rel, char *tmp, size_t tmpsz, const char **base)
{
	if (strlen(rel) >= tmpsz || rel[0] == '/') {
		errno = EINVAL;
		return -1;
	}
	strcpy(tmp, rel);
	char *last = strrchr(tmp, '/');
	if (!last) {
		*base = rel;
		return dup(dfd);
	}
	*last = 0;
	*base = rel + (last - tmp) + 1;
	int fd = dup(dfd);
	if (fd < 0)
		return -1;
	char *save = NULL;
	for (char *c = strtok_r(tmp, "/", &save); c; c = strtok_r(NULL, "/", &save)) {
		if (strcmp(c, "..") == 0) {
			close(fd);
			errno = EINVAL;
			return -1;
		}
		int nfd;
		int tries = 0;
		do
			nfd = openat(fd, c, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		while (nfd < 0 && errno == ESTALE && ++tries < 5);
		close(fd);
		if (nfd < 0)
			return -1;
		fd = nfd;
	}
	return fd;
}

/* openat2(2) with RESOLVE_NO_SYMLINKS | RESOLVE_BENEATH does the walk
 * below in one system call (Linux >= 5.6); elsewhere the walk is used. */
static int
open_resolved(int dfd, const char *rel, int flags, mode_t mode)
{
	static int unsupported;
	if (unsupported)
		return -2;
	struct open_how how = {0};
	how.flags = (uint64_t)(flags | O_NOFOLLOW | O_CLOEXEC);
	how.mode = (flags & O_CREAT) ? mode : 0;
	how.resolve = RESOLVE_NO_SYMLINKS | RESOLVE_BENEATH;
	int fd, tries = 0;
	do
		fd = syscall(SYS_openat2, dfd, rel, &how, sizeof how);
	while (fd < 0 && (errno == ESTALE || errno == EAGAIN) && ++tries < 5);
	if (fd < 0 && (errno == ENOSYS || errno == EPERM)) {
		unsupported = 1;   /* old kernel, or a seccomp filter */
		return -2;
	}
	return fd;
}

int
fs_open(int dfd, const char *rel, int flags, mode_t mode)
{
	if (rel[0] != '/' && !strstr(rel, "..")) {
		int fd = open_resolved(dfd, rel, flags, mode);
		if (fd != -2)
			return fd;
	}
	char tmp[4096];
	const char *base;
	int pfd = walk_parent(dfd, rel, tmp, sizeof tmp, &base);
	if (pfd < 0)
		return -1;
	if (strcmp(base, "..") == 0) {
		close(pfd);
		errno = EINVAL;
		return -1;
	}
	int fd, tries = 0;
	do
		fd = openat(pfd, base, flags | O_NOFOLLOW | O_CLOEXEC, mode);
	while (fd < 0 && errno == ESTALE && ++tries < 5);
	int e = errno;
	close(pfd);
	errno = e;
	return fd;
}

int
fs_opendir(int dfd, const char *rel)
{
	return fs_open(dfd, rel, O_RDONLY | O_DIRECTORY, 0);
}

int
fs_mkdirs(int dfd, const char *rel)
{
	/* most calls find the directory there: one system call */
	if (rel[0] != '/' && !strstr(rel, "..")) {
		int fd = open_resolved(dfd, rel, O_RDONLY | O_DIRECTORY, 0);
		if (fd >= 0) {
			close(fd);
			return 0;
		}
	}
	int fd = fs_mkdirs_open(dfd, rel);
	if (fd < 0)
		return -1;
	close(fd);
	return 0;
}

int
fs_mkdirs_open(int dfd, const char *rel)
{
	char tmp[4096];
	if (strlen(rel) >= sizeof tmp) {
		errno = ENAMETOOLONG;
		return -1;
	}
	strcpy(tmp, rel);
	int fd = fcntl(dfd, F_DUPFD_CLOEXEC, 0);
	if (fd < 0)
		return -1;
	char *save = NULL;
	for (char *c = strtok_r(tmp, "/", &save); c; c = strtok_r(NULL, "/", &save)) {
		if (strcmp(c, "..") == 0) {
			close(fd);
			errno = EINVAL;
			return -1;
		}
		if (mkdirat(fd, c, 0755) < 0 && errno != EEXIST) {
			int e = errno;
			close(fd);
			errno = e;
			return -1;
		}
		int nfd = openat(fd, c, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		int e = errno;
		close(fd);
		if (nfd < 0) {
			errno = e;
			return -1;
		}
		fd = nfd;
	}
	return fd;
}

static int
write_all(int fd, const void *data, size_t n)
{
	const char *p = data;
	while (n) {
		ssize_t w = write(fd, p, n);
		if (w < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		p += w;
		n -= w;
	}
	return 0;
}

int
fs_write_new(int dfd, const char *rel, const void *data, size_t n)
{
	return fs_write_new_sync(dfd, rel, data, n, 0);
}

int
fs_write_new_sync(int dfd, const char *rel, const void *data, size_t n, int sync)
{
	char tmp[4096];
	const char *base;
	int pfd = walk_parent(dfd, rel, tmp, sizeof tmp, &base);
	if (pfd < 0)
		return -1;
	int fd = openat(pfd, base, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
	if (fd < 0 && errno == EEXIST) {
		close(pfd);
		return fs_replace(dfd, rel, data, n, sync);
	}
	int rc = 0;
	if (fd < 0 || write_all(fd, data, n) < 0 || (sync && fsync(fd) < 0))
		rc = -1;
	int e = errno;
	if (fd >= 0 && close(fd) < 0 && rc == 0)
		rc = -1, e = errno;
	if (rc < 0 && fd >= 0)
		unlinkat(pfd, base, 0);
	close(pfd);
	errno = e;
	return rc;
}

int
fs_replace(int dfd, const char *rel, const void *data, size_t n, int durable)
{
	char tmp[4096], tname[512];
	const char *base;
	int pfd = walk_parent(dfd, rel, tmp, sizeof tmp, &base);
	if (pfd < 0)
		return -1;
	snprintf(tname, sizeof tname, ".%s.tmp.%ld", base, (long)getpid());
	int fd = openat(pfd, tname, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0644);
	if (fd < 0)
		goto fail;
	if (write_all(fd, data, n) < 0 || (durable && fdatasync(fd) < 0)) {
		int e = errno;
		close(fd);
		unlinkat(pfd, tname, 0);
		errno = e;
		goto fail;
	}
	if (close(fd) < 0 || renameat(pfd, tname, pfd, base) < 0) {
		int e = errno;
		unlinkat(pfd, tname, 0);
		errno = e;
		goto fail;
	}
	if (durable && fsync(pfd) < 0)
		goto fail;
	close(pfd);
	return 0;
fail:;
	int e = errno;
	close(pfd);
	errno = e;
	return -1;
}

int
fs_read_fd(int fd, buf_t *out)
{
	for (;;) {
		buf_grow(out, 65536);
		ssize_t r = read(fd, out->p + out->len, out->cap - out->len - 1);
		if (r < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		if (r == 0)
			break;
		out->len += r;
	}
	out->p[out->len] = 0;
	return 0;
}

int
fs_read(int dfd, const char *rel, buf_t *out)
{
	int fd = fs_open(dfd, rel, O_RDONLY, 0);
	if (fd < 0)
		return -1;
	int rc = fs_read_fd(fd, out);
	int e = errno;
	close(fd);
	errno = e;
	return rc;
}

static int
rmtree_fd(int pfd, const char *name)
{
	int fd = openat(pfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0) {
		if (errno == ENOTDIR || errno == ELOOP)
			return unlinkat(pfd, name, 0);
		return errno == ENOENT ? 0 : -1;
	}
	DIR *d = fdopendir(fd);
	if (!d) {
		close(fd);
		return -1;
	}
	struct dirent *e;
	int rc = 0;
	while ((e = readdir(d))) {
		if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
			continue;
		if (e->d_type == DT_DIR || e->d_type == DT_UNKNOWN) {
			if (rmtree_fd(dirfd(d), e->d_name) < 0)
				rc = -1;
		} else if (unlinkat(dirfd(d), e->d_name, 0) < 0 && errno != ENOENT) {
			rc = -1;
		}
	}
	closedir(d);
	if (unlinkat(pfd, name, AT_REMOVEDIR) < 0 && errno != ENOENT)
		rc = -1;
	return rc;
}

int
fs_rmtree(int dfd, const char *rel)
{
	char tmp[4096];
	const char *base;
	int pfd = walk_parent(dfd, rel, tmp, sizeof tmp, &base);
	if (pfd < 0)
		return errno == ENOENT ? 0 : -1;
	int rc = rmtree_fd(pfd, base);
	close(pfd);
	return rc;
}

int
fs_exists(int dfd, const char *rel)
{
	int fd = fs_open(dfd, rel, O_RDONLY | O_PATH, 0);
	if (fd < 0)
		return 0;
	close(fd);
	return 1;
}

int
fs_fsync_dir(int dfd, const char *reldir)
{
	int fd = reldir && *reldir ? fs_opendir(dfd, reldir) : dup(dfd);
	if (fd < 0)
		return -1;
	int rc = fsync(fd);
	close(fd);
	return rc;
}

static long long
du_fd(int fd)
{
	DIR *d = fdopendir(fd);
	if (!d) {
		close(fd);
		return 0;
	}
	long long sum = 0;
	struct dirent *e;
	while ((e = readdir(d))) {
		if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
			continue;
		struct stat st;
		if (fstatat(dirfd(d), e->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0)
			continue;
		if (S_ISREG(st.st_mode))
			sum += st.st_size;
		else if (S_ISDIR(st.st_mode)) {
			int c = openat(dirfd(d), e->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
			if (c >= 0)
				sum += du_fd(c);
		}
	}
	closedir(d);
	return sum;
}

long long
fs_du(int dfd, const char *rel)
{
	int fd = fs_opendir(dfd, rel);
	return fd < 0 ? 0 : du_fd(fd);
}
