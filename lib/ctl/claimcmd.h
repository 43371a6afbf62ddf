/*
 * claimcmd.h — what abx-claim does once its options are read (claim.h
 * does the claiming):
 *
 *   claimcmd_lease()  --renew ID: the lease extended to now + lease_us;
 *                     --release ID: given up; --test ID: 0 if ID is leased
 *                     by a live holder, else 1.  Renew and release warn
 *                     "ID carries no lease" and return 1 if it has none.
 *   claimcmd_batch()  -n COUNT: time leases on up to count due items of
 *                     the type, in one durable commit (claim_next_batch());
 *                     1 if none was due.
 *   claimcmd_one()    a lease on the next due item of the type, or on the
 *                     item id (-i, which may name another kind): a time
 *                     lease, or, with cmd, a flock lease held while cmd
 *                     runs (claimrun.h), whose status is returned.  An item
 *                     not claimed is said on stderr (with -i): "ID is not
 *                     due" or "is paused" or "is sealed" (1), "is leased by
 *                     someone else" (75); then *settled is set: the store
 *                     is closed and nothing more is reported.
 *
 * Each claimed record (without cmd) is handed to emit, for the main to
 * print.  Each returns abx-claim's exit status; a fatal error (the store
 * failed, no such record) leaves its message in why, and the main exits
 * with the status returned:
 *
 *     renew ID: nothing changed: ...       nothing claimed: ...
 *     no record with id ID
 *
 * Nothing here exits.
 */
#ifndef ABX_CLAIMCMD_H
#define ABX_CLAIMCMD_H

#include <signal.h>
#include <stdint.h>

#include "ctl/ctl_verbs.h"
#include "store/store.h"

/* The lease operations, as getopt_long values of abx-claim's options. */
enum { CLAIMCMD_RENEW = 0x200, CLAIMCMD_RELEASE, CLAIMCMD_TEST };

typedef struct {
	const char *type;             /* "Crawl", "Snapshot" or "Binary" */
	const char *id;               /* -i, or NULL: the next due */
	int64_t lease_us;
	char **cmd;                   /* CMD [ARG...], or NULL */
	void (*on_signal)(int);       /* stores a signal for cmd in *forward */
	volatile sig_atomic_t *forward;   /* (claimrun.h) */
	ctl_emit_fn emit;
	void *arg;
} claimcmd_t;

/* "--renew", "--release" or "--test". */
const char *claimcmd_opname(int op);
/* The record type of a kind (crawl, snapshot, binary), or NULL. */
const char *claimcmd_type(const char *kind);
int claimcmd_lease(store_t *s, int op, const char *id, int64_t lease_us, buf_t *why);
int claimcmd_batch(store_t *s, const claimcmd_t *c, int count, buf_t *why);
int claimcmd_one(store_t *s, const claimcmd_t *c, int *settled, buf_t *why);

#endif
