/*
 * ids.h — identifiers, and the names that become paths.
 *
 * ids are UUIDv7 strings (RFC 9562): 48 bits of milliseconds, then random
 * bits, so that ls and sort order them by creation time.  id_valid() accepts
 * exactly 36 lowercase-hex-and-dash characters in the 8-4-4-4-12 shape; it is
 * the check every id passes before it becomes part of a path.
 * name_valid() accepts plugin and hook names: [A-Za-z0-9_][A-Za-z0-9_.-]*,
 * at most 64 bytes, never "." or "..".
 *
 * Host identity.  The host that a lease, a run mark, a daemon record, a
 * result, the index header and the per-host tick lock (locks/tick@HOST)
 * name is host_name()'s, the one place it is decided:
 *   1. $ABX_HOST, if set and not empty;
 *   2. HOST in DIR/abx.conf (dfd; -1: not read), if set;
 *   3. gethostname(2) ("localhost" if that fails).
 * Several hosts that share a data directory must have distinct names: two
 * containers with one host name set ABX_HOST (or each its own abx.conf
 * HOST, on a directory they do not share the abx.conf of).  A name from 1
 * or 2 must pass host_valid(): 1 to 64 bytes of [A-Za-z0-9_.-], not
 * starting with '.' or '-' (it becomes part of a lock file's name); a bad
 * one makes host_name return -1 with a message in why (the name and where
 * it came from), and out unchanged.  Returns 0.
 */
#ifndef ABX_IDS_H
#define ABX_IDS_H

#include <stddef.h>

#define ID_LEN 36

void id_new(char out[ID_LEN + 1]);
int id_valid(const char *s);
int name_valid(const char *s);
/* Split "a,b,c" into a NULL-terminated array of malloc'd names, each
 * checked with name_valid(); returns NULL and sets *bad on a bad name. */
char **name_list(const char *list, const char **bad);
void name_list_free(char **v);
int host_valid(const char *s);
int host_name(int dfd, char *out, size_t n, char *why, size_t whyn);

#endif
