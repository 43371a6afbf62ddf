/*
 * wacz_sha256.h — SHA-256 (FIPS 180-4), for the fixity hashes of a WACZ
 * (datapackage.json "hash": "sha256:<hex>").
 *
 *     sha256_t h;
 *     sha256_init(&h);
 *     sha256_add(&h, data, n);          (any number of times)
 *     sha256_hex(&h, hex);              (65 bytes: 64 hex digits and NUL)
 */
#ifndef ABX_WACZ_SHA256_H
#define ABX_WACZ_SHA256_H

#include <stddef.h>
#include <stdint.h>

typedef struct {
	uint32_t h[8];
	uint64_t len;          /* bytes added */
	unsigned char blk[64];
	size_t nblk;           /* bytes in blk */
} sha256_t;

void sha256_init(sha256_t *c);
void sha256_add(sha256_t *c, const void *data, size_t n);
void sha256_hex(sha256_t *c, char hex[65]);

#endif
