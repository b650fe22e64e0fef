/* sha256.h - SHA-256 (FIPS 180-4), for binding an answer to exactly what it
 * approves (the out-of-band approvals' digest). */
#ifndef PDK_SHA256_H
#define PDK_SHA256_H

#include <stddef.h>
#include <stdint.h>

struct pdk_sha256 {
	uint32_t h[8];
	uint64_t len;
	unsigned char buf[64];
	size_t fill;
};

void pdk_sha256_init(struct pdk_sha256 *s);
void pdk_sha256_add(struct pdk_sha256 *s, const void *p, size_t n);
/* The digest as 64 lowercase hex digits and a NUL. */
void pdk_sha256_hex(struct pdk_sha256 *s, char out[65]);

#endif
