/*
 * die.h — the fatal message that ends a tool: for mains only.
 *
 *     abx-claim: fatal: unable to open crawls.jsonl: No such file or directory
 *
 * die(code, fmt, ...) prints "prog: fatal: " and the message as err.h's
 * calls do (one write(2), controls shown: err_vemit()), then exits with
 * code, one of exitcodes.h.  diesys() appends ": " and strerror(errno).
 *
 * Only a main calls them: a tool's main in bin/, a hook built from C
 * (share/abx/plugins/NAME/NAME.c), a benchmark.  The library returns its
 * errors and lets the main decide (store.h); tests/lib/layers.py fails any
 * module of lib/ that calls exit or die, save this one, the usage helpers
 * (cli.h) and out-of-memory (base/alloc.h).  So this file sits at lib/'s
 * top, beside cli.c, and base/err.h, which library code includes, does not
 * declare it.  cli.h includes this header, so every
 * tool's main, which includes cli.h, has die() without more; another main
 * includes "die.h" itself.
 */
#ifndef ABX_DIE_H
#define ABX_DIE_H

void die(int code, const char *fmt, ...)
	__attribute__((__noreturn__, format(printf, 2, 3)));
void diesys(int code, const char *fmt, ...)
	__attribute__((__noreturn__, format(printf, 2, 3)));

#endif
