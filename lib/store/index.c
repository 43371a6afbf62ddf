/*
 * index.c — the active index (index/active.jsonl), see store.h for the
 * protocol: the hash table of entries, the state lines of journal ends,
 * loading and refreshing, appending, compaction and setting an entry from
 * a record.  A reader without the lock opens the file read-only and never
 * rebuilds it: an index it cannot trust is replayed from the journals
 * into memory (rebuild_locked).  Internal to the store: declared in
 * store_int.h.
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
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/err.h"
#include "base/exitcodes.h"
#include "base/fs.h"
#include "base/fsretry.h"
#include "store/store_int.h"

/* ------------------------------------------------------------ the chain */

/*
 * The chain (see the header comment): a running 64-bit hash of the index
 * file's lines, each line with its newline, from the header on.  A state
 * line carries, as "h", the chain value of every byte before it.  Not a
 * defence against an adversary: against a file some of whose bytes were
 * lost, zeroed or torn by a power loss, for which it is a 64-bit check.
 * The words are read little-endian, so that hosts of either byte order
 * sharing the file agree.
 */
#define CHAIN_SEED 0x61627820696e6478ull   /* "abx indx" */

static uint64_t
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

/*
 * What this process knows of the chain of the index file it reads (the
 * fields belong in store_t; they are kept here, by store, so that store.h
 * stays as it is).  mark_off: a line boundary up to which the chain value,
 * mark_h, is known (a line that carried it, or what this process wrote);
 * verify: the file holds lines of another boot, whose marks this process
 * checks (it hashes every line from mark_off on); mine: the last lines are
 * this boot's (an append needs no boot line first); foreign: the table
 * took another boot's lines since the last catch-up (index_take_foreign);
 * verified: a mark of another boot's lines was checked in this file.
 */
typedef struct ichain {
	const store_t *s;
	int64_t mark_off;
	uint64_t mark_h;
	int known, verify, mine, foreign, verified;
	uint64_t adopt_h;              /* index_replace: the file it wrote */
	int64_t adopt_len;
	struct ichain *next;
} ichain_t;

static ichain_t *chains;

static ichain_t *
chain_of(const store_t *s)
{
	ichain_t *c;
	for (c = chains; c; c = c->next)
		if (c->s == s)
			return c;
	c = xcalloc(1, sizeof *c);
	c->s = s;
	c->next = chains;
	chains = c;
	return c;
}

/* The chain's state at the start of a file (header line included). */
static void
chain_start(ichain_t *c, const char *hdr, size_t n, int own)
{
	c->mark_h = chain_line(CHAIN_SEED, hdr, n);
	c->mark_off = n;
	c->known = 1;
	c->verify = !own;
	c->mine = own;
	c->verified = 0;
}

/* A state line as state_line writes it: {"j":"...","end":N}, or with the
 * mark: {"j":"...","end":N,"h":"<16 hex>"}.  The mark's length. */
#define MARK_LEN 24   /* ,"h":"<16 hex>"} */

static int
is_state(const char *line, size_t len)
{
	return len > 7 && memcmp(line, "{\"j\":\"", 6) == 0 && line[len - 1] == '}';
}

/* The mark a state line carries: 1 and *h, or 0 if none. */
static int
mark_of(const char *line, size_t len, uint64_t *h)
{
	if (!is_state(line, len) || len < 8 + MARK_LEN || memcmp(line + len - MARK_LEN, ",\"h\":\"", 6) != 0 ||
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
static int
boot_line(const store_t *s, const char *line, size_t len)
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
static void
chain_seal(const buf_t *in, buf_t *out, uint64_t *h)
{
	const char *q = in->p, *end = in->p + in->len;
	while (q < end) {
		const char *nl = memchr(q, '\n', end - q);
		size_t n = nl ? (size_t)(nl - q) : (size_t)(end - q);
		size_t at = out->len;
		uint64_t dummy;
		if (is_state(q, n) && !mark_of(q, n, &dummy)) {
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
static int
chain_catch(store_t *s, ichain_t *c, int fd, int64_t upto)
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
	(void)s;
	return 0;
}

void
index_chain_forget(const store_t *s)
{
	for (ichain_t **pp = &chains; *pp; pp = &(*pp)->next)
		if ((*pp)->s == s) {
			ichain_t *c = *pp;
			*pp = c->next;
			free(c);
			return;
		}
}

int
index_take_foreign(store_t *s)
{
	ichain_t *c = chain_of(s);
	int f = c->foreign;
	c->foreign = 0;
	return f;
}

/* -------------------------------------------------------------- index */

uint64_t
hash_id(const char *id)
{
	uint64_t h = 1469598103934665603ull;
	for (; *id; id++)
		h = (h ^ (unsigned char)*id) * 1099511628211ull;
	return h;
}

ient_t *
index_slot(store_t *s, const char *id, int create)
{
	if (create && (s->tabcap == 0 || (s->nlines + 1) * 2 > s->tabcap)) {
		size_t ncap = s->tabcap ? s->tabcap * 2 : 1024;
		ient_t *old = s->tab;
		size_t ocap = s->tabcap;
		s->tab = xcalloc(ncap, sizeof(ient_t));
		s->tabcap = ncap;
		s->nlines = 0;
		for (size_t i = 0; i < ocap; i++)
			if (old[i].used && old[i].live) {
				ient_t *e = index_slot(s, old[i].id, 1);   /* counts it */
				*e = old[i];
			}
		free(old);
	}
	if (s->tabcap == 0)
		return NULL;
	size_t i = hash_id(id) & (s->tabcap - 1);
	for (;; i = (i + 1) & (s->tabcap - 1)) {
		ient_t *e = &s->tab[i];
		if (!e->used) {
			if (!create)
				return NULL;
			memset(e, 0, sizeof *e);
			e->used = 1;
			snprintf(e->id, sizeof e->id, "%s", id);
			s->nlines++;
			return e;
		}
		if (strcmp(e->id, id) == 0)
			return e;
	}
}

void
index_drop(store_t *s)
{
	free(s->tab);
	s->tab = NULL;
	s->tabcap = s->nlive = s->nlines = s->flines = 0;
	free(s->js);
	s->js = NULL;
	s->njs = s->jscap = 0;
	if (s->idxfd >= 0)
		close(s->idxfd);
	s->idxfd = -1;
	s->idxoff = 0;
	s->idxino = 0;
	ichain_t *c = chain_of(s);
	c->known = c->verify = c->mine = c->verified = 0;
	c->mark_off = 0;
}

jstate_t *
jstate(store_t *s, const char *j, int create)
{
	for (size_t i = 0; i < s->njs; i++)
		if (strcmp(s->js[i].j, j) == 0)
			return &s->js[i];
	if (!create)
		return NULL;
	if (s->njs == s->jscap) {
		s->jscap = s->jscap ? s->jscap * 2 : 16;
		s->js = xrealloc(s->js, s->jscap * sizeof(jstate_t));
	}
	jstate_t *st = &s->js[s->njs++];
	snprintf(st->j, sizeof st->j, "%s", j);
	st->end = st->seen = 0;
	st->need = 1;
	return st;
}

void
state_line(buf_t *b, const char *j, int64_t end)
{
	buf_adds(b, "{\"j\":");
	buf_json_strz(b, j);
	buf_addf(b, ",\"end\":%lld}\n", (long long)end);
}

/* ISO time at p ("2026-11-29T17:15:32.123456Z", 27 bytes) to µs, fast:
 * the index is loaded by every process, two times a line.  -1 if not. */
static int64_t
iso_fast(const char *p)
{
	static const unsigned char pos[] = {0, 1, 2, 3, 5, 6, 8, 9, 11, 12, 14, 15, 17, 18, 20, 21,
	    22, 23, 24, 25};
	int d[20];
	for (int i = 0; i < 20; i++) {
		unsigned v = (unsigned char)p[pos[i]] - '0';
		if (v > 9)
			return -1;
		d[i] = v;
	}
	if (p[4] != '-' || p[7] != '-' || p[10] != 'T' || p[19] != '.' || p[26] != 'Z')
		return -1;
	int y = d[0] * 1000 + d[1] * 100 + d[2] * 10 + d[3], mo = d[4] * 10 + d[5], dd = d[6] * 10 + d[7];
	if (y == 9999)
		return INT64_MAX;
	/* days from civil (Howard Hinnant's algorithm) */
	y -= mo <= 2;
	int era = (y >= 0 ? y : y - 399) / 400;
	unsigned yoe = (unsigned)(y - era * 400);
	unsigned doy = (153 * (mo + (mo > 2 ? -3 : 9)) + 2) / 5 + dd - 1;
	unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
	int64_t days = (int64_t)era * 146097 + doe - 719468;
	int64_t secs = days * 86400 + (d[8] * 10 + d[9]) * 3600 + (d[10] * 10 + d[11]) * 60 + d[12] * 10 + d[13];
	int64_t us = 0;
	for (int i = 14; i < 20; i++)
		us = us * 10 + d[i];
	return secs * 1000000 + us;
}

/* Read "key":"value" at *pp into out (n bytes); advance.  0 ok. */
static int
take_str(const char **pp, const char *end, const char *key, char *out, size_t n)
{
	size_t kl = strlen(key);
	const char *p = *pp;
	if ((size_t)(end - p) < kl + 5 || p[0] != '"' || memcmp(p + 1, key, kl) || memcmp(p + 1 + kl, "\":\"", 3))
		return -1;
	p += kl + 4;
	const char *q = memchr(p, '"', end - p);
	if (!q || (size_t)(q - p) >= n || memchr(p, '\\', q - p))
		return -1;
	memcpy(out, p, q - p);
	out[q - p] = 0;
	*pp = q + 1;
	return 0;
}

static int
take_num(const char **pp, const char *end, const char *key, long long *v)
{
	size_t kl = strlen(key);
	const char *p = *pp;
	if ((size_t)(end - p) < kl + 4 || p[0] != '"' || memcmp(p + 1, key, kl) || memcmp(p + 1 + kl, "\":", 2))
		return -1;
	p += kl + 3;
	char *e;
	*v = strtoll(p, &e, 10);
	if (e == p)
		return -1;
	*pp = e;
	return 0;
}

/*
 * The index lines abx writes have a fixed shape (index_line); parse them
 * by position, 10x faster than the general parser.  Returns 0 if applied,
 * -1 if the line is not of that shape (the caller parses it in full).
 */
static int
index_apply_fast(store_t *s, const char *line, size_t len)
{
	const char *p = line + 1, *end = line + len;
	char id[ID_LEN + 1], type[16], cid[ID_LEN + 1], st[16], ra[32], ca[32];
	long long depth, lease, off;
	if (len < 2 || line[0] != '{' || line[len - 1] != '}')
		return -1;
	end--;
	if (take_str(&p, end, "id", id, sizeof id) < 0 || *p++ != ',')
		return -1;
	if (!id_valid(id))
		return -1;
	if (end - p == 8 && memcmp(p, "\"gone\":1", 8) == 0) {
		ient_t *e = index_slot(s, id, 1);
		s->nlive -= e->live;
		e->live = 0;
		return 0;
	}
	if (take_str(&p, end, "type", type, sizeof type) < 0 || *p++ != ',' ||
	    take_str(&p, end, "crawl_id", cid, sizeof cid) < 0 || *p++ != ',' ||
	    take_str(&p, end, "status", st, sizeof st) < 0 || *p++ != ',')
		return -1;
	int64_t rt = -1;
	if (end - p > 15 && memcmp(p, "\"retry_at\":null", 15) == 0) {
		p += 15;
	} else {
		if (take_str(&p, end, "retry_at", ra, sizeof ra) < 0 || strlen(ra) != ISO_LEN)
			return -1;
		rt = iso_fast(ra);
		if (rt == -1)
			return -1;
	}
	if (*p++ != ',' || take_str(&p, end, "created_at", ca, sizeof ca) < 0 || strlen(ca) != ISO_LEN ||
	    *p++ != ',' || take_num(&p, end, "depth", &depth) < 0 || *p++ != ',' ||
	    take_num(&p, end, "lease", &lease) < 0 || *p++ != ',' || take_num(&p, end, "off", &off) < 0 ||
	    p != end)
		return -1;
	int64_t ct = iso_fast(ca);
	if (ct == -1)
		return -1;
	ient_t *e = index_slot(s, id, 1);
	int was = e->live;
	memcpy(e->type, type, sizeof e->type);
	memcpy(e->status, st, sizeof e->status);
	memcpy(e->crawl_id, id_valid(cid) ? cid : "", id_valid(cid) ? sizeof e->crawl_id : 1);
	e->off = off;
	e->retry_at = rt;
	e->created_at = ct;
	e->depth = depth;
	e->lease = lease;
	e->live = 1;
	s->nlive += 1 - was;
	return 0;
}

/* Apply a state line as state_line writes it, {"j":"<journal>","end":N}
 * and nothing else, or with its mark (chain_seal).  0, or -1 if it is not
 * one. */
static int
state_apply(store_t *s, const char *line, size_t len)
{
	uint64_t h;
	if (!is_state(line, len))
		return -1;
	size_t body = mark_of(line, len, &h) ? len - MARK_LEN : len - 1;   /* up to N */
	const char *q = memchr(line + 6, '"', body - 6);
	if (!q || (size_t)(q - line) + 8 >= body || memcmp(q, "\",\"end\":", 8) != 0 ||
	    q - line - 6 >= 128 || memchr(line + 6, '\\', q - line - 6))
		return -1;
	char j[128], *e;
	memcpy(j, line + 6, q - line - 6);
	j[q - line - 6] = 0;
	long long end = strtoll(q + 8, &e, 10);
	if (e == q + 8 || e != line + body)
		return -1;
	jstate(s, j, 1)->end = end;
	return 0;
}

/* Apply one index line. Returns 0, or -1 if it is not an index line. */
static int
index_apply(store_t *s, const char *line, size_t len)
{
	if (index_apply_fast(s, line, len) == 0 || state_apply(s, line, len) == 0)
		return 0;
	rec_t r;
	if (rec_parse(&r, line, len) < 0)
		return -1;
	char *id = rec_str(&r, "id");
	if (!id_valid(id)) {
		free(id);
		char *j = rec_str(&r, "j");
		int ok = j || rec_raw(&r, "boot_id");
		if (j)
			jstate(s, j, 1)->end = rec_int(&r, "end", 0);
		free(j);
		rec_free(&r);
		return ok ? 0 : -1;
	}
	ient_t *e = index_slot(s, id, 1);
	int was = e->live;
	if (rec_int(&r, "gone", 0)) {
		e->live = 0;
	} else {
		char *t = rec_str(&r, "type"), *st = rec_str(&r, "status"), *c = rec_str(&r, "crawl_id");
		snprintf(e->type, sizeof e->type, "%s", t ? t : "");
		snprintf(e->status, sizeof e->status, "%s", st ? st : "");
		snprintf(e->crawl_id, sizeof e->crawl_id, "%s", id_valid(c) ? c : "");
		free(t), free(st), free(c);
		e->off = rec_int(&r, "off", -1);
		e->retry_at = rec_time(&r, "retry_at");
		e->created_at = rec_time(&r, "created_at");
		e->depth = rec_int(&r, "depth", 0);
		e->lease = rec_int(&r, "lease", 0);
		e->live = 1;
	}
	s->nlive += e->live - was;
	free(id);
	rec_free(&r);
	return 0;
}

void
index_line(store_t *s, buf_t *b, const ient_t *e)
{
	char ra[ISO_LEN + 1], ca[ISO_LEN + 1];
	if (!e->live) {
		buf_addf(b, "{\"id\":\"%s\",\"gone\":1}\n", e->id);
		return;
	}
	if (e->retry_at == INT64_MAX)
		strcpy(ra, TIME_MAX_ISO);
	else if (e->retry_at >= 0)
		clock_iso(e->retry_at, ra);
	clock_iso(e->created_at < 0 ? 0 : e->created_at, ca);
	buf_addf(b, "{\"id\":\"%s\",\"type\":\"%s\",\"crawl_id\":\"%s\",\"status\":", e->id, e->type, e->crawl_id);
	buf_json_strz(b, e->status);
	buf_addf(b, ",\"retry_at\":");
	if (e->retry_at >= 0)
		buf_addf(b, "\"%s\"", ra);
	else
		buf_adds(b, "null");
	buf_addf(b, ",\"created_at\":\"%s\",\"depth\":%d,\"lease\":%d,\"off\":%lld}\n", ca, e->depth,
	    e->lease, (long long)e->off);
}

void
index_header(store_t *s, buf_t *b)
{
	buf_addf(b, "{\"type\":\"Index\",\"version\":1,\"boot_id\":\"%s\",\"host\":", s->boot_id);
	buf_json_strz(b, s->host);
	buf_adds(b, "}\n");
}

/* A reader's index rebuilt in memory: replay what the journals gained
 * (tops first: a crawl they make active has its journal replayed next).
 * walk: the table took another boot's lines (refresh), which may be an
 * older state than the journals': every journal it may lack is replayed
 * too, as catch_up does under the lock. */
static int
memory_catch_up(store_t *s, int walk)
{
	static const char *tops[] = {"crawls.jsonl", "schedules.jsonl", "binaries.jsonl", NULL};
	int grew = s->njs == 0 || walk;
	for (int i = 0; tops[i]; i++) {
		if (walk)
			jstate(s, tops[i], 1);
		grew |= journal_sync(s, tops[i]);
	}
	if (walk)
		index_ensure_crawls(s);
	if (!grew || walk) {
		/* the same crawls: their journals' tails only */
		for (size_t i = 0; i < s->njs; i++)
			if (strncmp(s->js[i].j, "crawls/", 7) == 0) {
				char j[128];
				snprintf(j, sizeof j, "%s", s->js[i].j);
				journal_sync(s, j);
			}
		if (!walk)
			return 0;
	}
	for (size_t i = 0; i < s->tabcap; i++) {
		const ient_t *e = &s->tab[i];
		if (e->used && e->live && strcmp(e->type, "Crawl") == 0) {
			char j[128];
			store_crawl_journal(e->id, j, sizeof j);
			journal_sync(s, j);
		}
	}
	return 0;
}

/* The journal of every live crawl, and of every live snapshot, gets a
 * state if it has none (end 0: replayed whole).  See the header. */
void
index_ensure_crawls(store_t *s)
{
	char last[ID_LEN + 1] = "";
	for (size_t i = 0; i < s->tabcap; i++) {
		const ient_t *e = &s->tab[i];
		if (!e->used || !e->live)
			continue;
		const char *cid = strcmp(e->type, "Crawl") == 0 ? e->id : strcmp(e->type, "Snapshot") == 0 ?
		    e->crawl_id : "";
		if (!id_valid(cid) || strcmp(cid, last) == 0)
			continue;
		snprintf(last, sizeof last, "%s", cid);
		char j[128];
		store_crawl_journal(cid, j, sizeof j);
		jstate(s, j, 1);
	}
}

/*
 * An index that must be rebuilt: under the lock, rebuilt (file and all).
 * A reader without the lock writes nothing and takes no lock (abx-ls(1)):
 * it replays the journals into memory instead, as a rebuild would (the
 * top-level journals, then the journal of each active crawl), and marks
 * the table as such (idxino INO_MEMORY), so that a later refresh only
 * replays what the journals gained (journal_sync ignores a trailing
 * partial line, so a writer's line is read once it is whole).
 */
#define INO_MEMORY ((ino_t)-1)

static int
rebuild_locked(store_t *s)
{
	if (s->locked)
		return store_rebuild_index(s);
	index_drop(s);
	s->idxino = INO_MEMORY;
	return memory_catch_up(s, 0);
}

/*
 * Read new index lines (or all, if the file was replaced).  The header is
 * checked before anything of the file is used: an index that is empty,
 * whose header line is torn, or that names another boot is rebuilt from
 * the journals.  Another boot's index may be one written before a power
 * loss, which kept an older whole version of it (a compaction) or any
 * part of it: it is never synced.  An older whole version names only the
 * journals of its day, and a crawl added since would be missed (its
 * journal is found by a rebuild, not by a replay); so it is not reused,
 * though another host's index on a shared filesystem then is rebuilt too.
 */
static int
refresh(store_t *s, int attempt)
{
	struct stat st;
	int fd = -1;
	if (!s->locked && s->idxino == INO_MEMORY)
		return memory_catch_up(s, 0);
	/* the descriptor read so far names the index while its file has a
	 * link (a rewrite renames over it, here or on another host: the old
	 * file's count drops to 0); then no path is walked (storefd.h) */
	if (s->idxfd >= 0 && fstat(s->idxfd, &st) == 0 && st.st_nlink > 0 && st.st_ino == s->idxino &&
	    (!s->locked || (fcntl(s->idxfd, F_GETFL) & O_ACCMODE) == O_RDWR)) {
		fd = s->idxfd;
	} else if (fs_exists(s->dfd, INDEX_PATH) == 0) {
		return rebuild_locked(s);
	} else {
		/* a reader opens it read-only (a read-only data directory, or
		 * another user's); the lock holder reads and appends */
		index_drop(s);
		fd = fsr_open(s->dfd, INDEX_PATH, s->locked ? O_RDWR | O_APPEND : O_RDONLY, FSR_EXISTED, &st);
		if (fd < 0)
			return store_fail(s, EX_IOERR_, errno, "unable to open %s/%s", s->dir, INDEX_PATH);
		s->idxfd = fd;
		s->idxino = st.st_ino;
		s->idxoff = 0;
	}
	/* st is the file's (fstat above, or fsr_open's); what this process
	 * read of it ends with a newline */
	if (s->locked && repair_tail(s, fd, INDEX_PATH, 0, &st, s->idxoff > 0 ? s->idxoff : -1) < 0)
		return -1;
	if (s->idxoff == 0 && st.st_size == 0)
		return rebuild_locked(s);   /* empty: a power loss, or a crash mid-rebuild */
	if (st.st_size <= s->idxoff)
		return 0;
	size_t n = st.st_size - s->idxoff;
	char *p = xmalloc(n + 1);
	ssize_t got = pread(fd, p, n, s->idxoff);
	if (got < 0 && errno == ESTALE && fsr_again(ESTALE, 0, attempt)) {
		free(p);
		index_drop(s);
		return refresh(s, attempt + 1);
	}
	if (got < 0) {
		free(p);
		return store_fail(s, EX_IOERR_, errno, "unable to read %s/%s", s->dir, INDEX_PATH);
	}
	ichain_t *c = chain_of(s);
	char *q = p, *end = p + got;
	if (s->idxoff == 0) {
		/* the header: a line without its newline was torn by a crash (a
		 * rewrite is renamed in whole, so never while being written) */
		char *nl = memchr(q, '\n', end - q);
		int own = nl ? boot_line(s, q, nl - q) : -1;
		if (own < 0) {
			free(p);
			return rebuild_locked(s);
		}
		chain_start(c, q, nl - q + 1, own);
		c->foreign |= !own;
		s->idxoff = nl - q + 1;
		q = nl + 1;
	}
	int bad = 0, tail = 0;
	/* this boot's file: every line is used as it is read, and the chain
	 * is taken from the marks (hashed only from the last one, when an
	 * append needs it) */
	while (q < end && !c->verify) {
		char *nl = memchr(q, '\n', end - q);
		if (!nl)
			break;   /* a line being written; read it next time */
		size_t len = nl - q;
		int b = boot_line(s, q, len);
		uint64_t h;
		if (b == 0) {
			/* another boot appended from here on: its marks are
			 * checked, from the chain's value here */
			if (chain_catch(s, c, fd, s->idxoff) < 0)
				bad = 1;
			c->verify = 1;
			c->mine = 0;
			break;
		}
		if (b < 0 && mark_of(q, len, &h)) {
			c->mark_h = chain_line(h, q, len + 1);
			c->mark_off = s->idxoff + len + 1;
			c->known = 1;
		}
		if (b < 0 && (s->flines++, index_apply(s, q, len) < 0))
			warnx_("%s/%s: malformed index line ignored", s->dir, INDEX_PATH);
		s->idxoff += len + 1;
		q = nl + 1;
	}
	if (c->verify && !bad && (!c->known || c->mark_off != s->idxoff))
		bad = 1;
	if (c->verify && !bad) {
		/* lines of another boot: the last mark whose value is the chain
		 * of the bytes before it vouches for them; a mark that is not
		 * is a hole (lost, zeroed or torn lines); lines after the last
		 * mark wait for one */
		uint64_t run = c->mark_h, goodh = run;
		char *good = q, *r = q;
		while (r < end) {
			char *nl = memchr(r, '\n', end - r);
			if (!nl)
				break;
			uint64_t h;
			if (mark_of(r, nl - r, &h) && h != run) {
				bad = 1;
				break;
			}
			run = chain_line(run, r, nl - r + 1);
			if (mark_of(r, nl - r, &h))
				good = nl + 1, goodh = run;
			r = nl + 1;
		}
		tail = !bad && r > good;
		while (!bad && q < good) {
			char *nl = memchr(q, '\n', good - q);
			size_t len = nl - q;
			int b = boot_line(s, q, len);
			if (b >= 0)
				c->mine = b;
			else if (s->flines++, index_apply(s, q, len) < 0)
				warnx_("%s/%s: malformed index line ignored", s->dir, INDEX_PATH);
			s->idxoff += len + 1;
			q = nl + 1;
		}
		if (!bad && c->mark_off != s->idxoff) {
			c->mark_off = s->idxoff;
			c->mark_h = goodh;
			c->verified = c->foreign = 1;
		}
	}
	free(p);
	/* a hole, or another boot's lines no mark vouches for at all (an
	 * index of an older abx): treated as a torn index */
	if (bad || (tail && !c->verified))
		return rebuild_locked(s);
	/* a tail no mark vouches for yet is not appended after (the chain
	 * would vouch for it): the lock holder rewrites the index from what
	 * was verified (a compaction), which the catch-up completes; so is
	 * an index that tombstones dominate */
	if (s->locked && (tail || index_bloated(s)))
		index_write_full(s);
	if (!s->locked && c->foreign) {
		c->foreign = 0;
		return memory_catch_up(s, 1);
	}
	return 0;
}

int
index_refresh(store_t *s)
{
	return refresh(s, 0);
}

void
index_append(store_t *s, buf_t *b)
{
	if (b->len == 0)
		return;
	if (s->idxfd < 0 && index_refresh(s) < 0)
		return;
	if (s->idxfd < 0)
		return;
	/* the lines go with their marks; after another boot's lines, a boot
	 * line first, so that its readers check this boot's lines */
	ichain_t *c = chain_of(s);
	if (c->known && c->mark_off < s->idxoff)
		chain_catch(s, c, s->idxfd, s->idxoff);
	buf_t in = {0}, out = {0};
	uint64_t h = c->mark_h;
	if (c->known && c->mark_off == s->idxoff) {
		if (!c->mine)
			index_header(s, &in);
		buf_add(&in, b->p, b->len);
		chain_seal(&in, &out, &h);
		buf_free(&in);
	} else {
		/* unknown (unreadable): unmarked lines, which no other boot
		 * trusts (it rewrites the index) */
		buf_add(&out, b->p, b->len);
	}
	if (fault_armed("index-half-line")) {
		ssize_t hw = write(s->idxfd, out.p, out.len / 2 + 1);
		(void)hw;
		fault_point("index-half-line");
	}
	ssize_t w = write(s->idxfd, out.p, out.len);
	if (w != (ssize_t)out.len) {
		/* the journals hold the truth: the next locker replays what
		 * this index missed, and cuts a torn line off */
		if (w >= 0)
			errno = ENOSPC;
		warnsys("unable to append to %s/%s (a hint: it is caught up from the journals)", s->dir,
		    INDEX_PATH);
		buf_free(&out);
		index_drop(s);
		return;
	}
	if (c->known && c->mark_off == s->idxoff) {
		c->mark_h = h;
		c->mark_off = s->idxoff + w;
		c->mine = 1;
	}
	s->idxoff += w;
	for (size_t i = 0; i < out.len; i++)
		s->flines += out.p[i] == '\n';
	buf_free(&out);
}

/*
 * The journals whose replay the index must keep checking: the top-level
 * journals, and a crawl's journal while the crawl or any item in it is
 * active.  A finished crawl's journal is never opened by a lock (abx(7)
 * INTERNALS: a pass costs what is active); a line appended to it later
 * goes through store_commit, which replays the journal first.  One walk
 * of the table marks the needed journals in s->js[i].need.
 */
void
index_mark_needed(store_t *s)
{
	for (size_t i = 0; i < s->njs; i++) {
		const char *j = s->js[i].j;
		s->js[i].need = strncmp(j, "crawls/", 7) != 0;
		if (!s->js[i].need && s->tab) {
			char cid[ID_LEN + 1];
			snprintf(cid, sizeof cid, "%s", j + 7);
			ient_t *c = index_slot(s, cid, 0);
			s->js[i].need = c && c->live;
		}
	}
	if (!s->tab)
		return;
	/* a crawl not active but with active items (a retried snapshot of a
	 * sealed crawl, a crash between two journals' commits).  Only a crawl
	 * journal left unmarked above can gain, and mostly there is none (a
	 * running crawl's journal is marked by its crawl): then the table,
	 * which holds every id seen since the index was last rebuilt, is not
	 * walked, since this runs twice at every lock.  The walk stops once
	 * every such journal is marked. */
	size_t unmarked = 0;
	for (size_t i = 0; i < s->njs; i++)
		unmarked += !s->js[i].need;
	for (size_t k = 0; unmarked && k < s->tabcap; k++) {
		ient_t *e = &s->tab[k];
		if (!e->used || !e->live || !e->crawl_id[0] || strcmp(e->type, "Snapshot") != 0)
			continue;
		size_t cl = strlen(e->crawl_id);
		for (size_t i = 0; i < s->njs; i++) {
			const char *j = s->js[i].j;
			/* j is crawls/<crawl_id>/snapshots.jsonl (store_crawl_journal) */
			if (!s->js[i].need && strncmp(j + 7, e->crawl_id, cl) == 0 &&
			    strcmp(j + 7 + cl, "/snapshots.jsonl") == 0) {
				s->js[i].need = 1;
				unmarked--;
			}
		}
	}
}

/* Is the index due for a compaction: its file holds more than twice the
 * live entries' lines (tombstones, superseded versions, state lines), plus
 * 64; without the 64 once an entry went (an item sealed), so that the file
 * does not go on showing rows of items that left it (a sealed snapshot's
 * "started" row) for long: a crawl's last seal leaves an index of its live
 * items only.  A compaction writes the live lines: rewriting after as many
 * dead lines as live ones costs a constant per line appended. */
int
index_bloated(const store_t *s)
{
	return s->flines > 2 * s->nlive + (s->dropped ? 0 : 64);
}

/* Replace the index by one line per live entry (a compaction). */
void
index_write_full(store_t *s)
{
	buf_t b = {0};
	index_header(s, &b);
	for (size_t i = 0; i < s->tabcap; i++)
		if (s->tab[i].used && s->tab[i].live)
			index_line(s, &b, &s->tab[i]);
	/* keep the state of the journals that still need a replay check at
	 * every lock (index_mark_needed) */
	index_mark_needed(s);
	size_t keep = 0;
	for (size_t i = 0; i < s->njs; i++) {
		if (s->js[i].need) {
			s->js[keep++] = s->js[i];
			state_line(&b, s->js[i].j, s->js[i].end);
		}
	}
	s->njs = keep;
	fault_point("index-before-rename");
	if (index_replace(s, &b) < 0) {
		/* the old index stays: a hint with tombstones is still right */
		warnsys("unable to compact %s/%s", s->dir, INDEX_PATH);
		buf_free(&b);
		return;
	}
	/* reload from what we wrote, dropping tombstones */
	ient_t *tab = s->tab;
	size_t cap = s->tabcap;
	jstate_t *js = s->js;
	size_t njs = s->njs, jscap = s->jscap;
	s->tab = NULL;
	s->js = NULL;
	index_drop(s);
	s->js = js, s->njs = njs, s->jscap = jscap;
	for (size_t i = 0; i < cap; i++)
		if (tab[i].used && tab[i].live) {
			ient_t *e = index_slot(s, tab[i].id, 1);
			*e = tab[i];
			s->nlive++;
		}
	free(tab);
	index_adopt(s);
	buf_free(&b);
}

void
index_adopt(store_t *s)
{
	struct stat st;
	int fd = fsr_open(s->dfd, INDEX_PATH, O_RDWR | O_APPEND, FSR_EXISTED, &st);
	if (fd < 0) {
		warnsys("unable to open %s/%s (it is read again at the next lock)", s->dir, INDEX_PATH);
		index_drop(s);
		return;
	}
	s->idxfd = fd;
	s->idxino = st.st_ino;
	s->idxoff = st.st_size;
	s->flines = s->nlive;
	s->dropped = 0;
	/* the chain of what index_replace wrote, if it is what is there */
	ichain_t *c = chain_of(s);
	if (c->adopt_len > 0 && c->adopt_len == st.st_size) {
		c->known = c->mine = 1;
		c->verify = c->verified = 0;
		c->mark_h = c->adopt_h;
		c->mark_off = c->adopt_len;
	}
	c->adopt_len = 0;
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

void
ient_from(ient_t *e, const rec_t *r, int64_t off)
{
	if (!record_is_active(r)) {
		e->live = 0;
		return;
	}
	char *t = rec_str(r, "type"), *st = rec_str(r, "status"), *c = rec_str(r, "crawl_id");
	snprintf(e->type, sizeof e->type, "%s", t ? t : "");
	snprintf(e->status, sizeof e->status, "%s", st ? st : "");
	snprintf(e->crawl_id, sizeof e->crawl_id, "%s", id_valid(c) ? c : "");
	free(t), free(st), free(c);
	e->off = off;
	e->retry_at = rec_time(r, "retry_at");
	e->created_at = rec_time(r, "created_at");
	e->depth = rec_int(r, "depth", 0);
	const char *l = rec_raw(r, "lease");
	e->lease = l && l[0] == '{' && strstr(l, "\"flock\":true") != NULL;
	e->live = 1;
}

void
index_set_from(store_t *s, const rec_t *r, int64_t off)
{
	char *id = rec_str(r, "id");
	if (!id_valid(id)) {
		free(id);
		return;
	}
	ient_t *e = index_slot(s, id, 1);
	int was = e->live;
	ient_from(e, r, off);
	s->nlive += e->live - was;
	s->dropped |= s->locked && was && !e->live;
	free(id);
}
