/* SPDX-License-Identifier: Apache-2.0 */
/* MD2 as RFC 1319 describes it, and HMAC over it as RFC 2104 does. */
#include "md2.h"

#include <string.h>

/* RFC 1319 §3.2: a permutation of 0..255 built from the digits of pi. */
static const unsigned char md2_pi[256] = {
    41, 46, 67, 201, 162, 216, 124, 1, 61, 54, 84, 161, 236, 240, 6, 19,
    98, 167, 5, 243, 192, 199, 115, 140, 152, 147, 43, 217, 188, 76, 130, 202,
    30, 155, 87, 60, 253, 212, 224, 22, 103, 66, 111, 24, 138, 23, 229, 18,
    190, 78, 196, 214, 218, 158, 222, 73, 160, 251, 245, 142, 187, 47, 238, 122,
    169, 104, 121, 145, 21, 178, 7, 63, 148, 194, 16, 137, 11, 34, 95, 33,
    128, 127, 93, 154, 90, 144, 50, 39, 53, 62, 204, 231, 191, 247, 151, 3,
    255, 25, 48, 179, 72, 165, 181, 209, 215, 94, 146, 42, 172, 86, 170, 198,
    79, 184, 56, 210, 150, 164, 125, 182, 118, 252, 107, 226, 156, 116, 4, 241,
    69, 157, 112, 89, 100, 113, 135, 32, 134, 91, 207, 101, 230, 45, 168, 2,
    27, 96, 37, 173, 174, 176, 185, 246, 28, 70, 97, 105, 52, 64, 126, 15,
    85, 71, 163, 35, 221, 81, 175, 58, 195, 92, 249, 206, 186, 197, 234, 38,
    44, 83, 13, 110, 133, 40, 132, 9, 211, 223, 205, 244, 65, 129, 77, 82,
    106, 220, 55, 200, 108, 193, 171, 250, 36, 225, 123, 8, 12, 189, 177, 74,
    120, 136, 149, 139, 227, 99, 232, 109, 233, 203, 213, 254, 59, 0, 29, 57,
    242, 239, 183, 14, 102, 88, 208, 228, 166, 119, 114, 248, 235, 117, 75, 10,
    49, 68, 80, 180, 143, 237, 31, 26, 219, 153, 141, 51, 159, 17, 131, 20,
};

struct md2_state {
    unsigned char x[48];       /* §3.4: the 48-byte buffer X */
    unsigned char c[16];       /* §3.2: the running checksum C */
    unsigned char l;           /* §3.2: L, the last checksum byte */
    unsigned char buf[16];     /* input not yet a whole block */
    size_t nbuf;
};

/* One 16-byte block into both the checksum (§3.2) and the digest (§3.4). */
static void md2_block(struct md2_state *s, const unsigned char *m)
{
    for (int j = 0; j < 16; j++) {
        s->c[j] ^= md2_pi[m[j] ^ s->l];
        s->l = s->c[j];
    }
    for (int j = 0; j < 16; j++) {
        s->x[16 + j] = m[j];
        s->x[32 + j] = (unsigned char)(s->x[16 + j] ^ s->x[j]);
    }
    unsigned t = 0;
    for (unsigned j = 0; j < 18; j++) {
        for (int k = 0; k < 48; k++) {
            s->x[k] ^= md2_pi[t];
            t = s->x[k];
        }
        t = (t + j) & 0xff;
    }
}

static void md2_init(struct md2_state *s)
{
    memset(s, 0, sizeof *s);
}

static void md2_update(struct md2_state *s, const unsigned char *p, size_t n)
{
    if (s->nbuf) {
        size_t take = 16 - s->nbuf < n ? 16 - s->nbuf : n;
        memcpy(s->buf + s->nbuf, p, take);
        s->nbuf += take;
        p += take;
        n -= take;
        if (s->nbuf < 16)
            return;
        md2_block(s, s->buf);
        s->nbuf = 0;
    }
    for (; n >= 16; p += 16, n -= 16)
        md2_block(s, p);
    if (n) {
        memcpy(s->buf, p, n);
        s->nbuf = n;
    }
}

static void md2_final(struct md2_state *s, unsigned char out[16])
{
    /* §3.1: pad with i bytes of value i, 1 <= i <= 16 (always some) */
    unsigned char pad = (unsigned char)(16 - s->nbuf);
    memset(s->buf + s->nbuf, pad, pad);
    md2_block(s, s->buf);
    /* §3.2: then the checksum as a last block */
    unsigned char c[16];
    memcpy(c, s->c, sizeof c);
    md2_block(s, c);
    memcpy(out, s->x, 16);
    memset(s, 0, sizeof *s);
}

void td_md2(const void *msg, size_t len, unsigned char out[16])
{
    struct md2_state s;
    md2_init(&s);
    md2_update(&s, msg, len);
    md2_final(&s, out);
}

void td_hmac_md2(const void *key, size_t keylen, const void *msg, size_t len,
                 unsigned char out[16])
{
    unsigned char k[TD_MD2_BLOCK] = {0}, pad[TD_MD2_BLOCK], inner[TD_MD2_DIGEST];
    struct md2_state s;

    if (keylen > TD_MD2_BLOCK)
        td_md2(key, keylen, k);
    else if (keylen)
        memcpy(k, key, keylen);

    for (int i = 0; i < TD_MD2_BLOCK; i++)
        pad[i] = (unsigned char)(k[i] ^ 0x36);
    md2_init(&s);
    md2_update(&s, pad, sizeof pad);
    md2_update(&s, msg, len);
    md2_final(&s, inner);

    for (int i = 0; i < TD_MD2_BLOCK; i++)
        pad[i] = (unsigned char)(k[i] ^ 0x5c);
    md2_init(&s);
    md2_update(&s, pad, sizeof pad);
    md2_update(&s, inner, sizeof inner);
    md2_final(&s, out);
}
