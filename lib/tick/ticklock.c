/*
 * ticklock.c — see ticklock.h: the per-host tick lock.
 */
#include <fcntl.h>
#include <stdio.h>
#include <sys/file.h>
#include <unistd.h>

#include "base/fs.h"
#include "tick/ticklock.h"

int
tick_lock(store_t *s, char *path, size_t n)
{
	char host[256];
	snprintf(host, sizeof host, "%s", s->host);
	for (char *p = host; *p; p++)
		if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') ||
		        *p == '-' || *p == '.'))
			*p = '_';
	snprintf(path, n, "locks/tick@%s", host);
	int fd = fs_open(s->dfd, path, O_RDWR | O_CREAT, 0644);
	if (fd < 0)
		return TICK_LOCK_FAIL;
	if (flock(fd, LOCK_EX | LOCK_NB) < 0) {
		close(fd);
		return TICK_LOCK_BUSY;
	}
	char note[64];
	int len = snprintf(note, sizeof note, "%ld\n", (long)getpid());
	if (pwrite(fd, note, len, 0) == len && ftruncate(fd, len) == 0) {
		/* cat shows the pid of the running tick */
	}
	return fd;
}
