/*
 * kept.h — a small file's bytes, kept for the next reader in this process.
 *
 * abx.conf is read by several layers of one process (the store's permissions, the host
 * name, the settings check, a phase's settings), and by a tick or a
 * serving worker again for each crawl and snapshot.  On a network
 * filesystem each open, read and close is a round trip to the server; a
 * kept copy costs one stat.  It is used while fstatat(2) (the name itself
 * not followed, a plain name in dfd: no other component to follow) says
 * the same device, inode, size, mtime and ctime of a regular file; a file
 * rewritten in place to the same size within one tick of the filesystem's
 * clock would be missed (an editor's rename, or a size change, is seen).
 */
#ifndef ABX_KEPT_H
#define ABX_KEPT_H

#include "base/buf.h"

/* rel's bytes appended to *out (empty), as fs_read reads them (no symlink
 * followed), from the kept copy when a stat says it still holds; a name
 * with a '/' is read as fs_read does, never kept.  0, or -1 with errno. */
int kept_read(int dfd, const char *rel, buf_t *out);

#endif
