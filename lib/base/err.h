/*
 * err.h — diagnostics in one format, as skalibs' strerr does:
 *
 *     abx-claim: fatal: unable to open crawls.jsonl: No such file or directory
 *     abx-add: warning: line 3: not a URL: ftp//x
 *
 * err_prog must be set once by main (err_init(argv[0])).  die() prints and
 * exits with the given code from exitcodes.h; only mains call it (the
 * library returns errors: store.h); the *sys variants append
 * strerror(errno).  Messages go to stderr in a single write(2) so that lines
 * from concurrent processes never interleave.
 */
#ifndef ABX_ERR_H
#define ABX_ERR_H

#include <stdnoreturn.h>

void err_init(const char *argv0);
const char *err_prog(void);
int err_verbose(int set);        /* -v: returns the level; set<0 queries */

noreturn void die(int code, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
noreturn void diesys(int code, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void warnx_(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* "prog: error: ...": a failure a tool reports and goes on from (the
 * daemon, a pass with other work); it still exits non-zero at the end. */
void errorx(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void warnsys(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void info(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Out-of-memory is not recoverable in a tool: report and exit 70. */
void *xmalloc(size_t n);
void *xcalloc(size_t n, size_t m);
void *xrealloc(void *p, size_t n);
char *xstrdup(const char *s);
char *xstrndup(const char *s, size_t n);
char *xasprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/*
 * Fault injection for the crash tests: when $ABX_TEST_FAULT equals name,
 * fault_point() kills the process with SIGKILL.  Production never sets it.
 */
int fault_armed(const char *name);
void fault_point(const char *name);

#endif
