/*
 * names.h — names given on a command line checked against what exists, so
 * that a typo is refused where it is given (exit 65) and not found out
 * later by a worker:
 *
 *   names_plugins()   plugins: each name must be a plugin found on the
 *                     search path of DIR (plugin.h);
 *   names_kind()      record kinds: crawl, snapshot, result (archiveresult),
 *                     binary, schedule, process -> the record type;
 *   names_status()    statuses: those a record of the type can have
 *                     (type NULL: of any type), plus "template" for crawls
 *                     (a schedule's template: abx-ls).
 *
 * Each returns 0 (names_kind: the type) when the name is good; else it
 * appends to why a message naming the bad value and the valid ones,
 *
 *   unknown plugin wgett; the plugins found are: dom, favicon, ... (in
 *   $ABX_PLUGINS_DIR, DIR/plugins, /usr/local/share/abx/plugins)
 *
 * and returns EX_DATAERR_ (NULL for names_kind).  Nothing here prints or
 * exits.
 */
#ifndef ABX_NAMES_H
#define ABX_NAMES_H

#include "base/buf.h"

int names_plugins(const char *datadir, char **names, buf_t *why);
const char *names_kind(const char *kind, buf_t *why);
int names_status(const char *type, const char *status, buf_t *why);
/* The statuses of a type, NULL-terminated (type NULL: every one). */
const char *const *names_statuses(const char *type);

#endif
