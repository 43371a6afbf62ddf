/*
 * ids.h — identifiers, and the names that become paths.
 *
 * ids are UUIDv7 strings (RFC 9562): 48 bits of milliseconds, then random
 * bits, so that ls and sort order them by creation time.  id_valid() accepts
 * exactly 36 lowercase-hex-and-dash characters in the 8-4-4-4-12 shape; it is
 * the check every id passes before it becomes part of a path.
 * name_valid() accepts plugin and hook names: [A-Za-z0-9_][A-Za-z0-9_.-]*,
 * at most 64 bytes, never "." or "..".
 */
#ifndef ABX_IDS_H
#define ABX_IDS_H

#define ID_LEN 36

void id_new(char out[ID_LEN + 1]);
int id_valid(const char *s);
int name_valid(const char *s);

#endif
