/*
 * indexchain.h — internal to the store: the chain of marks of the index
 * file (indexchain.c says what it is and why it is sound), shared by
 * index.c (appending) and indexread.c (reading).
 */
#ifndef ABX_INDEXCHAIN_H
#define ABX_INDEXCHAIN_H

#include <stdint.h>

#include "base/buf.h"
#include "store/store.h"

#define CHAIN_SEED 0x61627820696e6478ull   /* "abx indx" */

/* A state line as state_line writes it: {"j":"...","end":N}, or with the
 * mark: {"j":"...","end":N,"h":"<16 hex>"}.  The mark's length. */
#define MARK_LEN 24   /* ,"h":"<16 hex>"} */

/*
 * What this process knows of the chain of the index file it reads
 * (s->chain, made at its first use, freed by store_close).  mark_off: a line boundary up to which the chain value,
 * mark_h, is known (a line that carried it, or what this process wrote);
 * verify: the file holds lines of another boot, whose marks this process
 * checks (it hashes every line from mark_off on); mine: the last lines are
 * this boot's (an append needs no boot line first); foreign: the table
 * took another boot's lines since the last catch-up (index_take_foreign);
 * verified: a mark of another boot's lines was checked in this file.
 */
typedef struct ichain {
	int64_t mark_off;
	uint64_t mark_h;
	int known, verify, mine, foreign, verified;
	uint64_t adopt_h;              /* index_replace: the file it wrote */
	int64_t adopt_len;
} ichain_t;

/* The chain value h moved past the line p[0..n) (its newline included). */
uint64_t chain_line(uint64_t h, const char *p, size_t n);
/* What this process knows of s's chain (made, zeroed, the first time). */
ichain_t *chain_of(store_t *s);
/* The chain's state at the start of a file, header line hdr[0..n)
 * included; own: the header names this boot. */
void chain_start(ichain_t *c, const char *hdr, size_t n, int own);
/* Is line[0..len) a state line?  Its mark: 1 and *h, or 0. */
int chain_is_state(const char *line, size_t len);
int chain_mark_of(const char *line, size_t len, uint64_t *h);
/* A header or boot line: 1 if it names this boot, 0 another, -1 not one. */
int chain_boot_line(const store_t *s, const char *line, size_t len);
/* in's whole lines to out, each state line given its mark; *h moved. */
void chain_seal(const buf_t *in, buf_t *out, uint64_t *h);
/* Hash the file's lines from c->mark_off up to upto into the chain; 0,
 * or -1 (unreadable: the chain is unknown). */
int chain_catch(ichain_t *c, int fd, int64_t upto);

#endif
