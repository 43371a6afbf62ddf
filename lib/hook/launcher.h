/*
 * launcher.h — a distribution's launcher script, passed over for the
 * program it starts.
 *
 * launcher_program(PATH, OUT, N): when PATH is a "#!" file directly in
 * /usr/bin or /bin, named NAME, and /usr/lib/NAME/NAME or
 * /usr/lib64/NAME/NAME is an executable regular file, that path is
 * written to OUT (N bytes) and 1 returned; else 0, OUT untouched.
 *
 * Debian's /usr/bin/chromium (Arch's too; Fedora's chromium-browser) is
 * such a script: it sources /etc/chromium.d, running uname, grep, four
 * expr, findmnt, ls and tr on the way (ten processes a start), to add
 * flags a headless capture does not want (Debian's API keys, its
 * extensions) or gives itself (--disable-dev-shm-usage,
 * --disable-background-networking), then execs the program.  The chrome
 * hook starts the program directly, and abx-hook's version check asks the
 * program (binary.h).  A script anywhere else, a user's own wrapper, runs
 * as it is.  Nothing is written.
 */
#ifndef ABX_LAUNCHER_H
#define ABX_LAUNCHER_H

#include <stddef.h>

int launcher_program(const char *path, char *out, size_t n);

#endif
