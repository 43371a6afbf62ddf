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
 * A kept journal descriptor may be armed (in a process that sets s->arm:
 * store.h): it holds a shared flock on its journal (no writer of abx
 * takes any other lock on a journal), taken under the store lock by a
 * commit that re-asserted the store lock after taking it.  A filesystem that loses locks loses them all at once (a
 * GlusterFS brick restarted: every lock it held; an NFS client's lease
 * expired: all of that client's), and then fails every later call on a
 * descriptor whose lock was lost (GlusterFS with client.strict-locks:
 * EBADFD; NFS: EIO): so while a journal's descriptor is armed, a write to
 * it fails if the store lock was lost since it was armed, and a commit
 * that writes only armed journals need not re-assert the store lock first
 * (storecommit.c: one round trip to the server less).  A lock lost is
 * lost for all: a jfd_open that finds an armed descriptor failing closes
 * every armed one (GlusterFS makes a file whose lock it lost unusable to
 * every process of the host while such a descriptor is open).
 *   jfd_armed(s, j)   1 if j's kept descriptor is armed and still names
 *                     the journal (its fstat, kept for the transaction)
 *   jfd_arm(s, j)     arm j's kept read-write descriptor, if there is one;
 *                     the caller then re-asserts the store lock
 *   jfd_drop_armed(s) close every armed descriptor not pinned (a commit
 *                     found the store lock lost)
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
int jfd_armed(store_t *s, const char *j);
void jfd_arm(store_t *s, const char *j);
void jfd_drop_armed(store_t *s);

#endif
