/* The executor: runs a kernel of the internal form on the host.
 *
 * Blocks are spread over host threads (an atomic counter hands out block
 * indices). A thread runs one block at a time: its warps one after the
 * other, each until all its lanes wait at a barrier or have exited; when
 * every warp waits, the barrier opens. A warp executes an instruction for
 * all its active lanes at once (registers are laid out slot-major, 32
 * lanes per slot). Divergence: each lane has its own pc; the warp runs the
 * lanes with the smallest pc together, and lanes meet again when the
 * running group reaches the pc where others wait (structured code
 * reconverges at the join point, loops after the loop). */
#include "ir.h"

#include <fenv.h>
#include <math.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define MAXDEPTH 32
#define NCACHE 4
#define PC_NONE 0x7fffffff

static atomic_ullong total_ins;
uint64_t ptx_instructions(void) { return atomic_load(&total_ins); }

struct plan {                    /* per launch */
    const struct ptx_module *m;
    const struct ptx_launch *l;
    int entry;
    int *slotbase;               /* by function: first slot in a warp's file, or -1 */
    unsigned *localbase, *fparambase;
    int nslots;
    unsigned lstride, fstride;   /* per-thread .local and call .param bytes */
    unsigned static_shared, shsize;
    unsigned nthreads, nwarps;
    uint64_t nblocks;
    atomic_ullong next_block;
    atomic_int stop;
    pthread_mutex_t lock;
    enum ptx_status status;
    char *err;
    size_t errlen;
};

struct warp {
    uint64_t *R0;                /* this warp's register file */
    uint32_t live, active, barred;
    int pc, merge_pc;
    int lpc[32];
    int depth[32];
    int rstack[32][MAXDEPTH];    /* return pc */
    int cstack[32][MAXDEPTH];    /* call index */
    int red_pending;             /* bar.red: result slot row to write, or -1 */
    uint64_t *red_d;
    uint32_t red_mask;
    int id;
};

struct blk {                     /* one host thread's block state */
    struct plan *P;
    unsigned char *shared, *local, *fparam;
    struct warp *warps;
    uint64_t *regs;
    uint64_t sink[32];
    uint64_t clo[NCACHE], chi[NCACHE];
    int cnext;
    unsigned ctaid[3];
    uint64_t icount;
    enum ptx_status st;
    int red_popc, red_and, red_or;
    const struct ir_ins *fault_ins;
};

/* ---- errors ----------------------------------------------------------- */
static void fail(struct blk *b, enum ptx_status st, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void fail(struct blk *b, enum ptx_status st, const char *fmt, ...)
{
    struct plan *P = b->P;
    if (b->st == PTX_OK) b->st = st;
    pthread_mutex_lock(&P->lock);
    if (P->status == PTX_OK) {
        P->status = st;
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(P->err, P->errlen, fmt, ap);
        va_end(ap);
    }
    pthread_mutex_unlock(&P->lock);
    atomic_store(&P->stop, 1);
}

/* ---- values ----------------------------------------------------------- */
static inline float F32(uint64_t v) { float f; uint32_t u = (uint32_t)v; memcpy(&f, &u, 4); return f; }
static inline double F64(uint64_t v) { double d; memcpy(&d, &v, 8); return d; }
static inline uint64_t UF32(float f) { uint32_t u; memcpy(&u, &f, 4); return u; }
static inline uint64_t UF64(double d) { uint64_t u; memcpy(&u, &d, 8); return u; }
static inline uint64_t NF32(float f) { return f != f ? 0x7fffffffu : UF32(f); }    /* canonical NaN */
static inline uint64_t NF64(double d) { return d != d ? 0x7fffffffffffffffull : UF64(d); }

static inline uint64_t mask_of(unsigned size) { return size >= 8 ? ~0ull : (1ull << (size * 8)) - 1; }
static inline int64_t sext(uint64_t v, unsigned size)
{
    switch (size) {
    case 1: return (int8_t)v;
    case 2: return (int16_t)v;
    case 4: return (int32_t)v;
    default: return (int64_t)v;
    }
}
static inline float ftz32(float f) { return fabsf(f) < 1.17549435e-38f ? copysignf(0.0f, f) : f; }
/* .sat: clamp to [0, 1], NaN to 0 */
static inline float sat32(float q) { return q != q ? 0.0f : q < 0 ? 0.0f : q > 1 ? 1.0f : q; }

/* ---- memory ------------------------------------------------------------- */
static size_t read_dev(void *ctx, uint64_t addr, const unsigned char **p);

/* the allocation holding [a, a+n): cache, then the host's map */
static int global_ok(struct blk *b, uint64_t a, unsigned n)
{
    for (int i = 0; i < NCACHE; i++)
        if (a >= b->clo[i] && a + n <= b->chi[i] && a + n >= a) return 1;
    const struct ptx_host *h = &b->P->l->host;
    uint64_t lo, hi;
    if (!h->lookup || h->lookup(h->cookie, a, &lo, &hi) || a + n > hi || a + n < a) return 0;
    b->clo[b->cnext] = lo;
    b->chi[b->cnext] = hi;
    b->cnext = (b->cnext + 1) % NCACHE;
    return 1;
}

/* host pointer for a generic/global address, or NULL */
static inline unsigned char *gen_ptr(struct blk *b, uint64_t a, unsigned n)
{
    struct plan *P = b->P;
    uintptr_t sh = (uintptr_t)b->shared, lo = (uintptr_t)b->local, fp = (uintptr_t)b->fparam;
    if (a >= sh && a + n <= sh + P->shsize) return (unsigned char *)(uintptr_t)a;
    if (a >= lo && a + n <= lo + (uint64_t)P->lstride * P->nthreads) return (unsigned char *)(uintptr_t)a;
    if (a >= fp && a + n <= fp + (uint64_t)P->fstride * P->nthreads) return (unsigned char *)(uintptr_t)a;
    uintptr_t pb = (uintptr_t)P->l->params;
    if (pb && a >= pb && a + n <= pb + P->l->param_bytes) return (unsigned char *)(uintptr_t)a;
    return global_ok(b, a, n) ? (unsigned char *)(uintptr_t)a : NULL;
}

static size_t read_dev(void *ctx, uint64_t addr, const unsigned char **p)
{
    struct blk *b = ctx;
    *p = NULL;
    if (!gen_ptr(b, addr, 1)) return 0;
    /* readable up to the end of the allocation (or window) */
    size_t k = 1;
    while (k < 4096 && gen_ptr(b, addr + k, 1)) k++;
    *p = (const unsigned char *)(uintptr_t)addr;
    return k;
}

/* the host pointer of lane (tid) for an access of n bytes, or NULL */
static inline unsigned char *addr_of(struct blk *b, int space, uint64_t a, unsigned n, unsigned tid)
{
    struct plan *P = b->P;
    switch (space) {
    case SP_SHARED:
        return a + n <= P->shsize && a + n >= a ? b->shared + a : NULL;
    case SP_LOCAL:
        return a + n <= P->lstride && a + n >= a ? b->local + (size_t)tid * P->lstride + a : NULL;
    case SP_FPARAM:
        return a + n <= P->fstride && a + n >= a ? b->fparam + (size_t)tid * P->fstride + a : NULL;
    case SP_PARAM:
        if (a + n <= P->l->param_bytes && a + n >= a) return (unsigned char *)P->l->params + a;
        return gen_ptr(b, a, n); /* a generic pointer into the buffer */
    default:
        return gen_ptr(b, a, n);
    }
}

static inline uint64_t ld_n(const unsigned char *p, unsigned n)
{
    switch (n) {
    case 1: return __atomic_load_n(p, __ATOMIC_RELAXED);
    case 2: return __atomic_load_n((const uint16_t *)(const void *)p, __ATOMIC_RELAXED);
    case 4: return __atomic_load_n((const uint32_t *)(const void *)p, __ATOMIC_RELAXED);
    default: return __atomic_load_n((const uint64_t *)(const void *)p, __ATOMIC_RELAXED);
    }
}
static inline void st_n(unsigned char *p, unsigned n, uint64_t v)
{
    switch (n) {
    case 1: __atomic_store_n(p, (uint8_t)v, __ATOMIC_RELAXED); break;
    case 2: __atomic_store_n((uint16_t *)(void *)p, (uint16_t)v, __ATOMIC_RELAXED); break;
    case 4: __atomic_store_n((uint32_t *)(void *)p, (uint32_t)v, __ATOMIC_RELAXED); break;
    default: __atomic_store_n((uint64_t *)(void *)p, v, __ATOMIC_RELAXED); break;
    }
}

static const char *space_name(int sp)
{
    switch (sp) {
    case SP_GLOBAL: return "global";
    case SP_SHARED: return "shared";
    case SP_LOCAL: return "local";
    case SP_CONST: return "const";
    case SP_PARAM: case SP_FPARAM: return "param";
    default: return "generic";
    }
}

static void mem_fault(struct blk *b, const struct ir_ins *in, uint64_t a, unsigned n, int misaligned)
{
    fail(b, misaligned ? PTX_E_MISALIGNED : PTX_E_ADDRESS, "%s %s address 0x%llx (%u bytes) at PTX line %d",
         misaligned ? "misaligned" : "illegal", space_name(in->space), (unsigned long long)a, n, in->line);
}

/* ---- scheduling ----------------------------------------------------------- */
static void reschedule(struct warp *w)
{
    uint32_t cand = w->live & ~w->barred;
    w->active = 0;
    w->merge_pc = PC_NONE;
    if (!cand) { w->pc = PC_NONE; return; }
    int minpc = PC_NONE;
    for (uint32_t mm = cand; mm; mm &= mm - 1) {
        int l = __builtin_ctz(mm);
        if (w->lpc[l] < minpc) minpc = w->lpc[l];
    }
    uint32_t act = 0;
    int next = PC_NONE;
    for (uint32_t mm = cand; mm; mm &= mm - 1) {
        int l = __builtin_ctz(mm);
        if (w->lpc[l] == minpc) act |= 1u << l;
        else if (w->lpc[l] < next) next = w->lpc[l];
    }
    w->active = act;
    w->pc = minpc;
    w->merge_pc = next;
}

/* the group leaves pc: taken lanes to target, the rest to pc+1 */
static void diverge(struct warp *w, uint32_t taken, int target)
{
    for (uint32_t mm = w->active; mm; mm &= mm - 1) {
        int l = __builtin_ctz(mm);
        w->lpc[l] = (taken >> l & 1) ? target : w->pc + 1;
    }
    reschedule(w);
}

/* pc reached merge_pc: the waiting lanes there join */
static void merge(struct warp *w)
{
    uint32_t cand = w->live & ~w->barred & ~w->active;
    int next = PC_NONE;
    for (uint32_t mm = cand; mm; mm &= mm - 1) {
        int l = __builtin_ctz(mm);
        if (w->lpc[l] == w->pc) w->active |= 1u << l;
        else if (w->lpc[l] < next) next = w->lpc[l];
    }
    w->merge_pc = next;
}

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

/* ---- the interpreter ------------------------------------------------------- */
enum { W_YIELD, W_ERR };

#define LANES(m) for (uint32_t mm_ = (m); mm_; mm_ &= mm_ - 1)
#define L (__builtin_ctz(mm_))

static void do_call_builtin(struct blk *b, struct warp *w, const struct ir_ins *in, uint32_t m, const struct ir_call *c);

static int warp_run(struct blk *b, struct warp *w)
{
    struct plan *P = b->P;
    const struct ptx_module *M = P->m;
    const struct ir_ins *code = M->ins;
    uint64_t icount = 0;
    int rc = W_YIELD;
    while (w->active) {
        if (w->pc == w->merge_pc) merge(w);
        const struct ir_ins *in = &code[w->pc];
        uint64_t *R = w->R0 + (size_t)P->slotbase[in->fn] * 32;
        uint32_t m = w->active;
        if (in->guard >= 0) {
            const uint64_t *G = R + (size_t)in->guard * 32;
            uint32_t gm = 0;
            LANES(m) { int l = L; gm |= (uint32_t)(G[l] & 1) << l; }
            m = in->gneg ? m & ~gm : gm;
        }
        icount += (uint64_t)__builtin_popcount(m);
        uint64_t *D = in->d >= 0 ? R + (size_t)in->d * 32 : b->sink;
        const uint64_t *A = in->a >= 0 ? R + (size_t)in->a * 32 : b->sink;
        const uint64_t *B = in->b >= 0 ? R + (size_t)in->b * 32 : b->sink;
        const uint64_t *C = in->c >= 0 ? R + (size_t)in->c * 32 : b->sink;
        int t = in->type;
        switch ((enum ir_op)in->op) {
        case OP_NOP:
        case OP_MEMBAR:
            if (in->op == OP_MEMBAR) atomic_thread_fence(memory_order_seq_cst);
            break;
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
        case OP_LD:
        case OP_ST: {
            unsigned n = ir_type_size(t);
            unsigned tot = n * in->vec;
            int sp = in->space;
            LANES(m) {
                int l = L;
                uint64_t a = A[l] + (uint64_t)in->imm;
                if (a % tot) { mem_fault(b, in, a, tot, 1); return W_ERR; }
                unsigned char *p = addr_of(b, sp, a, tot, (unsigned)(w->id * 32 + l));
                if (!p) { mem_fault(b, in, a, tot, 0); return W_ERR; }
                if (in->op == OP_LD) {
                    for (int i = 0; i < in->vec; i++) {
                        uint64_t v = ld_n(p + (size_t)i * n, n);
                        if (ir_type_signed(t)) v = (uint64_t)sext(v, n);
                        if (in->vr[i] >= 0) R[(size_t)in->vr[i] * 32 + l] = v;
                    }
                } else {
                    for (int i = 0; i < in->vec; i++)
                        st_n(p + (size_t)i * n, n, R[(size_t)in->vr[i] * 32 + l]);
                }
            }
            break;
        }
        case OP_CVTA:
        case OP_CVTA_TO: {
            int to = in->op == OP_CVTA_TO;
            LANES(m) {
                int l = L;
                uint64_t a = A[l], base = 0;
                unsigned tid = (unsigned)(w->id * 32 + l);
                switch (in->space) {
                case SP_SHARED: base = (uintptr_t)b->shared; break;
                case SP_LOCAL: base = (uintptr_t)b->local + (uint64_t)tid * P->lstride; break;
                case SP_FPARAM: base = (uintptr_t)b->fparam + (uint64_t)tid * P->fstride; break;
                case SP_PARAM: base = (uintptr_t)P->l->params; break;
                default: base = 0; break;
                }
                uint64_t r = to ? a - base : a + base;
                D[l] = ir_type_size(t) == 4 ? r & 0xffffffffu : r;
            }
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
        case OP_ATOM:
        case OP_RED: {
            unsigned n = ir_type_size(t);
            int sg = ir_type_signed(t);
            LANES(m) {
                int l = L;
                uint64_t a = A[l] + (uint64_t)in->imm;
                if (a % n) { mem_fault(b, in, a, n, 1); return W_ERR; }
                unsigned char *p = addr_of(b, in->space, a, n, (unsigned)(w->id * 32 + l));
                if (!p) { mem_fault(b, in, a, n, 0); return W_ERR; }
                uint64_t v = B[l], old;
                if (n == 4) {
                    uint32_t *q = (uint32_t *)(void *)p, o = __atomic_load_n(q, __ATOMIC_RELAXED), nv;
                    switch (in->sub) {
                    case AT_ADD:
                        if (t == T_F32) { do { nv = (uint32_t)UF32(F32(o) + F32(v)); } while (!__atomic_compare_exchange_n(q, &o, nv, 1, __ATOMIC_SEQ_CST, __ATOMIC_RELAXED)); }
                        else o = __atomic_fetch_add(q, (uint32_t)v, __ATOMIC_SEQ_CST);
                        break;
                    case AT_AND: o = __atomic_fetch_and(q, (uint32_t)v, __ATOMIC_SEQ_CST); break;
                    case AT_OR: o = __atomic_fetch_or(q, (uint32_t)v, __ATOMIC_SEQ_CST); break;
                    case AT_XOR: o = __atomic_fetch_xor(q, (uint32_t)v, __ATOMIC_SEQ_CST); break;
                    case AT_EXCH: o = __atomic_exchange_n(q, (uint32_t)v, __ATOMIC_SEQ_CST); break;
                    case AT_CAS: {
                        uint32_t exp = (uint32_t)v;
                        __atomic_compare_exchange_n(q, &exp, (uint32_t)C[l], 0, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);
                        o = exp;
                        break;
                    }
                    default:
                        do {
                            uint32_t x = (uint32_t)v;
                            switch (in->sub) {
                            case AT_MIN: nv = sg ? ((int32_t)o < (int32_t)x ? o : x) : (o < x ? o : x); break;
                            case AT_MAX: nv = sg ? ((int32_t)o > (int32_t)x ? o : x) : (o > x ? o : x); break;
                            case AT_INC: nv = o >= x ? 0 : o + 1; break;
                            default: nv = (o == 0 || o > x) ? x : o - 1; break; /* AT_DEC */
                            }
                        } while (!__atomic_compare_exchange_n(q, &o, nv, 1, __ATOMIC_SEQ_CST, __ATOMIC_RELAXED));
                        break;
                    }
                    old = o;
                } else {
                    uint64_t *q = (uint64_t *)(void *)p, o = __atomic_load_n(q, __ATOMIC_RELAXED), nv;
                    switch (in->sub) {
                    case AT_ADD:
                        if (t == T_F64) { do { nv = UF64(F64(o) + F64(v)); } while (!__atomic_compare_exchange_n(q, &o, nv, 1, __ATOMIC_SEQ_CST, __ATOMIC_RELAXED)); }
                        else o = __atomic_fetch_add(q, v, __ATOMIC_SEQ_CST);
                        break;
                    case AT_AND: o = __atomic_fetch_and(q, v, __ATOMIC_SEQ_CST); break;
                    case AT_OR: o = __atomic_fetch_or(q, v, __ATOMIC_SEQ_CST); break;
                    case AT_XOR: o = __atomic_fetch_xor(q, v, __ATOMIC_SEQ_CST); break;
                    case AT_EXCH: o = __atomic_exchange_n(q, v, __ATOMIC_SEQ_CST); break;
                    case AT_CAS: {
                        uint64_t exp = v;
                        __atomic_compare_exchange_n(q, &exp, C[l], 0, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);
                        o = exp;
                        break;
                    }
                    default:
                        do {
                            switch (in->sub) {
                            case AT_MIN: nv = sg ? ((int64_t)o < (int64_t)v ? o : v) : (o < v ? o : v); break;
                            case AT_MAX: nv = sg ? ((int64_t)o > (int64_t)v ? o : v) : (o > v ? o : v); break;
                            case AT_INC: nv = o >= v ? 0 : o + 1; break;
                            default: nv = (o == 0 || o > v) ? v : o - 1; break;
                            }
                        } while (!__atomic_compare_exchange_n(q, &o, nv, 1, __ATOMIC_SEQ_CST, __ATOMIC_RELAXED));
                        break;
                    }
                    old = o;
                }
                if (in->op == OP_ATOM) D[l] = old;
            }
            break;
        }
        case OP_BRA: {
            int target = (int)in->imm;
            if (target <= w->pc && P->l->max_instructions && b->icount + icount > P->l->max_instructions) {
                fail(b, PTX_E_TRAP, "instruction limit reached at PTX line %d", in->line);
                return W_ERR;
            }
            if (m == w->active) {
                if (w->merge_pc == PC_NONE || target < w->merge_pc) { w->pc = target; goto next_ins; }
                diverge(w, m, target);
                goto next_ins;
            }
            if (m == 0) break;
            diverge(w, m, target);
            goto next_ins;
        }
        case OP_CALL: {
            if (!m) break;
            const struct ir_call *c = &M->calls[in->imm];
            const struct ir_func *g = &M->funcs[c->callee];
            if (g->builtin) {
                do_call_builtin(b, w, in, m, c);
                if (b->st != PTX_OK) return W_ERR;
                break;
            }
            unsigned fc = P->fparambase[in->fn], fg = P->fparambase[c->callee];
            LANES(m) {
                int l = L;
                unsigned tid = (unsigned)(w->id * 32 + l);
                unsigned char *fp = b->fparam + (size_t)tid * P->fstride;
                for (int i = 0; i < c->nargs; i++)
                    memmove(fp + fg + c->args[i].to, fp + fc + c->args[i].from, c->args[i].size);
                if (w->depth[l] >= MAXDEPTH) { fail(b, PTX_E_STACK, "call stack deeper than %d at PTX line %d", MAXDEPTH, in->line); return W_ERR; }
                w->rstack[l][w->depth[l]] = w->pc + 1;
                w->cstack[l][w->depth[l]] = (int)in->imm;
                w->depth[l]++;
            }
            if (m == w->active && w->merge_pc == PC_NONE) { w->pc = g->start; goto next_ins; }
            diverge(w, m, g->start);
            goto next_ins;
        }
        case OP_RET: {
            if (!m) break;
            int rpc = -1, same = 1;
            LANES(m) {
                int l = L;
                if (w->depth[l] == 0) { same = 0; w->lpc[l] = PC_NONE; w->live &= ~(1u << l); continue; }
                int d = --w->depth[l];
                const struct ir_call *c = &M->calls[w->cstack[l][d]];
                const struct ir_ins *ci = &code[w->rstack[l][d] - 1];
                unsigned tid = (unsigned)(w->id * 32 + l);
                unsigned char *fp = b->fparam + (size_t)tid * P->fstride;
                unsigned fc = P->fparambase[ci->fn], fg = P->fparambase[c->callee];
                for (int i = 0; i < c->nrets; i++)
                    memmove(fp + fc + c->rets[i].to, fp + fg + c->rets[i].from, c->rets[i].size);
                w->lpc[l] = w->rstack[l][d];
                if (rpc < 0) rpc = w->lpc[l];
                else if (rpc != w->lpc[l]) same = 0;
            }
            if (same && m == w->active && w->merge_pc == PC_NONE && rpc >= 0) { w->pc = rpc; goto next_ins; }
            for (uint32_t mm = w->active & ~m; mm; mm &= mm - 1) w->lpc[__builtin_ctz(mm)] = w->pc + 1;
            reschedule(w);
            goto next_ins;
        }
        case OP_EXIT:
            if (!m) break;
            w->live &= ~m;
            for (uint32_t mm = m; mm; mm &= mm - 1) w->lpc[__builtin_ctz(mm)] = PC_NONE;
            w->active &= ~m;
            if (!w->active) { reschedule(w); goto next_ins; }
            break;
        case OP_TRAP:
            if (!m) break;
            fail(b, PTX_E_TRAP, "trap at PTX line %d (block (%u,%u,%u))", in->line, b->ctaid[0], b->ctaid[1], b->ctaid[2]);
            return W_ERR;
        case OP_BAR:
        case OP_BAR_RED:
            if (in->op == OP_BAR_RED) {
                int cneg = (in->flags & F_ANEG) != 0;
                LANES(m) {
                    int l = L;
                    int v = (int)(C[l] & 1) ^ cneg;
                    b->red_popc += v;
                    b->red_and &= v;
                    b->red_or |= v;
                }
                w->red_d = D;
                w->red_mask |= m;
                w->red_pending = in->sub;
            }
            w->barred |= w->active;
            for (uint32_t mm = w->active; mm; mm &= mm - 1) w->lpc[__builtin_ctz(mm)] = w->pc + 1;
            reschedule(w);
            goto next_ins;
        case OP_SHFL: {
            uint64_t v[32];
            memcpy(v, A, sizeof v);
            uint64_t *D2 = in->d2 >= 0 ? R + (size_t)in->d2 * 32 : NULL;
            LANES(m) {
                int l = L;
                uint32_t bv = (uint32_t)B[l] & 31, cv = (uint32_t)C[l];
                uint32_t seg = (cv >> 8) & 31, cl = cv & 31;
                int maxl = (int)(((uint32_t)l & seg) | (cl & ~seg)), minl = (int)((uint32_t)l & seg);
                int j, ok;
                switch (in->sub) {
                case SH_UP: j = l - (int)bv; ok = j >= maxl; break;
                case SH_DOWN: j = l + (int)bv; ok = j <= maxl; break;
                case SH_BFLY: j = l ^ (int)bv; ok = j <= maxl; break;
                default: j = minl | (int)(bv & ~seg); ok = j <= maxl; break;
                }
                if (!ok || j < 0 || j > 31) j = l;
                D[l] = v[j] & 0xffffffffu;
                if (D2) D2[l] = (uint64_t)ok;
            }
            break;
        }
        case OP_VOTE: {
            int cneg = (in->flags & F_ANEG) != 0;
            uint32_t ballot = 0;
            LANES(m) { int l = L; ballot |= (uint32_t)((A[l] & 1) ^ (uint64_t)cneg) << l; }
            uint64_t r;
            switch (in->sub) {
            case VO_ALL: r = ballot == m; break;
            case VO_ANY: r = ballot != 0; break;
            case VO_UNI: r = ballot == 0 || ballot == m; break;
            default: r = ballot; break;
            }
            LANES(m) { int l = L; D[l] = r; }
            break;
        }
        case OP_ACTIVEMASK:
            LANES(m) { int l = L; D[l] = w->active; }
            break;
        case OP_UNSUPPORTED:
        case OP_FNS:
        case OP_VPRINTF:
        case OP_ASSERTFAIL:
        case OP_COUNT:
        default:
            fail(b, PTX_E_UNSUPPORTED, "unsupported instruction at PTX line %d", in->line);
            return W_ERR;
        }
        w->pc++;
    next_ins:
        ;
    }
    b->icount += icount;
    return rc;
}

/* vprintf and __assertfail */
static void do_call_builtin(struct blk *b, struct warp *w, const struct ir_ins *in, uint32_t m, const struct ir_call *c)
{
    struct plan *P = b->P;
    const struct ir_func *g = &P->m->funcs[c->callee];
    unsigned fc = P->fparambase[in->fn];
    LANES(m) {
        int l = L;
        unsigned tid = (unsigned)(w->id * 32 + l);
        unsigned char *fp = b->fparam + (size_t)tid * P->fstride + fc;
        uint64_t av[5] = { 0, 0, 0, 0, 0 };
        for (int i = 0; i < c->nargs && i < 5; i++)
            memcpy(&av[i], fp + c->args[i].from, c->args[i].size > 8 ? 8 : c->args[i].size);
        if (g->builtin == OP_VPRINTF) {
            const unsigned char *fmt = NULL, *args = NULL;
            size_t fl = read_dev(b, av[0], &fmt);
            size_t al = av[1] ? read_dev(b, av[1], &args) : 0;
            int32_t count = -1;
            if (fmt) {
                char buf[2048];
                size_t n = ptx_format((const char *)fmt, fl, args, al, buf, sizeof buf, read_dev, b);
                if (n > sizeof buf) n = sizeof buf;
                if (P->l->host.print) P->l->host.print(P->l->host.cookie, buf, n);
                count = (int32_t)n;
            }
            for (int i = 0; i < c->nrets; i++)
                memcpy(fp + c->rets[i].to, &count, c->rets[i].size < 4 ? c->rets[i].size : 4);
        } else {
            const unsigned char *msg = NULL, *file = NULL, *fn = NULL;
            size_t ml = read_dev(b, av[0], &msg), fl = read_dev(b, av[1], &file), nl = read_dev(b, av[3], &fn);
            unsigned x = tid % P->l->block[0], y = tid / P->l->block[0] % P->l->block[1], z = tid / (P->l->block[0] * P->l->block[1]);
            fail(b, PTX_E_ASSERT, "%.*s:%u: %.*s: block: [%u,%u,%u], thread: [%u,%u,%u] Assertion `%.*s` failed.",
                 file ? (int)strnlen((const char *)file, fl) : 1, file ? (const char *)file : "?", (unsigned)av[2],
                 fn ? (int)strnlen((const char *)fn, nl) : 1, fn ? (const char *)fn : "?",
                 b->ctaid[0], b->ctaid[1], b->ctaid[2], x, y, z,
                 msg ? (int)strnlen((const char *)msg, ml) : 1, msg ? (const char *)msg : "?");
            return;
        }
    }
}

/* ---- blocks ------------------------------------------------------------------ */
static void fill_consts(struct blk *b, struct warp *w, int sregs_only)
{
    struct plan *P = b->P;
    const struct ptx_module *M = P->m;
    const struct ptx_launch *Lp = P->l;
    for (int f = 0; f < M->nfuncs; f++) {
        if (P->slotbase[f] < 0) continue;
        const struct ir_func *fn = &M->funcs[f];
        uint64_t *R = w->R0 + (size_t)P->slotbase[f] * 32;
        for (int k = fn->cstart; k < fn->cend; k++) {
            const struct ir_const *c = &M->consts[k];
            uint64_t *S = R + (size_t)c->slot * 32;
            if (c->kind == K_SREG) {
                for (int l = 0; l < 32; l++) {
                    unsigned tid = (unsigned)(w->id * 32 + l);
                    uint64_t v;
                    switch (c->val) {
                    case S_TID_X: v = tid % Lp->block[0]; break;
                    case S_TID_Y: v = tid / Lp->block[0] % Lp->block[1]; break;
                    case S_TID_Z: v = tid / (Lp->block[0] * Lp->block[1]); break;
                    case S_NTID_X: v = Lp->block[0]; break;
                    case S_NTID_Y: v = Lp->block[1]; break;
                    case S_NTID_Z: v = Lp->block[2]; break;
                    case S_CTAID_X: v = b->ctaid[0]; break;
                    case S_CTAID_Y: v = b->ctaid[1]; break;
                    case S_CTAID_Z: v = b->ctaid[2]; break;
                    case S_NCTAID_X: v = Lp->grid[0]; break;
                    case S_NCTAID_Y: v = Lp->grid[1]; break;
                    case S_NCTAID_Z: v = Lp->grid[2]; break;
                    case S_LANEID: v = (uint64_t)l; break;
                    case S_WARPID: v = (uint64_t)w->id; break;
                    case S_NWARPID: v = P->nwarps; break;
                    case S_SMID: v = (uint64_t)(b->ctaid[0] % (Lp->smcount ? Lp->smcount : 1)); break;
                    case S_NSMID: v = Lp->smcount ? Lp->smcount : 1; break;
                    case S_GRIDID: v = 1; break;
                    case S_LANEMASK_EQ: v = 1u << l; break;
                    case S_LANEMASK_LE: v = (uint32_t)((2ull << l) - 1); break;
                    case S_LANEMASK_LT: v = (1u << l) - 1; break;
                    case S_LANEMASK_GE: v = ~((1u << l) - 1); break;
                    case S_LANEMASK_GT: v = (uint32_t)~((2ull << l) - 1); break;
                    case S_DYN_SMEM: v = Lp->dyn_shared; break;
                    default: v = P->shsize; break;
                    }
                    S[l] = v;
                }
                continue;
            }
            if (sregs_only) continue;
            uint64_t v;
            switch (c->kind) {
            case K_GLOBAL: v = Lp->gaddr && (c->val & 0xffffff) < M->nglobals ? Lp->gaddr[c->val & 0xffffff] + (uint64_t)(c->val >> 24) : 0; break;
            case K_SHARED: v = c->val >= 0 ? (uint64_t)c->val : P->static_shared + (uint64_t)(-1 - c->val); break;
            case K_LOCAL: v = P->localbase[f] + (uint64_t)c->val; break;
            case K_FPARAM: v = P->fparambase[f] + (uint64_t)c->val; break;
            default: v = (uint64_t)c->val; break; /* K_IMM, K_PARAM */
            }
            for (int l = 0; l < 32; l++) S[l] = v;
        }
    }
}

static void run_block(struct blk *b, uint64_t lin)
{
    struct plan *P = b->P;
    const struct ptx_launch *Lp = P->l;
    b->ctaid[0] = (unsigned)(lin % Lp->grid[0]);
    b->ctaid[1] = (unsigned)(lin / Lp->grid[0] % Lp->grid[1]);
    b->ctaid[2] = (unsigned)(lin / ((uint64_t)Lp->grid[0] * Lp->grid[1]));
    memset(b->shared, 0, P->shsize);
    int start = P->m->funcs[P->entry].start;
    for (unsigned i = 0; i < P->nwarps; i++) {
        struct warp *w = &b->warps[i];
        unsigned left = P->nthreads - i * 32;
        w->live = left >= 32 ? 0xffffffffu : (1u << left) - 1;
        w->barred = 0;
        for (int l = 0; l < 32; l++) { w->lpc[l] = start; w->depth[l] = 0; }
        w->red_pending = -1;
        w->red_mask = 0;
        reschedule(w);
        fill_consts(b, w, 1);
    }
    b->red_popc = 0; b->red_and = 1; b->red_or = 0;
    for (;;) {
        int waiting = 0;
        for (unsigned i = 0; i < P->nwarps; i++) {
            struct warp *w = &b->warps[i];
            if (w->active && warp_run(b, w) == W_ERR) return;
            if (w->barred & w->live) waiting = 1;
        }
        if (!waiting) return;
        int popc = b->red_popc, band = b->red_and, bor = b->red_or;
        for (unsigned i = 0; i < P->nwarps; i++) { /* the barrier opens */
            struct warp *w = &b->warps[i];
            if (w->red_pending >= 0) {
                uint64_t v = w->red_pending == 0 ? (uint64_t)popc : w->red_pending == 1 ? (uint64_t)band : (uint64_t)bor;
                for (uint32_t mm = w->red_mask; mm; mm &= mm - 1) w->red_d[__builtin_ctz(mm)] = v;
                w->red_pending = -1;
                w->red_mask = 0;
            }
            w->barred = 0;
            reschedule(w);
        }
        b->red_popc = 0; b->red_and = 1; b->red_or = 0;
    }
}

static void *worker(void *arg)
{
    struct blk *b = arg;
    struct plan *P = b->P;
    for (unsigned i = 0; i < P->nwarps; i++) fill_consts(b, &b->warps[i], 0);
    while (!atomic_load_explicit(&P->stop, memory_order_relaxed)) {
        uint64_t k = atomic_fetch_add(&P->next_block, 1);
        if (k >= P->nblocks) break;
        run_block(b, k);
        if (b->st != PTX_OK) break;
    }
    atomic_fetch_add(&total_ins, b->icount);
    return NULL;
}

static void blk_free(struct blk *b)
{
    free(b->shared);
    free(b->local);
    free(b->fparam);
    free(b->warps);
    free(b->regs);
}

static int blk_init(struct blk *b, struct plan *P)
{
    memset(b, 0, sizeof *b);
    b->P = P;
    b->shared = calloc(1, P->shsize ? P->shsize : 1);
    b->local = calloc(P->nthreads, P->lstride ? P->lstride : 1);
    b->fparam = calloc(P->nthreads, P->fstride ? P->fstride : 1);
    b->warps = calloc(P->nwarps, sizeof *b->warps);
    b->regs = calloc((size_t)P->nwarps * (size_t)(P->nslots ? P->nslots : 1) * 32, sizeof *b->regs);
    if (!b->shared || !b->local || !b->fparam || !b->warps || !b->regs) {
        blk_free(b);
        return -1;
    }
    for (unsigned i = 0; i < P->nwarps; i++) {
        b->warps[i].R0 = b->regs + (size_t)i * (size_t)P->nslots * 32;
        b->warps[i].id = (int)i;
    }
    for (int i = 0; i < NCACHE; i++) b->clo[i] = b->chi[i] = 0;
    return 0;
}

/* functions reachable from f get frames */
static void layout(struct plan *P, int f)
{
    const struct ptx_module *M = P->m;
    if (P->slotbase[f] >= 0) return;
    const struct ir_func *fn = &M->funcs[f];
    P->slotbase[f] = P->nslots;
    P->nslots += fn->nslots;
    P->localbase[f] = P->lstride;
    P->lstride += (fn->local_bytes + 15) & ~15u;
    P->fparambase[f] = P->fstride;
    P->fstride += fn->builtin ? 64 : (fn->fparam_bytes + 15) & ~15u;
    if (fn->builtin) return;
    for (int k = fn->start; k < fn->end; k++)
        if (M->ins[k].op == OP_CALL) layout(P, M->calls[M->ins[k].imm].callee);
}

enum ptx_status ptx_run(const struct ptx_module *m, int entry, const struct ptx_launch *l, char *err, size_t errlen)
{
    char dummy[8];
    if (!err || !errlen) { err = dummy; errlen = sizeof dummy; }
    err[0] = 0;
    if (ptx_entry_check(m, entry, err, errlen)) return PTX_E_UNSUPPORTED;
    struct plan P;
    memset(&P, 0, sizeof P);
    P.m = m;
    P.l = l;
    P.entry = entry;
    P.err = err;
    P.errlen = errlen;
    P.status = PTX_OK;
    pthread_mutex_init(&P.lock, NULL);
    P.slotbase = malloc(sizeof *P.slotbase * (size_t)m->nfuncs);
    P.localbase = calloc((size_t)m->nfuncs, sizeof *P.localbase);
    P.fparambase = calloc((size_t)m->nfuncs, sizeof *P.fparambase);
    enum ptx_status st = PTX_OK;
    if (!P.slotbase || !P.localbase || !P.fparambase) { st = PTX_E_NOMEM; snprintf(err, errlen, "out of memory"); goto out; }
    for (int i = 0; i < m->nfuncs; i++) P.slotbase[i] = -1;
    layout(&P, entry);
    P.static_shared = (m->shared_bytes + 15) & ~15u;
    P.shsize = P.static_shared + l->dyn_shared;
    P.nthreads = l->block[0] * l->block[1] * l->block[2];
    P.nwarps = (P.nthreads + 31) / 32;
    P.nblocks = (uint64_t)l->grid[0] * l->grid[1] * l->grid[2];
    if (l->param_bytes < m->funcs[entry].param_bytes) { st = PTX_E_TRAP; snprintf(err, errlen, "parameter buffer too small"); goto out; }
    long ncpu = l->nthreads > 0 ? l->nthreads : sysconf(_SC_NPROCESSORS_ONLN);
    if (ncpu < 1) ncpu = 1;
    if (ncpu > 64) ncpu = 64;
    if ((uint64_t)ncpu > P.nblocks) ncpu = (long)P.nblocks;
    struct blk *bs = calloc((size_t)ncpu, sizeof *bs);
    pthread_t th[64];
    if (!bs) { st = PTX_E_NOMEM; snprintf(err, errlen, "out of memory"); goto out; }
    int nb = 0;
    for (; nb < ncpu; nb++)
        if (blk_init(&bs[nb], &P)) break;
    if (nb == 0) { free(bs); st = PTX_E_NOMEM; snprintf(err, errlen, "out of memory for %u threads per block", P.nthreads); goto out; }
    int nth = 0;
    for (int i = 1; i < nb; i++, nth++)
        if (pthread_create(&th[i - 1], NULL, worker, &bs[i])) break;
    worker(&bs[0]);
    for (int i = 0; i < nth; i++) pthread_join(th[i], NULL);
    for (int i = 0; i < nb; i++) blk_free(&bs[i]);
    free(bs);
    st = P.status;
out:
    free(P.slotbase);
    free(P.localbase);
    free(P.fparambase);
    pthread_mutex_destroy(&P.lock);
    return st;
}
