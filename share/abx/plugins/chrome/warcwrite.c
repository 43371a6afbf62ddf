/*
 * warcwrite.c — WARC/1.1 records (ISO 28500) for the chrome hook (chrome.c
 * includes it), and the base64 decoding that CDP's bodies, screenshots and
 * PDFs need.
 *
 * b64_decode(S, N, OUT): the bytes of base64 text S (RFC 4648, "=" padding
 * optional, white space skipped) appended to OUT; -1 at a character that
 * is not base64.
 *
 * warc_record(FD, TYPE, URI, DATE, ID, CONCURRENT, CTYPE, HEAD, BODY):
 * one record appended to FD as one gzip member of its own (as wget and
 * warcio write them: lib/pack/warc.c and a WACZ index them in place).  Its
 * block is HEAD then BODY (either may be NULL); the fields:
 *   WARC-Type: TYPE
 *   WARC-Record-ID: <ID>            (urn:uuid:..., warc_uuid)
 *   WARC-Date: DATE                 (2026-12-02T00:00:00Z)
 *   WARC-Target-URI: URI            (if not NULL)
 *   WARC-Concurrent-To: <CONCURRENT>   (if not NULL)
 *   Content-Type: CTYPE
 *   WARC-Block-Digest: sha256:<hex of the block>
 *   WARC-Payload-Digest: sha256:<hex of BODY>   (if HEAD is not NULL: an
 *                                                HTTP message's payload)
 *   Content-Length: <block length>
 * then the block and CRLF CRLF.  0, or -1 (errno).
 *
 * warc_uuid(OUT): a random version 4 UUID as "urn:uuid:xxxxxxxx-...".
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/random.h>
#include <unistd.h>
#include <zlib.h>

#include "base/buf.h"
#include "pack/wacz_sha256.h"

static int
b64_decode(const char *s, size_t n, buf_t *out)
{
	unsigned acc = 0;
	int bits = 0;
	for (size_t i = 0; i < n; i++) {
		unsigned char ch = s[i];
		int v;
		if (ch >= 'A' && ch <= 'Z')
			v = ch - 'A';
		else if (ch >= 'a' && ch <= 'z')
			v = ch - 'a' + 26;
		else if (ch >= '0' && ch <= '9')
			v = ch - '0' + 52;
		else if (ch == '+' || ch == '-')
			v = 62;
		else if (ch == '/' || ch == '_')
			v = 63;
		else if (ch == '=' || ch == ' ' || ch == '\n' || ch == '\r' || ch == '\t')
			continue;
		else
			return -1;
		acc = (acc << 6) | v;
		bits += 6;
		if (bits >= 8) {
			bits -= 8;
			buf_addc(out, (char)((acc >> bits) & 0xff));
		}
	}
	return 0;
}

static void
warc_uuid(char out[46])
{
	unsigned char b[16];
	if (getrandom(b, sizeof b, 0) != (ssize_t)sizeof b) {
		/* no entropy source: time and pid, still unique enough a run */
		uint64_t t = (uint64_t)clock_mono() ^ ((uint64_t)getpid() << 40);
		static uint64_t k;
		t += ++k;
		memcpy(b, &t, 8);
		memcpy(b + 8, &k, 8);
	}
	b[6] = (b[6] & 0x0f) | 0x40;
	b[8] = (b[8] & 0x3f) | 0x80;
	snprintf(out, 46, "urn:uuid:%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x",
	    b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11], b[12], b[13],
	    b[14], b[15]);
}

/* The n bytes at p, gzip-compressed into one member, appended to fd. */
static int
gz_member(int fd, const void *p, size_t n)
{
	z_stream z;
	memset(&z, 0, sizeof z);
	if (deflateInit2(&z, 6, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK) {
		errno = ENOMEM;
		return -1;
	}
	unsigned char out[65536];
	z.next_in = (unsigned char *)p;
	int rc = 0, zr;
	do {
		size_t chunk = n > (1u << 30) ? (1u << 30) : n;
		z.avail_in = chunk;
		n -= chunk;
		do {
			z.next_out = out;
			z.avail_out = sizeof out;
			zr = deflate(&z, n ? Z_NO_FLUSH : Z_FINISH);
			size_t have = sizeof out - z.avail_out;
			for (size_t off = 0; off < have;) {
				ssize_t w = write(fd, out + off, have - off);
				if (w < 0 && errno == EINTR)
					continue;
				if (w <= 0) {
					rc = -1;
					goto done;
				}
				off += w;
			}
		} while (z.avail_out == 0);
	} while (n);
	if (zr != Z_STREAM_END) {
		errno = EIO;
		rc = -1;
	}
done:
	deflateEnd(&z);
	return rc;
}

static int
warc_record(int fd, const char *type, const char *uri, const char *date, const char *id,
    const char *concurrent, const char *ctype, const buf_t *head, const buf_t *body)
{
	char hex[65];
	sha256_t h;
	buf_t r = {0};
	size_t hl = head ? head->len : 0, bl = body ? body->len : 0;
	buf_addf(&r, "WARC/1.1\r\nWARC-Type: %s\r\nWARC-Record-ID: <%s>\r\nWARC-Date: %s\r\n", type,
	    id, date);
	if (uri)
		buf_addf(&r, "WARC-Target-URI: %s\r\n", uri);
	if (concurrent)
		buf_addf(&r, "WARC-Concurrent-To: <%s>\r\n", concurrent);
	buf_addf(&r, "Content-Type: %s\r\n", ctype);
	sha256_init(&h);
	if (hl)
		sha256_add(&h, head->p, hl);
	if (bl)
		sha256_add(&h, body->p, bl);
	sha256_hex(&h, hex);
	buf_addf(&r, "WARC-Block-Digest: sha256:%s\r\n", hex);
	if (head) {
		sha256_init(&h);
		if (bl)
			sha256_add(&h, body->p, bl);
		sha256_hex(&h, hex);
		buf_addf(&r, "WARC-Payload-Digest: sha256:%s\r\n", hex);
	}
	buf_addf(&r, "Content-Length: %zu\r\n\r\n", hl + bl);
	if (hl)
		buf_add(&r, head->p, hl);
	if (bl)
		buf_add(&r, body->p, bl);
	buf_adds(&r, "\r\n\r\n");
	int rc = gz_member(fd, r.p, r.len);
	buf_free(&r);
	return rc;
}
