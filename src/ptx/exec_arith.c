/* SPDX-License-Identifier: Apache-2.0 */
/* The executor's arithmetic: integer and floating-point operations with
 * PTX's rounding, saturation and NaN rules, comparisons, bit operations
 * (conversions: exec_cvt.c). */
#include "exec.h"

#include <fenv.h>
#include <stdio.h>
#include <time.h>

/* ---- rounding ------------------------------------------------------------ */

/* x * y + z for half inputs, in double rounded to odd: rounding that to a
 * half is the one rounding PTX's fma.rn.f16 makes (the product is exact; a
 * result rounded to odd with two bits to spare rounds again correctly) */
static double fma_odd(double x, double y, double z)
{
    int old = fegetround();
    fesetround(FE_TOWARDZERO);
    feclearexcept(FE_INEXACT);
    volatile double r = fma(x, y, z);
    int inexact = fetestexcept(FE_INEXACT) != 0;
    fesetround(old);
    double q = r;
    if (inexact && q == q && !isinf(q)) {
        uint64_t u = UF64(q);
        u |= 1;
        q = F64(u);
    }
    return q;
}

/* ---- integer helpers --------------------------------------------------------- */
static inline uint64_t mulhi_u64(uint64_t a, uint64_t b) { return (uint64_t)(((unsigned __int128)a * b) >> 64); }
static inline int64_t mulhi_s64(int64_t a, int64_t b) { return (int64_t)(((__int128)a * b) >> 64); }

static inline uint64_t int_binop(int op, int t, uint64_t a, uint64_t b, unsigned flags)
{
    unsigned n = ir_type_size(t);
    int sg = ir_type_signed(t);
    uint64_t mk = mask_of(n);
    switch (op) {
    case OP_ADD:
        if (flags & F_SAT) { /* s32 only */
            int64_t r = (int64_t)(int32_t)a + (int64_t)(int32_t)b;
            if (r > INT32_MAX) r = INT32_MAX;
            if (r < INT32_MIN) r = INT32_MIN;
            return (uint64_t)r & mk;
        }
        return (a + b) & mk;
    case OP_SUB:
        if (flags & F_SAT) {
            int64_t r = (int64_t)(int32_t)a - (int64_t)(int32_t)b;
            if (r > INT32_MAX) r = INT32_MAX;
            if (r < INT32_MIN) r = INT32_MIN;
            return (uint64_t)r & mk;
        }
        return (a - b) & mk;
    case OP_MUL:
        if (flags & F_WIDE) {
            if (sg) return (uint64_t)(sext(a, n) * sext(b, n)) & mask_of(n * 2);
            return ((a & mk) * (b & mk)) & mask_of(n * 2);
        }
        if (flags & F_HI) {
            if (n == 8) return sg ? (uint64_t)mulhi_s64((int64_t)a, (int64_t)b) : mulhi_u64(a, b);
            if (sg) return ((uint64_t)(sext(a, n) * sext(b, n)) >> (n * 8)) & mk;
            return (((a & mk) * (b & mk)) >> (n * 8)) & mk;
        }
        return (a * b) & mk;
    case OP_DIV:
        if (sg) {
            int64_t x = sext(a, n), y = sext(b, n);
            if (y == 0) return mk;
            if (y == -1) return (uint64_t)(-(uint64_t)x) & mk;
            return (uint64_t)(x / y) & mk;
        }
        return (b & mk) ? ((a & mk) / (b & mk)) : mk;
    case OP_REM:
        if (sg) {
            int64_t x = sext(a, n), y = sext(b, n);
            if (y == 0) return a & mk;
            if (y == -1) return 0;
            return (uint64_t)(x % y) & mk;
        }
        return (b & mk) ? ((a & mk) % (b & mk)) : a & mk;
    case OP_MIN:
        if (sg) return sext(a, n) < sext(b, n) ? a & mk : b & mk;
        return (a & mk) < (b & mk) ? a & mk : b & mk;
    case OP_MAX:
        if (sg) return sext(a, n) > sext(b, n) ? a & mk : b & mk;
        return (a & mk) > (b & mk) ? a & mk : b & mk;
    case OP_AND: return a & b & mk;
    case OP_OR: return (a | b) & mk;
    case OP_XOR: return (a ^ b) & mk;
    case OP_SHL: {
        uint32_t s = (uint32_t)b;
        return s >= n * 8 ? 0 : (a << s) & mk;
    }
    case OP_SHR: {
        uint32_t s = (uint32_t)b;
        if (sg) {
            int64_t x = sext(a, n);
            return (uint64_t)(x >> (s >= n * 8 ? n * 8 - 1 : s)) & mk;
        }
        return s >= n * 8 ? 0 : ((a & mk) >> s);
    }
    default: return 0;
    }
}

static inline int icmp(int c, int t, uint64_t a, uint64_t b)
{
    unsigned n = ir_type_size(t);
    if (ir_type_signed(t)) {
        int64_t x = sext(a, n), y = sext(b, n);
        switch (c) {
        case CMP_EQ: return x == y; case CMP_NE: return x != y;
        case CMP_LT: case CMP_LO: return x < y; case CMP_LE: case CMP_LS: return x <= y;
        case CMP_GT: case CMP_HI: return x > y; case CMP_GE: case CMP_HS: return x >= y;
        default: return 0;
        }
    }
    uint64_t mk = mask_of(n), x = a & mk, y = b & mk;
    switch (c) {
    case CMP_EQ: return x == y; case CMP_NE: return x != y;
    case CMP_LT: case CMP_LO: return x < y; case CMP_LE: case CMP_LS: return x <= y;
    case CMP_GT: case CMP_HI: return x > y; case CMP_GE: case CMP_HS: return x >= y;
    default: return 0;
    }
}

static inline int fcmp(int c, double x, double y)
{
    int un = x != x || y != y;
    switch (c) {
    case CMP_EQ: return !un && x == y;
    case CMP_NE: return !un && x != y;
    case CMP_LT: return !un && x < y;
    case CMP_LE: return !un && x <= y;
    case CMP_GT: return !un && x > y;
    case CMP_GE: return !un && x >= y;
    case CMP_EQU: return un || x == y;
    case CMP_NEU: return un || x != y;
    case CMP_LTU: return un || x < y;
    case CMP_LEU: return un || x <= y;
    case CMP_GTU: return un || x > y;
    case CMP_GEU: return un || x >= y;
    case CMP_NUM: return !un;
    case CMP_NAN: return un;
    default: return 0;
    }
}

static inline double fminmax(int max, double x, double y)
{
    if (x != x) return y;
    if (y != y) return x;
    if (x == y && x == 0) return max ? (signbit(x) ? y : x) : (signbit(x) ? x : y);
    return max ? (x > y ? x : y) : (x < y ? x : y);
}

/* min/max with .NaN (a NaN operand gives NaN) and .xorsign.abs (the
 * magnitudes compared, the sign the XOR of the operands' signs) */
static double fminmax_fl(int max, double x, double y, unsigned fl)
{
    if (!(fl & (F_NAN | F_ABS))) return fminmax(max, x, y);
    if ((fl & F_NAN) && (x != x || y != y)) return NAN;
    int neg = (fl & F_ABS) && (signbit(x) != 0) != (signbit(y) != 0);
    if (fl & F_ABS) { x = fabs(x); y = fabs(y); }
    double r = fminmax(max, x, y);
    return neg ? -r : r;
}

/* prmt's modes (sub 1-6: f4e b4e rc8 ecl ecr rc16): the source byte of d.b0-d.b3 for c[1:0] */
static const uint8_t prmt_mode[6][4][4] = {
    { { 0, 1, 2, 3 }, { 1, 2, 3, 4 }, { 2, 3, 4, 5 }, { 3, 4, 5, 6 } },
    { { 0, 7, 6, 5 }, { 1, 0, 7, 6 }, { 2, 1, 0, 7 }, { 3, 2, 1, 0 } },
    { { 0, 0, 0, 0 }, { 1, 1, 1, 1 }, { 2, 2, 2, 2 }, { 3, 3, 3, 3 } },
    { { 0, 1, 2, 3 }, { 1, 1, 2, 3 }, { 2, 2, 2, 3 }, { 3, 3, 3, 3 } },
    { { 0, 0, 0, 0 }, { 0, 1, 1, 1 }, { 0, 1, 2, 2 }, { 0, 1, 2, 3 } },
    { { 0, 1, 0, 1 }, { 2, 3, 2, 3 }, { 0, 1, 0, 1 }, { 2, 3, 2, 3 } },
};

static uint32_t prmt(uint32_t a, uint32_t b, uint32_t c, int mode)
{
    uint64_t x = (uint64_t)b << 32 | a;
    uint32_t r = 0;
    if (mode) {
        for (int i = 0; i < 4; i++) r |= (uint32_t)((x >> (prmt_mode[mode - 1][c & 3][i] * 8)) & 0xff) << (i * 8);
        return r;
    }
    for (int i = 0; i < 4; i++) {
        uint32_t sel = (c >> (i * 4)) & 0xf;
        uint32_t byte = (uint32_t)(x >> ((sel & 7) * 8)) & 0xff;
        if (sel & 8) byte = (byte & 0x80) ? 0xff : 0;
        r |= byte << (i * 8);
    }
    return r;
}

static uint64_t bfe(uint64_t a, uint32_t pos, uint32_t len, int t)
{
    unsigned bits = ir_type_size(t) * 8;
    pos &= 0xff;
    len &= 0xff;
    int sg = ir_type_signed(t);
    uint64_t mk = mask_of(bits / 8);
    int64_t sa = sext(a, bits / 8);
    int sbit;
    if (len == 0 || !sg) sbit = 0;
    else {
        unsigned p = pos + len - 1 < bits - 1 ? pos + len - 1 : bits - 1;
        sbit = (int)((sa >> p) & 1);
    }
    uint64_t r = 0;
    for (unsigned i = 0; i < bits; i++) {
        int bit;
        if (i < len && pos + i <= bits - 1) bit = (int)(((uint64_t)sa >> (pos + i)) & 1);
        else bit = sbit;
        r |= (uint64_t)bit << i;
    }
    return r & mk;
}

static uint64_t bfi(uint64_t a, uint64_t b, uint32_t pos, uint32_t len, int t)
{
    unsigned bits = ir_type_size(t) * 8;
    pos &= 0xff;
    len &= 0xff;
    uint64_t r = b;
    for (unsigned i = 0; i < len && pos + i < bits; i++) {
        uint64_t bit = (a >> i) & 1;
        r = (r & ~(1ull << (pos + i))) | (bit << (pos + i));
    }
    return r & mask_of(bits / 8);
}

static uint32_t lop3(uint32_t a, uint32_t b, uint32_t c, uint32_t lut)
{
    uint32_t r = 0;
    for (int i = 0; i < 8; i++) {
        if (!(lut >> i & 1)) continue;
        uint32_t x = (i & 4) ? a : ~a, y = (i & 2) ? b : ~b, z = (i & 1) ? c : ~c;
        r |= x & y & z;
    }
    return r;
}

/* ---- floating-point ops ------------------------------------------------------ */
static inline double fop1(int op, double x, int t, int approx)
{
    (void)approx;
    switch (op) {
    case OP_ABS: return fabs(x);
    case OP_NEG: return -x;
    case OP_RCP: return 1.0 / x;
    case OP_SQRT: return t == T_F32 ? (double)sqrtf((float)x) : sqrt(x);
    case OP_RSQRT: return t == T_F32 ? (double)(1.0f / sqrtf((float)x)) : 1.0 / sqrt(x);
    case OP_EX2: return t == T_F32 ? (double)exp2f((float)x) : exp2(x);
    case OP_LG2: return t == T_F32 ? (double)log2f((float)x) : log2(x);
    case OP_SIN: return t == T_F32 ? (double)sinf((float)x) : sin(x);
    case OP_COS: return t == T_F32 ? (double)cosf((float)x) : cos(x);
    case OP_TANH: return t == T_F32 ? (double)tanhf((float)x) : tanh(x);
    default: return 0;
    }
}

static int ex_arith(struct blk *b, struct warp *w, const struct ir_ins *in, uint32_t m, uint64_t *R)
{
    struct plan *P = b->P;
    uint64_t *D = in->d >= 0 ? R + (size_t)in->d * 32 : b->sink;
    const uint64_t *A = in->a >= 0 ? R + (size_t)in->a * 32 : b->sink;
    const uint64_t *B = in->b >= 0 ? R + (size_t)in->b * 32 : b->sink;
    const uint64_t *C = in->c >= 0 ? R + (size_t)in->c * 32 : b->sink;
    int t = in->type;
    (void)P; (void)D; (void)A; (void)B; (void)C; (void)t; (void)w;
    switch (in->op) {
    case OP_MOV:
        if (in->sub2 == 1) { /* unpack */
            unsigned part = 8 * ir_type_size(t) / in->vec;
            for (int i = 0; i < in->vec; i++) {
                if (in->vr[i] < 0) continue;
                uint64_t *V = R + (size_t)in->vr[i] * 32;
                LANES(m) { int l = L; V[l] = (A[l] >> (part * (unsigned)i)) & ((part >= 64) ? ~0ull : ((1ull << part) - 1)); }
            }
        } else if (in->sub2 == 2) { /* pack */
            unsigned part = 8 * ir_type_size(t) / in->vec;
            uint64_t pm = part >= 64 ? ~0ull : (1ull << part) - 1;
            LANES(m) {
                int l = L;
                uint64_t v = 0;
                for (int i = 0; i < in->vec; i++) v |= (R[(size_t)in->vr[i] * 32 + l] & pm) << (part * (unsigned)i);
                D[l] = v;
            }
        } else if (t == T_PRED) {
            LANES(m) { int l = L; D[l] = A[l] & 1; }
        } else {
            uint64_t mk = mask_of(ir_type_size(t));
            LANES(m) { int l = L; D[l] = A[l] & mk; }
        }
        break;
    case OP_SREG_DYN: {
        struct timespec ts;
        int global = in->sub == SR_GLOBALTIMER || in->sub == SR_GLOBALTIMER_LO || in->sub == SR_GLOBALTIMER_HI;
        clock_gettime(global ? CLOCK_REALTIME : CLOCK_MONOTONIC, &ts);
        uint64_t v = (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
        if (in->sub == SR_CLOCK || in->sub == SR_GLOBALTIMER_LO) v &= 0xffffffffu;
        if (in->sub == SR_CLOCK_HI || in->sub == SR_GLOBALTIMER_HI) v >>= 32;
        LANES(m) { int l = L; D[l] = v; }
        break;
    }
    case OP_CVT:
        LANES(m) { int l = L; D[l] = ex_cvt(in, A[l], in->b >= 0 ? B[l] : 0); }
        break;
    case OP_ADD: case OP_SUB: case OP_MUL: case OP_DIV: case OP_REM: case OP_MIN: case OP_MAX:
    case OP_AND: case OP_OR: case OP_XOR: case OP_SHL: case OP_SHR: {
        int op = in->op;
        if (t == T_PRED) {
            LANES(m) {
                int l = L;
                uint64_t x = A[l] & 1, y = B[l] & 1;
                D[l] = op == OP_AND ? x & y : op == OP_OR ? x | y : x ^ y;
            }
        } else if (t == T_F32) {
            int ftz = in->flags & F_FTZ, sat = in->flags & F_SAT, dr = directed(in->sub);
            int old = 0;
            if (dr) { old = fegetround(); fesetround(fe_mode(in->sub)); }
            LANES(m) {
                int l = L;
                float x = F32(A[l]), y = F32(B[l]);
                if (ftz) { x = ftz32(x); y = ftz32(y); }
                volatile float r;
                switch (op) {
                case OP_ADD: r = x + y; break;
                case OP_SUB: r = x - y; break;
                case OP_MUL: r = x * y; break;
                case OP_DIV: r = x / y; break;
                case OP_MIN: r = (float)fminmax_fl(0, x, y, in->flags); break;
                case OP_MAX: r = (float)fminmax_fl(1, x, y, in->flags); break;
                default: r = 0; break;
                }
                float q = r;
                if (ftz) q = ftz32(q);
                if (sat) q = sat32(q);
                D[l] = NF32(q);
            }
            if (dr) fesetround(old);
        } else if (t == T_F64) {
            int dr = directed(in->sub);
            int old = 0;
            if (dr) { old = fegetround(); fesetround(fe_mode(in->sub)); }
            LANES(m) {
                int l = L;
                double x = F64(A[l]), y = F64(B[l]);
                volatile double r;
                switch (op) {
                case OP_ADD: r = x + y; break;
                case OP_SUB: r = x - y; break;
                case OP_MUL: r = x * y; break;
                case OP_DIV: r = x / y; break;
                case OP_MIN: r = fminmax_fl(0, x, y, in->flags); break;
                case OP_MAX: r = fminmax_fl(1, x, y, in->flags); break;
                default: r = 0; break;
                }
                D[l] = NF64(r);
            }
            if (dr) fesetround(old);
        } else if (t == T_F16 || t == T_BF16 || t == T_F16X2 || t == T_BF16X2) {
            int two = t == T_F16X2 || t == T_BF16X2;
            LANES(m) {
                int l = L;
                uint64_t r = 0;
                for (int h = 0; h < (two ? 2 : 1); h++) {
                    float x = h2f(A[l] >> (16 * h), t), y = h2f(B[l] >> (16 * h), t), q;
                    switch (op) {
                    case OP_ADD: q = x + y; break;
                    case OP_SUB: q = x - y; break;
                    case OP_MUL: q = x * y; break;
                    case OP_DIV: q = x / y; break;
                    case OP_MIN: q = (float)fminmax_fl(0, x, y, in->flags); break;
                    case OP_MAX: q = (float)fminmax_fl(1, x, y, in->flags); break;
                    default: q = 0; break;
                    }
                    if (in->flags & F_SAT) q = sat32(q);
                    r |= f2h(q, t, in->sub) << (16 * h);
                }
                D[l] = r;
            }
        } else if (op == OP_ADD && (ir_type_size(t) == 4) && !(in->flags & F_SAT)) {
            LANES(m) { int l = L; D[l] = (uint32_t)(A[l] + B[l]); }
        } else if (op == OP_ADD && ir_type_size(t) == 8) {
            LANES(m) { int l = L; D[l] = A[l] + B[l]; }
        } else {
            unsigned fl = in->flags;
            LANES(m) { int l = L; D[l] = int_binop(op, t, A[l], B[l], fl); }
        }
        break;
    }
    case OP_MAD:
    case OP_FMA:
        if (t == T_F32) {
            int ftz = in->flags & F_FTZ, sat = in->flags & F_SAT, dr = directed(in->sub);
            int old = 0;
            if (dr) { old = fegetround(); fesetround(fe_mode(in->sub)); }
            LANES(m) {
                int l = L;
                float x = F32(A[l]), y = F32(B[l]), z = F32(C[l]);
                if (ftz) { x = ftz32(x); y = ftz32(y); z = ftz32(z); }
                volatile float r = fmaf(x, y, z);
                float q = r;
                if (ftz) q = ftz32(q);
                if (sat) q = sat32(q);
                D[l] = NF32(q);
            }
            if (dr) fesetround(old);
        } else if (t == T_F64) {
            int dr = directed(in->sub);
            int old = 0;
            if (dr) { old = fegetround(); fesetround(fe_mode(in->sub)); }
            LANES(m) { int l = L; volatile double r = fma(F64(A[l]), F64(B[l]), F64(C[l])); D[l] = NF64(r); }
            if (dr) fesetround(old);
        } else if (t == T_F16 || t == T_BF16 || t == T_F16X2 || t == T_BF16X2) {
            int two = t == T_F16X2 || t == T_BF16X2;
            LANES(m) {
                int l = L;
                uint64_t r = 0;
                for (int h = 0; h < (two ? 2 : 1); h++) {
                    double q = fma_odd(h2f(A[l] >> (16 * h), t), h2f(B[l] >> (16 * h), t), h2f(C[l] >> (16 * h), t));
                    if (q != q) { /* .sat: +0; .relu: the canonical NaN */
                        r |= ((in->flags & F_SAT) ? 0 : (in->flags & F_RELU) ? 0x7fff : f2h((float)q, t, RND_RN)) << (16 * h);
                        continue;
                    }
                    if (in->flags & F_SAT) q = q < 0 ? 0.0 : q > 1 ? 1.0 : q;
                    if ((in->flags & F_RELU) && !(q > 0)) q = 0;
                    int bf = t == T_BF16 || t == T_BF16X2;
                    r |= (uint64_t)ptx_round_small(q, in->sub == RND_NONE ? RND_RN : in->sub, bf ? 8 : 5, bf ? 7 : 10) << (16 * h);
                }
                D[l] = r;
            }
        } else {
            unsigned n = ir_type_size(t);
            unsigned fl = in->flags;
            if (fl & F_WIDE) {
                LANES(m) { int l = L; D[l] = (int_binop(OP_MUL, t, A[l], B[l], F_WIDE) + C[l]) & mask_of(n * 2); }
            } else if (fl & F_SAT) { /* mad.hi.sat.s32 */
                LANES(m) {
                    int l = L;
                    int64_t r = (int64_t)(int32_t)int_binop(OP_MUL, t, A[l], B[l], F_HI) + (int64_t)(int32_t)C[l];
                    r = r > INT32_MAX ? INT32_MAX : r < INT32_MIN ? INT32_MIN : r;
                    D[l] = (uint64_t)r & 0xffffffffu;
                }
            } else {
                LANES(m) { int l = L; D[l] = (int_binop(OP_MUL, t, A[l], B[l], fl) + C[l]) & mask_of(n); }
            }
        }
        break;
    case OP_MUL24:
    case OP_MAD24:
        LANES(m) {
            int l = L;
            int64_t x = ir_type_signed(t) ? ((int64_t)(int32_t)((uint32_t)A[l] << 8) >> 8) : (int64_t)(A[l] & 0xffffff);
            int64_t y = ir_type_signed(t) ? ((int64_t)(int32_t)((uint32_t)B[l] << 8) >> 8) : (int64_t)(B[l] & 0xffffff);
            uint64_t p = (uint64_t)(x * y);
            uint64_t r = (in->flags & F_HI) ? (p >> 16) : p;
            if (in->op == OP_MAD24) r += C[l];
            D[l] = r & 0xffffffffu;
        }
        break;
    case OP_SAD:
        LANES(m) {
            int l = L;
            unsigned n = ir_type_size(t);
            uint64_t d = ir_type_signed(t) ? (uint64_t)(sext(A[l], n) > sext(B[l], n) ? sext(A[l], n) - sext(B[l], n) : sext(B[l], n) - sext(A[l], n))
                                          : ((A[l] & mask_of(n)) > (B[l] & mask_of(n)) ? (A[l] & mask_of(n)) - (B[l] & mask_of(n)) : (B[l] & mask_of(n)) - (A[l] & mask_of(n)));
            D[l] = (C[l] + d) & mask_of(n);
        }
        break;
    case OP_ABS: case OP_NEG: case OP_RCP: case OP_SQRT: case OP_RSQRT: case OP_EX2: case OP_LG2:
    case OP_SIN: case OP_COS: case OP_TANH: {
        int op = in->op;
        if (t == T_F32) {
            int ftz = in->flags & F_FTZ;
            int dr = directed(in->sub) && (op == OP_RCP || op == OP_SQRT);
            int old = 0;
            if (dr) { old = fegetround(); fesetround(fe_mode(in->sub)); }
            LANES(m) {
                int l = L;
                float x = F32(A[l]);
                if (ftz) x = ftz32(x);
                volatile float q;
                if (op == OP_ABS) { D[l] = A[l] & 0x7fffffffu; if (ftz) D[l] = UF32(ftz32(F32(D[l]))); continue; }
                if (op == OP_NEG) { D[l] = (A[l] ^ 0x80000000u) & 0xffffffffu; if (ftz) D[l] = UF32(ftz32(F32(D[l]))); continue; }
                if (op == OP_RCP) q = 1.0f / x;
                else if (op == OP_SQRT) q = sqrtf(x);
                else q = (float)fop1(op, x, T_F32, 1);
                float r = q;
                if (ftz) r = ftz32(r);
                D[l] = NF32(r);
            }
            if (dr) fesetround(old);
        } else if (t == T_F64) {
            int dr = directed(in->sub);
            int old = 0;
            if (dr) { old = fegetround(); fesetround(fe_mode(in->sub)); }
            LANES(m) {
                int l = L;
                if (op == OP_ABS) { D[l] = A[l] & 0x7fffffffffffffffull; continue; }
                if (op == OP_NEG) { D[l] = A[l] ^ 0x8000000000000000ull; continue; }
                volatile double q = fop1(op, F64(A[l]), T_F64, 0);
                D[l] = NF64(q);
            }
            if (dr) fesetround(old);
        } else if (t == T_F16 || t == T_BF16 || t == T_F16X2 || t == T_BF16X2) {
            int two = t == T_F16X2 || t == T_BF16X2;
            LANES(m) {
                int l = L;
                uint64_t r = 0;
                for (int h = 0; h < (two ? 2 : 1); h++) {
                    uint64_t v = (A[l] >> (16 * h)) & 0xffff;
                    uint64_t o;
                    if (op == OP_ABS) o = v & 0x7fff;
                    else if (op == OP_NEG) o = v ^ 0x8000;
                    else o = f2h((float)fop1(op, h2f(v, t), T_F32, 1), t, RND_RN);
                    r |= o << (16 * h);
                }
                D[l] = r;
            }
        } else {
            unsigned n = ir_type_size(t);
            LANES(m) {
                int l = L;
                int64_t x = sext(A[l], n);
                D[l] = (uint64_t)(op == OP_ABS ? (x < 0 ? -(uint64_t)x : (uint64_t)x) : -(uint64_t)x) & mask_of(n);
            }
        }
        break;
    }
    case OP_NOT:
        if (t == T_PRED) { LANES(m) { int l = L; D[l] = !(A[l] & 1); } }
        else { uint64_t mk = mask_of(ir_type_size(t)); LANES(m) { int l = L; D[l] = ~A[l] & mk; } }
        break;
    case OP_CNOT: {
        uint64_t mk = mask_of(ir_type_size(t));
        LANES(m) { int l = L; D[l] = (A[l] & mk) == 0; }
        break;
    }
    case OP_COPYSIGN:
        if (t == T_F32) { LANES(m) { int l = L; D[l] = (B[l] & 0x7fffffffu) | (A[l] & 0x80000000u); } }
        else { LANES(m) { int l = L; D[l] = (B[l] & 0x7fffffffffffffffull) | (A[l] & 0x8000000000000000ull); } }
        break;
    case OP_TESTP:
        LANES(m) {
            int l = L;
            double x = t == T_F32 ? F32(A[l]) : F64(A[l]);
            int c = fpclassify(x), r = 0;
            switch (in->sub) {
            case 0: r = isfinite(x); break;
            case 1: r = isinf(x); break;
            case 2: r = !isnan(x); break;
            case 3: r = isnan(x); break;
            case 4: r = c == FP_NORMAL; break;
            default: r = t == T_F32 ? fpclassify(F32(A[l])) == FP_SUBNORMAL : c == FP_SUBNORMAL; break;
            }
            D[l] = (uint64_t)r;
        }
        break;
    case OP_SETP:
    case OP_SET: {
        int ct = in->op == OP_SET ? in->type2 : t;
        int bop = in->sub2, cneg = (in->flags & F_ANEG) != 0;
        uint64_t *D2 = in->d2 >= 0 ? R + (size_t)in->d2 * 32 : NULL;
        LANES(m) {
            int l = L;
            int r;
            if (ir_type_float(ct)) {
                double x, y;
                if (ct == T_F32) { x = F32(A[l]); y = F32(B[l]); if (in->flags & F_FTZ) { x = ftz32((float)x); y = ftz32((float)y); } }
                else if (ct == T_F64) { x = F64(A[l]); y = F64(B[l]); }
                else { x = h2f(A[l], ct); y = h2f(B[l], ct); }
                r = fcmp(in->sub, x, y);
            } else
                r = icmp(in->sub, ct, A[l], B[l]);
            int r2 = !r;
            if (bop) {
                int cv = (int)(C[l] & 1) ^ cneg;
                if (bop == BOOL_AND) { r = r && cv; r2 = r2 && cv; }
                else if (bop == BOOL_OR) { r = r || cv; r2 = r2 || cv; }
                else { r = r ^ cv; r2 = r2 ^ cv; }
            }
            if (in->op == OP_SET) {
                D[l] = in->type == T_F32 ? (r ? 0x3f800000u : 0) : (r ? mask_of(ir_type_size(in->type)) : 0);
            } else {
                D[l] = (uint64_t)r;
                if (D2) D2[l] = (uint64_t)r2;
            }
        }
        break;
    }
    case OP_SELP: {
        int cneg = (in->flags & F_ANEG) != 0;
        LANES(m) { int l = L; D[l] = ((C[l] & 1) ^ (uint64_t)cneg) ? A[l] : B[l]; }
        break;
    }
    case OP_SLCT:
        LANES(m) {
            int l = L;
            int ge = in->type2 == T_F32 ? F32(C[l]) >= 0.0f : (int32_t)C[l] >= 0;
            D[l] = ge ? A[l] : B[l];
        }
        break;
    case OP_BFE:
        LANES(m) { int l = L; D[l] = bfe(A[l], (uint32_t)B[l], (uint32_t)C[l], t); }
        break;
    case OP_BFI: {
        const uint64_t *E = R + (size_t)in->e * 32;
        LANES(m) { int l = L; D[l] = bfi(A[l], B[l], (uint32_t)C[l], (uint32_t)E[l], t); }
        break;
    }
    case OP_BREV:
        if (ir_type_size(t) == 4) { LANES(m) { int l = L; uint32_t x = (uint32_t)A[l], r = 0; for (int i = 0; i < 32; i++) r |= ((x >> i) & 1u) << (31 - i); D[l] = r; } }
        else { LANES(m) { int l = L; uint64_t x = A[l], r = 0; for (int i = 0; i < 64; i++) r |= ((x >> i) & 1u) << (63 - i); D[l] = r; } }
        break;
    case OP_CLZ:
        if (ir_type_size(t) == 4) { LANES(m) { int l = L; uint32_t x = (uint32_t)A[l]; D[l] = x ? (uint64_t)__builtin_clz(x) : 32; } }
        else { LANES(m) { int l = L; uint64_t x = A[l]; D[l] = x ? (uint64_t)__builtin_clzll(x) : 64; } }
        break;
    case OP_POPC:
        if (ir_type_size(t) == 4) { LANES(m) { int l = L; D[l] = (uint64_t)__builtin_popcount((uint32_t)A[l]); } }
        else { LANES(m) { int l = L; D[l] = (uint64_t)__builtin_popcountll(A[l]); } }
        break;
    case OP_PRMT:
        LANES(m) { int l = L; D[l] = prmt((uint32_t)A[l], (uint32_t)B[l], (uint32_t)C[l], in->sub); }
        break;
    case OP_SHF: {
        int right = (in->flags & F_HI) != 0, wrap = (in->flags & F_WRAP) != 0;
        LANES(m) {
            int l = L;
            uint32_t s = (uint32_t)C[l];
            s = wrap ? s & 31 : (s > 32 ? 32 : s);
            uint64_t x = (uint64_t)(uint32_t)B[l] << 32 | (uint32_t)A[l];
            D[l] = right ? (uint32_t)(x >> s) : (uint32_t)((x << s) >> 32);
        }
        break;
    }
    case OP_LOP3:
        LANES(m) { int l = L; D[l] = lop3((uint32_t)A[l], (uint32_t)B[l], (uint32_t)C[l], (uint32_t)in->imm); }
        break;
    default:
        ex_fail_at(b, w, __builtin_ctz(m | 0x80000000u), in, PTX_E_UNSUPPORTED, "unsupported instruction");
        return -1;
    }
    return 0;
}

/* ---- the common cases, one handler each ---------------------------------- */
#define H(name, expr)                                                                        \
    static int name(struct blk *b, struct warp *w, const struct ir_ins *in, uint32_t m, uint64_t *R) \
    {                                                                                        \
        uint64_t *D = R + (size_t)in->d * 32;                                                \
        const uint64_t *A = R + (size_t)in->a * 32;                                          \
        const uint64_t *B = R + (size_t)(in->b >= 0 ? in->b : in->a) * 32;                   \
        const uint64_t *C = R + (size_t)(in->c >= 0 ? in->c : in->a) * 32;                   \
        (void)b; (void)w; (void)B; (void)C;                                                  \
        LANES(m) { int l = L; D[l] = (expr); }                                               \
        return 0;                                                                            \
    }
H(mov32, (uint32_t)A[l])
H(mov64, A[l])
H(add32, (uint32_t)(A[l] + B[l]))
H(add64, A[l] + B[l])
H(sub32, (uint32_t)(A[l] - B[l]))
H(sub64, A[l] - B[l])
H(mul32, (uint32_t)(A[l] * B[l]))
H(mul64, A[l] * B[l])
H(mulwide_s32, (uint64_t)((int64_t)(int32_t)A[l] * (int64_t)(int32_t)B[l]))
H(mulwide_u32, (uint64_t)(uint32_t)A[l] * (uint32_t)B[l])
H(mad32, (uint32_t)(A[l] * B[l] + C[l]))
H(mad64, A[l] * B[l] + C[l])
H(madwide_s32, (uint64_t)((int64_t)(int32_t)A[l] * (int64_t)(int32_t)B[l]) + C[l])
H(madwide_u32, (uint64_t)(uint32_t)A[l] * (uint32_t)B[l] + C[l])
H(and32, (uint32_t)(A[l] & B[l]))
H(and64, A[l] & B[l])
H(or32, (uint32_t)(A[l] | B[l]))
H(or64, A[l] | B[l])
H(xor32, (uint32_t)(A[l] ^ B[l]))
H(xor64, A[l] ^ B[l])
H(shl32, (uint32_t)B[l] >= 32 ? 0 : (uint32_t)(A[l] << (uint32_t)B[l]))
H(shl64, (uint32_t)B[l] >= 64 ? 0 : A[l] << (uint32_t)B[l])
H(shr_u32, (uint32_t)B[l] >= 32 ? 0 : (uint32_t)A[l] >> (uint32_t)B[l])
H(shr_s32, (uint32_t)(int32_t)((int32_t)A[l] >> ((uint32_t)B[l] >= 32 ? 31 : (uint32_t)B[l])))
H(shr_u64, (uint32_t)B[l] >= 64 ? 0 : A[l] >> (uint32_t)B[l])
H(shr_s64, (uint64_t)((int64_t)A[l] >> ((uint32_t)B[l] >= 64 ? 63 : (uint32_t)B[l])))
H(selp, (C[l] & 1) ? A[l] : B[l])
H(zext32, (uint32_t)A[l])
H(sext32, (uint64_t)(int64_t)(int32_t)A[l])
H(add_f32, NF32(F32(A[l]) + F32(B[l])))
H(sub_f32, NF32(F32(A[l]) - F32(B[l])))
H(mul_f32, NF32(F32(A[l]) * F32(B[l])))
H(fma_f32, NF32(fmaf(F32(A[l]), F32(B[l]), F32(C[l]))))
H(add_f64, NF64(F64(A[l]) + F64(B[l])))
H(sub_f64, NF64(F64(A[l]) - F64(B[l])))
H(mul_f64, NF64(F64(A[l]) * F64(B[l])))
H(fma_f64, NF64(fma(F64(A[l]), F64(B[l]), F64(C[l]))))
#define SETP(name, T, op) H(name, (uint64_t)((T)A[l] op (T)B[l]))
SETP(seq32, uint32_t, ==) SETP(sne32, uint32_t, !=)
SETP(slt_s32, int32_t, <) SETP(sle_s32, int32_t, <=) SETP(sgt_s32, int32_t, >) SETP(sge_s32, int32_t, >=)
SETP(slt_u32, uint32_t, <) SETP(sle_u32, uint32_t, <=) SETP(sgt_u32, uint32_t, >) SETP(sge_u32, uint32_t, >=)
SETP(seq64, uint64_t, ==) SETP(sne64, uint64_t, !=)
SETP(slt_s64, int64_t, <) SETP(sle_s64, int64_t, <=) SETP(sgt_s64, int64_t, >) SETP(sge_s64, int64_t, >=)
SETP(slt_u64, uint64_t, <) SETP(sle_u64, uint64_t, <=) SETP(sgt_u64, uint64_t, >) SETP(sge_u64, uint64_t, >=)
H(seq_f32, (uint64_t)(F32(A[l]) == F32(B[l])))
H(slt_f32, (uint64_t)(F32(A[l]) < F32(B[l])))
H(sle_f32, (uint64_t)(F32(A[l]) <= F32(B[l])))
H(sgt_f32, (uint64_t)(F32(A[l]) > F32(B[l])))
H(sge_f32, (uint64_t)(F32(A[l]) >= F32(B[l])))
#undef SETP
#undef H

/* the handler of an arithmetic instruction */
ex_fn ex_arith_select(const struct ir_ins *in)
{
    int t = in->type;
    unsigned n = ir_type_size(t), fl = in->flags;
    int isint = !ir_type_float(t) && t != T_PRED, sg = ir_type_signed(t), w8 = n == 8;
    int plain = !(fl & (F_SAT | F_CC | F_HI | F_WIDE | F_FTZ | F_RELU));
    int rn = in->sub == RND_NONE || in->sub == RND_RN;
    switch (in->op) {
    case OP_MOV:
        if (in->sub2 == 0 && t != T_PRED && in->d >= 0 && (n == 4 || n == 8)) return w8 ? mov64 : mov32;
        break;
    case OP_ADD: case OP_SUB: case OP_AND: case OP_OR: case OP_XOR:
        if (isint && plain && (n == 4 || n == 8) && in->d >= 0) {
            static const ex_fn tab[5][2] = { { add32, add64 }, { sub32, sub64 }, { and32, and64 }, { or32, or64 }, { xor32, xor64 } };
            int k = in->op == OP_ADD ? 0 : in->op == OP_SUB ? 1 : in->op == OP_AND ? 2 : in->op == OP_OR ? 3 : 4;
            return tab[k][w8];
        }
        if ((t == T_F32 || t == T_F64) && plain && rn && in->d >= 0 && (in->op == OP_ADD || in->op == OP_SUB))
            return t == T_F32 ? (in->op == OP_ADD ? add_f32 : sub_f32) : (in->op == OP_ADD ? add_f64 : sub_f64);
        break;
    case OP_MUL:
        if (isint && (n == 4 || n == 8) && in->d >= 0 && !(fl & (F_HI | F_SAT))) {
            if (fl & F_WIDE) return n == 4 ? (sg ? mulwide_s32 : mulwide_u32) : NULL;
            return w8 ? mul64 : mul32;
        }
        if ((t == T_F32 || t == T_F64) && plain && rn && in->d >= 0) return t == T_F32 ? mul_f32 : mul_f64;
        break;
    case OP_MAD:
        if (isint && (n == 4 || n == 8) && in->d >= 0 && !(fl & (F_HI | F_SAT | F_CC))) {
            if (fl & F_WIDE) return n == 4 ? (sg ? madwide_s32 : madwide_u32) : NULL;
            return w8 ? mad64 : mad32;
        }
        break;
    case OP_FMA:
        if ((t == T_F32 || t == T_F64) && plain && rn && in->d >= 0) return t == T_F32 ? fma_f32 : fma_f64;
        break;
    case OP_SHL: case OP_SHR:
        if (isint && (n == 4 || n == 8) && in->d >= 0) {
            if (in->op == OP_SHL) return w8 ? shl64 : shl32;
            return w8 ? (sg ? shr_s64 : shr_u64) : (sg ? shr_s32 : shr_u32);
        }
        break;
    case OP_SELP:
        if (!(fl & F_ANEG) && in->d >= 0) return selp;
        break;
    case OP_CVT:
        if (!(fl & F_SAT) && in->b < 0 && in->d >= 0 && !ir_type_float(t) && !ir_type_float(in->type2)) {
            unsigned sn = ir_type_size(in->type2);
            if (n == 8 && sn == 4) return ir_type_signed(in->type2) ? sext32 : zext32;
            if (n == 4 && (sn == 4 || sn == 8)) return zext32;
        }
        break;
    case OP_SETP:
        if (in->sub2 == BOOL_NONE && in->d2 < 0 && in->d >= 0 && !(fl & F_FTZ)) {
            int c = in->sub;
            if (isint && (n == 4 || n == 8)) {
                if (c == CMP_EQ) return w8 ? seq64 : seq32;
                if (c == CMP_NE) return w8 ? sne64 : sne32;
                int u = !sg || c >= CMP_LO;
                static const ex_fn tab[2][2][4] = {
                    { { slt_s32, sle_s32, sgt_s32, sge_s32 }, { slt_u32, sle_u32, sgt_u32, sge_u32 } },
                    { { slt_s64, sle_s64, sgt_s64, sge_s64 }, { slt_u64, sle_u64, sgt_u64, sge_u64 } },
                };
                int k = c == CMP_LT || c == CMP_LO ? 0 : c == CMP_LE || c == CMP_LS ? 1 : c == CMP_GT || c == CMP_HI ? 2
                      : c == CMP_GE || c == CMP_HS ? 3 : -1;
                if (k >= 0) return tab[w8][u][k];
            }
            if (t == T_F32) { /* ordered compares: false with a NaN, as C's */
                if (c == CMP_EQ) return seq_f32;
                if (c == CMP_LT) return slt_f32;
                if (c == CMP_LE) return sle_f32;
                if (c == CMP_GT) return sgt_f32;
                if (c == CMP_GE) return sge_f32;
            }
        }
        break;
    default:
        break;
    }
    switch (in->op) {
    case OP_MOV: case OP_SREG_DYN: case OP_CVT: case OP_ADD: case OP_SUB: case OP_MUL: case OP_MAD: case OP_FMA:
    case OP_DIV: case OP_REM: case OP_ABS: case OP_NEG: case OP_MIN: case OP_MAX: case OP_AND: case OP_OR:
    case OP_XOR: case OP_NOT: case OP_CNOT: case OP_SHL: case OP_SHR: case OP_SETP: case OP_SET: case OP_SELP:
    case OP_SLCT: case OP_RCP: case OP_SQRT: case OP_RSQRT: case OP_EX2: case OP_LG2: case OP_SIN: case OP_COS:
    case OP_TANH: case OP_BFE: case OP_BFI: case OP_BREV: case OP_CLZ: case OP_POPC: case OP_PRMT: case OP_SHF:
    case OP_LOP3: case OP_SAD: case OP_MUL24: case OP_MAD24: case OP_COPYSIGN: case OP_TESTP:
        return ex_arith;
    default:
        return NULL;
    }
}

