/* The executor's arithmetic: integer and floating-point operations with
 * PTX's rounding, saturation and NaN rules, comparisons, conversions, bit
 * operations. */
#include "exec.h"

#include <fenv.h>
#include <stdio.h>
#include <time.h>

/* ---- rounding ------------------------------------------------------------ */
static int fe_mode(int rnd)
{
    switch (rnd) {
    case RND_RZ: case RND_RZI: return FE_TOWARDZERO;
    case RND_RM: case RND_RMI: return FE_DOWNWARD;
    case RND_RP: case RND_RPI: return FE_UPWARD;
    default: return FE_TONEAREST;
    }
}
static int directed(int rnd) { return rnd == RND_RZ || rnd == RND_RM || rnd == RND_RP; }

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

/* float -> integer of size/sign with PTX's saturation; NaN -> 0 */
static uint64_t f2i(double x, int rnd, int t)
{
    if (x != x) return 0;
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

/* half-width float type to float */
static inline float h2f(uint64_t v, int t) { return t == T_BF16 || t == T_BF16X2 ? ptx_bf16_to_f32((uint16_t)v) : ptx_f16_to_f32((uint16_t)v); }
static inline uint64_t f2h(float f, int t, int rnd) { return t == T_BF16 || t == T_BF16X2 ? ptx_f32_to_bf16(f, rnd) : ptx_f32_to_f16(f, rnd); }

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

static uint64_t cvt_one(const struct ir_ins *in, uint64_t v)
{
    int dt = in->type, st = in->type2, rnd = in->sub;
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
        return f2i(x, rnd, dt);
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
        else { f = ir_type_signed(st) ? (float)sv : (float)uv; r = f2h(f, dt, rnd); }
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
    /* to f16/bf16 */
    double x = to_double(v, st);
    float f = (float)x;
    if (st == T_F64 && (double)f != x && rnd != RND_RZ) {
        /* avoid double rounding: nudge toward x by one f32 ulp bit */
        uint32_t u = (uint32_t)UF32(f);
        if ((u & 1u) == 0) { u |= 1u; if (((double)F32(u) > x) != ((double)f > x)) u -= 2; }
        (void)u;
    }
    if (sat) f = f != f ? 0.0f : f < 0 ? 0.0f : f > 1 ? 1.0f : f;
    if ((in->flags & F_RELU) && (f < 0 || f != f)) f = 0.0f;
    return f2h(f, dt, rnd == RND_RZ ? RND_RZ : RND_RN);
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

static uint32_t prmt(uint32_t a, uint32_t b, uint32_t c)
{
    uint64_t x = (uint64_t)b << 32 | a;
    uint32_t r = 0;
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

int ex_arith(struct blk *b, struct warp *w, const struct ir_ins *in, uint32_t m, uint64_t *R)
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
        clock_gettime(in->sub == SR_GLOBALTIMER ? CLOCK_REALTIME : CLOCK_MONOTONIC, &ts);
        uint64_t v = (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
        if (in->sub == SR_CLOCK) v &= 0xffffffffu;
        LANES(m) { int l = L; D[l] = v; }
        break;
    }
    case OP_CVT:
        if (in->b >= 0) { /* f16x2 from two f32 */
            LANES(m) {
                int l = L;
                float hi = F32(A[l]), lo = F32(B[l]);
                if ((in->flags & F_RELU)) { if (!(hi > 0)) hi = 0; if (!(lo > 0)) lo = 0; }
                D[l] = f2h(hi, t, in->sub) << 16 | f2h(lo, t, in->sub);
            }
            break;
        }
        LANES(m) { int l = L; D[l] = cvt_one(in, A[l]); }
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
                case OP_MIN: r = (float)fminmax(0, x, y); break;
                case OP_MAX: r = (float)fminmax(1, x, y); break;
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
                case OP_MIN: r = fminmax(0, x, y); break;
                case OP_MAX: r = fminmax(1, x, y); break;
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
                    case OP_MIN: q = (float)fminmax(0, x, y); break;
                    case OP_MAX: q = (float)fminmax(1, x, y); break;
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
                    double q = fma((double)h2f(A[l] >> (16 * h), t), (double)h2f(B[l] >> (16 * h), t),
                                   (double)h2f(C[l] >> (16 * h), t));
                    float fq = (float)q;
                    if (in->flags & F_SAT) fq = fq != fq ? 0.0f : fq < 0 ? 0.0f : fq > 1 ? 1.0f : fq;
                    if ((in->flags & F_RELU) && !(fq > 0)) fq = 0;
                    r |= f2h(fq, t, in->sub) << (16 * h);
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
        LANES(m) { int l = L; D[l] = prmt((uint32_t)A[l], (uint32_t)B[l], (uint32_t)C[l]); }
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
