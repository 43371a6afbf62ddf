/*
 * hookenv.h — the settings every shipped hook reads the same way, for the
 * hooks written in C (share/abx/plugins/<plugin>/<plugin>.c); the shell hooks
 * read them in _lib/hook.sh, with the same rules.
 *
 * hook_false(V): V is one of ArchiveBox's false strings (false, False,
 * FALSE, 0, no, No, NO, off, Off, OFF, or empty): hook.sh's is_false.
 *
 * hook_timeout(KEY): the hook's timeout in seconds: $KEY (e.g.
 * WGET_TIMEOUT) if set and not empty, else $TIMEOUT, else 60; a value
 * that is not a positive decimal integer counts as 60 (hook_init).
 *
 * hook_url(ARGC, ARGV): the URL of --url=URL or --url URL (the last one),
 * or NULL; other arguments are ignored (ArchiveBox's contract).
 *
 * hook_start(ARGC, ARGV, PREFIX, HTTP, V): the checks every hook makes
 * first, as hook.sh's hook_init and require_http: <PREFIX>_ENABLED false
 * is "skipped" ("<PREFIX>_ENABLED is false"); no --url is "failed" ("no
 * --url given", error "usage: <name> --url=URL"); a URL beginning with
 * "-" is "failed" ("bad URL: <url>", error "a URL may not begin with -");
 * with HTTP, a URL that is not http(s) is "skipped".  Returns the URL, or
 * NULL with V filled: the result to print.
 *
 * hook_wait_dir(DIR, LEFT): wait until no hook holds an exclusive flock(2)
 * on DIR (the wget hook holds one on its own directory while it runs), for
 * at most *LEFT seconds, which the wait is taken from (a budget shared by
 * several calls).  A blocking shared flock, so that the reader goes on the
 * moment the writer lets go, interrupted every 200 ms by a timer to keep
 * to the budget (a single alarm could fire before flock blocks, and be
 * lost).  0: free at once (or DIR cannot be opened), 1: free after a
 * wait, -1: still held when the budget ran out.
 *
 * hook_write_file(NAME, P, N): NAME in the cwd (a hook's output) made to
 * hold the N bytes at P: written to ".NAME.PID" (created, O_EXCL |
 * O_NOFOLLOW) and renamed over NAME, so a symlink or a hard link planted
 * at NAME is replaced, never written through, and NAME is never seen
 * half written; 0, or -1 (errno; the temp file removed).
 *
 * hook_print(STATUS, OUTPUT_STR, ERROR): that line, on stdout, flushed.
 * hook_exit_code(STATUS, SIG): what the hook exits with: 128 + SIG when a
 * signal stopped it (SIG not 0), else 0 for succeeded and noresults, 10
 * for skipped, 1 for anything else (ArchiveBox's contract).
 *
 * hook_result_line(OUT, STATUS, OUTPUT_STR, ERROR): the ArchiveResult
 * line, newline included, appended to OUT: $EXTRA_CONTEXT's members when
 * it is a JSON object (but type, status, output_str and error), then
 * type, status, output_str and, when ERROR is not NULL or empty, error;
 * as ArchiveBox's emit helpers and hook.sh's hook_result print it.
 */
#ifndef ABX_HOOKENV_H
#define ABX_HOOKENV_H

#include "base/buf.h"

int hook_false(const char *v);
long hook_timeout(const char *key);
const char *hook_url(int argc, char **argv);
typedef struct {
	const char *status;
	char out[1024], err[1024];   /* output_str, error ("": none) */
} hook_verdict_t;
const char *hook_start(int argc, char **argv, const char *prefix, int http, hook_verdict_t *v);
int hook_wait_dir(const char *dir, double *left);
void hook_result_line(buf_t *out, const char *status, const char *output_str, const char *error);
void hook_print(const char *status, const char *output_str, const char *error);
int hook_write_file(const char *name, const void *p, size_t n);
int hook_exit_code(const char *status, int sig);

#endif
