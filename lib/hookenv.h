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
 */
#ifndef ABX_HOOKENV_H
#define ABX_HOOKENV_H

int hook_false(const char *v);
long hook_timeout(const char *key);

#endif
