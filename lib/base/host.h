/*
 * host.h — which host this is, the one place it is decided.
 *
 * The host that a lease, a run mark, a daemon record, a result, the index
 * header and the per-host tick lock (locks/tick@HOST) name is host_name()'s:
 *   1. $ABX_HOST, if set and not empty;
 *   2. HOST in DIR/abx.conf (dfd; -1: not read), if set;
 *   3. gethostname(2) ("localhost" if that fails).
 * Several hosts that share a data directory must have distinct names: two
 * containers with one host name set ABX_HOST (or each its own abx.conf
 * HOST, on a directory they do not share the abx.conf of).  A name from 1
 * or 2 must pass host_valid() (ids.h: it becomes part of a lock file's
 * name); a bad one makes host_name return -1 with a message in why (the
 * name and where it came from), and out unchanged.  Returns 0.
 *
 * This sits apart from ids.h because it reads abx.conf (config.h), and
 * config.h checks names with ids.h: ids -> config -> ids would be a circle.
 */
#ifndef ABX_HOST_H
#define ABX_HOST_H

#include <stddef.h>

int host_name(int dfd, char *out, size_t n, char *why, size_t whyn);

#endif
