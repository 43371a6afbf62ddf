/*
 * storeperm.h — who may open the data directory, and the store lock's file.
 *
 * Private by default (abx(7) FILES): store_open() sets the process's umask
 * to 077 before it makes anything, so that the data directory and all
 * that abx makes in it (abx.conf, journals, the index, locks, snapshots,
 * and the hooks' outputs: a hook inherits the umask) are 0700 directories
 * and 0600 files whatever the user's umask was.  GROUP_READABLE=true, in
 * the environment or in abx.conf, sets 027 instead: the directory's group
 * may read the archive (directories 0750, files 0640), and the data
 * directory gets the setgid bit, so that what is made in it keeps its
 * group.  A directory made when the setting was off keeps its modes (chmod
 * -R it by hand).  The umask is the process's: what a tool makes outside
 * the data directory (the directories on the way to a new one, a pack
 * written elsewhere) is made with it too.
 *
 * locks/ is 0700 in either case: whoever can open a lock file can flock it
 * (read access is enough) and hang every tool that waits for it.  Readers
 * (abx-ls, abx-ctl status, config) take no lock, so they need none of it.
 *
 * store_perm(s): decide from $GROUP_READABLE, else abx.conf of s->dfd (if
 * open), set the umask, and give a group-readable data directory that we
 * own its setgid bit.  Returns 1 if group-readable, else 0.
 *
 * store_lock_open(s): open locks/store.lock into s->lockfd (made, with
 * locks/, if absent; not following a symlink), and make locks/ 0700 if an
 * older abx left it wider.  0, or -1 with errno set (nothing here calls
 * back into the store: the caller, store_lock, reports it).
 */
#ifndef ABX_STOREPERM_H
#define ABX_STOREPERM_H

#include "store/store.h"

int store_perm(store_t *s);
int store_lock_open(store_t *s);

#endif
