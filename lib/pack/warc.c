/*
 * warc.c — see warc.h.
 *
 * The reader decompresses one gzip member at a time and never starts the
 * next member before the parser asks for its bytes, so "the record began
 * where a member began" and "the record ended where its member ended" are
 * plain tests of the reader's state (ob empty, member ended).
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>
#include <zlib.h>

#include "base/buf.h"
#include "base/err.h"
#include "pack/warc.h"

#define HDR_MAX (1 << 20)
#define PEEK_MAX 65536

typedef struct {
	int fd, gz, eof;
	z_stream z;
	unsigned char in[65536];
	int64_t in_base;          /* file offset of in[0] */
	size_t in_len;
	unsigned char ob[65536];  /* decompressed (or plain) bytes */
	size_t op, ol;            /* unread: ob[op..ol) */
	int ended;                /* the current member has ended (or none began) */
	int64_t pos;              /* plain: file offset of ob[ol] */
	/* re-encoding */
	int out;
	z_stream d;
	int64_t out_pos;
	unsigned char db[65536];
} rd_t;

/* Offset of the next byte inflate would read: a member's end once ended. */
static int64_t
rd_consumed(const rd_t *r)
{
	return r->gz ? r->in_base + (int64_t)(r->in_len - r->z.avail_in) : r->pos - (int64_t)(r->ol - r->op);
}

/* More bytes into ob (only once ob is used up).  newmember: may begin the
 * next gzip member.  1: bytes; 0: end of file (or of the member, when
 * !newmember); WARC_DAMAGED; WARC_IOERR. */
static int
rd_more(rd_t *r, int newmember)
{
	r->op = r->ol = 0;
	if (!r->gz) {
		ssize_t n;
		do
			n = read(r->fd, r->ob, sizeof r->ob);
		while (n < 0 && errno == EINTR);
		if (n < 0)
			return WARC_IOERR;
		r->ol = n;
		r->pos += n;
		return n > 0;
	}
	for (;;) {
		if (r->ended && !newmember)
			return 0;
		if (r->z.avail_in == 0) {
			if (r->eof)
				return r->ended ? 0 : WARC_DAMAGED;
			ssize_t n;
			do
				n = read(r->fd, r->in, sizeof r->in);
			while (n < 0 && errno == EINTR);
			if (n < 0)
				return WARC_IOERR;
			r->in_base += r->in_len;
			r->in_len = n;
			r->z.next_in = r->in;
			r->z.avail_in = n;
			if (n == 0)
				r->eof = 1;
			continue;
		}
		if (r->ended) {
			if (inflateReset(&r->z) != Z_OK)
				return WARC_DAMAGED;
			r->ended = 0;
		}
		r->z.next_out = r->ob;
		r->z.avail_out = sizeof r->ob;
		int rc = inflate(&r->z, Z_NO_FLUSH);
		r->ol = sizeof r->ob - r->z.avail_out;
		if (rc == Z_STREAM_END)
			r->ended = 1;
		else if (rc != Z_OK && !(rc == Z_BUF_ERROR && r->z.avail_in == 0))
			return WARC_DAMAGED;
		if (r->ol)
			return 1;
	}
}

static int
rd_getc(rd_t *r)
{
	if (r->op == r->ol) {
		int rc = rd_more(r, 1);
		if (rc <= 0)
			return rc == 0 ? WARC_DAMAGED : rc;
	}
	return r->ob[r->op++];
}

/* Re-encoding: bytes of the current record into its gzip member. */
static int
emit(rd_t *r, const void *p, size_t n, int finish)
{
	if (r->out < 0)
		return 0;
	r->d.next_in = (unsigned char *)p;
	r->d.avail_in = n;
	for (;;) {
		r->d.next_out = r->db;
		r->d.avail_out = sizeof r->db;
		int rc = deflate(&r->d, finish ? Z_FINISH : Z_NO_FLUSH);
		size_t k = sizeof r->db - r->d.avail_out;
		for (size_t w = 0; w < k;) {
			ssize_t m = write(r->out, r->db + w, k - w);
			if (m < 0 && errno == EINTR)
				continue;
			if (m < 0)
				return WARC_IOERR;
			w += m;
		}
		r->out_pos += k;
		if (finish ? rc == Z_STREAM_END : r->d.avail_in == 0 && r->d.avail_out != 0)
			return 0;
		if (rc != Z_OK && rc != Z_BUF_ERROR)
			return WARC_IOERR;
	}
}

/* The value of header name in a block of "Name: value\r\n" lines, cut at
 * its line end and copied into v; 0 found, -1 not. */
static int
header(const char *blk, const char *name, char *v, size_t vn)
{
	size_t nl = strlen(name);
	for (const char *l = blk; l && *l; l = strstr(l, "\r\n"), l = l ? l + 2 : NULL) {
		if (strncasecmp(l, name, nl) || l[nl] != ':')
			continue;
		const char *p = l + nl + 1, *e = strstr(p, "\r\n");
		if (!e)
			e = p + strlen(p);
		while (p < e && (*p == ' ' || *p == '\t'))
			p++;
		while (e > p && (e[-1] == ' ' || e[-1] == '\t'))
			e--;
		size_t k = (size_t)(e - p) < vn - 1 ? (size_t)(e - p) : vn - 1;
		memcpy(v, p, k);
		v[k] = 0;
		return 0;
	}
	return -1;
}

/* A media type without its parameters, lowercased, in place. */
static void
bare_mime(char *m)
{
	char *semi = strchr(m, ';');
	if (semi)
		*semi = 0;
	for (char *p = m + strlen(m); p > m && (p[-1] == ' ' || p[-1] == '\t');)
		*--p = 0;
	for (; *m; m++)
		*m = tolower((unsigned char)*m);
}

/* Status and Content-Type of the HTTP message at the start of a body. */
static void
http_head(buf_t *peek, int *status, char *mime, size_t mn)
{
	char *p = buf_cstr(peek);
	*status = 0;
	if (strncmp(p, "HTTP/", 5) == 0) {
		const char *sp = strchr(p, ' ');
		if (sp)
			*status = atoi(sp + 1);
	}
	char *end = strstr(p, "\r\n\r\n");
	if (end)
		end[2] = 0;
	char *first = strstr(p, "\r\n");
	mime[0] = 0;
	if (first && header(first + 2, "Content-Type", mime, mn) == 0)
		bare_mime(mime);
}

/* One record; 1 read, 0 clean end of file, else a WARC_ code. */
static int
read_record(rd_t *r, warc_rec_fn fn, void *arg, int *stop, buf_t *hdr, buf_t *peek)
{
	if (r->op == r->ol) {
		int rc = rd_more(r, 1);
		if (rc <= 0)
			return rc;
	}
	int64_t off;
	if (r->out >= 0) {
		off = r->out_pos;
		deflateReset(&r->d);
	} else {
		/* the record must begin its member: nothing of it read before */
		if (!r->gz || r->op != 0 || r->z.total_out != r->ol)
			return WARC_NOTALIGNED;
		off = r->in_base + (int64_t)(r->in_len - r->z.avail_in) - (int64_t)r->z.total_in;
	}
	buf_reset(hdr);
	buf_reset(peek);
	while (hdr->len < 4 || memcmp(hdr->p + hdr->len - 4, "\r\n\r\n", 4)) {
		int c = rd_getc(r);
		if (c < 0)
			return c;
		buf_addc(hdr, (char)c);
		if (hdr->len > HDR_MAX || (hdr->len == 5 && memcmp(hdr->p, "WARC/", 5)))
			return WARC_DAMAGED;
	}
	int rc = emit(r, hdr->p, hdr->len, 0);
	if (rc)
		return rc;
	buf_cstr(hdr);
	char clen[32], type[64], uri[8192], date[64], digest[256], ctype[256];
	if (header(hdr->p, "Content-Length", clen, sizeof clen) < 0)
		return WARC_DAMAGED;
	char *e;
	errno = 0;
	long long left = strtoll(clen, &e, 10);
	if (e == clen || *e || left < 0 || errno)
		return WARC_DAMAGED;
	if (header(hdr->p, "WARC-Type", type, sizeof type) < 0)
		type[0] = 0;
	if (header(hdr->p, "WARC-Target-URI", uri, sizeof uri) < 0)
		uri[0] = 0;
	if (header(hdr->p, "WARC-Date", date, sizeof date) < 0)
		date[0] = 0;
	if (header(hdr->p, "WARC-Payload-Digest", digest, sizeof digest) < 0)
		digest[0] = 0;
	if (header(hdr->p, "Content-Type", ctype, sizeof ctype) < 0)
		ctype[0] = 0;
	while (left > 0) {
		if (r->op == r->ol) {
			rc = rd_more(r, 1);
			if (rc <= 0)
				return rc == 0 ? WARC_DAMAGED : rc;
		}
		size_t k = r->ol - r->op < (unsigned long long)left ? r->ol - r->op : (size_t)left;
		if (peek->len < PEEK_MAX)
			buf_add(peek, r->ob + r->op, k < PEEK_MAX - peek->len ? k : PEEK_MAX - peek->len);
		if ((rc = emit(r, r->ob + r->op, k, 0)))
			return rc;
		r->op += k;
		left -= k;
	}
	char trailer[4];
	for (int i = 0; i < 4; i++) {
		int c = rd_getc(r);
		if (c < 0)
			return c;
		trailer[i] = (char)c;
	}
	if (memcmp(trailer, "\r\n\r\n", 4))
		return WARC_DAMAGED;
	int64_t len;
	if (r->out >= 0) {
		if ((rc = emit(r, "\r\n\r\n", 4, 1)))
			return rc;
		len = r->out_pos - off;
	} else {
		/* ... and end with it */
		if (r->op == r->ol && !r->ended && (rc = rd_more(r, 0)) < 0)
			return rc;
		if (r->op != r->ol || !r->ended)
			return WARC_NOTALIGNED;
		len = rd_consumed(r) - off;
	}
	/* <uri>: wget writes WARC/1.0's grammar literally */
	char *u = uri;
	size_t ul = strlen(u);
	if (ul >= 2 && u[0] == '<' && u[ul - 1] == '>') {
		u[ul - 1] = 0;
		u++;
	}
	char mime[256];
	int status = 0;
	snprintf(mime, sizeof mime, "%s", ctype);
	bare_mime(mime);
	if ((!strcmp(type, "response") || !strcmp(type, "revisit")) &&
	    strncasecmp(ctype, "application/http", 16) == 0) {
		http_head(peek, &status, mime, sizeof mime);
		if (!strcmp(type, "revisit"))
			snprintf(mime, sizeof mime, "warc/revisit");
	}
	warc_rec_t w = {off, len, type, u, date, digest, mime, status};
	*stop = fn(&w, arg);
	return 1;
}

int
warc_scan(int fd, int out, warc_rec_fn fn, void *arg, int64_t *good_end)
{
	rd_t *r = xcalloc(1, sizeof *r);
	r->fd = fd;
	r->out = out;
	r->ended = 1;
	unsigned char magic[2];
	ssize_t n = pread(fd, magic, 2, 0);
	int rc = WARC_OK;
	if (n < 0) {
		free(r);
		return WARC_IOERR;
	}
	r->gz = n == 2 && magic[0] == 0x1f && magic[1] == 0x8b;
	/* with constant arguments, zlib fails to set a stream up only for want
	 * of memory: an I/O error to the caller, who fails the pack */
	if (r->gz && inflateInit2(&r->z, 15 + 16) != Z_OK) {
		free(r);
		errno = ENOMEM;
		return WARC_IOERR;
	}
	if (out >= 0 && deflateInit2(&r->d, 6, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK) {
		if (r->gz)
			inflateEnd(&r->z);
		free(r);
		errno = ENOMEM;
		return WARC_IOERR;
	}
	if (lseek(fd, 0, SEEK_SET) < 0)
		rc = WARC_IOERR;
	buf_t hdr = {0}, peek = {0};
	int64_t good = 0;
	while (rc == WARC_OK) {
		int stop = 0;
		int k = read_record(r, fn, arg, &stop, &hdr, &peek);
		if (k == 0)
			break;
		if (k < 0) {
			rc = k;
			break;
		}
		good = out >= 0 ? r->out_pos : rd_consumed(r);
		if (stop) {
			rc = stop;
			break;
		}
	}
	if (rc == WARC_DAMAGED && out >= 0 && ftruncate(out, good) < 0)
		rc = WARC_IOERR;
	if (good_end)
		*good_end = good;
	buf_free(&hdr);
	buf_free(&peek);
	if (r->gz)
		inflateEnd(&r->z);
	if (out >= 0)
		deflateEnd(&r->d);
	int e = errno;
	free(r);
	errno = e;
	return rc;
}
