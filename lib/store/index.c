/*
 * index.c — the active index (index/active.jsonl), see store.h for the
 * protocol: the hash table of entries, the state lines of journal ends,
 * loading and refreshing, appending, compaction and setting an entry from
 * a record.  A reader without the lock opens the file read-only and never
 * rebuilds it: an index it cannot trust is replayed from the journals
 * into memory (rebuild_locked).  Internal to the store: declared in
 * store_int.h.
 *
 * Another boot's index, the chain of marks that makes it safe to reuse:
 * indexchain.c.  Reading (refresh) and the catch-up in memory: indexread.c.
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
#include "store/indexchain.h"
#include "store/nolock.h"
#include "store/store_int.h"

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
	s->nolock_off = 0;
	s->tops_synced = 0;
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
	    take_num(&p, end, "lease", &lease) < 0 || *p++ != ',' || take_num(&p, end, "off", &off) < 0)
		return -1;
	int nl = end - p == 7 && memcmp(p, ",\"nl\":1", 7) == 0;   /* nolock.h */
	if (p != end && !nl)
		return -1;
	int64_t ct = iso_fast(ca);
	if (ct == -1)
		return -1;
	ient_t *e = index_slot(s, id, 1);
	int was = e->live;
	memcpy(e->type, type, sizeof e->type);
	memcpy(e->status, st, sizeof e->status);
	e->nolock |= nl;
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
	if (!chain_is_state(line, len))
		return -1;
	size_t body = chain_mark_of(line, len, &h) ? len - MARK_LEN : len - 1;   /* up to N */
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
	s->tops_noted |= store_is_top(j);   /* storelock.c */
	return 0;
}

/* Apply one index line. Returns 0, or -1 if it is not an index line. */
int
index_apply(store_t *s, const char *line, size_t len)
{
	if (index_apply_fast(s, line, len) == 0 || state_apply(s, line, len) == 0 ||
	    nolock_apply(s, line, len) == 0)
		return 0;
	rec_t r;
	if (rec_parse(&r, line, len) < 0)
		return -1;
	char *id = rec_str(&r, "id");
	if (!id_valid(id)) {
		free(id);
		char *j = rec_str(&r, "j");
		int ok = j || rec_raw(&r, "boot_id");
		if (j) {
			jstate(s, j, 1)->end = rec_int(&r, "end", 0);
			s->tops_noted |= store_is_top(j);
		}
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
		e->nolock |= rec_int(&r, "nl", 0) == 1;
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
	buf_addf(b, ",\"created_at\":\"%s\",\"depth\":%d,\"lease\":%d,\"off\":%lld%s}\n", ca, e->depth,
	    e->lease, (long long)e->off, e->nolock && !s->nolock_off ? ",\"nl\":1" : "");
}

void
index_header(store_t *s, buf_t *b)
{
	buf_addf(b, "{\"type\":\"Index\",\"version\":1,\"boot_id\":\"%s\",\"host\":", s->boot_id);
	buf_json_strz(b, s->host);
	buf_adds(b, "}\n");
}

int
index_append(store_t *s, buf_t *b)
{
	return index_note(s, b, "index-half-line");
}

int
index_note(store_t *s, buf_t *b, const char *fault)
{
	if (b->len == 0)
		return 0;
	if (s->idxfd < 0 && index_refresh(s) < 0)
		return -1;
	if (s->idxfd < 0)
		return -1;
	/* the lines go with their marks; after another boot's lines, a boot
	 * line first, so that its readers check this boot's lines */
	ichain_t *c = chain_of(s);
	if (c->known && c->mark_off < s->idxoff)
		chain_catch(c, s->idxfd, s->idxoff);
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
	if (fault_armed(fault)) {
		ssize_t hw = write(s->idxfd, out.p, out.len / 2 + 1);
		(void)hw;
		fault_point(fault);
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
		return -1;
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
	return 0;
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
	/* bits another boot's lines made untrustworthy are dropped, not
	 * written: the file this makes is of this boot alone (nolock.h) */
	for (size_t i = 0; i < s->tabcap && s->nolock_off; i++)
		s->tab[i].nolock = 0;
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
