/*
 * fscheck.h — is the data directory on a filesystem that several hosts can
 * share?  Asked once by store_open().
 *
 * abx's protocol (store.h) needs, across hosts: flock that excludes the
 * other hosts, and data written under a lock seen whole by the next holder
 * of the lock on another host (no client cache that serves an old size, an
 * old block or an old "no such file").  A local filesystem has both.  What
 * the network and FUSE filesystems abx knows are checked, from what the
 * kernel and the client say of the mount (abx(7) ASSUMPTIONS is the user's
 * copy of this table):
 *
 *   fstatfs f_type    what is read            unsafe when
 *   FUSE, subtype     <mount>/.meta/graphs/   a client cache xlator is in
 *   glusterfs         active/volfile          the graph: performance/
 *                                             write-behind quick-read
 *                                             open-behind md-cache io-cache
 *                                             read-ahead readdir-ahead
 *                                             nl-cache; or a
 *                                             protocol/client without
 *                                             "option strict-locks on"
 *                     <mount>/.meta/cmdline   not mounted with
 *                                             direct-io-mode=enable,
 *                                             attribute-timeout=0,
 *                                             entry-timeout=0; a
 *                                             negative-timeout other than 0
 *                                             (or the .meta files cannot be
 *                                             read: the mount is unknown)
 *   NFS               /proc/self/mountinfo    nolock, local_lock=flock|all
 *                     (the mount's options)   (flock is local), nocto, or
 *                                             attribute caching on (neither
 *                                             noac nor acregmin=0 ...
 *                                             acdirmax=0)
 *   anything else     nothing                 never (CephFS keeps clients
 *                                             coherent by capabilities)
 *
 * The mount is the /proc/self/mountinfo entry of the data directory's
 * device whose mount point is the longest prefix of its real path.
 *
 * fscheck(dfd, dir, refusal) judges the data directory dir, open as dfd:
 * an unsafe directory is refused, unless FS_UNSAFE_OK is true in abx.conf
 * or the environment (one host only uses it, or the user knows better).
 * Returns 0 if it may be used, or 1 if it is refused, with refusal given a
 * message that names the filesystem, what is wrong and the commands or
 * options that fix it; the caller reports it (store_open() fails with 78,
 * EX_CONFIG_).  fscheck is below the store: it neither knows nor calls it.
 * On a local filesystem the cost is one fstatfs(2).  No cross-host
 * coherence probe is made: one client cannot see another client's cache.
 */
#ifndef ABX_FSCHECK_H
#define ABX_FSCHECK_H

#include "base/buf.h"

int fscheck(int dfd, const char *dir, buf_t *refusal);

/* The verdict on one mount, for the unit test: why (empty if safe) gets
 * what is unsafe and how to fix it; 1 unsafe, 0 safe. */
int fscheck_gluster(const char *volfile, const char *cmdline, const char *vol, buf_t *why);
int fscheck_nfs(const char *opts, buf_t *why);

#endif
