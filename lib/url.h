/*
 * url.h — URLs as a browser resolves them: the WHATWG URL Standard's basic
 * URL parser and serializer (https://url.spec.whatwg.org/), and the URLs
 * abx archives.
 *
 * url_parse_any(input, base, out, why) is the standard's basic URL parser
 * (no state override, UTF-8 only) for every scheme: special ones (http,
 * https, ws, wss, ftp, file) with their hosts and paths, others with opaque
 * hosts and opaque paths.  Before parsing, leading and trailing C0 control
 * and space characters are stripped and every tab, LF and CR removed.  A
 * relative input is resolved against base (itself parsed first; a base that
 * does not parse fails the input).  The result is serialized as the
 * standard's href.  Hosts are parsed as the standard says:
 *   - "[...]" is an IPv6 address, serialized compressed in brackets
 *     ("[::ffff:7f00:1]": the first longest run of two or more zero pieces
 *     is "::", pieces in lower-case hex);
 *   - in a special scheme, the host is percent-decoded and mapped to ASCII
 *     by UTS #46 (nontransitional processing, CheckHyphens false,
 *     CheckBidi and CheckJoiners true, UseSTD3ASCIIRules and
 *     VerifyDnsLength false), through libidn2; a host that is ASCII and has
 *     no "xn--" label is only lower-cased, as the standard allows; a host
 *     with a forbidden domain code point fails;
 *   - a host whose last label is a number (decimal, 0x-hex, or 0-octal) is
 *     an IPv4 address in any of the forms inet_aton(3) takes ("2130706433",
 *     "0x7f.1", "127.1") and is serialized dotted-quad ("127.0.0.1"), or
 *     the URL fails if the numbers are out of range;
 *   - otherwise the host is an ASCII domain, lower case, punycode labels
 *     for non-ASCII ones ("xn--...").
 * A port equal to the scheme's default is dropped; one above 65535 fails.
 * Paths have "." and ".." segments removed ("%2e" counts as "."), and "\"
 * is "/" in special schemes.  Each part is percent-encoded with its own
 * set (userinfo, path, query — "'" too in special schemes — fragment);
 * existing "%XX" are kept as written.
 *
 * url_parse(input, base, out, why) is url_parse_any() restricted to the
 * URLs abx archives: the scheme must be http or https (file: URLs are
 * refused too: no plugin can fetch them), with a host that is not empty,
 * and the href at most 65535 bytes (ArchiveBox's limit).
 *
 * Both return 0 and fill out, or -1 with *why a short reason ("not a valid
 * port", "invalid host", "scheme mailto: is not archived ..."); out is then
 * zeroed and need not be freed.  url_free() releases a filled url_t.
 *
 * url_canon(input, base, why) is the form abx stores, compares and
 * deduplicates: url_parse()'s href without its fragment (a fragment names a
 * place in a page, not another page), malloc'd, or NULL with *why.  Two
 * URLs are one snapshot exactly when their url_canon() strings are equal:
 * "HTTP://Example.COM:80/a/../b#x" and "http://example.com/b" are one.
 *
 * url_registrable_domain(host, out, n) writes the registrable domain of a
 * canonical host (eTLD+1 by the Public Suffix List, through libpsl:
 * "www.example.co.uk" -> "example.co.uk") into out; returns 0, or -1 if the
 * host has none (an IP address, a public suffix itself, too long for out).
 *
 * url_check() and url_host() are the older interface, kept for callers
 * that have a URL in a string: url_check() trims surrounding whitespace in
 * place and returns NULL if url_parse() accepts the URL, else the reason
 * (it does not rewrite the URL: use url_canon() for the canonical form).
 * url_host() writes the host of a URL, with ":port" if the port is not the
 * default, into out ("" if it does not parse).
 */
#ifndef ABX_URL_H
#define ABX_URL_H

#include <stddef.h>
#include <stdint.h>

enum url_host_kind {
	URL_HOST_NONE,        /* no host (opaque path URLs, "non-special:/p") */
	URL_HOST_EMPTY,       /* the empty host ("file:///p") */
	URL_HOST_DOMAIN,      /* an ASCII domain */
	URL_HOST_IPV4,        /* ipv4 holds the address (host order) */
	URL_HOST_IPV6,        /* ipv6 holds the eight pieces */
	URL_HOST_OPAQUE,      /* a non-special scheme's percent-encoded host */
};

typedef struct {
	char *href;           /* the whole URL, serialized, fragment included */
	char *scheme;         /* lower case, without the ':' */
	char *username, *password;   /* "" when none */
	char *host;           /* serialized host, NULL when kind is NONE */
	enum url_host_kind host_kind;
	uint32_t ipv4;
	uint16_t ipv6[8];
	int port;             /* -1: none, or the scheme's default */
	char *path;           /* serialized path ("/a/b", or the opaque path) */
	char *query;          /* without the '?'; NULL when none */
	char *fragment;       /* without the '#'; NULL when none */
} url_t;

int url_parse_any(const char *input, const char *base, url_t *out, const char **why);
/* The same for an input of n bytes that may hold NUL bytes. */
int url_parse_anyn(const char *input, size_t n, const char *base, url_t *out, const char **why);
int url_parse(const char *input, const char *base, url_t *out, const char **why);
void url_free(url_t *u);
char *url_canon(const char *input, const char *base, const char **why);
int url_registrable_domain(const char *host, char *out, size_t n);

const char *url_check(char *url);
void url_host(const char *url, char *out, unsigned n);

#endif
