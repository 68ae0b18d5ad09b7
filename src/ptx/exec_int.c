/* SPDX-License-Identifier: Apache-2.0 */
/* The executor's integer extras: carry chains (add.cc, addc, sub.cc,
 * subc, mad.cc, madc), bfind, bmsk, szext, fns, dp4a, dp2a, the video
 * instructions (vadd ... vset, vadd2/4 ... vset2/4). Semantics as
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

/* ---- video instructions (PTX ISA, "Scalar Video Instructions" and "SIMD
 * Video Instructions"): the ISA's pseudo-code --------------------------- */
static int64_t vpart(uint32_t v, int sel, int sg) /* a selected byte, half or word, extended */
{
    if (sel >= 1 && sel <= 4) { uint32_t x = (v >> (8 * (sel - 1))) & 0xff; return sg ? (int8_t)x : (int64_t)x; }
    if (sel == 5 || sel == 6) { uint32_t x = (v >> (sel == 6 ? 16 : 0)) & 0xffff; return sg ? (int16_t)x : (int64_t)x; }
    return sg ? (int32_t)v : (int64_t)v;
}

static int64_t vclamp(int64_t x, int64_t lo, int64_t hi) { return x < lo ? lo : x > hi ? hi : x; }

static int vcompare(int64_t a, int64_t b, int cmp)
{
    switch (cmp) {
    case CMP_EQ: return a == b;
    case CMP_NE: return a != b;
    case CMP_LT: return a < b;
    case CMP_LE: return a <= b;
    case CMP_GT: return a > b;
    default: return a >= b;
    }
}

static int64_t vop(int op, int64_t a, int64_t b, int cmp)
{
    switch (op) {
    case VI_ADD: return a + b;
    case VI_SUB: return a - b;
    case VI_ABSDIFF: return a > b ? a - b : b - a;
    case VI_MIN: return a < b ? a : b;
    case VI_MAX: return a > b ? a : b;
    case VI_AVRG: return a + b >= 0 ? (a + b + 1) >> 1 : (a + b) >> 1;
    case VI_SET: return vcompare(a, b, cmp);
    default: return 0;
    }
}

static uint32_t video_scalar(const struct ir_ins *in, uint32_t a, uint32_t b, uint32_t c)
{
    uint64_t imm = (uint64_t)in->imm;
    int ds = (int)(imm & 15), as = (int)(imm >> 4 & 15), bs = (int)(imm >> 8 & 15), cmp = (int)(imm >> 16 & 0xff);
    int dsg = (int)(imm >> 60 & 1), asg = (int)(imm >> 61 & 1), bsg = (int)(imm >> 62 & 1);
    int64_t ta = vpart(a, as, asg), tb, t;
    if (in->sub == VI_SHL || in->sub == VI_SHR) {
        tb = vpart(b, bs, 0);
        if (in->flags & F_WRAP) tb &= 0x1f;
        else if (tb > 32) tb = 32;
        if (in->sub == VI_SHR) t = ta >> tb;
        else t = (int64_t)((uint64_t)ta << tb) << 30 >> 30; /* a signed 34-bit result */
    } else {
        tb = vpart(b, bs, bsg);
        t = vop(in->sub, ta, tb, cmp);
    }
    if (in->flags & F_SAT) {
        if (ds >= 1 && ds <= 4) t = dsg ? vclamp(t, INT8_MIN, INT8_MAX) : vclamp(t, 0, UINT8_MAX);
        else if (ds >= 5) t = dsg ? vclamp(t, INT16_MIN, INT16_MAX) : vclamp(t, 0, UINT16_MAX);
        else t = dsg ? vclamp(t, INT32_MIN, INT32_MAX) : vclamp(t, 0, UINT32_MAX);
    }
    int64_t tc = dsg ? (int32_t)c : (int64_t)c;
    switch (in->sub2) {
    case VS_ADD: t += tc; break;
    case VS_MIN: t = t < tc ? t : tc; break;
    case VS_MAX: t = t > tc ? t : tc; break;
    default: break;
    }
    if (ds >= 1 && ds <= 4) {
        unsigned sh = 8u * (unsigned)(ds - 1);
        return (uint32_t)(((uint64_t)t & 0xff) << sh) | (c & ~(0xffu << sh));
    }
    if (ds >= 5) {
        unsigned sh = ds == 6 ? 16 : 0;
        return (uint32_t)(((uint64_t)t & 0xffff) << sh) | (c & ~(0xffffu << sh));
    }
    return (uint32_t)t;
}

static uint32_t video_simd(const struct ir_ins *in, uint32_t a, uint32_t b, uint32_t c)
{
    uint64_t imm = (uint64_t)in->imm, ab = (uint64_t)b << 32 | a;
    int lanes = in->vec, w = 32 / lanes, cmp = (int)(imm >> 16 & 0xff);
    int dsg = (int)(imm >> 60 & 1), asg = (int)(imm >> 61 & 1), bsg = (int)(imm >> 62 & 1);
    unsigned mask = (unsigned)(imm >> 56 & 15);
    uint64_t em = (1ull << w) - 1;
    int64_t lo = dsg ? -(1ll << (w - 1)) : 0, hi = dsg ? (1ll << (w - 1)) - 1 : (int64_t)em;
    uint32_t acc = c, merged = 0;
    for (int e = 0; e < lanes; e++) {
        int xa = (int)(imm >> (24 + 4 * e) & 15), xb = (int)(imm >> (40 + 4 * e) & 15);
        uint64_t ua = ab >> (w * xa) & em, ub = ab >> (w * xb) & em;
        int64_t va = asg ? (int64_t)(ua << (64 - w)) >> (64 - w) : (int64_t)ua;
        int64_t vb = bsg ? (int64_t)(ub << (64 - w)) >> (64 - w) : (int64_t)ub;
        int64_t t = vop(in->sub, va, vb, cmp);
        if (in->flags & F_SAT) t = vclamp(t, lo, hi);
        if (in->sub2 == VS_ADD) {
            if ((mask >> e) & 1) acc += (uint32_t)t;
        } else {
            uint64_t part = (mask >> e) & 1 ? (uint64_t)t & em : (uint64_t)(c >> (w * e)) & em;
            merged |= (uint32_t)(part << (w * e));
        }
    }
    return in->sub2 == VS_ADD ? acc : merged;
}

/* cvt.pack.sat: a and b clamped to the converted type, b in the low
 * bits, a above it, then c's low bits (PTX ISA, "cvt.pack") */
static int cvt_pack(struct blk *b, struct warp *w, const struct ir_ins *in, uint32_t m, uint64_t *R)
{
    (void)w;
    uint64_t *D = in->d >= 0 ? R + (size_t)in->d * 32 : b->sink;
    const uint64_t *A = R + (size_t)in->a * 32, *B = R + (size_t)in->b * 32;
    const uint64_t *C = in->c >= 0 ? R + (size_t)in->c * 32 : NULL;
    int t = in->type, sg = t == T_S16 || t == T_S8 || t == T_S4;
    unsigned size = t == T_U16 || t == T_S16 ? 16 : t == T_U8 || t == T_S8 ? 8 : 4;
    int64_t lo = sg ? -(1ll << (size - 1)) : 0, hi = sg ? (1ll << (size - 1)) - 1 : (1ll << size) - 1;
    uint64_t mk = (1ull << size) - 1;
    LANES(m) {
        int l = L;
        uint64_t ta = (uint64_t)vclamp((int32_t)A[l], lo, hi) & mk, tb = (uint64_t)vclamp((int32_t)B[l], lo, hi) & mk;
        uint64_t d = ta << size | tb;
        if (C && size < 16) d |= (C[l] << (2 * size));
        D[l] = d & 0xffffffffu;
    }
    return 0;
}

static int video(struct blk *b, struct warp *w, const struct ir_ins *in, uint32_t m, uint64_t *R)
{
    (void)w;
    uint64_t *D = in->d >= 0 ? R + (size_t)in->d * 32 : b->sink;
    const uint64_t *A = R + (size_t)in->a * 32, *B = R + (size_t)in->b * 32;
    const uint64_t *C = in->c >= 0 ? R + (size_t)in->c * 32 : NULL;
    LANES(m) {
        int l = L;
        uint32_t c = C ? (uint32_t)C[l] : 0;
        D[l] = in->vec == 1 ? video_scalar(in, (uint32_t)A[l], (uint32_t)B[l], c) : video_simd(in, (uint32_t)A[l], (uint32_t)B[l], c);
    }
    return 0;
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
    case OP_VIDEO:
        return video;
    case OP_CVTPACK:
        return cvt_pack;
    default:
        return NULL;
    }
}
