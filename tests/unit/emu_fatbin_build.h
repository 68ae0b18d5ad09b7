/* SPDX-License-Identifier: Apache-2.0 */
/* Builds fatbinaries for the emulator's tests: a 16-byte header, then
 * entries (PTX = kind 1, ELF = kind 2), plain or zstd/LZ4-compressed, in
 * the layout docs/cudart-private-interface.md describes. Functions are
 * static: each test program includes this once. */
#ifndef TD_TEST_EMU_FATBIN_BUILD_H
#define TD_TEST_EMU_FATBIN_BUILD_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <lz4.h>
#include <zstd.h>

struct buf { unsigned char *p; size_t n, cap; };

static inline void put(struct buf *b, const void *d, size_t n)
{
    if (b->n + n > b->cap) {
        b->cap = (b->n + n) * 2 + 64;
        b->p = realloc(b->p, b->cap);
        assert_non_null(b->p);
    }
    if (d)
        memcpy(b->p + b->n, d, n);
    else
        memset(b->p + b->n, 0, n);
    b->n += n;
}
static inline void put32(struct buf *b, uint32_t v) { put(b, &v, 4); }
static inline void put64(struct buf *b, uint64_t v) { put(b, &v, 8); }

enum comp { C_NONE, C_ZSTD, C_LZ4 };

/* One fatbin entry for sm (75: sm_75): header + payload padded to 8. */
static inline void fb_entry_sm(struct buf *b, unsigned kind, const void *data, size_t n, enum comp c, unsigned sm)
{
    void *pl = NULL;
    size_t pn = n, csize = 0;
    uint64_t flags = 0x11;
    if (c == C_ZSTD) {
        pl = malloc(ZSTD_compressBound(n));
        pn = csize = ZSTD_compress(pl, ZSTD_compressBound(n), data, n, 3);
        assert_false(ZSTD_isError(pn));
        flags |= 0x8000;
    } else if (c == C_LZ4) {
        pl = malloc((size_t)LZ4_compressBound((int)n));
        int r = LZ4_compress_default(data, pl, (int)n, LZ4_compressBound((int)n));
        assert_true(r > 0);
        pn = csize = (size_t)r;
        flags |= 0x2000;
    }
    size_t padded = (pn + 7) & ~(size_t)7;
    unsigned ehs = kind == 1 ? 80 : 64;
    put32(b, kind | 0x0101u << 16);
    put32(b, ehs);
    put64(b, padded);
    put32(b, (uint32_t)csize);                 /* word 4 */
    put32(b, 0x40);
    put32(b, kind == 1 ? 0x90000 : 0x10008);   /* word 6 */
    put32(b, sm);                              /* word 7: sm */
    put64(b, 0);
    put64(b, flags);                           /* words 10-11 */
    put64(b, 0);
    put64(b, c == C_NONE ? 0 : n);             /* words 14-15 */
    if (ehs == 80) {
        put64(b, 0x48);
        put64(b, 0);
    }
    put(b, c == C_NONE ? data : pl, pn);
    put(b, NULL, padded - pn);
    free(pl);
}

static inline void fb_entry(struct buf *b, unsigned kind, const void *data, size_t n, enum comp c)
{
    fb_entry_sm(b, kind, data, n, c, 75);
}

static inline void fb_begin(struct buf *b)
{
    b->n = 0;
    put32(b, 0xBA55ED50u);
    put32(b, 1 | 16u << 16);
    put64(b, 0);
}
static inline void fb_end(struct buf *b)
{
    uint64_t size = b->n - 16;
    memcpy(b->p + 8, &size, 8);
}

#endif
