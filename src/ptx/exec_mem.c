/* The executor's memory: state spaces and the host addresses behind them,
 * the validity check of every access, loads, stores, cvta and atomics. */
#include "exec.h"

#include <stdio.h>

/* ---- memory ------------------------------------------------------------- */


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

static void mem_fault(struct blk *b, const struct warp *w, int lane, const struct ir_ins *in, uint64_t a,
                      unsigned n, int misaligned)
{
    enum ptx_access acc = in->op == OP_LD ? PTX_ACCESS_READ : in->op == OP_ST ? PTX_ACCESS_WRITE : PTX_ACCESS_ATOMIC;
    struct ex_site at = { w, lane, in, acc, in->space, a, n };
    ex_failv(b, &at, misaligned ? PTX_E_MISALIGNED : PTX_E_ADDRESS, "%s %s %s of %u bytes at address 0x%llx",
             misaligned ? "misaligned" : "illegal", ex_space_name(in->space),
             acc == PTX_ACCESS_READ ? "read" : acc == PTX_ACCESS_WRITE ? "write" : "atomic", n, (unsigned long long)a);
}
int ex_mem(struct blk *b, struct warp *w, const struct ir_ins *in, uint32_t m, uint64_t *R)
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
            if (a % tot) { mem_fault(b, w, l, in, a, tot, 1); return -1; }
            unsigned char *p = addr_of(b, sp, a, tot, (unsigned)(w->id * 32 + l));
            if (!p) { mem_fault(b, w, l, in, a, tot, 0); return -1; }
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
    case OP_ATOM:
    case OP_RED: {
        unsigned n = ir_type_size(t);
        int sg = ir_type_signed(t);
        LANES(m) {
            int l = L;
            uint64_t a = A[l] + (uint64_t)in->imm;
            if (a % n) { mem_fault(b, w, l, in, a, n, 1); return -1; }
            unsigned char *p = addr_of(b, in->space, a, n, (unsigned)(w->id * 32 + l));
            if (!p) { mem_fault(b, w, l, in, a, n, 0); return -1; }
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
    default:
        ex_fail_at(b, w, __builtin_ctz(m | 0x80000000u), in, PTX_E_UNSUPPORTED, "unsupported instruction");
        return -1;
    }
    return 0;
}
