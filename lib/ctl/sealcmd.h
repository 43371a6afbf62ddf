/*
 * sealcmd.h — what abx-seal does with one ID (seal.h does the sealing and
 * the packing):
 *
 *   sealcmd_find()   the item: a snapshot or a crawl (*is_crawl), and, when
 *                    packing, a sealed one.  65 and "no record with id ID",
 *                    "ID is not a snapshot or a crawl", "ID is not sealed
 *                    yet; seal it before packing"; the store's status and
 *                    message if it failed.
 *   sealcmd_pack()   the item into file (seal_pack(): the archive chosen
 *                    by the suffix), never over an existing file unless
 *                    force.  73 and "unable to pack ID ..." (an unknown
 *                    suffix, file exists, the error).
 *   sealcmd_seal()   the item sealed (the caller holds its lease): a
 *                    snapshot, or a crawl none of whose snapshots is
 *                    active.  A snapshot whose hooks ran (by hand: it is
 *                    started, or queued with results) first has its
 *                    outlinks queued, as a tick queues them (outlinks.h:
 *                    the same rules, the same code); if that fails, 70 or
 *                    the store's status, and it is not sealed.  Once sealed and durable (store_sync: a
 *                    reseal's files too) its record goes to emit, and a
 *                    crawl's site index (index.html) is rebuilt.  Returns
 *                    1 after a warning if it was not finished: a crawl with
 *                    active snapshots (requeued at its earliest child's
 *                    time) or a paused item; 65 for a queued snapshot none
 *                    of whose hooks ran.
 *
 * Each returns 0, or abx-seal's exit status with, if it is fatal (the main
 * exits with it), the message in why.  Nothing here exits.
 */
#ifndef ABX_SEALCMD_H
#define ABX_SEALCMD_H

#include "ctl/ctl_verbs.h"
#include "store/store.h"

int sealcmd_find(store_t *s, const char *id, int packing, int *is_crawl, buf_t *why);
int sealcmd_pack(store_t *s, const char *id, const char *file, int force, buf_t *why);
int sealcmd_seal(store_t *s, const char *id, int is_crawl, ctl_emit_fn emit, void *arg, buf_t *why);

#endif
