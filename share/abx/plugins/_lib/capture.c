/*
 * capture.c — what the snapshot already captured of its page, for the
 * hooks that derive from it (title, headers, favicon): they read the
 * capture instead of asking the site again (issue "Capture once").
 * Included by their <plugin>.c (one translation unit each, as chrome.c
 * includes its siblings); the Makefile rebuilds them when it changes.
 *
 * The capture is a WARC written in this run, in per-record gzip (one
 * member a record, as lib/pack/warc.h reads it):
 *   1. the chrome hook's ../chrome/capture.warc.gz, when ../chrome/.run
 *      holds our $ABX_RUN (the files of an earlier run, or of a load that
 *      failed, are never taken; derived.c says the same);
 *   2. else the wget hook's newest ../wget/warc/<time>.warc.gz (by name:
 *      wget names it by the Unix time it started), if that time is not
 *      before this run's (the time in the UUIDv7 of $ABX_RUN), once the
 *      wget hook has let go of its flock on ../wget (hook_wait_dir: it
 *      holds an exclusive one while it runs).  abx-hook runs a foreground hook numbered 50 or
 *      more after the finite .bg. hooks below 50 (phase.h): by then the
 *      wait is none.
 * Without $ABX_RUN (a hook run by hand) there is no capture.  Every file
 * is opened without following a symlink (fs_open).
 *
 * cap_page(URL, WAIT, P): the page's response in the capture.  Its chain
 * starts at the response record whose WARC-Target-URI is URL (both as
 * url_canon has them), else at the first response record of the file (the
 * first thing either fetcher asked for is the page); a 3xx with a Location
 * is followed to the response for that URL (at most 10 hops), as curl
 * --location would.  A chain that ends in a hop (its target not in the
 * capture) or in the egress gate's refusal (an http response with
 * X-Abx-Gate, lib/net/gateconn.c: not the site's answer; an https one is
 * the site's, hookcurl.h hook_gate_answer) is no capture of the page:
 * the caller's own fetch then meets the gate, and its notes say why.
 * P gets the source ("chrome" or "wget"), the WARC's path (below the
 * snapshot's directory), the final URL, its status, its head (status line
 * and headers, as received) and its body, decoded: chunked
 * transfer-coding undone, gzip or deflate content-coding inflated
 * (chrome's bodies are decoded already).
 * WAIT is the budget, in seconds, for the wait on wget's flock.  0, or -1:
 * nothing was captured (the caller fetches as before, through the gate).
 *
 * cap_response(P, URL, BODY, CTYPE, N): the response for URL (a
 * requisite, such as an icon) in the chrome WARC of this run, else in
 * wget's.  0: a 2xx with a non-empty body, which BODY gets, CTYPE its
 * Content-Type (N bytes); 1: the capture asked, and the site answered
 * otherwise (a 404: there is nothing to fetch); -1: not in the capture.
 *
 * cap_header(HEAD, NAME, OUT, N): the value of the header NAME (any case)
 * in HEAD, into OUT; 0, or -1 if there is none.
 *
 * cap_chrome_run(): 1 if ../chrome/.run holds $ABX_RUN.
 *
 * cap_file(REL, B): the file REL of the snapshot's directory (the cwd's
 * parent, e.g. "chrome/title.txt") into B, not through a symlink; 0, or -1.
 */
#include <dirent.h>
#include <strings.h>
#include <zlib.h>

#include "base/fs.h"
#include "hook/hookenv.h"
#include "net/url.h"
#include "pack/warc.h"

typedef struct {
	const char *src;    /* "chrome" or "wget" */
	char warc[4096];    /* the WARC it was read from */
	char *url;          /* the final response's URL */
	long status;
	buf_t head, body;
} cpage_t;

typedef struct {
	char *uri;          /* url_canon of WARC-Target-URI, else as given */
	int64_t off, len;
	int status;
} crec_t;

typedef struct {
	crec_t *r;
	size_t n;
} crecs_t;

/* The snapshot's directory, the cwd's parent (fs.h refuses ".." in a
 * path): opened once. */
static int
cap_snap(void)
{
	static int fd = -1;
	if (fd < 0)
		fd = open("..", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	return fd;
}

/* The file at rel (below the snapshot's directory) into b; 0, or -1. */
static int
cap_file(const char *rel, buf_t *b)
{
	return cap_snap() < 0 ? -1 : fs_read(cap_snap(), rel, b);
}

static void
cpage_free(cpage_t *p)
{
	free(p->url);
	buf_free(&p->head), buf_free(&p->body);
	memset(p, 0, sizeof *p);
}

static char *
cap_canon(const char *u)
{
	const char *why;
	char *c = url_canon(u, NULL, &why);
	return c ? c : xstrdup(u);
}

static int
cap_collect(const warc_rec_t *w, void *arg)
{
	crecs_t *cs = arg;
	if (strcmp(w->type, "response") || !*w->uri)
		return 0;
	cs->r = xrealloc(cs->r, (cs->n + 1) * sizeof *cs->r);
	cs->r[cs->n++] = (crec_t){cap_canon(w->uri), w->off, w->len, w->status};
	return 0;
}

static void
crecs_free(crecs_t *cs)
{
	for (size_t i = 0; i < cs->n; i++)
		free(cs->r[i].uri);
	free(cs->r);
	memset(cs, 0, sizeof *cs);
}

int
cap_chrome_run(void)
{
	const char *run = getenv("ABX_RUN");
	buf_t b = {0};
	int ok = run && *run && cap_file("chrome/.run", &b) == 0 && b.len == strlen(run) &&
	         !memcmp(b.p, run, b.len);
	buf_free(&b);
	return ok;
}

/* When this run began, in Unix seconds: the time in its id, a UUIDv7
 * (ABX_RUN is <item id>/<run id>, runmark.h); -1 if there is none. */
static long long
cap_run_start(void)
{
	const char *run = getenv("ABX_RUN"), *id = run ? strrchr(run, '/') : NULL;
	long long ms = 0;
	int k = 0;
	for (const char *p = id ? id + 1 : ""; *p && k < 12; p++) {
		if (*p == '-')
			continue;
		int d = *p >= '0' && *p <= '9' ? *p - '0' : *p >= 'a' && *p <= 'f' ? *p - 'a' + 10 : -1;
		if (d < 0)
			return -1;
		ms = ms * 16 + d, k++;
	}
	return k == 12 ? ms / 1000 : -1;
}

/* The newest wget/warc/<time>.warc.gz into out (below the snapshot's
 * directory), if wget wrote it in this run; 0, or -1. */
static int
wget_warc(char *out, size_t n)
{
	int dfd = cap_snap() < 0 ? -1 : fs_opendir(cap_snap(), "wget/warc");
	if (dfd < 0)
		return -1;
	DIR *d = fdopendir(dfd);
	if (!d) {
		close(dfd);
		return -1;
	}
	char best[256] = "";
	struct dirent *e;
	while ((e = readdir(d))) {
		size_t l = strlen(e->d_name);
		if (l < 9 || l >= sizeof best || e->d_name[0] == '.' || strcmp(e->d_name + l - 8, ".warc.gz"))
			continue;
		if (!best[0] || strlen(e->d_name) > strlen(best) ||
		    (strlen(e->d_name) == strlen(best) && strcmp(e->d_name, best) > 0))
			snprintf(best, sizeof best, "%s", e->d_name);
	}
	closedir(d);
	long long start = cap_run_start();
	if (!best[0] || start < 0 || atoll(best) < start)
		return -1;
	snprintf(out, n, "wget/warc/%s", best);
	return 0;
}

/* len bytes at in, inflated (zlib's window bits wbits) onto out; 0, or -1. */
static int
cap_inflate(const unsigned char *in, size_t len, int wbits, buf_t *out)
{
	z_stream z;
	memset(&z, 0, sizeof z);
	if (inflateInit2(&z, wbits) != Z_OK)
		return -1;
	z.next_in = (unsigned char *)in;
	z.avail_in = len;
	int rc;
	do {
		buf_grow(out, 65536);
		z.next_out = (unsigned char *)out->p + out->len;
		z.avail_out = 65536;
		rc = inflate(&z, Z_NO_FLUSH);
		out->len += 65536 - z.avail_out;
	} while (rc == Z_OK && (z.avail_in || !z.avail_out));
	inflateEnd(&z);
	return rc == Z_STREAM_END || rc == Z_OK ? 0 : -1;
}

/* The record at r of fd: its HTTP head and body into p; 0, or -1. */
static int
cap_read(int fd, const crec_t *r, cpage_t *p)
{
	if (r->len <= 0 || r->len > (64 << 20))
		return -1;
	unsigned char *z = xmalloc(r->len);
	buf_t rec = {0};
	int ok = pread(fd, z, r->len, r->off) == r->len && cap_inflate(z, r->len, 31, &rec) == 0;
	free(z);
	char *wend = ok ? memmem(rec.p, rec.len, "\r\n\r\n", 4) : NULL;
	char *blk = wend ? wend + 4 : NULL;
	size_t bl = blk ? rec.len - (blk - rec.p) : 0;
	if (bl >= 4 && !memcmp(blk + bl - 4, "\r\n\r\n", 4))
		bl -= 4;
	char *hend = blk ? memmem(blk, bl, "\r\n\r\n", 4) : NULL;
	if (!hend) {
		buf_free(&rec);
		return -1;
	}
	buf_reset(&p->head), buf_reset(&p->body);
	buf_add(&p->head, blk, hend + 2 - blk);
	buf_add(&p->body, hend + 4, bl - (hend + 4 - blk));
	buf_free(&rec);
	p->status = r->status;
	return 0;
}

int
cap_header(const buf_t *head, const char *name, char *out, size_t n)
{
	size_t nl = strlen(name);
	const char *p = head->p ? head->p : "", *end = p + head->len;
	while (p < end) {
		const char *e = memchr(p, '\n', end - p);
		size_t l = e ? (size_t)(e - p) : (size_t)(end - p);
		if (l > nl && p[nl] == ':' && !strncasecmp(p, name, nl)) {
			const char *v = p + nl + 1, *ve = p + l;
			while (v < ve && (*v == ' ' || *v == '\t'))
				v++;
			while (ve > v && (ve[-1] == '\r' || ve[-1] == ' ' || ve[-1] == '\t'))
				ve--;
			snprintf(out, n, "%.*s", (int)(ve - v), v);
			return 0;
		}
		p += l + 1;
	}
	return -1;
}

/* The body as sent: chunks joined, gzip or deflate inflated. */
static void
cap_decode(cpage_t *p)
{
	char v[256];
	if (cap_header(&p->head, "transfer-encoding", v, sizeof v) == 0 && strcasestr(v, "chunked")) {
		buf_t o = {0};
		const char *s = p->body.p ? p->body.p : "", *end = s + p->body.len;
		while (s < end) {
			char *e;
			unsigned long k = strtoul(s, &e, 16);
			const char *nl = memchr(s, '\n', end - s);
			if (!nl || e == s || k == 0 || k > (size_t)(end - nl - 1))
				break;
			buf_add(&o, nl + 1, k);
			s = nl + 1 + k;
			if (s < end && *s == '\r')
				s++;
			if (s < end && *s == '\n')
				s++;
		}
		buf_free(&p->body);
		p->body = o;
	}
	if (cap_header(&p->head, "content-encoding", v, sizeof v) == 0 &&
	    (strcasestr(v, "gzip") || strcasestr(v, "deflate"))) {
		buf_t o = {0};
		if (cap_inflate((unsigned char *)(p->body.p ? p->body.p : ""), p->body.len, 47, &o) == 0 &&
		    o.len) {
			buf_free(&p->body);
			p->body = o;
		} else {
			buf_free(&o);
		}
	}
	buf_cstr(&p->body);
}

/* The response records of the WARC at path; fd open on it, or -1. */
static int
cap_scan(const char *path, crecs_t *cs)
{
	int fd = cap_snap() < 0 ? -1 : fs_open(cap_snap(), path, O_RDONLY | O_CLOEXEC, 0);
	if (fd < 0)
		return -1;
	int rc = warc_scan(fd, -1, cap_collect, cs, NULL);
	if ((rc != WARC_OK && rc != WARC_DAMAGED) || !cs->n) {
		crecs_free(cs);
		close(fd);
		return -1;
	}
	return fd;
}

/* The page's chain in the WARC at path, into p; 0, or -1. */
static int
cap_chain(const char *path, const char *url, cpage_t *p)
{
	crecs_t cs = {0};
	int fd = cap_scan(path, &cs);
	if (fd < 0)
		return -1;
	char *want = cap_canon(url);
	const crec_t *r = &cs.r[0];
	for (size_t i = 0; i < cs.n; i++)
		if (!strcmp(cs.r[i].uri, want)) {
			r = &cs.r[i];
			break;
		}
	free(want);
	int rc = -1;
	for (int hop = 0; hop <= 10 && r; hop++) {
		rc = -1;
		if (cap_read(fd, r, p) < 0)
			break;
		free(p->url);
		p->url = xstrdup(r->uri);
		char loc[4096];
		/* the egress gate's refusal, not the site's answer; only an http
		 * one (the gate drops a site's X-Abx-Gate from what it relays;
		 * an https answer came through a tunnel it does not read) */
		if (strncasecmp(r->uri, "https:", 6) != 0 && cap_header(&p->head, "x-abx-gate", loc, sizeof loc) == 0)
			break;
		if (r->status < 300 || r->status > 399 ||
		    cap_header(&p->head, "location", loc, sizeof loc) < 0) {
			rc = 0;   /* the page, not a hop */
			break;
		}
		const char *why;
		char *next = url_canon(loc, r->uri, &why);
		r = NULL;
		for (size_t i = 0; next && i < cs.n; i++)
			if (!strcmp(cs.r[i].uri, next))
				r = &cs.r[i];
		free(next);
	}
	close(fd);
	crecs_free(&cs);
	if (rc == 0)
		cap_decode(p);
	return rc;
}

int
cap_page(const char *url, double wait, cpage_t *p)
{
	memset(p, 0, sizeof *p);
	if (cap_chrome_run() && cap_chain("chrome/capture.warc.gz", url, p) == 0) {
		p->src = "chrome";
		snprintf(p->warc, sizeof p->warc, "chrome/capture.warc.gz");
		return 0;
	}
	cpage_free(p);
	char w[4096];
	if (hook_wait_dir("../wget", &wait) >= 0 && wget_warc(w, sizeof w) == 0 &&
	    cap_chain(w, url, p) == 0) {
		p->src = "wget";
		snprintf(p->warc, sizeof p->warc, "%s", w);
		return 0;
	}
	cpage_free(p);
	return -1;
}

/* The response for url in the WARC at path: 0, a 2xx with a body (into
 * body and ctype); 1, an answer of another kind; -1, none. */
static int
cap_response_in(const char *path, const char *url, buf_t *body, char *ctype, size_t n)
{
	crecs_t cs = {0};
	int fd = cap_scan(path, &cs);
	if (fd < 0)
		return -1;
	char *want = cap_canon(url);
	int rc = -1;
	for (size_t i = 0; i < cs.n && rc != 0; i++) {
		if (strcmp(cs.r[i].uri, want))
			continue;
		rc = 1;
		if (cs.r[i].status < 200 || cs.r[i].status > 299)
			continue;
		cpage_t q = {0};
		if (cap_read(fd, &cs.r[i], &q) == 0) {
			cap_decode(&q);
			if (q.body.len) {
				buf_reset(body);
				buf_add(body, q.body.p, q.body.len);
				if (cap_header(&q.head, "content-type", ctype, n) < 0)
					ctype[0] = 0;
				rc = 0;
			}
		}
		cpage_free(&q);
	}
	free(want);
	close(fd);
	crecs_free(&cs);
	return rc;
}

int
cap_response(const cpage_t *p, const char *url, buf_t *body, char *ctype, size_t n)
{
	char w[4096];
	int a = cap_chrome_run() ? cap_response_in("chrome/capture.warc.gz", url, body, ctype, n) : -1;
	int b = a != 0 && wget_warc(w, sizeof w) == 0 ? cap_response_in(w, url, body, ctype, n) : -1;
	return a == 0 || b == 0 ? 0 : a == 1 || b == 1 ? 1 : -1;
}
