/*
 * storefd.h — descriptors the store keeps open between transactions: the
 * journals' and the locks/ directory's, so that a claim or a commit reads,
 * appends and probes without walking a path each time (on a FUSE or
 * network filesystem every component of a path is a round trip to the
 * server: "crawls/C/snapshots.jsonl" is three lookups and an open, a kept
 * descriptor's fstat one).  Part of the store (store.c lists its files).
 *
 * A kept journal descriptor is trusted only while the file it names is
 * still the journal: each jfd_open fstats it, and one whose link count is
 * 0 (the journal was renamed over by a compaction or a hand edit, here or
 * on another host, or removed) or that fails with ESTALE is closed and the
 * path opened again, as every open did before (fs_open: beneath the data
 * directory, no symlink followed).  A journal the store replaces itself is
 * forgotten at once (jfd_forget).
 *
 *   fd = jfd_open(s, j, write, existed, &st)   the journal's descriptor,
 *        O_RDONLY, or O_RDWR|O_APPEND if write (a read-only descriptor is
 *        replaced by one that can write); st its fstat (may be NULL);
 *        existed as fsr_open's.  -1 with errno (ENOENT: no such journal).
 *        The caller never closes it.  It stays valid until the next
 *        jfd_open, unless pinned (jfd_pin): a commit pins the journals it
 *        writes until it is done (jfd_unpin_all).
 *   jfd_forget(s, j)      close j's descriptor (the journal was replaced)
 *   jfd_close_all(s)      close every one (store_close)
 *
 * At most JFD_KEEP descriptors are kept: the oldest unpinned one is closed
 * for a new one.
 *
 * Under the store lock no other process changes a journal, so its fstat is
 * taken once a transaction: jfd_open and jfd_stat answer from it until the
 * store changes a journal itself (jfd_changed: an append, a cut) or the
 * lock is taken or released again.  Without the lock every call fstats.
 *   jfd_stat(s, fd, &st)   fstat, or the kept one if fd is a journal's
 *   jfd_changed(s)         a journal was written or cut: stat them again
 *
 *   lfd = store_locks_dir(s)   the locks/ directory, opened once (made if
 *        missing when create); lease lock files are opened relative to it
 *        (one name, O_NOFOLLOW).  -1 with errno.  It is the directory of
 *        the store lock the process holds: if locks/ were replaced, the
 *        store lock would be another file too.
 */
#ifndef ABX_STOREFD_H
#define ABX_STOREFD_H

#include <sys/stat.h>
#include "store/store.h"

int jfd_open(store_t *s, const char *j, int write, int existed, struct stat *st);
void jfd_pin(store_t *s, int fd);
void jfd_unpin_all(store_t *s);
void jfd_forget(store_t *s, const char *j);
int jfd_stat(store_t *s, int fd, struct stat *st);
void jfd_changed(store_t *s);
void jfd_close_all(store_t *s);
int store_locks_dir(store_t *s, int create);

#endif
