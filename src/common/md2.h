/* SPDX-License-Identifier: Apache-2.0 */
/* MD2 (RFC 1319) and HMAC-MD2 (RFC 2104): the digest the CUDA runtime's
 * integrity check asks the driver for (docs: cudart-private-interface §4).
 * Pure functions, no state, no allocation. */
#ifndef TD_MD2_H
#define TD_MD2_H

#include <stddef.h>

#define TD_MD2_BLOCK  16
#define TD_MD2_DIGEST 16

/* out = MD2(msg[0..len)). */
void td_md2(const void *msg, size_t len, unsigned char out[16]);
/* out = HMAC-MD2(key, msg): RFC 2104 with MD2's 16-byte block; a key longer
 * than the block is first hashed. */
void td_hmac_md2(const void *key, size_t keylen, const void *msg, size_t len,
                 unsigned char out[16]);

#endif
