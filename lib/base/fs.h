/*
 * fs.h — files in the data directory, opened without following symlinks.
 *
 * Every path below the data directory is relative to its directory fd and
 * walked one component at a time with O_NOFOLLOW, so a symlink planted in
 * the data directory (crawls/x -> /etc) is refused with ELOOP/ENOTDIR
 * instead of followed.  ESTALE (network filesystems, while files are being
 * renamed) is retried a few times.
 *
 * fs_replace() is the one atomic file write: write ".NAME.tmp.PID" in the
 * same directory, fsync it (if durable), rename over NAME, fsync the
 * directory.  A reader sees the old file or the new one, never half.  A
 * crash leaves at most a stale temp file, which the repair pass sweeps.
 */
#ifndef ABX_FS_H
#define ABX_FS_H

#include <stddef.h>
#include <sys/types.h>
#include "base/buf.h"

int fs_open(int dfd, const char *rel, int flags, mode_t mode);  /* -1, errno */
int fs_opendir(int dfd, const char *rel);                        /* O_DIRECTORY */
int fs_mkdirs(int dfd, const char *rel);                         /* mkdir -p */
/* mkdir -p without first looking for rel whole, and the last directory's
 * fd (O_DIRECTORY, close-on-exec), opened by the walk itself: each
 * component made if absent and opened without following a symlink, ".."
 * refused.  For a caller that just found rel missing: on a network
 * filesystem each component of a path opened again is a round trip. */
int fs_mkdirs_open(int dfd, const char *rel);
int fs_replace(int dfd, const char *rel, const void *data, size_t n, int durable);
/* Write a file that does not exist yet in place, in one go (no temporary
 * file, no rename: one inode); if it exists, fs_replace (not synced).  For
 * files nothing trusts before a later commit names them: a snapshot's
 * index files written before its seal commits. */
int fs_write_new(int dfd, const char *rel, const void *data, size_t n);
/* The same, and with sync set, the file is fsync'd through the descriptor
 * that wrote it, before its close (a replacement: fs_replace durable, which
 * syncs the directory too); the caller syncs the directory of a new one. */
int fs_write_new_sync(int dfd, const char *rel, const void *data, size_t n, int sync);
int fs_read_fd(int fd, buf_t *out);                              /* whole file */
int fs_read(int dfd, const char *rel, buf_t *out);
int fs_rmtree(int dfd, const char *rel);                         /* rm -rf, no follow */
int fs_exists(int dfd, const char *rel);
int fs_fsync_dir(int dfd, const char *reldir);
/* Sum of st_size of regular files under rel (no follow). */
long long fs_du(int dfd, const char *rel);

#endif
