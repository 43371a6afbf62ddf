/*
 * shortread.c — an LD_PRELOAD shim for tests/torn-read.sh: pread(2) of a
 * file whose path ends with $ABX_SHORTREAD (a journal) fails with EIO,
 * except a read of its last byte (the torn-tail check), so the tail repair
 * sees a torn line and then cannot read back to the last newline.  A
 * repair that took a failed read for "no newline in the file" would cut
 * the whole journal.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static int
watched(int fd)
{
	const char *end = getenv("ABX_SHORTREAD");
	char link[64], path[4096];
	if (!end || !*end)
		return 0;
	snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
	ssize_t n = readlink(link, path, sizeof path - 1);
	if (n <= 0)
		return 0;
	path[n] = 0;
	size_t l = strlen(end);
	return (size_t)n >= l && strcmp(path + n - l, end) == 0;
}

ssize_t
pread64(int fd, void *buf, size_t count, off_t off)
{
	static ssize_t (*real)(int, void *, size_t, off_t);
	if (!real)
		real = (ssize_t (*)(int, void *, size_t, off_t))dlsym(RTLD_NEXT, "pread64");
	struct stat st;
	if (watched(fd) && fstat(fd, &st) == 0 && !(count == 1 && off == st.st_size - 1)) {
		errno = EIO;
		return -1;
	}
	return real(fd, buf, count, off);
}

ssize_t
pread(int fd, void *buf, size_t count, off_t off)
{
	return pread64(fd, buf, count, off);
}
