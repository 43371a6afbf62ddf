/*
 * nolock.h — what the index knows of lock files (lease.h), so that a
 * claim need not look for one: on GlusterFS a look is two round trips.
 *
 * An entry's nolock bit says locks/<id> does not exist.  It is set by the
 * commit of a record whose id the committing process has just made
 * (store_put_new: nobody else knows the id yet), and by a look under the
 * store lock that found no file; the entry's index line carries it
 * ("nl":1), and a line without it leaves the bit as it was.  Lock files
 * are made only under the store lock (lease.h), and their maker first
 * appends {"lock":"<id>"} to the index, which clears the bit in every
 * reader (nolock_made): file order is lock order, so a bit read before
 * that line was true when written.  A bit is trusted only under the store
 * lock, out of lean mode, and while every line the table took came from
 * this boot: another boot's lines (another host's, or this host's before
 * it crashed, when lock lines may be lost while their files were not) turn
 * every bit off until the index is read again (s->nolock_off).  An abx
 * older than this one makes lock files without the line: hosts sharing a
 * data directory run one version (abx(7) ASSUMPTIONS).
 */
#ifndef ABX_NOLOCK_H
#define ABX_NOLOCK_H

#include "store/store.h"

/* 1: locks/<id> is known not to exist (see above), 0: look. */
int nolock_known(store_t *s, const char *id);
/* A look under the store lock found no locks/<id>. */
void nolock_seen(store_t *s, const char *id);
/* About to make locks/<id> (under the store lock): the lock line, written
 * first.  0, or -1 if it could not be written: then make no file. */
int nolock_made(store_t *s, const char *id);
/* May a commit of store_put_new's record of id set the bit (no lock file
 * made for id by this process before its first commit)? */
int nolock_fresh_ok(const store_t *s, const char *id);
/* Apply an index line {"lock":"<id>"}: 0, or -1 if it is not one. */
int nolock_apply(store_t *s, const char *line, size_t len);

#endif
