/*
 * sha256.h: SHA-256 (FIPS 180-4), for import's "manifest unchanged since its last import" check.
 *
 * Small and written here so that svccfg needs no crypto library; speed hardly matters (a
 * manifest is a few kilobytes).
 */
#ifndef SVCCFG_SHA256_H
#define SVCCFG_SHA256_H

#include <stddef.h>
#include <stdint.h>

#define SHA256_DIGEST_SIZE 32

typedef struct sha256_ctx {
	uint32_t h[8];
	uint64_t len; /* bytes hashed so far */
	uint8_t buf[64];
	size_t n; /* bytes waiting in buf */
} sha256_ctx_t;

void sha256_init(sha256_ctx_t *c);
void sha256_update(sha256_ctx_t *c, const void *data, size_t len);
void sha256_final(sha256_ctx_t *c, uint8_t out[SHA256_DIGEST_SIZE]);

/* The digest of one buffer. */
void sha256(const void *data, size_t len, uint8_t out[SHA256_DIGEST_SIZE]);

#endif
