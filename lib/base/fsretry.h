/*
 * fsretry.h — reads of a data-directory file that another host may replace
 * at any moment (index/active.jsonl is rewritten by rename, a journal by
 * compaction).
 *
 * On a network or FUSE filesystem (GlusterFS, NFS) a file renamed over by
 * another client makes the old descriptor fail with ESTALE (fstat, pread),
 * and a lookup that races the rename can fail with ESTALE or, for a moment,
 * ENOENT.  Neither means the file is gone: the path names the new file.
 * These helpers retry by reopening the path, a few times with a short
 * growing pause (FSR_TRIES attempts, 1, 2, 4 ... ms between them); a
 * persistent error is returned as it is.  ENOENT is retried only when the
 * caller knows the file existed a moment ago (FSR_EXISTED: the index after
 * fs_exists said so, a journal an index entry points into), and then only
 * FSR_ENOENT_TRIES attempts (3 ms in all): a journal that was never
 * written, or that retention deleted, is an ordinary ENOENT.
 *
 *   fd = fsr_open(dfd, rel, O_RDONLY, FSR_EXISTED, &st);   open + fstat
 *   fsr_read(dfd, rel, &buf);                             the whole file
 *
 * A descriptor kept across reads (the index's) that fails with ESTALE
 * names a file that was replaced: what was read of it (offsets, counts)
 * belongs to the old file, so the reader starts over from the path
 * (index_refresh and journal_sync do, up to FSR_TRIES times, each attempt
 * after fsr_again's pause).
 *
 * Every call returns -1 with errno set on failure, like the call it wraps.
 * Local filesystems never return ESTALE: there these cost nothing extra.
 */
#ifndef ABX_FSRETRY_H
#define ABX_FSRETRY_H

#include <sys/stat.h>
#include <sys/types.h>
#include "base/buf.h"

enum { FSR_TRIES = 8, FSR_ENOENT_TRIES = 3, FSR_EXISTED = 1 };

/* 1 if errno err is worth a retry (ESTALE; ENOENT if existed) and attempt
 * (0, 1, ...) is below FSR_TRIES, after a pause; else 0. */
int fsr_again(int err, int existed, int attempt);
int fsr_open(int dfd, const char *rel, int flags, int existed, struct stat *st);
int fsr_read(int dfd, const char *rel, buf_t *out);

#endif
