/*
 * err.h — diagnostics in one format, as skalibs' strerr does:
 *
 *     abx-claim: fatal: unable to open crawls.jsonl: No such file or directory
 *     abx-add: warning: line 3: not a URL: ftp//x
 *
 * err_prog must be set once by main (err_init(argv[0])).  The *sys variants
 * append strerror(errno).  Messages go to stderr in a single write(2) so that
 * lines from concurrent processes never interleave, and a URL or title in
 * one shows its controls (termsafe.h).  Nothing here exits: the library
 * returns its errors (store.h).  The fatal message that ends a tool, die(),
 * is the mains' own (lib/die.h, which cli.h includes); err_vemit() is what
 * it prints with.  Out-of-memory ends the process in one place, alloc.h,
 * included here so that every caller of xmalloc and the rest finds them.
 */
#ifndef ABX_ERR_H
#define ABX_ERR_H

#include <stdarg.h>
#include <stdnoreturn.h>   /* the hooks' mains (share/abx/plugins) have noreturn from here */

#include "base/alloc.h"

void err_init(const char *argv0);
const char *err_prog(void);
int err_verbose(int set);        /* -v: returns the level; set<0 queries */

void warnx_(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* "prog: error: ...": a failure a tool reports and goes on from (the
 * daemon, a pass with other work); it still exits non-zero at the end. */
void errorx(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void warnsys(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void info(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* "prog: KIND: message" ("prog: message" when kind is ""), and ": " and
 * strerror(errnum) after it when errnum is not 0: what the calls above and
 * die() print. */
void err_vemit(const char *kind, int errnum, const char *fmt, va_list ap)
	__attribute__((format(printf, 3, 0)));

/*
 * A full disk is one cause: once a process has printed a warning or error
 * that says "No space left on device" (or "Disk quota exceeded"), the next
 * ones that say it are counted, not printed, until err_repeats_flush()
 * prints one line for them,
 *
 *     abx-hook: warning: (and 12 more like it: No space left on device)
 *
 * and starts over.  A process calls it at exit (registered with atexit(3)
 * at the first line held back), and the daemon after each pass, so that a
 * tick pass says the cause once, not once per file it could not write
 * (a full disk made 91 of 152 lines of one pass the same).  A fatal
 * message is always printed.  Thread-safe.
 */
void err_repeats_flush(void);

/*
 * Fault injection for the crash tests: when $ABX_TEST_FAULT equals name,
 * fault_point() kills the process with SIGKILL.  Production never sets it.
 */
int fault_armed(const char *name);
void fault_point(const char *name);

#endif
