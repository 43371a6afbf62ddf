/*
 * durable.h — how a commit is made durable on the data directory's
 * filesystem: by one syncfs(2) of it, or by an fsync of each file.
 *
 * syncfs(2) writes a filesystem's dirty data and metadata out only where
 * the filesystem's sync_fs does: the local, block-device filesystems
 * below, and tmpfs and ramfs, which have no storage to reach.  On FUSE
 * (GlusterFS's client, LazyFS) the kernel sends the filesystem nothing
 * unless it opted in; network filesystems (NFS, CIFS/SMB, 9p, CephFS)
 * make no such promise either.  So the store has two ways (store.h,
 * Durability):
 *
 *   syncfs    fstatfs(2) f_type is one of: ext2/3/4, xfs, btrfs, f2fs,
 *             jfs, reiserfs, bcachefs, overlayfs (its sync_fs syncs the
 *             upper filesystem), tmpfs, ramfs.  One syncfs covers every
 *             file a batch of commits names.
 *   perfile   any other f_type: FUSE, NFS, CIFS/SMB, 9p, CephFS, ZFS,
 *             unknown.  A record is made durable by fsync of each file
 *             and directory it names (durable_tree) and fdatasync of the
 *             journal that holds its line; syncfs is never trusted.
 *
 * $ABX_DURABILITY=syncfs|perfile|auto overrides the choice (tests, a
 * filesystem not in the table that the user knows to be safe, or one in
 * it that is not); unset, empty or auto: by f_type.  Any other value is
 * refused by durable_mode (the caller reports it).
 */
#ifndef ABX_DURABLE_H
#define ABX_DURABLE_H

enum { DURABLE_SYNCFS = 0, DURABLE_PERFILE = 1 };

/* The way for the filesystem of dfd: DURABLE_SYNCFS or DURABLE_PERFILE,
 * or -1 if $ABX_DURABILITY holds another value (errno EINVAL).  An
 * fstatfs that fails counts as an unknown filesystem: perfile. */
int durable_mode(int dfd);
/* Is f_type one on which syncfs reaches stable storage?  1 or 0. */
int durable_syncfs_reaches(long f_type);

/* fsync every regular file and directory under rel (relative to dfd, no
 * symlink followed), deepest first, then rel itself and the directory
 * that holds it (rel's own entry).  rel may be a regular file: it and its
 * directory are synced.  An absent rel is not an error (nothing to make
 * durable).  0, or -1 with errno set (the first failure; the rest are
 * still synced). */
int durable_tree(int dfd, const char *rel);
/* As durable_tree, but of directory rel only its own files: what is in
 * its subdirectories is not synced (their entries, in rel, are). */
int durable_dir_files(int dfd, const char *rel);
/* As durable_tree, of the directory open as fd (left open), without its
 * entry: the caller syncs the directory that holds it. */
int durable_tree_fd(int fd);

#endif
