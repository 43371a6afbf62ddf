/*
 * stamp.c — a hook for bench/wakebench (part of make bench): appends the
 * time it started (CLOCK_MONOTONIC, seconds, one line) to the file named
 * by $ABX_BENCH_STAMP, then exits 0.  Only libc: it starts about as fast
 * as any dynamically linked hook can.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

int
main(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	const char *path = getenv("ABX_BENCH_STAMP");
	if (!path)
		return 0;
	char line[64];
	int n = snprintf(line, sizeof line, "%lld.%09ld\n", (long long)ts.tv_sec, ts.tv_nsec);
	int fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
	if (fd < 0 || write(fd, line, n) != n)
		return 1;
	close(fd);
	return 0;
}
