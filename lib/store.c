/*
 * store.c — see store.h for the protocol.  Sections: opening, the index
 * (hash table, load, refresh, append), journals (open for append with
 * torn-tail repair, read a line at an offset, scan), transactions (get, put,
 * commit), rebuild and compaction.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "err.h"
#include "exitcodes.h"
#include "fs.h"
#include "store.h"

struct pending {
	char journal[128];
	char id[ID_LEN + 1];
	rec_t rec;
	int active;
};

#define INDEX_PATH "index/active.jsonl"
#define CONF_DEFAULT \
	"# abx.conf — settings of this data directory, KEY=value, one a line.\n" \
	"# See abx(7) and abx-tick(1).  Environment variables override these.\n" \
	"# TIMEOUT=60\n# CRAWL_MAX_CONCURRENT_SNAPSHOTS=4\n# DELETE_AFTER=0\n"

/* ---------------------------------------------------------------- open */

const char *
store_default_dir(void)
{
	static char buf[4096];
	const char *d = getenv("ABX_DIR");
	if (d && *d)
		return d;
	const char *x = getenv("XDG_DATA_HOME");
	const char *h = getenv("HOME");
	if (x && *x)
		snprintf(buf, sizeof buf, "%s/abx", x);
	else
		snprintf(buf, sizeof buf, "%s/.local/share/abx", h && *h ? h : ".");
	return buf;
}

static void
read_boot_id(store_t *s)
{
	int fd = open("/proc/sys/kernel/random/boot_id", O_RDONLY | O_CLOEXEC);
	ssize_t n = fd >= 0 ? read(fd, s->boot_id, sizeof s->boot_id - 1) : -1;
	if (fd >= 0)
		close(fd);
	if (n <= 0)
		n = 0;
	s->boot_id[n] = 0;
	char *nl = strchr(s->boot_id, '\n');
	if (nl)
		*nl = 0;
	if (!*s->boot_id)
		strcpy(s->boot_id, "unknown");
	if (gethostname(s->host, sizeof s->host - 1) < 0)
		strcpy(s->host, "localhost");
}

static void
make_dirs(store_t *s)
{
	static const char *dirs[] = {"crawls", "locks", "index", "tmp", NULL};
	for (int i = 0; dirs[i]; i++)
		if (fs_mkdirs(s->dfd, dirs[i]) < 0)
			diesys(EX_CANTCREAT_, "unable to create %s/%s", s->dir, dirs[i]);
}

void
store_open(store_t *s, const char *dir, int create)
{
	memset(s, 0, sizeof *s);
	s->lockfd = s->idxfd = -1;
	s->dir = xstrdup(dir ? dir : store_default_dir());
	const char *sync = getenv("ABX_SYNC");
	s->durable = !(sync && strcmp(sync, "0") == 0);
	s->lazy = sync && strcmp(sync, "batch") == 0;
	read_boot_id(s);
	s->dfd = open(s->dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (s->dfd < 0 && errno == ENOENT && create) {
		char tmp[4096];
		snprintf(tmp, sizeof tmp, "%s", s->dir);
		for (char *p = tmp + 1; *p; p++)
			if (*p == '/') {
				*p = 0;
				mkdir(tmp, 0755);
				*p = '/';
			}
		if (mkdir(s->dir, 0755) < 0 && errno != EEXIST)
			diesys(EX_CANTCREAT_, "unable to create %s", s->dir);
		s->dfd = open(s->dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	}
	if (s->dfd < 0) {
		if (errno == ENOENT)
			die(EX_CONFIG_, "%s is not an abx data directory (it does not exist); "
			    "create one with abx-add -d %s URL", s->dir, s->dir);
		diesys(EX_CONFIG_, "unable to open data directory %s", s->dir);
	}
	if (!fs_exists(s->dfd, "abx.conf")) {
		if (!create)
			die(EX_CONFIG_, "%s is not an abx data directory (no abx.conf); "
			    "create one with abx-add -d %s URL", s->dir, s->dir);
		make_dirs(s);
		int fd = fs_open(s->dfd, "abx.conf", O_WRONLY | O_CREAT | O_EXCL, 0644);
		if (fd >= 0) {
			ssize_t w = write(fd, CONF_DEFAULT, strlen(CONF_DEFAULT));
			(void)w;
			close(fd);
		}
	}
	s->lockfd = fs_open(s->dfd, "locks/store.lock", O_RDWR | O_CREAT, 0644);
	if (s->lockfd < 0 && errno == ENOENT) {
		make_dirs(s);
		s->lockfd = fs_open(s->dfd, "locks/store.lock", O_RDWR | O_CREAT, 0644);
	}
	if (s->lockfd < 0)
		diesys(EX_CONFIG_, "unable to open %s/locks/store.lock", s->dir);
}

static void index_drop(store_t *s);

void
store_forked(store_t *s)
{
	/* flock belongs to the open file description, which fork shares:
	 * the child needs a description of its own to lock independently */
	int fd = fs_open(s->dfd, "locks/store.lock", O_RDWR | O_CREAT, 0644);
	if (fd < 0)
		diesys(EX_IOERR_, "unable to open %s/locks/store.lock", s->dir);
	s->lockfd = fd;
	s->locked = 0;
	s->pend = NULL;
	s->npend = s->pendcap = 0;
	s->unsynced = NULL;
	s->nunsynced = 0;
}

void
store_close(store_t *s)
{
	if (s->locked)
		store_unlock(s);
	store_sync(s);
	free(s->unsynced);
	index_drop(s);
	if (s->lockfd >= 0)
		close(s->lockfd);
	if (s->dfd >= 0)
		close(s->dfd);
	free(s->pend);
	free(s->dir);
	memset(s, 0, sizeof *s);
	s->dfd = s->lockfd = s->idxfd = -1;
}

/* ------------------------------------------------------------ records */

int64_t
rec_time(const rec_t *r, const char *key)
{
	char *v = rec_str(r, key);
	int64_t us;
	if (!v)
		return -1;
	if (strcmp(v, TIME_MAX_ISO) == 0 || strncmp(v, "9999-", 5) == 0)
		us = INT64_MAX;
	else if (clock_parse(v, &us) < 0)
		us = -1;
	free(v);
	return us;
}

void
rec_set_time(rec_t *r, const char *key, int64_t us)
{
	char iso[ISO_LEN + 1];
	if (us < 0) {
		rec_set_null(r, key);
		return;
	}
	if (us == INT64_MAX)
		strcpy(iso, TIME_MAX_ISO);
	else
		clock_iso(us, iso);
	rec_set_str(r, key, iso);
}

int
record_is_final(const rec_t *r)
{
	char *t = rec_str(r, "type"), *st = rec_str(r, "status");
	int fin = 0;
	if (t && st) {
		if (strcmp(t, "ArchiveResult") == 0)
			fin = strcmp(st, "succeeded") == 0 || strcmp(st, "failed") == 0 ||
			      strcmp(st, "skipped") == 0 || strcmp(st, "noresults") == 0;
		else if (strcmp(t, "Binary") == 0)
			fin = strcmp(st, "installed") == 0;
		else
			fin = strcmp(st, "sealed") == 0;
	}
	free(t);
	free(st);
	return fin;
}

int
record_is_active(const rec_t *r)
{
	char *t = rec_str(r, "type");
	int act = t && (strcmp(t, "Crawl") == 0 || strcmp(t, "Snapshot") == 0 ||
	                strcmp(t, "Binary") == 0 || strcmp(t, "CrawlSchedule") == 0);
	free(t);
	if (!act)
		return 0;
	return !record_is_final(r) || !rec_isnull(r, "retry_at");
}

void
store_crawl_journal(const char *crawl_id, char *out, size_t n)
{
	snprintf(out, n, "crawls/%s/snapshots.jsonl", crawl_id);
}

int
store_journal_of(const rec_t *r, char *out, size_t n)
{
	char *t = rec_str(r, "type");
	int rc = 0;
	if (!t)
		return -1;
	if (strcmp(t, "Crawl") == 0)
		snprintf(out, n, "crawls.jsonl");
	else if (strcmp(t, "CrawlSchedule") == 0)
		snprintf(out, n, "schedules.jsonl");
	else if (strcmp(t, "Binary") == 0)
		snprintf(out, n, "binaries.jsonl");
	else if (strcmp(t, "Snapshot") == 0 || strcmp(t, "ArchiveResult") == 0 ||
	         strcmp(t, "Process") == 0 || strcmp(t, "Tag") == 0) {
		char *c = rec_str(r, "crawl_id");
		if (id_valid(c))
			store_crawl_journal(c, out, n);
		else
			rc = -1;
		free(c);
	} else
		rc = -1;
	free(t);
	return rc;
}

/* -------------------------------------------------------------- index */

static uint64_t
hash_id(const char *id)
{
	uint64_t h = 1469598103934665603ull;
	for (; *id; id++)
		h = (h ^ (unsigned char)*id) * 1099511628211ull;
	return h;
}

static ient_t *
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

static void
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
}

static jstate_t *
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
	st->end = 0;
	return st;
}

static void
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

/* Apply one index line. Returns 0, or -1 if it is not an index line. */
static int
index_apply(store_t *s, const char *line, size_t len)
{
	if (index_apply_fast(s, line, len) == 0)
		return 0;
	if (len > 7 && memcmp(line, "{\"j\":\"", 6) == 0) {
		/* a state line: {"j":"<journal>","end":N} */
		const char *q = memchr(line + 6, '"', len - 6);
		if (q && (size_t)(q - line) + 8 < len && memcmp(q, "\",\"end\":", 8) == 0 &&
		    q - line - 6 < 128 && !memchr(line + 6, '\\', q - line - 6)) {
			char j[128];
			memcpy(j, line + 6, q - line - 6);
			j[q - line - 6] = 0;
			jstate(s, j, 1)->end = strtoll(q + 8, NULL, 10);
			return 0;
		}
	}
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

static void
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

static void
index_header(store_t *s, buf_t *b)
{
	buf_addf(b, "{\"type\":\"Index\",\"version\":1,\"boot_id\":\"%s\"}\n", s->boot_id);
}

/* Cut a torn tail off an append-only file we hold the lock for.  The
 * fragment is kept in "<rel>.torn" so nothing is dropped silently. */
static int
repair_tail(store_t *s, int fd, const char *rel, int keep)
{
	struct stat st;
	if (fstat(fd, &st) < 0 || st.st_size == 0)
		return 0;
	char c;
	if (pread(fd, &c, 1, st.st_size - 1) == 1 && c == '\n')
		return 0;
	off_t end = st.st_size, pos = end;
	char chunk[4096];
	off_t cut = 0;
	while (pos > 0) {
		off_t from = pos > (off_t)sizeof chunk ? pos - (off_t)sizeof chunk : 0;
		ssize_t n = pread(fd, chunk, pos - from, from);
		if (n <= 0)
			break;
		char *nl = memrchr(chunk, '\n', n);
		if (nl) {
			cut = from + (nl - chunk) + 1;
			break;
		}
		pos = from;
	}
	size_t fraglen = end - cut;
	if (keep) {
		char torn[256];
		snprintf(torn, sizeof torn, "%s.torn", rel);
		int tfd = fs_open(s->dfd, torn, O_WRONLY | O_APPEND | O_CREAT, 0644);
		char *frag = xmalloc(fraglen + 1);
		ssize_t n = pread(fd, frag, fraglen, cut);
		if (tfd >= 0 && n > 0) {
			frag[n] = '\n';
			ssize_t w = write(tfd, frag, n + 1);
			(void)w;
		}
		if (tfd >= 0)
			close(tfd);
		free(frag);
		warnx_("%s/%s: torn last line at offset %lld (%zu bytes, a writer died mid-write) "
		       "moved to %s and cut off", s->dir, rel, (long long)cut, fraglen, torn);
	}
	if (ftruncate(fd, cut) < 0)
		diesys(EX_IOERR_, "unable to repair %s/%s", s->dir, rel);
	return 1;
}

static void index_write_full(store_t *s);
static int journal_sync(store_t *s, const char *j);
static void entry_journal(const ient_t *e, char *out, size_t n);

/* Read new index lines (or all, if the file was replaced). */
static void
index_refresh(store_t *s)
{
	struct stat st;
	int fd = -1;
	if (fs_exists(s->dfd, INDEX_PATH) == 0) {
		store_rebuild_index(s);
		return;
	}
	if (s->idxfd >= 0 && fstatat(s->dfd, INDEX_PATH, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
	    st.st_ino == s->idxino) {
		fd = s->idxfd;
	} else {
		index_drop(s);
		fd = fs_open(s->dfd, INDEX_PATH, O_RDWR | O_APPEND, 0);
		if (fd < 0)
			diesys(EX_IOERR_, "unable to open %s/%s", s->dir, INDEX_PATH);
		if (fstat(fd, &st) < 0)
			diesys(EX_IOERR_, "unable to stat %s/%s", s->dir, INDEX_PATH);
		s->idxfd = fd;
		s->idxino = st.st_ino;
		s->idxoff = 0;
	}
	if (s->locked)
		repair_tail(s, fd, INDEX_PATH, 0);
	if (fstat(fd, &st) < 0)
		diesys(EX_IOERR_, "unable to stat %s/%s", s->dir, INDEX_PATH);
	if (st.st_size <= s->idxoff)
		return;
	size_t n = st.st_size - s->idxoff;
	char *p = xmalloc(n + 1);
	ssize_t got = pread(fd, p, n, s->idxoff);
	if (got < 0)
		diesys(EX_IOERR_, "unable to read %s/%s", s->dir, INDEX_PATH);
	char *q = p, *end = p + got;
	int first = s->idxoff == 0;
	while (q < end) {
		char *nl = memchr(q, '\n', end - q);
		if (!nl)
			break;   /* a line being written; read it next time */
		if (first) {
			first = 0;
			/* an index from another boot may have lost its tail */
			if (!memmem(q, nl - q, s->boot_id, strlen(s->boot_id))) {
				free(p);
				if (s->locked) {
					store_rebuild_index(s);
				} else {
					/* can't rebuild without the lock: take it briefly */
					store_lock(s);
					store_unlock(s);
				}
				return;
			}
		} else if (s->flines++, index_apply(s, q, nl - q) < 0) {
			warnx_("%s/%s: malformed index line ignored", s->dir, INDEX_PATH);
		}
		s->idxoff += nl - q + 1;
		q = nl + 1;
	}
	free(p);
	/* compact the index when tombstones dominate */
	if (s->locked && s->flines > 4 * s->nlive + 4096)
		index_write_full(s);
}

static void
index_append(store_t *s, buf_t *b)
{
	if (b->len == 0)
		return;
	if (s->idxfd < 0)
		index_refresh(s);
	if (fault_armed("index-half-line")) {
		ssize_t h = write(s->idxfd, b->p, b->len / 2 + 1);
		(void)h;
		fault_point("index-half-line");
	}
	ssize_t w = write(s->idxfd, b->p, b->len);
	if (w != (ssize_t)b->len)
		diesys(EX_IOERR_, "unable to append to %s/%s", s->dir, INDEX_PATH);
	s->idxoff += w;
	for (size_t i = 0; i < b->len; i++)
		s->flines += b->p[i] == '\n';
}

/* Replace the index by one line per live entry (a compaction). */
static void
index_write_full(store_t *s)
{
	buf_t b = {0};
	index_header(s, &b);
	for (size_t i = 0; i < s->tabcap; i++)
		if (s->tab[i].used && s->tab[i].live)
			index_line(s, &b, &s->tab[i]);
	/* keep the state of journals that still hold active items: the
	 * others need no replay check at every lock */
	size_t keep = 0;
	for (size_t i = 0; i < s->njs; i++) {
		int live = !strcmp(s->js[i].j, "crawls.jsonl") || !strcmp(s->js[i].j, "schedules.jsonl") ||
		           !strcmp(s->js[i].j, "binaries.jsonl");
		for (size_t k = 0; k < s->tabcap && !live; k++)
			if (s->tab[k].used && s->tab[k].live) {
				char j[128];
				entry_journal(&s->tab[k], j, sizeof j);
				live = strcmp(j, s->js[i].j) == 0;
			}
		if (live) {
			s->js[keep++] = s->js[i];
			state_line(&b, s->js[i].j, s->js[i].end);
		}
	}
	s->njs = keep;
	fault_point("index-before-rename");
	if (fs_replace(s->dfd, INDEX_PATH, b.p, b.len, 0) < 0)
		diesys(EX_IOERR_, "unable to write %s/%s", s->dir, INDEX_PATH);
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
	int fd = fs_open(s->dfd, INDEX_PATH, O_RDWR | O_APPEND, 0);
	struct stat st;
	if (fd < 0 || fstat(fd, &st) < 0)
		diesys(EX_IOERR_, "unable to open %s/%s", s->dir, INDEX_PATH);
	s->idxfd = fd;
	s->idxino = st.st_ino;
	s->idxoff = st.st_size;
	s->flines = s->nlive;
	buf_free(&b);
}

static void
index_set_from(store_t *s, const rec_t *r, int64_t off)
{
	char *id = rec_str(r, "id");
	if (!id_valid(id)) {
		free(id);
		return;
	}
	ient_t *e = index_slot(s, id, 1);
	int was = e->live;
	if (!record_is_active(r)) {
		e->live = 0;
	} else {
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
	s->nlive += e->live - was;
	free(id);
}

/* ------------------------------------------------------------- journals */

static void
entry_journal(const ient_t *e, char *out, size_t n)
{
	if (strcmp(e->type, "Crawl") == 0)
		snprintf(out, n, "crawls.jsonl");
	else if (strcmp(e->type, "CrawlSchedule") == 0)
		snprintf(out, n, "schedules.jsonl");
	else if (strcmp(e->type, "Binary") == 0)
		snprintf(out, n, "binaries.jsonl");
	else
		store_crawl_journal(e->crawl_id, out, n);
}

/* Read the line starting at off; 0 ok, -1 none. */
static int
read_line_at(int fd, int64_t off, buf_t *out)
{
	buf_reset(out);
	char chunk[4096];
	for (;;) {
		ssize_t n = pread(fd, chunk, sizeof chunk, off);
		if (n <= 0)
			return -1;
		char *nl = memchr(chunk, '\n', n);
		if (nl) {
			buf_add(out, chunk, nl - chunk);
			return 0;
		}
		buf_add(out, chunk, n);
		off += n;
	}
}

typedef struct {
	char id[ID_LEN + 1];
	int64_t off;
	size_t first;         /* order of first appearance */
} jent_t;

typedef struct {
	jent_t *v;
	size_t n, cap;
	size_t *slot;         /* open hash of indices into v, +1 */
	size_t scap;
} jmap_t;

static jent_t *
jmap_get(jmap_t *m, const char *id)
{
	if ((m->n + 1) * 2 > m->scap) {
		size_t ncap = m->scap ? m->scap * 2 : 256;
		free(m->slot);
		m->slot = xcalloc(ncap, sizeof(size_t));
		m->scap = ncap;
		for (size_t i = 0; i < m->n; i++) {
			size_t h = hash_id(m->v[i].id) & (ncap - 1);
			while (m->slot[h])
				h = (h + 1) & (ncap - 1);
			m->slot[h] = i + 1;
		}
	}
	size_t h = hash_id(id) & (m->scap - 1);
	while (m->slot[h]) {
		jent_t *e = &m->v[m->slot[h] - 1];
		if (strcmp(e->id, id) == 0)
			return e;
		h = (h + 1) & (m->scap - 1);
	}
	if (m->n == m->cap) {
		m->cap = m->cap ? m->cap * 2 : 256;
		m->v = xrealloc(m->v, m->cap * sizeof(jent_t));
	}
	jent_t *e = &m->v[m->n];
	memset(e, 0, sizeof *e);
	snprintf(e->id, sizeof e->id, "%s", id);
	e->first = m->n;
	m->slot[h] = ++m->n;
	return e;
}

/* Extract "id":"<uuid>" from a record line cheaply, without a full parse.
 * Our writer always puts "type" then "id" first, but a hand-appended line
 * may not: fall back to parsing. */
static int
line_id(const char *p, size_t n, char id[ID_LEN + 1])
{
	const char *k = memmem(p, n > 64 ? 64 : n, "\"id\":\"", 6);
	if (k && (size_t)(k - p) + 6 + ID_LEN < n && k[6 + ID_LEN] == '"') {
		memcpy(id, k + 6, ID_LEN);
		id[ID_LEN] = 0;
		if (id_valid(id))
			return 0;
	}
	rec_t r;
	if (rec_parse(&r, p, n) < 0)
		return -1;
	char *v = rec_str(&r, "id");
	int ok = id_valid(v);
	if (ok)
		memcpy(id, v, ID_LEN + 1);
	free(v);
	rec_free(&r);
	return ok ? 0 : -1;
}

/*
 * Map id -> offset of the latest line, for the lines of a journal that
 * contain filter (all if NULL).  Malformed lines are reported.  Returns the
 * file contents in *data (the caller frees) or -1 if it does not exist.
 */
static int
journal_map(store_t *s, const char *journal, const char *filter, jmap_t *m, buf_t *data)
{
	memset(m, 0, sizeof *m);
	memset(data, 0, sizeof *data);
	if (fs_read(s->dfd, journal, data) < 0) {
		if (errno == ENOENT)
			return -1;
		diesys(EX_IOERR_, "unable to read %s/%s", s->dir, journal);
	}
	size_t flen = filter ? strlen(filter) : 0;
	char *q = data->p, *end = data->p + data->len;
	long lineno = 0;
	while (q < end) {
		char *nl = memchr(q, '\n', end - q);
		lineno++;
		if (!nl)
			break;   /* trailing partial line: a write in progress or torn */
		size_t n = nl - q;
		if (n && (!filter || memmem(q, n, filter, flen))) {
			char id[ID_LEN + 1];
			if (line_id(q, n, id) < 0)
				warnx_("%s/%s:%ld: malformed record skipped", s->dir, journal, lineno);
			else
				jmap_get(m, id)->off = q - data->p;
		}
		q = nl + 1;
	}
	return 0;
}

static void
jmap_free(jmap_t *m)
{
	free(m->v);
	free(m->slot);
}

int
store_each(store_t *s, const char *journal, const char *filter, store_each_fn fn, void *arg)
{
	jmap_t m;
	buf_t data;
	if (journal_map(s, journal, filter, &m, &data) < 0)
		return -1;
	int rc = 0;
	for (size_t i = 0; i < m.n && rc == 0; i++) {
		char *p = data.p + m.v[i].off;
		char *nl = memchr(p, '\n', data.p + data.len - p);
		rec_t r;
		if (rec_parse(&r, p, nl - p) < 0) {
			warnx_("%s/%s: malformed record %s skipped", s->dir, journal, m.v[i].id);
			continue;
		}
		rc = fn(&r, arg);
		rec_free(&r);
	}
	jmap_free(&m);
	buf_free(&data);
	return rc;
}

/* Find id's latest version by scanning a journal. */
static int
journal_find(store_t *s, const char *journal, const char *id, rec_t *out, int64_t *offp)
{
	jmap_t m;
	buf_t data;
	if (journal_map(s, journal, id, &m, &data) < 0)
		return -1;
	int rc = -1;
	for (size_t i = 0; i < m.n; i++)
		if (strcmp(m.v[i].id, id) == 0) {
			char *p = data.p + m.v[i].off;
			char *nl = memchr(p, '\n', data.p + data.len - p);
			if (rec_parse(out, p, nl - p) == 0) {
				rc = 0;
				if (offp)
					*offp = m.v[i].off;
			}
			break;
		}
	jmap_free(&m);
	buf_free(&data);
	return rc;
}

/*
 * Replay the lines of journal j that the index does not know yet (a crash
 * between a journal write and its state line, or a line appended by hand
 * under the lock).  A journal shorter than its known end was replaced or
 * truncated: it is replayed whole.  Under the lock the corrections are
 * appended to the index too.  Returns 1 if the index changed.
 */
static int
journal_sync(store_t *s, const char *j)
{
	jstate_t *st = jstate(s, j, 0);
	int fd = fs_open(s->dfd, j, O_RDONLY, 0);
	if (fd < 0)
		return 0;
	struct stat sb;
	if (fstat(fd, &sb) < 0 || (st && sb.st_size == st->end)) {
		close(fd);
		return 0;
	}
	int64_t from = st && sb.st_size > st->end ? st->end : 0;
	size_t n = sb.st_size - from;
	char *p = xmalloc(n + 1);
	ssize_t got = pread(fd, p, n, from);
	close(fd);
	if (got < 0)
		got = 0;
	buf_t b = {0};
	char *q = p, *end = p + got;
	int changed = 0;
	while (q < end) {
		char *nl = memchr(q, '\n', end - q);
		if (!nl)
			break;
		rec_t r;
		if (nl > q && rec_parse(&r, q, nl - q) == 0) {
			char *id = rec_str(&r, "id");
			ient_t *e = id_valid(id) ? index_slot(s, id, 0) : NULL;
			char t[16] = "";
			char *type = rec_str(&r, "type");
			snprintf(t, sizeof t, "%s", type ? type : "");
			free(type);
			int indexable = !strcmp(t, "Crawl") || !strcmp(t, "Snapshot") || !strcmp(t, "Binary") ||
			                !strcmp(t, "CrawlSchedule");
			if (id_valid(id) && indexable && (record_is_active(&r) || (e && e->live))) {
				index_set_from(s, &r, from + (q - p));
				if (s->locked)
					index_line(s, &b, index_slot(s, id, 0));
				changed = 1;
			}
			free(id);
			rec_free(&r);
		}
		q = nl + 1;
	}
	int64_t nend = from + (q - p);
	free(p);
	jstate(s, j, 1)->end = nend;
	if (s->locked) {
		state_line(&b, j, nend);
		index_append(s, &b);
	}
	if (changed && err_verbose(-1))
		info("%s/%s: %lld bytes the index did not know were replayed", s->dir, j,
		    (long long)(nend - from));
	buf_free(&b);
	return changed;
}

/* ---------------------------------------------------------- transactions */

void
store_lock(store_t *s)
{
	if (s->locked)
		return;
	while (flock(s->lockfd, LOCK_EX) < 0) {
		if (errno == EINTR)
			continue;
		diesys(EX_IOERR_, "unable to lock %s/locks/store.lock", s->dir);
	}
	s->locked = 1;
	index_refresh(s);
	/* lines the index missed (a crash, a hand edit) are replayed now,
	 * before any decision is taken on a hint */
	for (size_t i = 0; i < s->njs; i++) {
		char j[128];
		snprintf(j, sizeof j, "%s", s->js[i].j);
		journal_sync(s, j);
	}
}

void
store_unlock(store_t *s)
{
	if (!s->locked)
		return;
	store_commit(s);
	/* compact the index when tombstones dominate, while we hold the lock */
	if (s->flines > 4 * s->nlive + 4096)
		index_write_full(s);
	flock(s->lockfd, LOCK_UN);
	s->locked = 0;
}

static pending_t *
pending_find(store_t *s, const char *id)
{
	for (size_t i = s->npend; i-- > 0;)
		if (strcmp(s->pend[i].id, id) == 0)
			return &s->pend[i];
	return NULL;
}

int
store_get_in(store_t *s, const char *id, const char *journal, rec_t *out)
{
	if (!id_valid(id))
		return -1;
	pending_t *p = pending_find(s, id);
	if (p) {
		rec_copy(out, &p->rec);
		return 0;
	}
	if (!s->tab && !s->locked)
		index_refresh(s);
	ient_t *e = index_slot(s, id, 0);
	char j[128];
	if (e && e->live) {
		entry_journal(e, j, sizeof j);
		if (journal_sync(s, j))
			e = index_slot(s, id, 0);
	}
	if (e && e->live) {
		int fd = fs_open(s->dfd, j, O_RDONLY, 0);
		buf_t line = {0};
		if (fd >= 0 && e->off >= 0 && read_line_at(fd, e->off, &line) == 0) {
			char lid[ID_LEN + 1];
			if (line_id(line.p, line.len, lid) == 0 && strcmp(lid, id) == 0 &&
			    rec_parse(out, line.p, line.len) == 0) {
				close(fd);
				buf_free(&line);
				return 0;
			}
		}
		if (fd >= 0)
			close(fd);
		buf_free(&line);
		/* a stale hint: rescan that journal for this id */
		int64_t off;
		int found = journal_find(s, j, id, out, &off) == 0;
		if (s->locked) {
			/* correct the hint, or drop a ghost (an index line
			 * whose journal write never happened) */
			if (found)
				index_set_from(s, out, off);
			else
				s->nlive -= e->live, e->live = 0;
			buf_t b = {0};
			index_line(s, &b, index_slot(s, id, 0));
			index_append(s, &b);
			buf_free(&b);
		}
		if (found)
			return 0;
	}
	if (journal && journal_find(s, journal, id, out, NULL) == 0)
		return 0;
	return -1;
}

typedef struct {
	store_t *s;
	const char *id;
	rec_t *out;
	int found;
} findctx_t;

static int
find_in_crawl(rec_t *crawl, void *arg)
{
	findctx_t *f = arg;
	char *cid = rec_str(crawl, "id");
	char j[128];
	if (id_valid(cid)) {
		store_crawl_journal(cid, j, sizeof j);
		if (journal_find(f->s, j, f->id, f->out, NULL) == 0)
			f->found = 1;
	}
	free(cid);
	return f->found;
}

int
store_get(store_t *s, const char *id, rec_t *out)
{
	static const char *tops[] = {"crawls.jsonl", "schedules.jsonl", "binaries.jsonl", NULL};
	if (store_get_in(s, id, NULL, out) == 0)
		return 0;
	if (!id_valid(id))
		return -1;
	for (int i = 0; tops[i]; i++)
		if (journal_find(s, tops[i], id, out, NULL) == 0)
			return 0;
	/* not active and not a top-level record: a final snapshot or result;
	 * look through every crawl (the slow path, for by-hand lookups) */
	if (getenv("ABX_DEBUG_SLOW"))
		info("slow lookup of %s", id);
	findctx_t f = {s, id, out, 0};
	store_each(s, "crawls.jsonl", NULL, find_in_crawl, &f);
	return f.found ? 0 : -1;
}

void
store_put(store_t *s, rec_t *r)
{
	if (!s->locked)
		die(EX_SOFT_, "internal error: store_put without the store lock");
	char j[128];
	char *id = rec_str(r, "id");
	if (!id_valid(id) || store_journal_of(r, j, sizeof j) < 0)
		die(EX_SOFT_, "internal error: record without a valid id, type or crawl_id");
	rec_set_time(r, "modified_at", clock_now());
	if (s->npend == s->pendcap) {
		s->pendcap = s->pendcap ? s->pendcap * 2 : 16;
		s->pend = xrealloc(s->pend, s->pendcap * sizeof(pending_t));
	}
	pending_t *p = &s->pend[s->npend++];
	snprintf(p->journal, sizeof p->journal, "%s", j);
	memcpy(p->id, id, ID_LEN + 1);
	rec_copy(&p->rec, r);
	p->active = record_is_active(r);
	free(id);
}

static int
journal_open_append(store_t *s, const char *j)
{
	int fd = fs_open(s->dfd, j, O_RDWR | O_APPEND, 0);
	if (fd < 0 && errno == ENOENT) {
		/* a new journal: its directory entries must be as durable as
		 * the lines about to be synced into it */
		char dir[128];
		snprintf(dir, sizeof dir, "%s", j);
		char *sl = strrchr(dir, '/');
		if (sl) {
			*sl = 0;
			if (fs_mkdirs(s->dfd, dir) < 0)
				diesys(EX_CANTCREAT_, "unable to create %s/%s", s->dir, dir);
		}
		fd = fs_open(s->dfd, j, O_RDWR | O_APPEND | O_CREAT, 0644);
		if (fd >= 0 && s->durable) {
			char dir[128];
			snprintf(dir, sizeof dir, "%s", j);
			char *sl = strrchr(dir, '/');
			if (sl) {
				*sl = 0;
				fs_fsync_dir(s->dfd, dir);
				sl = strrchr(dir, '/');
				if (sl)
					*sl = 0;
				fs_fsync_dir(s->dfd, sl ? dir : "");
			} else {
				fs_fsync_dir(s->dfd, "");
			}
		}
	}
	if (fd < 0)
		diesys(EX_CANTCREAT_, "unable to open %s/%s", s->dir, j);
	repair_tail(s, fd, j, 1);
	return fd;
}

/* Commit the staged records of one journal (those with done == 0). */
static void
commit_journal(store_t *s, const char *j, char *done)
{
	int fd = journal_open_append(s, j);
	struct stat st;
	if (fstat(fd, &st) < 0)
		diesys(EX_IOERR_, "unable to stat %s/%s", s->dir, j);
	journal_sync(s, j);
	buf_t lines = {0}, pre = {0}, post = {0};
	int64_t base = st.st_size;
	for (size_t i = 0; i < s->npend; i++) {
		pending_t *p = &s->pend[i];
		if (done[i] || strcmp(p->journal, j) != 0)
			continue;
		done[i] = 1;
		int64_t off = base + lines.len;
		rec_line(&p->rec, &lines);
		buf_addc(&lines, '\n');
		ient_t *e = index_slot(s, p->id, 0);
		int was_live = e && e->live;
		if (p->active || was_live) {
			index_set_from(s, &p->rec, off);
			index_line(s, p->active ? &pre : &post, index_slot(s, p->id, 0));
		}
	}
	fault_point("journal-before-write");
	if (fault_armed("journal-half-line")) {
		ssize_t w = write(fd, lines.p, lines.len / 2);
		(void)w;
		fault_point("journal-half-line");
	}
	ssize_t w = write(fd, lines.p, lines.len);
	if (w != (ssize_t)lines.len) {
		if (w > 0 && ftruncate(fd, base) == 0)
			errno = EIO;
		diesys(EX_IOERR_, "unable to append to %s/%s", s->dir, j);
	}
	if (s->durable && !s->lazy && fdatasync(fd) < 0)
		diesys(EX_IOERR_, "unable to sync %s/%s", s->dir, j);
	if (s->durable && s->lazy) {
		size_t k = 0;
		while (k < s->nunsynced && strcmp(s->unsynced[k], j) != 0)
			k++;
		if (k == s->nunsynced) {
			s->unsynced = xrealloc(s->unsynced, (k + 1) * sizeof *s->unsynced);
			snprintf(s->unsynced[s->nunsynced++], 128, "%s", j);
		}
	}
	fault_point("journal-after-write");
	/* The index is written after the sync: its lines are hints, and a
	 * crash before them leaves the journal longer than the end the index
	 * knows, which the next locker replays (journal_sync).  Written
	 * before, they would ride in the sync's filesystem commit. */
	jstate(s, j, 1)->end = base + lines.len;
	buf_add(&pre, post.p ? post.p : "", post.len);
	state_line(&pre, j, base + lines.len);
	index_append(s, &pre);
	close(fd);
	buf_free(&lines);
	buf_free(&pre);
	buf_free(&post);
}

void
store_sync_journal(store_t *s, const char *j)
{
	if (!s->durable)
		return;
	int fd = fs_open(s->dfd, j, O_RDWR, 0);
	if (fd < 0)
		return;
	if (fdatasync(fd) < 0)
		diesys(EX_IOERR_, "unable to sync %s/%s", s->dir, j);
	close(fd);
}

void
store_sync(store_t *s)
{
	for (size_t i = 0; i < s->nunsynced; i++)
		store_sync_journal(s, s->unsynced[i]);
	s->nunsynced = 0;
}

void
store_commit(store_t *s)
{
	if (s->npend == 0)
		return;
	char *done = xcalloc(s->npend, 1);
	for (size_t i = 0; i < s->npend; i++)
		if (!done[i])
			commit_journal(s, s->pend[i].journal, done);
	for (size_t i = 0; i < s->npend; i++)
		rec_free(&s->pend[i].rec);
	s->npend = 0;
	free(done);
}

/* -------------------------------------------------------------- queries */

static int
ient_cmp(const void *a, const void *b)
{
	const ient_t *x = a, *y = b;
	if (x->retry_at != y->retry_at)
		return x->retry_at < y->retry_at ? -1 : 1;
	if (x->created_at != y->created_at)
		return x->created_at < y->created_at ? -1 : 1;
	return strcmp(x->id, y->id);
}

size_t
store_active(store_t *s, const char *type, ient_t **out)
{
	if (!s->tab && !s->locked)
		index_refresh(s);
	size_t n = 0;
	*out = xmalloc(sizeof(ient_t) * (s->nlive + 1));
	for (size_t i = 0; i < s->tabcap; i++) {
		ient_t *e = &s->tab[i];
		if (e->used && e->live && (!type || strcmp(e->type, type) == 0))
			(*out)[n++] = *e;
	}
	qsort(*out, n, sizeof(ient_t), ient_cmp);
	return n;
}

size_t
store_first_due(store_t *s, const char *type, const char *crawl_id, int64_t now, const ient_t **best,
    size_t k)
{
	if (!s->tab && !s->locked)
		index_refresh(s);
	size_t n = 0;
	for (size_t i = 0; i < s->tabcap && k; i++) {
		const ient_t *e = &s->tab[i];
		if (!e->used || !e->live || (type && strcmp(e->type, type) != 0))
			continue;
		if (crawl_id && strcmp(e->crawl_id, crawl_id) != 0 && strcmp(e->id, crawl_id) != 0)
			continue;
		if (e->retry_at == INT64_MAX || e->retry_at < 0 || strcmp(e->status, "paused") == 0)
			continue;
		if (e->retry_at > now && !e->lease)
			continue;
		if (n == k && ient_cmp(e, best[k - 1]) >= 0)
			continue;
		/* insertion into the k best, kept sorted */
		size_t j = n < k ? n++ : k - 1;
		while (j > 0 && ient_cmp(e, best[j - 1]) < 0) {
			best[j] = best[j - 1];
			j--;
		}
		best[j] = e;
	}
	return n;
}

const ient_t *
store_next_due(store_t *s, const char *type, const char *crawl_id, int64_t now,
    char (*skip)[ID_LEN + 1], size_t nskip)
{
	if (!s->tab && !s->locked)
		index_refresh(s);
	const ient_t *best = NULL;
	for (size_t i = 0; i < s->tabcap; i++) {
		const ient_t *e = &s->tab[i];
		if (!e->used || !e->live || (type && strcmp(e->type, type) != 0))
			continue;
		if (crawl_id && strcmp(e->crawl_id, crawl_id) != 0 && strcmp(e->id, crawl_id) != 0)
			continue;
		if (e->retry_at == INT64_MAX || e->retry_at < 0 || strcmp(e->status, "paused") == 0)
			continue;
		if (e->retry_at > now && !e->lease)
			continue;
		if (best && ient_cmp(e, best) >= 0)
			continue;
		size_t k = 0;
		while (k < nskip && strcmp(skip[k], e->id) != 0)
			k++;
		if (k == nskip)
			best = e;
	}
	return best;
}

/* ------------------------------------------------- rebuild and compaction */

typedef struct {
	store_t *s;
	buf_t *b;
	const char *journal;
	jmap_t *m;
} rebuildctx_t;

static int
rebuild_journal(store_t *s, const char *j, buf_t *b, char ***crawls, size_t *ncrawls)
{
	jmap_t m;
	buf_t data;
	if (journal_map(s, j, NULL, &m, &data) < 0)
		return -1;
	for (size_t i = 0; i < m.n; i++) {
		char *p = data.p + m.v[i].off;
		char *nl = memchr(p, '\n', data.p + data.len - p);
		rec_t r;
		if (rec_parse(&r, p, nl - p) < 0)
			continue;
		if (record_is_active(&r)) {
			index_set_from(s, &r, m.v[i].off);
			index_line(s, b, index_slot(s, m.v[i].id, 0));
		}
		if (crawls && rec_streq(&r, "type", "Crawl") && record_is_active(&r)) {
			*crawls = xrealloc(*crawls, sizeof(char *) * (*ncrawls + 1));
			(*crawls)[(*ncrawls)++] = xstrdup(m.v[i].id);
		}
		rec_free(&r);
	}
	char *last = data.len ? memrchr(data.p, '\n', data.len) : NULL;
	int64_t end = last ? last - data.p + 1 : 0;
	jstate(s, j, 1)->end = end;
	state_line(b, j, end);
	jmap_free(&m);
	buf_free(&data);
	return 0;
}

void
store_rebuild_index(store_t *s)
{
	int had = s->locked;
	if (!had) {
		while (flock(s->lockfd, LOCK_EX) < 0)
			if (errno != EINTR)
				diesys(EX_IOERR_, "unable to lock %s/locks/store.lock", s->dir);
		s->locked = 1;
	}
	index_drop(s);
	buf_t b = {0};
	index_header(s, &b);
	char **crawls = NULL;
	size_t ncrawls = 0;
	rebuild_journal(s, "crawls.jsonl", &b, &crawls, &ncrawls);
	rebuild_journal(s, "schedules.jsonl", &b, NULL, NULL);
	rebuild_journal(s, "binaries.jsonl", &b, NULL, NULL);
	/* an active crawl's journal holds its active snapshots; a sealed
	 * crawl has none (seal and cancel see to it) */
	for (size_t i = 0; i < ncrawls; i++) {
		char j[128];
		store_crawl_journal(crawls[i], j, sizeof j);
		rebuild_journal(s, j, &b, NULL, NULL);
		free(crawls[i]);
	}
	free(crawls);
	fault_point("index-rebuild-before-rename");
	if (fs_mkdirs(s->dfd, "index") < 0 || fs_replace(s->dfd, INDEX_PATH, b.p, b.len, 0) < 0)
		diesys(EX_IOERR_, "unable to write %s/%s", s->dir, INDEX_PATH);
	int fd = fs_open(s->dfd, INDEX_PATH, O_RDWR | O_APPEND, 0);
	struct stat st;
	if (fd < 0 || fstat(fd, &st) < 0)
		diesys(EX_IOERR_, "unable to open %s/%s", s->dir, INDEX_PATH);
	s->idxfd = fd;
	s->idxino = st.st_ino;
	s->idxoff = st.st_size;
	buf_free(&b);
	if (!had) {
		flock(s->lockfd, LOCK_UN);
		s->locked = 0;
	}
}

int
store_check_journal(store_t *s, const char *journal)
{
	if (!s->locked)
		die(EX_SOFT_, "internal error: store_check_journal without the store lock");
	int fd = fs_open(s->dfd, journal, O_RDWR | O_APPEND, 0);
	if (fd < 0)
		return 0;
	int cut = repair_tail(s, fd, journal, 1);
	close(fd);
	return cut;
}

int
store_compact(store_t *s, const char *journal, int force)
{
	if (!s->locked)
		die(EX_SOFT_, "internal error: store_compact without the store lock");
	store_commit(s);
	if (!fs_exists(s->dfd, journal))
		return 0;
	int fd = journal_open_append(s, journal);   /* repairs a torn tail */
	close(fd);
	jmap_t m;
	buf_t data;
	if (journal_map(s, journal, NULL, &m, &data) < 0)
		return 0;
	size_t live = 0;
	for (size_t i = 0; i < m.n; i++) {
		char *p = data.p + m.v[i].off;
		live += (char *)memchr(p, '\n', data.p + data.len - p) - p + 1;
	}
	int rc = 0;
	const char *mins = getenv("ABX_COMPACT_MIN");
	size_t min = mins ? strtoul(mins, NULL, 10) : 65536;
	if (force ? live < data.len : data.len > 2 * live + min) {
		buf_t out = {0}, idx = {0};
		for (size_t i = 0; i < m.n; i++) {
			char *p = data.p + m.v[i].off;
			char *nl = memchr(p, '\n', data.p + data.len - p);
			int64_t noff = out.len;
			buf_add(&out, p, nl - p + 1);
			ient_t *e = index_slot(s, m.v[i].id, 0);
			if (e && e->live) {
				e->off = noff;
				index_line(s, &idx, e);
			}
		}
		fault_point("compact-before-rename");
		if (fs_replace(s->dfd, journal, out.p, out.len, s->durable) < 0)
			diesys(EX_IOERR_, "unable to compact %s/%s", s->dir, journal);
		fault_point("compact-after-rename");
		jstate(s, journal, 1)->end = out.len;
		state_line(&idx, journal, out.len);
		index_append(s, &idx);
		buf_free(&out);
		buf_free(&idx);
		rc = 1;
	}
	jmap_free(&m);
	buf_free(&data);
	return rc;
}
