/*
 * alloc.h — memory from malloc(3) that never comes back NULL.
 *
 * Out of memory is not recoverable in a tool: each helper below, when the C
 * library fails it, writes "PROG: fatal: out of memory" to stderr in a
 * single write(2) and exits 70 (EX_SOFT_, exitcodes.h).  That exit is the
 * one place where the library ends the process; everything else in lib/
 * returns its errors.  PROG is the program's own name, the last part of its
 * argv[0] (program_invocation_short_name): the name err_init() gives err.h's
 * messages.  This file is the bottom of lib/: it calls only the C library,
 * so that buf, termsafe and err can all allocate without calling each other
 * in a circle.
 *
 * A size of 0 allocates 1 byte (a unique pointer, never NULL).  xasprintf
 * is asprintf(3) that returns the string.
 */
#ifndef ABX_ALLOC_H
#define ABX_ALLOC_H

#include <stddef.h>

void *xmalloc(size_t n);
void *xcalloc(size_t n, size_t m);
void *xrealloc(void *p, size_t n);
char *xstrdup(const char *s);
char *xstrndup(const char *s, size_t n);
char *xasprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif
