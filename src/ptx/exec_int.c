/* The executor's integer extras: carry chains (add.cc, addc, sub.cc,
 * subc, mad.cc, madc), bfind, bmsk, szext, fns, dp4a, dp2a. Semantics as
 * the PTX ISA gives them (its "Semantics" pseudo-code, instruction by
 * instruction). The carry flag is a bit per lane (w->cc). */
#include "exec.h"

#include <stdio.h>

/* add/sub/mad with .cc, and addc/subc/madc: result and carry out */
static int carry(struct blk *b, struct warp *w, const struct ir_ins *in, uint32_t m, uint64_t *R)
{
    uint64_t *D = in->d >= 0 ? R + (size_t)in->d * 32 : b->sink;
    const uint64_t *A = R + (size_t)in->a * 32, *B = R + (size_t)in->b * 32;
    const uint64_t *C = in->c >= 0 ? R + (size_t)in->c * 32 : NULL;
    unsigned n = ir_type_size(in->type), bits = n * 8;
    int sg = ir_type_signed(in->type), op = in->op;
    int cin = op == OP_ADDC || op == OP_SUBC || op == OP_MADC;
    uint64_t mk = mask_of(n);
    uint32_t cc = w->cc;
    LANES(m) {
        int l = L;
        unsigned __int128 a = A[l] & mk, bv = B[l] & mk, ci = cin ? (cc >> l) & 1 : 0, s;
        int cout;
        if (op == OP_SUB || op == OP_SUBC) { /* the carry is the borrow */
            s = (a - bv - ci) & mk;
            cout = a < bv + ci;
        } else {
            if (op == OP_MAD || op == OP_MADC) { /* the high or low half of the product, plus c */
                __int128 p = sg ? (__int128)sext((uint64_t)a, n) * (__int128)sext((uint64_t)bv, n) : (__int128)(a * bv);
                unsigned __int128 u = (unsigned __int128)p;
                a = (in->flags & F_HI) ? (u >> bits) & mk : u & mk;
                bv = C[l] & mk;
            }
            s = a + bv + ci;
            cout = (int)(s >> bits) & 1;
            s &= mk;
        }
        D[l] = (uint64_t)s;
        if (in->flags & F_CC) cc = (cc & ~(1u << l)) | ((uint32_t)cout << l);
    }
    w->cc = cc;
    return 0;
}

static uint32_t bfind(uint64_t a, int t, int shiftamt)
{
    int msb = ir_type_size(t) == 4 ? 31 : 63;
    if (msb == 31) a &= 0xffffffffu;
    if (ir_type_signed(t) && (a >> msb & 1)) a = ~a & (msb == 31 ? 0xffffffffull : ~0ull);
    if (!a) return 0xffffffffu;
    uint32_t d = (uint32_t)(63 - __builtin_clzll(a));
    return shiftamt ? (uint32_t)msb - d : d;
}

static uint32_t bmsk(uint32_t a, uint32_t b, int wrap)
{
    uint32_t a1 = a & 31, b1 = b & 31, sum = a1 + b1;
    uint32_t mask0 = ~0u << a1, mask1 = sum >= 32 ? 0 : ~0u << sum;
    int over = sum >= 32;
    if (!wrap) {
        if (a >= 32) { over = 1; mask0 = 0; }
        if (b >= 32) over = 1;
    }
    if (over) mask1 = 0;
    else if (b1 == 0) mask1 = ~0u;
    return mask0 & ~mask1;
}

static uint32_t szext(uint32_t a, uint32_t b, int wrap, int sg)
{
    uint32_t b1 = b & 31;
    int too_large = b >= 32 && !wrap;
    uint32_t mask = too_large ? 0 : ~0u << b1;
    int sign = b1 && !too_large && sg ? (int)(a >> ((b1 - 1) & 31) & 1) : 0;
    return (a & ~mask) | (sign ? mask : 0);
}

static uint32_t fns(uint32_t mask, uint32_t base, int32_t offset)
{
    if (offset == 0) return (mask >> (base & 31) & 1) && base < 32 ? base : 0xffffffffu;
    int pos = (int)base, inc = offset > 0 ? 1 : -1;
    int64_t count = (offset > 0 ? (int64_t)offset : -(int64_t)offset) - 1;
    for (; pos >= 0 && pos < 32; pos += inc) {
        if (!(mask >> pos & 1)) continue;
        if (count == 0) return (uint32_t)pos;
        count--;
    }
    return 0xffffffffu;
}

/* byte i (dp4a) or half i (dp2a) of v, sign- or zero-extended */
static inline int32_t part(uint32_t v, int i, int width, int sg)
{
    uint32_t x = (v >> (i * width)) & ((1u << width) - 1);
    if (sg && (x >> (width - 1) & 1)) return (int32_t)(x | ~((1u << width) - 1));
    return (int32_t)x;
}

static int ex_int(struct blk *b, struct warp *w, const struct ir_ins *in, uint32_t m, uint64_t *R)
{
    uint64_t *D = in->d >= 0 ? R + (size_t)in->d * 32 : b->sink;
    const uint64_t *A = in->a >= 0 ? R + (size_t)in->a * 32 : b->sink;
    const uint64_t *B = in->b >= 0 ? R + (size_t)in->b * 32 : b->sink;
    const uint64_t *C = in->c >= 0 ? R + (size_t)in->c * 32 : b->sink;
    int wrap = (in->flags & F_WRAP) != 0;
    switch (in->op) {
    case OP_BFIND:
        LANES(m) { int l = L; D[l] = bfind(A[l], in->type, in->sub); }
        return 0;
    case OP_BMSK:
        LANES(m) { int l = L; D[l] = bmsk((uint32_t)A[l], (uint32_t)B[l], wrap); }
        return 0;
    case OP_SZEXT:
        LANES(m) { int l = L; D[l] = szext((uint32_t)A[l], (uint32_t)B[l], wrap, in->type == T_S32); }
        return 0;
    case OP_FNS:
        LANES(m) { int l = L; D[l] = fns((uint32_t)A[l], (uint32_t)B[l], (int32_t)C[l]); }
        return 0;
    case OP_DP4A: case OP_DP2A: {
        int sa = in->type == T_S32, sb = in->type2 == T_S32, hi = (in->flags & F_HI) != 0;
        LANES(m) {
            int l = L;
            uint32_t d = (uint32_t)C[l];
            for (int i = 0; i < (in->op == OP_DP4A ? 4 : 2); i++) {
                int32_t va = in->op == OP_DP4A ? part((uint32_t)A[l], i, 8, sa) : part((uint32_t)A[l], i, 16, sa);
                int32_t vb = part((uint32_t)B[l], in->op == OP_DP4A ? i : (hi ? 2 : 0) + i, 8, sb);
                d += (uint32_t)((int64_t)va * vb);
            }
            D[l] = d;
        }
        return 0;
    }
    default:
        ex_fail_at(b, w, __builtin_ctz(m | 0x80000000u), in, PTX_E_UNSUPPORTED, "unsupported instruction '%s'", ex_name(b, in));
        return -1;
    }
}

ex_fn ex_int_select(const struct ir_ins *in)
{
    switch (in->op) {
    case OP_ADD: case OP_SUB: case OP_MAD:
        return in->flags & F_CC ? carry : NULL;
    case OP_ADDC: case OP_SUBC: case OP_MADC:
        return carry;
    case OP_BFIND: case OP_BMSK: case OP_SZEXT: case OP_FNS: case OP_DP4A: case OP_DP2A:
        return ex_int;
    default:
        return NULL;
    }
}
