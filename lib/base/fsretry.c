/* fsretry.c — see fsretry.h. */
#include <errno.h>
#include <fcntl.h>
#include <time.h>
#include <unistd.h>

#include "base/fs.h"
#include "base/fsretry.h"

int
fsr_again(int err, int existed, int attempt)
{
	if (attempt + 1 >= FSR_TRIES || !(err == ESTALE || (existed && err == ENOENT)))
		return 0;
	if (err == ENOENT && attempt + 1 >= FSR_ENOENT_TRIES)
		return 0;   /* a rename takes a moment; a deleted file is gone */
	struct timespec ts = {0, (1L << attempt) * 1000000L};
	nanosleep(&ts, NULL);
	return 1;
}

int
fsr_open(int dfd, const char *rel, int flags, int existed, struct stat *st)
{
	for (int i = 0;; i++) {
		int fd = fs_open(dfd, rel, flags, 0);
		if (fd >= 0 && (!st || fstat(fd, st) == 0))
			return fd;
		int e = errno;
		if (fd >= 0)
			close(fd);
		if (!fsr_again(e, existed, i)) {
			errno = e;
			return -1;
		}
	}
}

int
fsr_read(int dfd, const char *rel, buf_t *out)
{
	for (int i = 0;; i++) {
		out->len = 0;
		int fd = fs_open(dfd, rel, O_RDONLY, 0);
		if (fd >= 0 && fs_read_fd(fd, out) == 0) {
			close(fd);
			return 0;
		}
		int e = errno;
		if (fd >= 0)
			close(fd);
		/* ENOENT after an ESTALE: the path is being renamed over */
		if (!fsr_again(e, i > 0, i)) {
			errno = e;
			return -1;
		}
	}
}
