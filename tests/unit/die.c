/* die.c — a main's fatal message (die.h): "PROG: fatal: ...", controls
 * shown, strerror(errno) after diesys's, and the exit code asked for. */
#include <errno.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/err.h"
#include "die.h"
#include "tap.h"

/* Runs fn in a child: its stderr in got, its wait status returned. */
static int
run(void (*fn)(void), char *got, size_t n)
{
	int p[2];
	if (pipe(p) < 0)
		return -1;
	fflush(stdout);
	pid_t pid = fork();
	if (pid == 0) {
		dup2(p[1], 2);
		close(p[0]);
		close(p[1]);
		fn();
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

static void
die_title(void)
{
	die(65, "bad title: %s", "a\x1b]0;x\x07");
}

static void
diesys_open(void)
{
	errno = ENOENT;
	diesys(74, "unable to open %s", "crawls.jsonl");
}

int
main(void)
{
	err_init("/some/where/die.t");
	plan(4);
	char got[512];
	int st = run(die_title, got, sizeof got);
	ok(WIFEXITED(st) && WEXITSTATUS(st) == 65, "die exits with its code");
	is_str(got, "die.t: fatal: bad title: a^[]0;x^G\n", "one line, controls shown");
	st = run(diesys_open, got, sizeof got);
	ok(WIFEXITED(st) && WEXITSTATUS(st) == 74, "diesys exits with its code");
	is_str(got, "die.t: fatal: unable to open crawls.jsonl: No such file or directory\n",
	    "and appends strerror(errno)");
	return done();
}
