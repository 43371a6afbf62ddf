/*
 * lockwait.h — take a flock(2) that may be held a while, and say so.
 *
 * lock_wait(fd, op, name, after) takes flock(fd, op) (LOCK_EX or LOCK_SH),
 * blocking as flock(2) does, retried on EINTR.  If the lock is not free at
 * once, a watcher thread waits AFTER seconds and, if the lock is still not
 * ours by then, says once on stderr
 *
 *     abx-ls: warning: waiting for the lock D/locks/store.lock, held by pid 123 (abx-tick)
 *
 * (the holder read from /proc/locks by the file's device and inode; left
 * out where it cannot be found: another pid namespace, no /proc).  A lock
 * free at once costs one flock(2) and no thread.  Returns 0, or -1 with
 * errno from flock(2).
 *
 * lock_holder(fd, buf, n) writes "pid N (COMM)" of a process that holds a
 * flock on fd's file (not a waiter), or "" if none is found; returns the
 * pid or 0.
 */
#ifndef ABX_LOCKWAIT_H
#define ABX_LOCKWAIT_H

#include <stddef.h>

int lock_wait(int fd, int op, const char *name, int after);
int lock_holder(int fd, char *buf, size_t n);

#endif
