/*
 * cputime — run the program named by $ABX_BENCH_REAL with our arguments
 * and append "CPU_US NAME" to $ABX_BENCH_CPU_LOG: the user + system time
 * of it and its waited-for children (wait4), plus our own (so that the
 * measuring process is not counted as abx's).  bench/crawl.sh puts it in
 * place of the fetcher (WGET_BINARY) to tell the fetcher's CPU from
 * abx's.  Signals it gets are passed on; its exit status is the
 * program's (128 + signal if killed).
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;
static volatile pid_t child;

static void
forward(int sig)
{
	if (child > 0)
		kill(child, sig);
}

int
main(int argc, char **argv)
{
	const char *real = getenv("ABX_BENCH_REAL"), *log = getenv("ABX_BENCH_CPU_LOG");
	if (!real || argc < 1) {
		fprintf(stderr, "cputime: ABX_BENCH_REAL is not set\n");
		return 127;
	}
	struct sigaction sa = {0};
	sa.sa_handler = forward;
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	argv[0] = (char *)real;
	pid_t pid;
	if (posix_spawnp(&pid, real, NULL, NULL, argv, environ) != 0) {
		perror("cputime: spawn");
		return 127;
	}
	child = pid;
	int st;
	struct rusage ru;
	while (wait4(pid, &st, 0, &ru) < 0)
		if (errno != EINTR)
			return 127;
	if (log) {
		struct rusage self;
		getrusage(RUSAGE_SELF, &self);
		long long us = (long long)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1000000 +
		               ru.ru_utime.tv_usec + ru.ru_stime.tv_usec +
		               (long long)(self.ru_utime.tv_sec + self.ru_stime.tv_sec) * 1000000 +
		               self.ru_utime.tv_usec + self.ru_stime.tv_usec;
		char line[128];
		int n = snprintf(line, sizeof line, "%lld %s\n", us, real);
		int fd = open(log, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
		if (fd >= 0) {
			(void)!write(fd, line, n);
			close(fd);
		}
	}
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}
