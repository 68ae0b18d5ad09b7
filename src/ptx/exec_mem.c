/* SPDX-License-Identifier: Apache-2.0 */
/* The executor's memory: state spaces and the host addresses behind them,
 * the validity check of every access, loads, stores, cvta and atomics. */
#include "exec.h"

#include <stdio.h>

/* ---- memory ------------------------------------------------------------- */
/* the host's map, for an address the cache does not hold */
static __attribute__((noinline)) int global_lookup(struct blk *b, uint64_t a, unsigned n)
{
    const struct ptx_host *h = &b->P->l->host;
    uint64_t lo, hi;
    if (!h->lookup || h->lookup(h->cookie, a, &lo, &hi) || a + n > hi || a + n < a) return 0;
    b->clo[b->cnext] = lo;
    b->chi[b->cnext] = hi;
    b->cnext = (b->cnext + 1) % NCACHE;
    return 1;
}

/* is [a, a+n) in one allocation? the last ones found, then the host's map */
static inline int global_ok(struct blk *b, uint64_t a, unsigned n)
{
    for (int i = 0; i < NCACHE; i++)
        if (a >= b->clo[i] && a + n <= b->chi[i] && a + n >= a) return 1;
    return global_lookup(b, a, n);
}

/* host pointer for a generic/global address, or NULL */
static inline unsigned char *gen_ptr(struct blk *b, uint64_t a, unsigned n)
{
    struct plan *P = b->P;
    for (int i = 0; i < NCACHE; i++)
        if (a >= b->clo[i] && a + n <= b->chi[i] && a + n >= a) return (unsigned char *)(uintptr_t)a;
    uintptr_t sh = (uintptr_t)b->shared, lo = (uintptr_t)b->local, fp = (uintptr_t)b->fparam;
    if (a >= sh && a + n <= sh + P->shsize) return (unsigned char *)(uintptr_t)a;
    if (P->csize > 1 && ex_cluster_gen(b, a, n)) return (unsigned char *)(uintptr_t)a;
    if (a >= lo && a + n <= lo + (uint64_t)P->lstride * P->nthreads) return (unsigned char *)(uintptr_t)a;
    if (a >= fp && a + n <= fp + (uint64_t)P->fstride * P->nthreads) return (unsigned char *)(uintptr_t)a;
    uintptr_t pb = (uintptr_t)P->l->params;
    if (pb && a >= pb && a + n <= pb + P->l->param_bytes) return (unsigned char *)(uintptr_t)a;
    return global_lookup(b, a, n) ? (unsigned char *)(uintptr_t)a : NULL;
}

size_t ex_read_dev(void *ctx, uint64_t addr, const unsigned char **p)
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
    case SP_CLUSTER:
        return ex_cluster_ptr(b, a, n);
    case SP_LOCAL:
        return a + n <= P->lstride && a + n >= a ? b->local + (size_t)tid * P->lstride + a : NULL;
    case SP_FPARAM:
        return a + n <= P->fstride && a + n >= a ? b->fparam + (size_t)tid * P->fstride + a : NULL;
    case SP_PARAM:
        if (a + n <= P->l->param_bytes && a + n >= a) return (unsigned char *)P->l->params + a;
        return gen_ptr(b, a, n); /* a generic pointer into the buffer */
    case SP_GLOBAL:
        return global_ok(b, a, n) ? (unsigned char *)(uintptr_t)a : NULL;
    default:
        return gen_ptr(b, a, n);
    }
}

unsigned char *ex_addr(struct blk *b, int space, uint64_t a, unsigned n, unsigned tid)
{
    return addr_of(b, space, a, n, tid);
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

void ex_mem_fault(struct blk *b, const struct warp *w, int lane, const struct ir_ins *in, uint64_t a,
                  unsigned n, int misaligned)
{
    int mk = in->op == OP_MMA ? b->P->m->mmas[in->e].kind : -1;
    enum ptx_access acc = in->op == OP_LD || mk == MX_LDMATRIX || mk == MX_WMMA_LOAD ? PTX_ACCESS_READ
                        : in->op == OP_ST || mk == MX_STMATRIX || mk == MX_WMMA_STORE ? PTX_ACCESS_WRITE
                        : PTX_ACCESS_ATOMIC;
    struct ex_site at = { w, lane, in, acc, in->space, a, n, 0 };
    ex_failv(b, &at, misaligned ? PTX_E_MISALIGNED : PTX_E_ADDRESS, "%s %s %s of %u bytes at address 0x%llx",
             misaligned ? "misaligned" : "illegal", ex_space_name(in->space),
             acc == PTX_ACCESS_READ ? "read" : acc == PTX_ACCESS_WRITE ? "write" : "atomic", n, (unsigned long long)a);
}

/* a + b in f16 or bf16 (t may be the pair type), rounded to nearest: the
 * sum in f32 is rounded once more, which is exact enough (24 bits hold 2 *
 * 11 + 2) */
static uint16_t half_add(uint16_t a, uint16_t b, int t)
{
    int bf = t == T_BF16 || t == T_BF16X2;
    float x = bf ? ptx_bf16_to_f32(a) : ptx_f16_to_f32(a), y = bf ? ptx_bf16_to_f32(b) : ptx_f16_to_f32(b);
    return bf ? ptx_f32_to_bf16(x + y, RND_RN) : ptx_f32_to_f16(x + y, RND_RN);
}

/* ---- loads and stores of 4 and 8 bytes in one space: the common case ---- */
#define LDST(name, N, sgn, load, PTR)                                                         \
    static int name(struct blk *b, struct warp *w, const struct ir_ins *in, uint32_t m, uint64_t *R) \
    {                                                                                        \
        const uint64_t *A = R + (size_t)in->a * 32;                                          \
        const unsigned n = (N);                                                              \
        uint64_t *V = R + (size_t)in->vr[0] * 32;                                            \
        (void)w;                                                                             \
        LANES(m) {                                                                           \
            int l = L;                                                                       \
            uint64_t a = A[l] + (uint64_t)in->imm;                                           \
            unsigned char *p;                                                                \
            if (a % (n)) { ex_mem_fault(b, w, l, in, a, n, 1); return -1; }                  \
            if (!(p = (PTR))) { ex_mem_fault(b, w, l, in, a, n, 0); return -1; }             \
            if (load) {                                                                      \
                if (n == 4) V[l] = sgn ? (uint64_t)(int64_t)(int32_t)__atomic_load_n((uint32_t *)(void *)p, __ATOMIC_RELAXED) \
                                         : __atomic_load_n((uint32_t *)(void *)p, __ATOMIC_RELAXED); \
                else V[l] = __atomic_load_n((uint64_t *)(void *)p, __ATOMIC_RELAXED);        \
            } else {                                                                         \
                if (n == 4) __atomic_store_n((uint32_t *)(void *)p, (uint32_t)V[l], __ATOMIC_RELAXED); \
                else __atomic_store_n((uint64_t *)(void *)p, V[l], __ATOMIC_RELAXED);        \
            }                                                                                \
        }                                                                                    \
        return 0;                                                                            \
    }
#define GPTR (global_ok(b, a, n) ? (unsigned char *)(uintptr_t)a : NULL)
#define SPTR (a + n <= b->P->shsize && a + n >= a ? b->shared + a : NULL)
#define XPTR gen_ptr(b, a, n)
#define KPTR (a + n <= b->P->l->param_bytes && a + n >= a ? (unsigned char *)b->P->l->params + a : gen_ptr(b, a, n))
LDST(ld_g4, 4, 0, 1, GPTR) LDST(ld_g4s, 4, 1, 1, GPTR) LDST(ld_g8, 8, 0, 1, GPTR)
LDST(st_g4, 4, 0, 0, GPTR) LDST(st_g8, 8, 0, 0, GPTR)
LDST(ld_s4, 4, 0, 1, SPTR) LDST(ld_s4s, 4, 1, 1, SPTR) LDST(ld_s8, 8, 0, 1, SPTR)
LDST(st_s4, 4, 0, 0, SPTR) LDST(st_s8, 8, 0, 0, SPTR)
LDST(ld_x4, 4, 0, 1, XPTR) LDST(ld_x4s, 4, 1, 1, XPTR) LDST(ld_x8, 8, 0, 1, XPTR)
LDST(st_x4, 4, 0, 0, XPTR) LDST(st_x8, 8, 0, 0, XPTR)
LDST(ld_k4, 4, 0, 1, KPTR) LDST(ld_k4s, 4, 1, 1, KPTR) LDST(ld_k8, 8, 0, 1, KPTR)

static int ex_mem(struct blk *b, struct warp *w, const struct ir_ins *in, uint32_t m, uint64_t *R)
{
    struct plan *P = b->P;
    uint64_t *D = in->d >= 0 ? R + (size_t)in->d * 32 : b->sink;
    const uint64_t *A = in->a >= 0 ? R + (size_t)in->a * 32 : b->sink;
    const uint64_t *B = in->b >= 0 ? R + (size_t)in->b * 32 : b->sink;
    const uint64_t *C = in->c >= 0 ? R + (size_t)in->c * 32 : b->sink;
    int t = in->type;
    (void)P; (void)D; (void)A; (void)B; (void)C; (void)t; (void)w;
    switch (in->op) {
    case OP_LD:
    case OP_ST: {
        unsigned n = ir_type_size(t);
        unsigned tot = n * in->vec;
        int sp = in->space;
        LANES(m) {
            int l = L;
            uint64_t a = A[l] + (uint64_t)in->imm;
            if (a % tot) { ex_mem_fault(b, w, l, in, a, tot, 1); return -1; }
            unsigned char *p = addr_of(b, sp, a, tot, (unsigned)(w->id * 32 + l));
            if (!p) { ex_mem_fault(b, w, l, in, a, tot, 0); return -1; }
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
            if (in->space == SP_CLUSTER) { /* another block's window: no one base */
                const struct blk *o = to ? ex_cluster_gen(b, a, 1) : NULL;
                unsigned char *hp = to ? NULL : ex_cluster_ptr(b, a, 1);
                uint64_t r = to ? (o ? ((uint64_t)o->crank + 1) << CLUSTER_SHIFT | (a - (uintptr_t)o->shared) : 0)
                                : (hp ? (uint64_t)(uintptr_t)hp : 0);
                D[l] = ir_type_size(t) == 4 ? r & 0xffffffffu : r;
                continue;
            }
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
    case OP_ATOM:
    case OP_RED: {
        unsigned n = ir_type_size(t);
        int sg = ir_type_signed(t);
        LANES(m) {
            int l = L;
            uint64_t a = A[l] + (uint64_t)in->imm;
            if (a % n) { ex_mem_fault(b, w, l, in, a, n, 1); return -1; }
            unsigned char *p = addr_of(b, in->space, a, n, (unsigned)(w->id * 32 + l));
            if (!p) { ex_mem_fault(b, w, l, in, a, n, 0); return -1; }
            uint64_t v = B[l], old;
            if (n == 2) { /* cas.b16; add.noftz.f16, .bf16 */
                uint16_t *q = (uint16_t *)(void *)p, o = __atomic_load_n(q, __ATOMIC_RELAXED), nv;
                if (in->sub == AT_CAS) { /* o: the old value, whether it matched or not */
                    o = (uint16_t)v;
                    __atomic_compare_exchange_n(q, &o, (uint16_t)C[l], 0, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);
                } else
                    do { nv = half_add(o, (uint16_t)v, t); } while (!__atomic_compare_exchange_n(q, &o, nv, 1, __ATOMIC_SEQ_CST, __ATOMIC_RELAXED));
                old = o;
            } else if (n == 4 && (t == T_F16X2 || t == T_BF16X2)) { /* add.noftz of half pairs */
                uint32_t *q = (uint32_t *)(void *)p, o = __atomic_load_n(q, __ATOMIC_RELAXED), nv;
                do {
                    nv = (uint32_t)half_add((uint16_t)o, (uint16_t)v, t) | (uint32_t)half_add((uint16_t)(o >> 16), (uint16_t)(v >> 16), t) << 16;
                } while (!__atomic_compare_exchange_n(q, &o, nv, 1, __ATOMIC_SEQ_CST, __ATOMIC_RELAXED));
                old = o;
            } else if (n == 4) {
                uint32_t *q = (uint32_t *)(void *)p, o = __atomic_load_n(q, __ATOMIC_RELAXED), nv;
                switch (in->sub) {
                case AT_ADD:
                    if (t == T_F32) {
                        /* on global memory subnormal inputs and results flush to
                         * sign-preserving zero (PTX ISA, atom and red); on shared
                         * memory they do not */
                        int ftz = in->space == SP_GLOBAL || (in->space == SP_GENERIC && global_ok(b, a, n));
                        do {
                            nv = ftz ? (uint32_t)UF32(ftz32(ftz32(F32(o)) + ftz32(F32(v)))) : (uint32_t)UF32(F32(o) + F32(v));
                        } while (!__atomic_compare_exchange_n(q, &o, nv, 1, __ATOMIC_SEQ_CST, __ATOMIC_RELAXED));
                    }
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
                default: /* min, max, inc, dec */
                    do { nv = (uint32_t)ex_atom_int(in->sub, sg, 4, o, v); } while (!__atomic_compare_exchange_n(q, &o, nv, 1, __ATOMIC_SEQ_CST, __ATOMIC_RELAXED));
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
                default: /* min, max, inc, dec */
                    do { nv = ex_atom_int(in->sub, sg, 8, o, v); } while (!__atomic_compare_exchange_n(q, &o, nv, 1, __ATOMIC_SEQ_CST, __ATOMIC_RELAXED));
                    break;
                }
                old = o;
            }
            if (in->op == OP_ATOM) D[l] = old;
        }
        break;
    }
    default:
        ex_fail_at(b, w, __builtin_ctz(m | 0x80000000u), in, PTX_E_UNSUPPORTED, "unsupported instruction");
        return -1;
    }
    return 0;
}

/* ---- cp.async: the copy is made at once (a valid schedule of it), so
 * commit_group and wait_group have nothing to wait for ------------------- */
static int cp_async(struct blk *b, struct warp *w, const struct ir_ins *in, uint32_t m, uint64_t *R)
{
    const uint64_t *A = R + (size_t)in->a * 32, *B = R + (size_t)in->b * 32, *C = R + (size_t)in->c * 32;
    const uint64_t *E = in->e >= 0 ? R + (size_t)in->e * 32 : NULL;
    unsigned n = in->sub2;
    LANES(m) {
        int l = L;
        uint64_t d = A[l] + (uint64_t)in->imm, s = B[l] + C[l];
        unsigned take = n;
        if (E) /* ignore-src (a predicate): zeros; src-size: that many bytes, then zeros */
            take = (in->flags & F_HI) ? (((E[l] & 1) ^ ((in->flags & F_ANEG) != 0)) ? 0 : n) : (uint32_t)E[l] < n ? (uint32_t)E[l] : n;
        if (d % n) { ex_mem_fault(b, w, l, in, d, n, 1); return -1; }
        unsigned char *dp = addr_of(b, SP_SHARED, d, n, 0);
        if (!dp) { ex_mem_fault(b, w, l, in, d, n, 0); return -1; }
        unsigned char buf[16] = { 0 };
        if (take) {
            if (s % n) { ex_mem_fault(b, w, l, &(struct ir_ins){ .op = OP_LD, .space = SP_GLOBAL, .line = in->line, .name = in->name, .fn = in->fn }, s, n, 1); return -1; }
            const unsigned char *sp = global_ok(b, s, take) ? (const unsigned char *)(uintptr_t)s : NULL;
            if (!sp) { ex_mem_fault(b, w, l, &(struct ir_ins){ .op = OP_LD, .space = SP_GLOBAL, .line = in->line, .name = in->name, .fn = in->fn }, s, take, 0); return -1; }
            memcpy(buf, sp, take);
        }
        memcpy(dp, buf, n);
    }
    return 0;
}

/* ---- mbarrier: the 64-bit object holds pending arrivals (bits 0-19),
 * expected arrivals (20-39), the signed tx-count (40-61) and the phase
 * (63). A phase completes when no arrival is pending and the tx-count is
 * 0: the phase flips and the counts start again (PTX ISA, "mbarrier"). --- */
#define MB_PEND(v) ((v) & 0xfffffu)
#define MB_EXP(v) (((v) >> 20) & 0xfffffu)
#define MB_TX(v) ((int64_t)((v) << 2) >> 42)
#define MB_PHASE(v) ((v) >> 63)
static inline uint64_t mb_make(uint64_t pend, uint64_t exp, int64_t tx, uint64_t phase)
{
    return (pend & 0xfffff) | (exp & 0xfffff) << 20 | ((uint64_t)tx & 0x3fffff) << 40 | phase << 63;
}
/* the phase completes if it can */
static inline uint64_t mb_settle(uint64_t v)
{
    if (MB_PEND(v) == 0 && MB_TX(v) == 0) return mb_make(MB_EXP(v), MB_EXP(v), 0, MB_PHASE(v) ^ 1);
    return v;
}

int ex_mbar_tx(struct blk *b, struct warp *w, int l, const struct ir_ins *in, uint64_t ma, uint32_t n)
{
    unsigned tid = (unsigned)(w->id * 32 + l);
    return ex_mbar_tx_at(b, w, l, in, ma % 8 ? NULL : (uint64_t *)(void *)addr_of(b, SP_SHARED, ma, 8, tid), ma, n);
}

int ex_mbar_tx_at(struct blk *b, struct warp *w, int l, const struct ir_ins *in, uint64_t *q, uint64_t ma, uint32_t n)
{
    if (!q) {
        struct ir_ins wr = { .op = OP_ST, .space = SP_SHARED, .line = in->line, .name = in->name, .fn = in->fn };
        ex_mem_fault(b, w, l, &wr, ma, 8, ma % 8 != 0);
        return -1;
    }
    uint64_t o = __atomic_load_n(q, __ATOMIC_ACQUIRE), nv;
    do {
        int64_t tx = MB_TX(o) - (int64_t)n;
        if (tx < -0xfffff) {
            ex_fail_at(b, w, l, in, PTX_E_SYNC, "%s: the mbarrier's tx-count %lld is out of range", ex_name(b, in), (long long)tx);
            return -1;
        }
        nv = mb_settle(mb_make(MB_PEND(o), MB_EXP(o), tx, MB_PHASE(o)));
    } while (!__atomic_compare_exchange_n(q, &o, nv, 1, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE));
    return 0;
}

/* cp.async.bulk: the copy at once (size a multiple of 16, both addresses
 * 16-aligned), then complete_tx of size bytes on the mbarrier (to shared
 * memory); to global memory the bulk_group's wait is a no-op */
static int cp_bulk(struct blk *b, struct warp *w, const struct ir_ins *in, uint32_t m, uint64_t *R)
{
    const uint64_t *A = R + (size_t)in->a * 32, *B = R + (size_t)in->b * 32, *C = R + (size_t)in->c * 32;
    const uint64_t *E = R + (size_t)in->e * 32;
    int to_global = in->sub == CP_BULK_S2G, from_global = in->sub == CP_BULK_G2S;
    LANES(m) {
        int l = L;
        unsigned tid = (unsigned)(w->id * 32 + l);
        uint64_t d = A[l] + (uint64_t)in->imm, s = B[l] + C[l];
        uint32_t n = (uint32_t)E[l];
        struct ir_ins rd = { .op = OP_LD, .space = (uint8_t)(from_global ? SP_GLOBAL : SP_SHARED), .line = in->line, .name = in->name, .fn = in->fn };
        struct ir_ins wr = { .op = OP_ST, .space = (uint8_t)(to_global ? SP_GLOBAL : SP_SHARED), .line = in->line, .name = in->name, .fn = in->fn };
        if (n % 16 || d % 16 || s % 16) {
            ex_fail_at(b, w, l, in, PTX_E_MISALIGNED, "%s: size %u and addresses 0x%llx, 0x%llx must be multiples of 16",
                       ex_name(b, in), n, (unsigned long long)d, (unsigned long long)s);
            return -1;
        }
        if (!n) continue;
        const unsigned char *sp = from_global ? (global_ok(b, s, n) ? (const unsigned char *)(uintptr_t)s : NULL)
                                              : addr_of(b, SP_SHARED, s, n, tid);
        if (!sp) { ex_mem_fault(b, w, l, &rd, s, n, 0); return -1; }
        unsigned char *dp = to_global ? (global_ok(b, d, n) ? (unsigned char *)(uintptr_t)d : NULL) : addr_of(b, SP_SHARED, d, n, tid);
        if (!dp) { ex_mem_fault(b, w, l, &wr, d, n, 0); return -1; }
        memmove(dp, sp, n);
        if (to_global) continue;
        if (ex_mbar_tx(b, w, l, in, R[(size_t)in->vr[0] * 32 + l] + R[(size_t)in->vr[1] * 32 + l], n))
            return -1;
    }
    return 0;
}

static int mbarrier(struct blk *b, struct warp *w, const struct ir_ins *in, uint32_t m, uint64_t *R)
{
    uint64_t *D = in->d >= 0 ? R + (size_t)in->d * 32 : b->sink;
    const uint64_t *A = R + (size_t)in->a * 32;
    const uint64_t *B = in->b >= 0 ? R + (size_t)in->b * 32 : NULL;
    LANES(m) {
        int l = L;
        if (in->sub == MB_PENDING) { /* from a state */
            D[l] = MB_PEND(B[l]);
            continue;
        }
        uint64_t a = A[l] + (uint64_t)in->imm;
        if (a % 8) { ex_mem_fault(b, w, l, in, a, 8, 1); return -1; }
        uint64_t *q = (uint64_t *)(void *)addr_of(b, in->space, a, 8, (unsigned)(w->id * 32 + l));
        if (!q) { ex_mem_fault(b, w, l, in, a, 8, 0); return -1; }
        uint64_t cnt = B ? B[l] & 0xffffffffu : 1, o = __atomic_load_n(q, __ATOMIC_ACQUIRE), nv;
        switch (in->sub) {
        case MB_INIT:
            if (cnt < 1 || cnt > 0xfffff) {
                ex_fail_at(b, w, l, in, PTX_E_SYNC, "mbarrier.init: count %llu is outside 1 to 2^20-1", (unsigned long long)cnt);
                return -1;
            }
            __atomic_store_n(q, mb_make(cnt, cnt, 0, 0), __ATOMIC_RELEASE);
            break;
        case MB_INVAL:
            __atomic_store_n(q, 0, __ATOMIC_RELEASE);
            break;
        case MB_ARRIVE: case MB_ARRIVE_DROP: case MB_CPASYNC_ARRIVE: case MB_EXPECT_TX: case MB_COMPLETE_TX: {
            uint64_t state = 0;
            do {
                uint64_t pend = MB_PEND(o), exp = MB_EXP(o);
                int64_t tx = MB_TX(o);
                uint64_t arrivals = in->sub == MB_EXPECT_TX || in->sub == MB_COMPLETE_TX ? 0
                                  : (in->sub2 & MB_WITH_TX) ? 1 : in->sub == MB_CPASYNC_ARRIVE ? ((in->sub2 & MB_NOINC) ? 1 : 0) : cnt;
                if (in->sub == MB_EXPECT_TX || (in->sub2 & MB_WITH_TX)) tx += (int64_t)cnt;
                if (in->sub == MB_COMPLETE_TX) tx -= (int64_t)cnt;
                if (arrivals > pend || tx > 0xfffff || tx < -0xfffff) {
                    ex_fail_at(b, w, l, in, PTX_E_SYNC, "%s: %llu arrivals with %llu pending, or tx-count %lld out of range",
                               ex_name(b, in), (unsigned long long)arrivals, (unsigned long long)pend, (long long)tx);
                    return -1;
                }
                pend -= arrivals;
                if (in->sub == MB_ARRIVE_DROP) exp -= arrivals;
                state = mb_make(pend, exp, tx, MB_PHASE(o)); /* the phase arrived at */
                nv = (in->sub2 & MB_NOCOMPLETE) ? state : mb_settle(state);
            } while (!__atomic_compare_exchange_n(q, &o, nv, 1, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE));
            D[l] = state;
            break;
        }
        case MB_TEST_WAIT: case MB_TRY_WAIT: { /* state: that phase done; .parity: the phase of that parity done */
            uint64_t phase = (in->sub2 & MB_PARITY) ? (B[l] & 1) : MB_PHASE(B[l]);
            int done = MB_PHASE(o) != phase;
            D[l] = (uint64_t)done;
            if (!done && in->sub == MB_TRY_WAIT) b->yield = 1; /* others' turn */
            break;
        }
        default:
            break;
        }
    }
    return 0;
}

/* isspacep: is the generic address in that space's window (the thread's
 * own for .local; any block's of the cluster for .shared::cluster)? */
static int isspacep(struct blk *b, struct warp *w, const struct ir_ins *in, uint32_t m, uint64_t *R)
{
    const struct plan *P = b->P;
    const uint64_t *A = R + (size_t)in->a * 32;
    uint64_t *D = R + (size_t)in->d * 32;
    LANES(m) {
        int l = L;
        uint64_t a = A[l];
        uintptr_t sh = (uintptr_t)b->shared, pb = (uintptr_t)P->l->params;
        uintptr_t lo = (uintptr_t)b->local + (uintptr_t)(w->id * 32 + l) * P->lstride;
        int in_space;
        switch (in->space) {
        case SP_GLOBAL: in_space = global_ok(b, a, 1); break;
        case SP_SHARED: in_space = a >= sh && a < sh + P->shsize; break;
        case SP_CLUSTER: in_space = ex_cluster_gen(b, a, 1) != NULL; break;
        case SP_LOCAL: in_space = a >= lo && a < lo + P->lstride; break;
        default: in_space = pb && a >= pb && a < pb + P->l->param_bytes; break; /* SP_PARAM */
        }
        D[l] = (uint64_t)in_space;
    }
    return 0;
}

ex_fn ex_mem_select(const struct ir_ins *in)
{
    switch (in->op) {
    case OP_LD: case OP_ST: {
        unsigned n = ir_type_size(in->type);
        int ld = in->op == OP_LD, sg = ir_type_signed(in->type), k = -1;
        static const ex_fn tab[4][2][3] = { /* space; size 4, 8; ld, ld signed, st */
            { { ld_g4, ld_g4s, st_g4 }, { ld_g8, ld_g8, st_g8 } },
            { { ld_s4, ld_s4s, st_s4 }, { ld_s8, ld_s8, st_s8 } },
            { { ld_x4, ld_x4s, st_x4 }, { ld_x8, ld_x8, st_x8 } },
            { { ld_k4, ld_k4s, NULL }, { ld_k8, ld_k8, NULL } },
        };
        switch (in->space) {
        case SP_GLOBAL: k = 0; break;
        case SP_SHARED: k = 1; break;
        case SP_GENERIC: k = 2; break;
        case SP_PARAM: k = 3; break;
        default: break;
        }
        if (k >= 0 && in->vec == 1 && (n == 4 || n == 8) && in->vr[0] >= 0 && in->a >= 0) {
            ex_fn f = tab[k][n == 8][ld ? sg : 2];
            if (f) return f;
        }
        return ex_mem;
    }
    case OP_CVTA: case OP_CVTA_TO: case OP_ATOM: case OP_RED:
        return ex_mem;
    case OP_ISSPACEP:
        return isspacep;
    case OP_CPASYNC:
        return in->sub >= CP_BULK_G2S ? cp_bulk : cp_async;
    case OP_MBAR:
        return mbarrier;
    default:
        return ex_tex_select(in); /* texture and surface memory */
    }
}

