/* alloc.c — out of memory ends the process in one place: one line on
 * stderr, "PROG: fatal: out of memory", and exit 70 (alloc.h). */
#include <stdint.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/alloc.h"
#include "tap.h"

/* Runs this program again as "alloc.t oom" (told that malloc may return
 * NULL, if it is built with ASan); its stderr in got, its wait status
 * returned. */
static int
run_oom(char *got, size_t n)
{
	int p[2];
	if (pipe(p) < 0)
		return -1;
	pid_t pid = fork();
	if (pid == 0) {
		dup2(p[1], 2);
		close(p[0]);
		close(p[1]);
		char *argv[] = {"alloc.t", "oom", NULL};
		char *env[] = {"ASAN_OPTIONS=allocator_may_return_null=1:detect_leaks=0", NULL};
		execve("/proc/self/exe", argv, env);
		_exit(127);
	}
	close(p[1]);
	size_t len = 0;
	ssize_t r;
	while (len < n - 1 && (r = read(p[0], got + len, n - 1 - len)) > 0)
		len += (size_t)r;
	got[len] = 0;
	close(p[0]);
	int st = -1;
	waitpid(pid, &st, 0);
	return st;
}

int
main(int argc, char **argv)
{
	if (argc > 1 && strcmp(argv[1], "oom") == 0) {
		volatile size_t huge = SIZE_MAX / 2;
		free(xmalloc(huge));
		return 0;
	}
	plan(5);
	char *s = xasprintf("%s-%d", "a", 7);
	is_str(s, "a-7", "xasprintf returns the string");
	free(s);
	char *d = xstrndup("abcdef", 3);
	is_str(d, "abc", "xstrndup keeps n bytes");
	free(d);
	void *z = xmalloc(0);
	ok(z != NULL, "a size of 0 gives a pointer, not NULL");
	free(z);
	char got[512];
	int st = run_oom(got, sizeof got);
	ok(WIFEXITED(st) && WEXITSTATUS(st) == 70, "out of memory exits 70");
	/* the last line: ASan may warn before it */
	char *last = got + strlen(got);
	while (last > got && last[-1] == '\n')
		last--;
	while (last > got && last[-1] != '\n')
		last--;
	is_str(last, "alloc.t: fatal: out of memory\n", "and says so in one line with the program's name");
	return done();
}
