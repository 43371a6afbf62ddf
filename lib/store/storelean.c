/*
 * storelean.c — the store without its index in memory, for a worker that
 * is told where its records are (store.h: Lean mode).
 *
 * A worker (abx-hook under abx-tick or abx-claim CMD) reads and rewrites
 * two records: its snapshot and that snapshot's crawl.  Loading the active
 * index to find them costs what is active (a worker of a crawl with 20,000
 * queued pages read 5 MB and built a 10 MB table: 100 ms of CPU, for each
 * page), so the process that claimed the snapshot, which has the index
 * loaded, passes where their latest lines are: $ABX_HINT, words
 * "ID=JOURNAL:OFFSET" (store_hint writes them, store_lean reads them).
 *
 * A hint is checked as the index's are: the line at OFFSET must start
 * there and be ID's.  The rest of the journal after it is then searched
 * for later whole lines of ID (lines that name ID and whose own id, as
 * line_id() reads it, is ID: a line written by hand counts), so a hint
 * that is behind (a renewal, an abx-ctl change since the claim) still
 * finds the latest version, at the cost of the bytes written since.  A
 * hint that fails the check, or a lookup of an id without one, makes the
 * store load its index and catch up as store_lock does (store_unlean):
 * lean is never less right than the index, only cheaper.
 *
 * Commits in lean mode write the journals as always and append an index
 * line for each active record written (a hint for readers), but no state
 * line: the journal's end in the index stays where the claimer left it,
 * so the next process that loads the index replays the worker's lines
 * (journal_sync) as it replays a line appended by hand.  That is right only
 * for a journal whose state line the index holds: the hinted journals (the
 * claimer's index knew them, and keeps them while the snapshot is active);
 * a commit to any other journal leaves lean mode first.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/err.h"
#include "base/fs.h"
#include "base/fsretry.h"
#include "store/store_int.h"
#include "store/storefd.h"

/* Is j a journal name the store writes: a top-level one or a crawl's? */
static int
journal_name_ok(const char *j)
{
	if (!strcmp(j, "crawls.jsonl") || !strcmp(j, "binaries.jsonl") || !strcmp(j, "schedules.jsonl"))
		return 1;
	char cid[ID_LEN + 1], want[128];
	if (strncmp(j, "crawls/", 7) != 0 || strlen(j) < 7 + ID_LEN)
		return 0;
	memcpy(cid, j + 7, ID_LEN);
	cid[ID_LEN] = 0;
	if (!id_valid(cid))
		return 0;
	store_crawl_journal(cid, want, sizeof want);
	return strcmp(j, want) == 0;
}

int
store_lean(store_t *s, const char *text)
{
	s->nhint = 0;
	const char *p = text;
	while (*p) {
		while (*p == ' ')
			p++;
		if (!*p)
			break;
		size_t n = strcspn(p, " ");
		char w[200];
		if (n >= sizeof w || s->nhint == LEAN_HINTS)
			return s->nhint = 0, -1;
		memcpy(w, p, n);
		w[n] = 0;
		p += n;
		char *eq = strchr(w, '='), *colon = strrchr(w, ':');
		if (!eq || !colon || colon < eq)
			return s->nhint = 0, -1;
		*eq = *colon = 0;
		char *end;
		errno = 0;
		long long off = strtoll(colon + 1, &end, 10);
		if (!id_valid(w) || !journal_name_ok(eq + 1) || colon[1] < '0' || colon[1] > '9' || *end ||
		    errno || off < 0)
			return s->nhint = 0, -1;
		lhint_t *h = &s->hint[s->nhint++];
		memcpy(h->id, w, ID_LEN + 1);
		snprintf(h->j, sizeof h->j, "%s", eq + 1);
		h->off = off;
	}
	s->lean = s->nhint > 0;
	return 0;
}

int
store_hint(store_t *s, const char *id, buf_t *out)
{
	if (s->lean || !s->tab || !id_valid(id))
		return -1;
	ient_t *e = index_slot(s, id, 0);
	if (!e || !e->live || e->off < 0)
		return -1;
	char j[128];
	entry_journal(e, j, sizeof j);
	buf_addf(out, "%s=%s:%lld", id, j, (long long)e->off);
	ient_t *c = e->crawl_id[0] ? index_slot(s, e->crawl_id, 0) : NULL;
	if (c && c->live && c->off >= 0) {
		entry_journal(c, j, sizeof j);
		buf_addf(out, " %s=%s:%lld", c->id, j, (long long)c->off);
	}
	return 0;
}

lhint_t *
lean_hint(store_t *s, const char *id)
{
	for (int i = 0; i < s->nhint; i++)
		if (strcmp(s->hint[i].id, id) == 0)
			return &s->hint[i];
	return NULL;
}

int
lean_vouched(const store_t *s, const char *j)
{
	for (int i = 0; i < s->nhint; i++)
		if (strcmp(s->hint[i].j, j) == 0)
			return 1;
	return 0;
}

/* Is the whole line [p, nl) id's (its own "id", not a field that names it)? */
static int
line_is(const char *p, const char *nl, const char *id)
{
	char lid[ID_LEN + 1];
	return line_id(p, nl - p, lid) == 0 && strcmp(lid, id) == 0;
}

/*
 * The offset of the last whole line of id in [from, size) of fd (from is
 * a line start), or best if there is none.  A line is id's when it names
 * the id at all (a cheap memmem) and line_id() says its own id is that
 * one: line_id's first 64 bytes, else a full parse, as the index's own
 * lookups decide, so a line written by hand ("id": "...") counts too.
 * Read in chunks, the current line kept whole: what is searched costs the
 * bytes, never a copy of the tail.
 */
static int64_t
last_line_of(int fd, const char *id, int64_t from, int64_t size, int64_t best)
{
	enum { CHUNK = 64 << 10 };
	buf_t b = {0};       /* the bytes from base on */
	int64_t base = from, rd = from;
	size_t start = 0;    /* the current line's start in b */
	for (;;) {
		char *nl = b.len > start ? memchr(b.p + start, '\n', b.len - start) : NULL;
		if (!nl) {
			/* keep the current line, read on */
			if (start)
				memmove(b.p, b.p + start, b.len - start);
			b.len -= start, base += start, start = 0;
			if (rd >= size)
				break;
			buf_grow(&b, CHUNK);
			ssize_t n = pread(fd, b.p + b.len, CHUNK, rd);
			if (n <= 0)
				break;
			b.len += n, rd += n;
			continue;
		}
		size_t len = nl - (b.p + start);
		char lid[ID_LEN + 1];
		if (memmem(b.p + start, len, id, ID_LEN) && line_id(b.p + start, len, lid) == 0 &&
		    strcmp(lid, id) == 0)
			best = base + start;
		start += len + 1;
	}
	buf_free(&b);
	return best;
}

int
lean_get(store_t *s, const char *id, rec_t *out)
{
	lhint_t *h = lean_hint(s, id);
	if (!h)
		return -1;
	struct stat st;
	int fd = jfd_open(s, h->j, 0, FSR_EXISTED, &st);
	if (fd < 0)
		return -1;
	int rc = -1;
	buf_t line = {0};
	char before = '\n';
	/* the hinted line: it must start at the hint and be id's */
	if (st.st_size <= h->off || (h->off > 0 && pread(fd, &before, 1, h->off - 1) != 1) ||
	    before != '\n' || read_line_at(fd, h->off, &line) < 0 || !line_is(line.p, line.p + line.len, id))
		goto out;
	/* the latest of id's whole lines from there on */
	int64_t best = last_line_of(fd, id, h->off + line.len + 1, st.st_size, h->off);
	if (best != h->off && read_line_at(fd, best, &line) < 0)
		goto out;   /* unreadable since: the index answers */
	if (rec_parse(out, line.p, line.len) == 0) {
		h->off = best;   /* searched from there next time */
		rc = 0;
	}
out:
	buf_free(&line);
	return rc;
}

int
lean_index_append(store_t *s, const buf_t *b)
{
	if (b->len == 0)
		return 0;
	/* no O_CREAT: an index that is not there is rebuilt by the next
	 * process that loads it, from the journals this commit wrote */
	int fd = fs_open(s->dfd, INDEX_PATH, O_WRONLY | O_APPEND, 0);
	struct stat st;
	ssize_t w = fd >= 0 && fstat(fd, &st) == 0 ? write(fd, b->p, b->len) : -1;
	if (w >= 0 && w != (ssize_t)b->len) {
		/* a full disk: cut the part line off again (we hold the store
		 * lock), so that the next appender does not glue onto it */
		if (ftruncate(fd, st.st_size) < 0)
			warnsys("unable to cut a partial line off %s/%s", s->dir, INDEX_PATH);
		errno = ENOSPC;
	}
	/* no index: the next loader rebuilds it, every nolock bit off */
	int ok = w == (ssize_t)b->len || (fd < 0 && errno == ENOENT);
	if (!ok)
		warnsys("unable to append to %s/%s (a hint: it is caught up from the journals)", s->dir,
		    INDEX_PATH);
	if (fd >= 0)
		close(fd);
	return ok ? 0 : -1;
}
