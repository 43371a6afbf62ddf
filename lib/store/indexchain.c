/*
 * indexchain.c — the chain of marks in the index file (index.c), which
 * makes an index of another boot safe to reuse rather than rebuild.
 *
 * Another boot's index.  The index is never synced.  Its header names the
 * boot that made it; while every line of it was written in this boot, no
 * power loss came between, and it is used as it is read.  An index made
 * or appended to in another boot (another host's, on a filesystem both
 * mount, or this host's before a reboot) may have lost to a power loss
 * any part of what was written after its last sync: its tail, lines in
 * the middle (zeroed, or missing), or a whole later version (a rewrite's
 * rename).  It is reused as far as its chain checks, not rebuilt:
 *
 *   The chain.  Every line written carries on a running hash, chain_line,
 *   of the file's lines from the header on; each state line carries, as
 *   "h", the value of every byte before it (a mark).  A commit's batch
 *   ends with a state line, so every batch ends with a mark.  A writer
 *   knows the value at the end of the file: it read the file to its end
 *   under the lock (from the last mark on it hashes, chain_catch), or
 *   wrote it (index_replace).  A writer of a boot other than the last
 *   writer's first appends a boot line, a header naming its boot.
 *
 *   Reading.  Lines of this boot are used as they are read, their marks
 *   taken as they are (the own-boot path hashes nothing).  From the first
 *   line of another boot on (a header, or a boot line, naming it), every
 *   line is hashed and every mark checked; a line is used only once a
 *   mark after it checked.  A mark that does not check is a hole: the
 *   index is treated as a torn one (rebuilt under the lock; replayed into
 *   memory by a reader).  So is one whose other boot's lines no mark
 *   vouches for (an index of an older abx, which has no marks).  Lines
 *   after the last mark (a lean worker's, which carry none) wait for one;
 *   the lock holder, who would vouch for them by appending after them,
 *   rewrites the index instead, from the lines that checked.
 *
 *   Why that is enough.  The lines before a mark that checks are the file
 *   as it was at some moment (appends are made under the lock, a batch in
 *   one write): an older state of the index, but a whole one, in which
 *   every entry was right up to its journal's state end.  What the
 *   journals gained since is past those ends: the catch-up (storelock.c)
 *   replays it, as after a crash between a journal's write and its index
 *   lines.  Two things an older state may lack are given back there: the
 *   state of a journal made since (a crawl added: its line in crawls.jsonl
 *   is replayed, and every journal of a live crawl or snapshot without a
 *   state gets one at end 0, index_ensure_crawls, as do the top-level
 *   journals), and the right end of a journal rewritten since (a
 *   compaction moves lines below an old end): store_compact syncs the
 *   index, and its directory, after the state line of the new file, so
 *   that no older state of the index survives a power loss.  A hit of a
 *   64-bit hash on damaged bytes is the one residual risk.
 *
 *   Mixed writers.  A reused index keeps its header: its lines of another
 *   boot are marked by boot lines, so each reader knows which of them it
 *   must check, whoever wrote them; the chain does not care who.  A
 *   rewrite (a compaction, a rebuild) names its writer's boot.  Lean
 *   workers append without marks or boot lines (storelean.c): such lines
 *   of another host, in a file this boot made, are taken as today, on
 *   the header's word, and only hint at journal lines past the state
 *   ends, which the catch-up replays.
 *
 *   Compatibility.  An older abx ignores "h" (its state-line parser falls
 *   back to the general one, which reads j and end) and takes a boot line
 *   for a header-like line it skips; it rebuilds an index of another boot
 *   as before, and its unmarked lines are not vouched for here.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/alloc.h"
#include "base/fs.h"
#include "store/indexchain.h"
#include "store/store_int.h"

/*
 * The chain (see the header comment): a running 64-bit hash of the index
 * file's lines, each line with its newline, from the header on.  A state
 * line carries, as "h", the chain value of every byte before it.  Not a
 * defence against an adversary: against a file some of whose bytes were
 * lost, zeroed or torn by a power loss, for which it is a 64-bit check.
 * The words are read little-endian, so that hosts of either byte order
 * sharing the file agree.
 */

uint64_t
chain_line(uint64_t h, const char *p, size_t n)
{
	const unsigned char *u = (const unsigned char *)p;
	h ^= (uint64_t)n * 0x9e3779b97f4a7c15ull;
	for (; n >= 8; u += 8, n -= 8) {
		uint64_t w = (uint64_t)u[0] | (uint64_t)u[1] << 8 | (uint64_t)u[2] << 16 | (uint64_t)u[3] << 24 |
		    (uint64_t)u[4] << 32 | (uint64_t)u[5] << 40 | (uint64_t)u[6] << 48 | (uint64_t)u[7] << 56;
		h = (h ^ w) * 0xbf58476d1ce4e5b9ull;
		h ^= h >> 31;
	}
	uint64_t w = 0;
	for (size_t i = 0; i < n; i++)
		w |= (uint64_t)u[i] << (8 * i);
	h = (h ^ w) * 0x94d049bb133111ebull;
	return h ^ (h >> 29);
}

ichain_t *
chain_of(store_t *s)
{
	if (!s->chain)
		s->chain = xcalloc(1, sizeof *s->chain);
	return s->chain;
}

/* The chain's state at the start of a file (header line included). */
void
chain_start(ichain_t *c, const char *hdr, size_t n, int own)
{
	c->mark_h = chain_line(CHAIN_SEED, hdr, n);
	c->mark_off = n;
	c->known = 1;
	c->verify = !own;
	c->mine = own;
	c->verified = 0;
}


int
chain_is_state(const char *line, size_t len)
{
	return len > 7 && memcmp(line, "{\"j\":\"", 6) == 0 && line[len - 1] == '}';
}

/* The mark a state line carries: 1 and *h, or 0 if none. */
int
chain_mark_of(const char *line, size_t len, uint64_t *h)
{
	if (!chain_is_state(line, len) || len < 8 + MARK_LEN || memcmp(line + len - MARK_LEN, ",\"h\":\"", 6) != 0 ||
	    line[len - 2] != '"')
		return 0;
	uint64_t v = 0;
	for (const char *p = line + len - MARK_LEN + 6; p < line + len - 2; p++) {
		unsigned d = *p >= '0' && *p <= '9' ? (unsigned)(*p - '0') : *p >= 'a' && *p <= 'f' ? (unsigned)(*p - 'a' + 10) : 16;
		if (d > 15)
			return 0;
		v = v << 4 | d;
	}
	*h = v;
	return 1;
}

/* A header line, or a boot line (a header written in the middle by a
 * writer of another boot): 1 if it names this boot, 0 if another, -1 if
 * it is not one. */
int
chain_boot_line(const store_t *s, const char *line, size_t len)
{
	static const char key[] = "\"boot_id\":\"";
	if (len < 16 || memcmp(line, "{\"type\":\"Index\"", 15) != 0)
		return -1;
	const char *b = memmem(line, len, key, sizeof key - 1);
	if (!b)
		return 0;
	b += sizeof key - 1;
	size_t bl = strlen(s->boot_id);
	return (size_t)(line + len - b) > bl && memcmp(b, s->boot_id, bl) == 0 && b[bl] == '"';
}

/*
 * Copy the lines of in to out, each state line given its mark: the chain
 * value *h of the bytes before it (the file's up to where in is written,
 * then in's own); *h is moved past every line.  in holds whole lines.
 */
void
chain_seal(const buf_t *in, buf_t *out, uint64_t *h)
{
	const char *q = in->p, *end = in->p + in->len;
	while (q < end) {
		const char *nl = memchr(q, '\n', end - q);
		size_t n = nl ? (size_t)(nl - q) : (size_t)(end - q);
		size_t at = out->len;
		uint64_t dummy;
		if (chain_is_state(q, n) && !chain_mark_of(q, n, &dummy)) {
			buf_add(out, q, n - 1);
			buf_addf(out, ",\"h\":\"%016llx\"}\n", (unsigned long long)*h);
		} else {
			buf_add(out, q, n);
			buf_addc(out, '\n');
		}
		*h = chain_line(*h, out->p + at, out->len - at);
		q += n + 1;
	}
}

/* Hash the lines of the file from mark_off up to upto (a line boundary
 * this process read) into the chain.  0, or -1 (unreadable: unknown). */
int
chain_catch(ichain_t *c, int fd, int64_t upto)
{
	if (!c->known || upto < c->mark_off)
		return -1;
	if (upto == c->mark_off)
		return 0;
	size_t n = upto - c->mark_off;
	char *p = xmalloc(n);
	ssize_t got = pread(fd, p, n, c->mark_off);
	int ok = got == (ssize_t)n && p[n - 1] == '\n';
	for (char *q = p; ok && q < p + n;) {
		char *nl = memchr(q, '\n', p + n - q);
		c->mark_h = chain_line(c->mark_h, q, nl - q + 1);
		q = nl + 1;
	}
	free(p);
	if (!ok) {
		c->known = 0;
		return -1;
	}
	c->mark_off = upto;
	return 0;
}

void
index_chain_forget(store_t *s)
{
	free(s->chain);
	s->chain = NULL;
}

int
index_take_foreign(store_t *s)
{
	ichain_t *c = chain_of(s);
	int f = c->foreign;
	c->foreign = 0;
	return f;
}

int
index_replace(store_t *s, const buf_t *b)
{
	buf_t out = {0};
	uint64_t h = CHAIN_SEED;
	chain_seal(b, &out, &h);
	int rc = fs_replace(s->dfd, INDEX_PATH, out.p, out.len, 0);
	int e = errno;
	ichain_t *c = chain_of(s);
	c->adopt_h = h;
	c->adopt_len = rc == 0 ? (int64_t)out.len : 0;
	buf_free(&out);
	errno = e;
	return rc;
}
