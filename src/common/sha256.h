/* SPDX-License-Identifier: Apache-2.0 */
/* SHA-256 (FIPS 180-4): the strong hash of the PTX JIT's cache keys and
 * entry checksums (src/ptx/jit_cache.c). */
#ifndef TD_SHA256_H
#define TD_SHA256_H

#include <stddef.h>
#include <stdint.h>

struct sha256 {
    uint32_t h[8];
    uint64_t len;                /* bytes hashed */
    unsigned char buf[64];
    size_t nbuf;
};

void sha256_init(struct sha256 *s);
void sha256_update(struct sha256 *s, const void *p, size_t n);
void sha256_final(struct sha256 *s, unsigned char out[32]);
/* the digest of p[0, n) */
void sha256(const void *p, size_t n, unsigned char out[32]);

#endif
