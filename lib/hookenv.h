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
 * hook_result_line(OUT, STATUS, OUTPUT_STR, ERROR): the ArchiveResult
 * line, newline included, appended to OUT: $EXTRA_CONTEXT's members when
 * it is a JSON object (but type, status, output_str and error), then
 * type, status, output_str and, when ERROR is not NULL or empty, error;
 * as ArchiveBox's emit helpers and hook.sh's hook_result print it.
 */
#ifndef ABX_HOOKENV_H
#define ABX_HOOKENV_H

#include "buf.h"

int hook_false(const char *v);
long hook_timeout(const char *key);
const char *hook_url(int argc, char **argv);
void hook_result_line(buf_t *out, const char *status, const char *output_str, const char *error);

#endif
