/* SPDX-License-Identifier: Apache-2.0 */
/* The executor's conversions (cvt): between integers and floats of every
 * width with PTX's rounding, saturation and NaN rules (PTX ISA, "cvt"):
 * each result rounded once, to f16/bf16/tf32 and fp8 pairs too. */
#include "exec.h"

#include <fenv.h>

static double round_int(double x, int rnd)
{
    switch (rnd) {
    case RND_RZI: return trunc(x);
    case RND_RMI: return floor(x);
    case RND_RPI: return ceil(x);
    case RND_RNA: return round(x);
    default: return nearbyint(x);
    }
}

/* float -> integer of size/sign with PTX's saturation; NaN: 0, but
 * 1 << (bits - 1) from f64 or to a 64-bit integer (PTX ISA, cvt) */
static uint64_t f2i(double x, int rnd, int t, int st)
{
    if (x != x) return st == T_F64 || ir_type_size(t) == 8 ? 1ull << (ir_type_size(t) * 8 - 1) : 0;
    double r = round_int(x, rnd == RND_NONE ? RND_RZI : rnd);
    unsigned n = ir_type_size(t);
    if (ir_type_signed(t)) {
        double lo = -ldexp(1.0, (int)n * 8 - 1), hi = ldexp(1.0, (int)n * 8 - 1);
        if (r <= lo) return (uint64_t)(int64_t)lo & mask_of(n);
        if (r >= hi) return (uint64_t)((int64_t)(hi - 1 > 9.2e18 ? INT64_MAX : (int64_t)hi - 1)) & mask_of(n);
        return (uint64_t)(int64_t)r & mask_of(n);
    }
    double hi = ldexp(1.0, (int)n * 8);
    if (r <= 0) return 0;
    if (r >= hi) return mask_of(n);
    return (uint64_t)r;
}


/* a value of type t as a double (for cvt) */
static double to_double(uint64_t v, int t)
{
    switch (t) {
    case T_F32: return F32(v);
    case T_F64: return F64(v);
    case T_F16: case T_BF16: return h2f(v, t);
    default:
        if (ir_type_signed(t)) return (double)sext(v, ir_type_size(t));
        return (double)(v & mask_of(ir_type_size(t)));
    }
}

/* a value to f16 or bf16 (type dt), rounded once (PTX ISA, cvt): .sat
 * flushes NaN to +0, .relu makes it the canonical NaN and negatives 0,
 * .satfinite keeps results finite */
static uint64_t to_half(double x, int st, int dt, const struct ir_ins *in)
{
    int rnd = in->sub, bf = dt == T_BF16 || dt == T_BF16X2;
    if (x != x) return (in->flags & F_SAT) ? 0 : (in->flags & F_RELU) ? 0x7fff : f2h((float)x, dt, RND_RN);
    if (rnd >= RND_RNI && rnd <= RND_RPI) { x = round_int(x, rnd); rnd = RND_RN; } /* to an integer, then exact */
    if (in->flags & F_SAT) x = x < 0 ? 0.0 : x > 1 ? 1.0 : x;
    if ((in->flags & F_RELU) && x < 0) x = 0.0;
    uint64_t h = st == T_F32 && (rnd == RND_RN || rnd == RND_RZ || rnd == RND_NONE) ? f2h((float)x, dt, rnd)
               : ptx_round_small(x, rnd == RND_NONE ? RND_RN : rnd, bf ? 8 : 5, bf ? 7 : 10);
    uint64_t inf = bf ? 0x7f80u : 0x7c00u;
    if ((in->flags & F_SATFIN) && (h & 0x7fffu) == inf) h -= 1; /* .satfinite: the largest finite */
    return h;
}

/* cvt to tf32: the f32 rounded at 10 fraction bits (.rna ties away, .rn
 * ties to even, .rz truncates), its 13 low bits zero */
static uint64_t to_tf32(uint32_t u, int rnd, unsigned flags)
{
    if ((u & 0x7fffffffu) > 0x7f800000u) return 0x7fffe000u; /* NaN */
    if ((flags & F_RELU) && (u >> 31)) return 0;
    if ((u & 0x7f800000u) != 0x7f800000u) {
        if (rnd == RND_RNA) u += 0x1000u;
        else if (rnd == RND_RN) u += 0xfffu + ((u >> 13) & 1u);
    }
    u &= ~0x1fffu;
    if ((flags & F_SATFIN) && (u & 0x7fffffffu) >= 0x7f800000u) u = (u & 0x80000000u) | 0x7f7fe000u;
    return u;
}

/* cvt to and from two fp8 values (.rn.satfinite; .relu: negatives 0):
 * from two f32 (a to the high byte), from an f16x2/bf16x2, or to an f16x2 */
static uint64_t cvt_fp8x2(const struct ir_ins *in, uint64_t a, uint64_t b)
{
    int dt = in->type, st = in->type2, relu = (in->flags & F_RELU) != 0;
    if (st == T_E4M3X2 || st == T_E5M2X2) { /* to f16x2: exact, NaN canonical */
        uint64_t r = 0;
        for (int h = 0; h < 2; h++) {
            double x = ptx_fp8_value((unsigned)(a >> (8 * h)) & 0xffu, st == T_E5M2X2);
            uint64_t v = x != x ? 0x7fffu : relu && x < 0 ? 0 : ptx_round_small(x, RND_RN, 5, 10);
            r |= v << (16 * h);
        }
        return r;
    }
    double x[2];
    if (st == T_F32) { x[1] = F32(a); x[0] = F32(b); }
    else { x[1] = h2f(a >> 16, st); x[0] = h2f(a, st); }
    uint64_t r = 0;
    for (int h = 0; h < 2; h++) {
        double v = relu && x[h] < 0 ? 0.0 : x[h];
        r |= (uint64_t)ptx_fp8_round(v, dt == T_E5M2X2) << (8 * h);
    }
    return r;
}

static uint64_t cvt_one(const struct ir_ins *in, uint64_t v)
{
    int dt = in->type, st = in->type2, rnd = in->sub;
    if (dt == T_TF32) return to_tf32((uint32_t)v, rnd, in->flags);
    unsigned dn = ir_type_size(dt), sn = ir_type_size(st);
    int ff = in->flags & F_FTZ, sat = in->flags & F_SAT;
    if (!ir_type_float(dt) && !ir_type_float(st)) { /* int -> int */
        int64_t sv = ir_type_signed(st) ? sext(v, sn) : (int64_t)(v & mask_of(sn));
        if (sat) {
            int su = ir_type_signed(st) && sv < 0;
            uint64_t uv = (uint64_t)sv;
            if (ir_type_signed(dt)) {
                int64_t hi = dn >= 8 ? INT64_MAX : (int64_t)((1ull << (dn * 8 - 1)) - 1);
                int64_t lo = -hi - 1;
                if (!ir_type_signed(st) && uv > (uint64_t)hi) return (uint64_t)hi & mask_of(dn);
                if (ir_type_signed(st) && sv > hi) return (uint64_t)hi & mask_of(dn);
                if (sv < lo) return (uint64_t)lo & mask_of(dn);
            } else {
                if (su) return 0;
                if (uv > mask_of(dn)) return mask_of(dn);
            }
        }
        return (uint64_t)sv & mask_of(dn);
    }
    if (!ir_type_float(dt)) { /* float -> int */
        double x = to_double(v, st);
        if (ff && st == T_F32) x = ftz32((float)x);
        return f2i(x, rnd, dt, st);
    }
    if (!ir_type_float(st)) { /* int -> float */
        int64_t sv = ir_type_signed(st) ? sext(v, sn) : (int64_t)(v & mask_of(sn));
        uint64_t uv = v & mask_of(sn);
        int old = 0;
        if (directed(rnd)) { old = fegetround(); fesetround(fe_mode(rnd)); }
        volatile double d = 0;
        volatile float f = 0;
        uint64_t r;
        if (dt == T_F64) { d = ir_type_signed(st) ? (double)sv : (double)uv; r = UF64(d); }
        else if (dt == T_F32) { f = ir_type_signed(st) ? (float)sv : (float)uv; if (sat) f = f < 0 ? 0.0f : f > 1 ? 1.0f : f; r = UF32(f); }
        else { /* to f16/bf16: one rounding from the integer */
            int neg = ir_type_signed(st) && sv < 0, bf = dt == T_BF16 || dt == T_BF16X2;
            double m = ptx_int_to_double_odd(neg ? -(uint64_t)sv : uv);
            r = ptx_round_small(neg ? -m : m, rnd == RND_NONE ? RND_RN : rnd, bf ? 8 : 5, bf ? 7 : 10);
        }
        if (directed(rnd)) fesetround(old);
        return r;
    }
    /* float -> float */
    if (dt == T_F32 || dt == T_F64) {
        double x = to_double(v, st);
        if (ff && st == T_F32) x = ftz32((float)x);
        if (rnd >= RND_RNI && rnd <= RND_RPI) x = round_int(x, rnd);
        if (dt == T_F32) {
            volatile float f;
            if (directed(rnd) && st == T_F64) {
                int old = fegetround();
                fesetround(fe_mode(rnd));
                f = (float)x;
                fesetround(old);
            } else
                f = (float)x;
            float g = f;
            if (sat) g = g != g ? 0.0f : g < 0 ? 0.0f : g > 1 ? 1.0f : g;
            if (ff) g = ftz32(g);
            return g != g ? 0x7fffffffu : UF32(g);
        }
        if (sat) x = x != x ? 0.0 : x < 0 ? 0.0 : x > 1 ? 1.0 : x;
        return x != x ? 0x7fffffffffffffffull : UF64(x);
    }
    return to_half(to_double(v, st), st, dt, in);
}

uint64_t ex_cvt(const struct ir_ins *in, uint64_t a, uint64_t b)
{
    int t = in->type;
    if (t == T_E4M3X2 || t == T_E5M2X2 || in->type2 == T_E4M3X2 || in->type2 == T_E5M2X2) return cvt_fp8x2(in, a, b);
    if (in->b >= 0) return to_half(F32(a), T_F32, t, in) << 16 | to_half(F32(b), T_F32, t, in); /* f16x2 from two f32 */
    return cvt_one(in, a);
}
