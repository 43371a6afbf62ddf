/*
 * lease.h — leases: a flock on locks/<id>, freed by the kernel when its
 * holder dies.
 *
 * A lock file is never renamed over.  The repair pass may unlink the lock
 * file of a final item, but only while holding its flock, so lease_take()
 * checks after locking that the file it locked is still the one at the path
 * (same inode), and retries if not: two holders can never hold "the same"
 * lease through two inodes.
 *
 * The lease record — the JSON lease object of the item's record (host, pid,
 * boot_id, claimed_at, expires_at, flock) — is also written into the lock
 * file so that `cat locks/<id>` shows who holds what.
 *
 * Errors that mean "the lock's state is unknown" (ENOLCK, EIO, EBADF on
 * network filesystems) are never taken for "free": lease_take returns
 * LEASE_UNKNOWN and callers treat that as busy.
 *
 * A lease handed to a child (abx-claim ... CMD) is named by $ABX_LEASE_FD
 * and $ABX_ID; lease_inherited() returns that fd if it really is a lock on
 * locks/<id>.
 */
#ifndef ABX_LEASE_H
#define ABX_LEASE_H

#include <stdint.h>
#include "base/buf.h"
#include "store/store.h"

enum { LEASE_TAKEN = 0, LEASE_BUSY = 1, LEASE_UNKNOWN = 2 };

/*
 * Take the flock of id.  Lock files are created only under the store lock
 * (lease_take takes it for the creation if the caller does not hold it),
 * so under the store lock a missing file means nobody holds the lease.
 * fdp == NULL probes: LEASE_TAKEN means free (nothing is kept, and no file
 * is created: a time lease costs no inode), LEASE_BUSY held.
 */
int lease_take(store_t *s, const char *id, int *fdp);
int lease_busy(store_t *s, const char *id);   /* 1 held elsewhere, 0 free */
void lease_note(int fd, const char *text);      /* write the lease record */
void lease_drop(int fd);                        /* clear the note, unlock, close */
int lease_inherited(store_t *s, const char *id);
/*
 * Is the lease on fd still ours?  1 yes, 0 lost.  On a network filesystem
 * a host cut off from the servers, or whose server restarted, loses its
 * locks without being told: the other hosts may already have claimed its
 * items.  What it sees is its lock descriptor failing — EBADF, EBADFD
 * (GlusterFS with client.strict-locks on, from then on), ENOTCONN, EIO,
 * ENOLCK, ESTALE — or, re-asserting the lock, EWOULDBLOCK (someone else
 * holds it now).  Each of these is "lost": the holder must stop the item's
 * work and commit nothing of it (its hooks may be running on another host
 * already).  The check re-asserts the exclusive flock on fd (a no-op for
 * the holder, a round trip to the server on a network filesystem) and
 * makes sure locks/<id> is still the file fd holds.  Call it before each
 * step that would commit under the lease, and at each renewal.
 */
int lease_held(store_t *s, const char *id, int fd);
/* The lease object for a record: {"host":..,"pid":..,...}. */
void lease_object(store_t *s, buf_t *out, int64_t claimed, int64_t expires, int flock);

#endif
