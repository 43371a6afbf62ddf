/* Unit tests of lib/pack/wacz_sha256 (FIPS 180-4 vectors), wacz_surt (pywb's
 * SURT keys) and warc_scan (per-record gzip kept, others re-encoded). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#include "base/buf.h"
#include "tap.h"
#include "pack/wacz.h"
#include "pack/wacz_sha256.h"
#include "pack/warc.h"

static const char *
sha(const char *s, size_t n, size_t step)
{
	static char hex[65];
	sha256_t c;
	sha256_init(&c);
	for (size_t i = 0; i < n; i += step)
		sha256_add(&c, s + i, n - i < step ? n - i : step);
	sha256_hex(&c, hex);
	return hex;
}

static const char *
surt(const char *url)
{
	static buf_t b;
	buf_reset(&b);
	wacz_surt(url, &b);
	return buf_cstr(&b);
}

static const char rec1[] =
    "WARC/1.0\r\nWARC-Type: response\r\nWARC-Target-URI: <http://a.example/x>\r\n"
    "WARC-Date: 2026-12-01T05:32:55Z\r\nContent-Type: application/http;msgtype=response\r\n"
    "Content-Length: 64\r\n\r\n"
    "HTTP/1.1 404 Not Found\r\nContent-Type: Text/HTML; charset=x\r\n\r\nhi\r\n\r\n";
static const char rec2[] =
    "WARC/1.0\r\nWARC-Type: request\r\nWARC-Target-URI: http://a.example/x\r\n"
    "WARC-Date: 2026-12-01T05:32:56Z\r\nContent-Length: 3\r\n\r\nGET\r\n\r\n";

typedef struct {
	int n;
	char line[2][200];
} seen_t;

static int
on_rec(const warc_rec_t *r, void *arg)
{
	seen_t *s = arg;
	if (s->n < 2)
		snprintf(s->line[s->n], sizeof s->line[0], "%s %s %s %s %d %lld+%lld", r->type, r->uri,
		    r->date, r->mime, r->status, (long long)r->off, (long long)r->len);
	s->n++;
	return 0;
}

static void
gz_member(FILE *f, const char *s, size_t n)
{
	z_stream z = {0};
	unsigned char out[4096];
	deflateInit2(&z, 6, Z_DEFLATED, 31, 8, Z_DEFAULT_STRATEGY);
	z.next_in = (unsigned char *)s;
	z.avail_in = n;
	z.next_out = out;
	z.avail_out = sizeof out;
	deflate(&z, Z_FINISH);
	fwrite(out, 1, sizeof out - z.avail_out, f);
	deflateEnd(&z);
}

static int
tmpfd(void)
{
	char path[] = "/tmp/abx-unit-warc.XXXXXX";
	int fd = mkstemp(path);
	if (fd >= 0)
		unlink(path);
	return fd;
}

int
main(void)
{
	plan(20);
	is_str(sha("", 0, 1), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855", "sha256 of nothing");
	is_str(sha("abc", 3, 1), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad", "sha256 of abc");
	const char *m = "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq";
	is_str(sha(m, strlen(m), 7), "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1",
	    "sha256 of the 56-byte vector, added 7 bytes at a time");
	char *a = malloc(1000000);
	memset(a, 'a', 1000000);
	is_str(sha(a, 1000000, 4099), "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0",
	    "sha256 of a million a's");
	free(a);

	is_str(surt("http://www.Example.com/Path?b=2&a=1#frag"), "com,example)/path?a=1&b=2",
	    "SURT: www dropped, host reversed, lowercased, query sorted, fragment dropped");
	is_str(surt("https://127.0.0.1:8443/"), "1,0,0,127:8443)/", "SURT: a port that is not the default stays");
	is_str(surt("http://example.com:80"), "com,example)/", "SURT: the default port goes, an empty path is /");
	is_str(surt("https://user:pw@a.b.example.org:443/x"), "org,example,b,a)/x", "SURT: user info goes");

	/* a per-record gzip WARC is used as it is; its members are the records */
	int fd = tmpfd();
	FILE *f = fdopen(dup(fd), "w");
	gz_member(f, rec1, sizeof rec1 - 1);
	long m1 = ftell(f);
	gz_member(f, rec2, sizeof rec2 - 1);
	long m2 = ftell(f);
	fclose(f);
	seen_t s = {0};
	ok(warc_scan(fd, -1, on_rec, &s, NULL) == WARC_OK && s.n == 2, "a per-record gzip WARC scans in place");
	char want[200];
	snprintf(want, sizeof want, "response http://a.example/x 2026-12-01T05:32:55Z text/html 404 0+%ld", m1);
	is_str(s.line[0], want, "the response: its URI without <>, HTTP status and bare mime, its member");
	snprintf(want, sizeof want, "request http://a.example/x 2026-12-01T05:32:56Z  0 %ld+%ld", m1, m2 - m1);
	is_str(s.line[1], want, "the request: the second member");

	/* plain: not aligned; re-encoded, one member per record */
	int pfd = tmpfd();
	ok(write(pfd, rec1, sizeof rec1 - 1) > 0 && write(pfd, rec2, sizeof rec2 - 1) > 0, "a plain WARC");
	memset(&s, 0, sizeof s);
	ok(warc_scan(pfd, -1, on_rec, &s, NULL) == WARC_NOTALIGNED, "is not usable in place");
	int out = tmpfd();
	memset(&s, 0, sizeof s);
	int64_t good = -1;
	ok(warc_scan(pfd, out, on_rec, &s, &good) == WARC_OK && s.n == 2, "re-encoding reads both records");
	off_t end = lseek(out, 0, SEEK_END);
	ok(good == end, "and writes them all (%lld bytes)", (long long)end);
	seen_t s2 = {0};
	ok(warc_scan(out, -1, on_rec, &s2, NULL) == WARC_OK && s2.n == 2 && !strcmp(s.line[1], s2.line[1]),
	    "the result is per-record gzip, at the offsets reported");

	/* cut short: the whole records are kept */
	ok(ftruncate(pfd, sizeof rec1 - 1 + 20) == 0, "a WARC cut inside its second record");
	ok(ftruncate(out, 0) == 0 && lseek(out, 0, SEEK_SET) == 0, "(output emptied)");
	memset(&s, 0, sizeof s);
	ok(warc_scan(pfd, out, on_rec, &s, &good) == WARC_DAMAGED && s.n == 1, "is damaged after one record");
	ok(good == lseek(out, 0, SEEK_END) && good > 0, "and the output holds just that record");
	close(fd), close(pfd), close(out);
	return done();
}
