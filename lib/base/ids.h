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
 * host_valid() accepts a host name (host.h says where it comes from): 1 to
 * 64 bytes of [A-Za-z0-9_.-], not starting with '.' or '-' (it becomes part
 * of a lock file's name).
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

#endif
