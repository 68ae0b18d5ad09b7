/* SPDX-License-Identifier: Apache-2.0 */
/* The PTX JIT's compiler: the LLVM IR of one thread of a kernel, and its
 * native code (the model: jit.h, docs/ptx-jit.md; which kernels it takes:
 * jit_subset.c).
 *
 * Registers are 64-bit values as in the interpreter (a slot of 64 bits per
 * lane, results of narrower types zero-extended, signed loads sign-
 * extended): each slot is an LLVM stack variable, loaded from the warp's
 * register file when the thread starts or resumes and stored back when it
 * stops at a barrier; LLVM's passes make them SSA values. Every
 * instruction is one of three kinds:
 *  - native: the common integer, f32/f64 (round to nearest), compare,
 *    select, move, conversion, load/store, cvta, branch, barrier and exit
 *    forms are LLVM instructions with the interpreter's exact results
 *    (canonical NaNs, shifts clamped, division by 0 as PTX defines it);
 *  - per lane: any other instruction of the interpreter's per-lane
 *    families (directed rounding, .ftz, .sat, transcendental, bit-field,
 *    atomics, textures, ...) calls the interpreter's own handler for this
 *    one lane, with the operands stored to the register file around it: the
 *    same code, so the same bits;
 *  - rendezvous: shfl.sync, vote.sync, match, redux, elect, bar.warp.sync
 *    store their operands and stop the thread as a barrier does; jit_warp.c
 *    completes them with the interpreter's code and the thread resumes;
 *  - refused: activemask, non-.sync shfl/vote, matrix and block-cluster
 *    instructions, calls, and volatile or strong loads/stores (which lanes
 *    run together, or the lockstep order of a warp, could show): the
 *    kernel runs on the interpreter, the report names it.
 * Every load and store checks its address as the interpreter does: the
 * allocation last found (global), the window's size (shared, local,
 * param), alignment; anything else goes to the run-time helper, which asks
 * the host's allocation map and reports the fault. */
#include "jit.h"
#undef L /* exec.h's lane macro: the API table is named so here */

#include "jit_cache.h"

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

/* LLVM's predicate numbers (llvm-c/Core.h) */
enum { IEQ = 32, INE, IUGT, IUGE, IULT, IULE, ISGT, ISGE, ISLT, ISLE };
enum { FFALSE, FOEQ, FOGT, FOGE, FOLT, FOLE, FONE, FORD, FUNO, FUEQ, FUGT, FUGE, FULT, FULE, FUNE };
#define SEQ_CST 7
#define POLL_EVERY 65536

/* ---- code generation ---------------------------------------------------------------- */
struct cg {
    const struct llvm_api *api;
    const struct ptx_module *m;
    const struct ir_func *F;
    const ex_fn *h;
    const struct jit_helpers *hp;
    void *ctx, *mod, *b, *fn;
    void *i1, *i8, *i16, *i32, *i64, *i128, *f32, *f64, *ptr;
    void *R, *C;
    void **slot;                 /* by slot: its variable */
    int *kimm;                   /* by slot: 1 if an immediate constant */
    uint8_t *kconst;             /* by slot: 1 if a constant (the launch fills it) */
    int *ksreg;                  /* by slot: the special register it holds (S_*), or -1 */
    int sregs_filled;            /* some special register comes from the register file */
    uint64_t *live;              /* by instruction from F->start, and one past the end:
                                    the slots live on entry, nw words each */
    uint64_t *dirty;             /* as live: the slots whose variable may differ from the
                                    register file on entry (written since the thread
                                    started or resumed) */
    uint64_t *rl;                /* as live: the slots whose variable may be read before
                                    the next stop (what a start or resume there loads) */
    int nw;
    int64_t *kval;
    void **bb;                   /* by instruction from F->start, and one past the end: exit */
    void *ic, *pv;               /* the instruction count, an address */
    void *failbb;
    void *fty_mem, *fty_poll, *fty_exec, *fty_trap;
    int nbars, ngc, nwstops;
    int light;                   /* the light pipeline (jit_light): registers stay in memory */
    uint8_t *barid;
    int *barpc;
    void **resume;
};

#define LL (g->api)
static void *ci(struct cg *g, void *ty, uint64_t v) { return LL->LLVMConstInt(ty, v, 0); }
static void *c64(struct cg *g, uint64_t v) { return ci(g, g->i64, v); }
static void *ity(struct cg *g, unsigned bytes) { return bytes == 1 ? g->i8 : bytes == 2 ? g->i16 : bytes == 4 ? g->i32 : g->i64; }

static void *get(struct cg *g, int s)
{
    if (s < 0) return c64(g, 0);
    if (g->light && g->kimm[s]) return c64(g, (uint64_t)g->kval[s]); /* no promotion makes it one */
    return LL->LLVMBuildLoad2(g->b, g->i64, g->slot[s], "");
}
static void set(struct cg *g, int s, void *v)
{
    if (s >= 0) LL->LLVMBuildStore(g->b, v, g->slot[s]);
}
static void *trunc_(struct cg *g, void *v, unsigned bytes) { return bytes >= 8 ? v : LL->LLVMBuildTrunc(g->b, v, ity(g, bytes), ""); }
static void *zext(struct cg *g, void *v, unsigned bytes) { return bytes >= 8 ? v : LL->LLVMBuildZExt(g->b, v, g->i64, ""); }
static void *sext_(struct cg *g, void *v, unsigned bytes) { return bytes >= 8 ? v : LL->LLVMBuildSExt(g->b, v, g->i64, ""); }
/* slot s as an integer of n bytes, extended to 64 bits by sign or zero */
static void *ival(struct cg *g, int s, unsigned n, int sg)
{
    void *v = trunc_(g, get(g, s), n);
    return sg ? sext_(g, v, n) : zext(g, v, n);
}
static void *fval(struct cg *g, int s, int t)
{
    void *v = get(g, s);
    if (t == T_F32) return LL->LLVMBuildBitCast(g->b, LL->LLVMBuildTrunc(g->b, v, g->i32, ""), g->f32, "");
    return LL->LLVMBuildBitCast(g->b, v, g->f64, "");
}
/* a float result as the slot's bits, NaN canonical */
static void *fbits(struct cg *g, void *r, int t)
{
    /* the select on floats: a chain of float operations stays in float registers */
    void *isnan = LL->LLVMBuildFCmp(g->b, FUNO, r, r, "");
    if (t == T_F32) {
        void *canon = LL->LLVMBuildBitCast(g->b, ci(g, g->i32, 0x7fffffffu), g->f32, "");
        void *q = LL->LLVMBuildSelect(g->b, isnan, canon, r, "");
        return LL->LLVMBuildZExt(g->b, LL->LLVMBuildBitCast(g->b, q, g->i32, ""), g->i64, "");
    }
    void *canon = LL->LLVMBuildBitCast(g->b, c64(g, 0x7fffffffffffffffull), g->f64, "");
    return LL->LLVMBuildBitCast(g->b, LL->LLVMBuildSelect(g->b, isnan, canon, r, ""), g->i64, "");
}
static void *bit0(struct cg *g, int s) { return LL->LLVMBuildTrunc(g->b, get(g, s), g->i1, ""); }
static void *b2i(struct cg *g, void *c) { return LL->LLVMBuildZExt(g->b, c, g->i64, ""); }

static void *field(struct cg *g, size_t off, void *ty)
{
    void *idx = c64(g, off);
    void *p = LL->LLVMBuildGEP2(g->b, g->i8, g->C, &idx, 1, "");
    return LL->LLVMBuildLoad2(g->b, ty, p, "");
}
static void *field_ptr(struct cg *g, size_t off)
{
    void *idx = c64(g, off);
    return LL->LLVMBuildGEP2(g->b, g->i8, g->C, &idx, 1, "");
}

static void *intrinsic(struct cg *g, const char *name, void *ty, void **args, unsigned n)
{
    void *ptys[3] = { ty, ty, ty };
    void *fty = LL->LLVMFunctionType(ty, ptys, n, 0);
    void *f = LL->LLVMGetNamedFunction(g->mod, name);
    if (!f) f = LL->LLVMAddFunction(g->mod, name, fty);
    return LL->LLVMBuildCall2(g->b, fty, f, args, n, "");
}

/* a host address (a helper, an instruction, a handler): read at run time
 * from the object's own table (jit_cache.c), so the code holds none. Every
 * host address the code uses must come through here: the cache on disk
 * gives the object to other processes, whose addresses differ (an address
 * jitc_ref cannot name is emitted as a constant and the kernel not kept) */
static void *fnptr(struct cg *g, const void *p) { return jitc_ref(LL, g->ctx, g->mod, g->b, p); }

static void *newbb(struct cg *g) { return LL->LLVMAppendBasicBlockInContext(g->ctx, g->fn, ""); }

/* the instruction count and a return */
static void flush_ret(struct cg *g, int32_t v)
{
    void *p = field_ptr(g, offsetof(struct jit_ctx, icount));
    void *old = LL->LLVMBuildLoad2(g->b, g->i64, p, "");
    LL->LLVMBuildStore(g->b, LL->LLVMBuildAdd(g->b, old, LL->LLVMBuildLoad2(g->b, g->i64, g->ic, ""), ""), p);
    LL->LLVMBuildRet(g->b, ci(g, g->i32, (uint64_t)(uint32_t)v));
}

/* the host pointer of an access of n bytes at a by in (space sp): the
 * inline check, else the helper; a fault leaves through failbb */
static void *address(struct cg *g, const struct ir_ins *in, void *a, unsigned n)
{
    void *inb, *ptr;
    int gid = -1;
    void *al = LL->LLVMBuildICmp(g->b, IEQ, LL->LLVMBuildAnd(g->b, a, c64(g, n - 1), ""), c64(g, 0), "");
    void *off, *span;
    switch (in->space) {
    case SP_SHARED:
        off = a; span = field(g, offsetof(struct jit_ctx, shsize), g->i64);
        ptr = LL->LLVMBuildGEP2(g->b, g->i8, field(g, offsetof(struct jit_ctx, shared), g->ptr), &a, 1, "");
        break;
    case SP_LOCAL:
        off = a; span = field(g, offsetof(struct jit_ctx, lsize), g->i64);
        ptr = LL->LLVMBuildGEP2(g->b, g->i8, field(g, offsetof(struct jit_ctx, local), g->ptr), &a, 1, "");
        break;
    case SP_PARAM:
        off = a; span = field(g, offsetof(struct jit_ctx, pbytes), g->i64);
        ptr = LL->LLVMBuildGEP2(g->b, g->i8, field(g, offsetof(struct jit_ctx, params), g->ptr), &a, 1, "");
        break;
    default: { /* global and generic: the allocation this access last found */
        gid = g->ngc++;
        void *idx = c64(g, (uint64_t)gid * sizeof(struct jit_gc));
        void *e = LL->LLVMBuildGEP2(g->b, g->i8, field(g, offsetof(struct jit_ctx, gc), g->ptr), &idx, 1, "");
        void *lo = LL->LLVMBuildLoad2(g->b, g->i64, e, "");
        idx = c64(g, offsetof(struct jit_gc, span));
        span = LL->LLVMBuildLoad2(g->b, g->i64, LL->LLVMBuildGEP2(g->b, g->i8, e, &idx, 1, ""), "");
        off = LL->LLVMBuildSub(g->b, a, lo, "");
        ptr = LL->LLVMBuildIntToPtr(g->b, a, g->ptr, "");
        break;
    }
    }
    void *c1 = LL->LLVMBuildICmp(g->b, IULT, off, span, "");
    void *c2 = LL->LLVMBuildICmp(g->b, IULE, LL->LLVMBuildAdd(g->b, off, c64(g, n), ""), span, "");
    inb = LL->LLVMBuildAnd(g->b, LL->LLVMBuildAnd(g->b, c1, c2, ""), al, "");
    LL->LLVMBuildStore(g->b, ptr, g->pv);
    void *slow = newbb(g), *join = newbb(g);
    LL->LLVMBuildCondBr(g->b, inb, join, slow);
    LL->LLVMPositionBuilderAtEnd(g->b, slow);
    void *args[5] = { g->C, fnptr(g, in), a, ci(g, g->i32, n), ci(g, g->i32, (uint64_t)(uint32_t)gid) };
    void *p = LL->LLVMBuildCall2(g->b, g->fty_mem, fnptr(g, (const void *)(uintptr_t)g->hp->mem), args, 5, "");
    LL->LLVMBuildStore(g->b, p, g->pv);
    void *isnull = LL->LLVMBuildICmp(g->b, IEQ, p, LL->LLVMConstNull(g->ptr), "");
    LL->LLVMBuildCondBr(g->b, isnull, g->failbb, join);
    LL->LLVMPositionBuilderAtEnd(g->b, join);
    return LL->LLVMBuildLoad2(g->b, g->ptr, g->pv, "");
}

static void ldst(struct cg *g, const struct ir_ins *in)
{
    unsigned n = ir_type_size(in->type), tot = n * (unsigned)in->vec;
    void *a = LL->LLVMBuildAdd(g->b, get(g, in->a), c64(g, (uint64_t)in->imm), "");
    void *p = address(g, in, a, tot);
    for (int i = 0; i < in->vec; i++) {
        void *idx = c64(g, (uint64_t)i * n);
        void *q = LL->LLVMBuildGEP2(g->b, g->i8, p, &idx, 1, "");
        if (in->op == OP_LD) {
            void *v = LL->LLVMBuildLoad2(g->b, ity(g, n), q, "");
            LL->LLVMSetAlignment(v, n);
            if (in->vr[i] >= 0) set(g, in->vr[i], ir_type_signed(in->type) ? sext_(g, v, n) : zext(g, v, n));
        } else {
            void *st = LL->LLVMBuildStore(g->b, trunc_(g, get(g, in->vr[i]), n), q);
            LL->LLVMSetAlignment(st, n);
        }
    }
}

static void *iop(struct cg *g, int op, void *x, void *y)
{
    switch (op) {
    case OP_ADD: return LL->LLVMBuildAdd(g->b, x, y, "");
    case OP_SUB: return LL->LLVMBuildSub(g->b, x, y, "");
    case OP_AND: return LL->LLVMBuildAnd(g->b, x, y, "");
    case OP_OR: return LL->LLVMBuildOr(g->b, x, y, "");
    default: return LL->LLVMBuildXor(g->b, x, y, "");
    }
}

/* a * b for integer type t with flags (.wide: the double width; .hi: the
 * upper half), zero-extended to 64 bits */
static void *imul(struct cg *g, const struct ir_ins *in)
{
    unsigned n = ir_type_size(in->type);
    int sg = ir_type_signed(in->type);
    if (!(in->flags & (F_WIDE | F_HI)))
        return zext(g, LL->LLVMBuildMul(g->b, trunc_(g, get(g, in->a), n), trunc_(g, get(g, in->b), n), ""), n);
    void *w = LL->LLVMIntTypeInContext(g->ctx, n * 16);
    void *x = trunc_(g, get(g, in->a), n), *y = trunc_(g, get(g, in->b), n);
    x = sg ? LL->LLVMBuildSExt(g->b, x, w, "") : LL->LLVMBuildZExt(g->b, x, w, "");
    y = sg ? LL->LLVMBuildSExt(g->b, y, w, "") : LL->LLVMBuildZExt(g->b, y, w, "");
    void *p = LL->LLVMBuildMul(g->b, x, y, "");
    if (in->flags & F_WIDE) return n * 2 >= 8 ? LL->LLVMBuildTrunc(g->b, p, g->i64, "") : LL->LLVMBuildZExt(g->b, p, g->i64, "");
    p = LL->LLVMBuildLShr(g->b, p, LL->LLVMConstInt(w, n * 8, 0), "");
    return zext(g, LL->LLVMBuildTrunc(g->b, p, ity(g, n), ""), n);
}

static void *idivrem(struct cg *g, const struct ir_ins *in)
{
    unsigned n = ir_type_size(in->type);
    int sg = ir_type_signed(in->type), div = in->op == OP_DIV;
    void *ty = ity(g, n);
    void *x = trunc_(g, get(g, in->a), n), *y = trunc_(g, get(g, in->b), n);
    void *zero = LL->LLVMConstInt(ty, 0, 0), *one = LL->LLVMConstInt(ty, 1, 0), *m1 = LL->LLVMConstInt(ty, ~0ull, 1);
    void *y0 = LL->LLVMBuildICmp(g->b, IEQ, y, zero, "");
    void *ax = x;                    /* a & mask: rem by 0 */
    if (!sg) {
        void *ys = LL->LLVMBuildSelect(g->b, y0, one, y, "");
        void *q = div ? LL->LLVMBuildUDiv(g->b, x, ys, "") : LL->LLVMBuildURem(g->b, x, ys, "");
        return zext(g, LL->LLVMBuildSelect(g->b, y0, div ? m1 : ax, q, ""), n);
    }
    void *ym1 = LL->LLVMBuildICmp(g->b, IEQ, y, m1, "");
    void *bad = LL->LLVMBuildOr(g->b, y0, ym1, "");
    void *ys = LL->LLVMBuildSelect(g->b, bad, one, y, "");
    void *q = div ? LL->LLVMBuildSDiv(g->b, x, ys, "") : LL->LLVMBuildSRem(g->b, x, ys, "");
    void *neg = LL->LLVMBuildSub(g->b, zero, x, "");
    q = LL->LLVMBuildSelect(g->b, ym1, div ? neg : zero, q, "");
    return zext(g, LL->LLVMBuildSelect(g->b, y0, div ? m1 : ax, q, ""), n);
}

static void *ishift(struct cg *g, const struct ir_ins *in)
{
    unsigned n = ir_type_size(in->type), bits = n * 8;
    int sg = ir_type_signed(in->type);
    void *s = LL->LLVMBuildZExt(g->b, LL->LLVMBuildTrunc(g->b, get(g, in->b), g->i32, ""), g->i64, "");
    void *big = LL->LLVMBuildICmp(g->b, IUGE, s, c64(g, bits), "");
    if (in->op == OP_SHL) {
        void *r = LL->LLVMBuildShl(g->b, get(g, in->a), LL->LLVMBuildSelect(g->b, big, c64(g, 0), s, ""), "");
        return LL->LLVMBuildSelect(g->b, big, c64(g, 0), zext(g, trunc_(g, r, n), n), "");
    }
    if (sg) {
        void *x = ival(g, in->a, n, 1);
        void *r = LL->LLVMBuildAShr(g->b, x, LL->LLVMBuildSelect(g->b, big, c64(g, bits - 1), s, ""), "");
        return zext(g, trunc_(g, r, n), n);
    }
    void *x = ival(g, in->a, n, 0);
    void *r = LL->LLVMBuildLShr(g->b, x, LL->LLVMBuildSelect(g->b, big, c64(g, 0), s, ""), "");
    return LL->LLVMBuildSelect(g->b, big, c64(g, 0), r, "");
}

/* PTX's min/max of floats: a NaN operand gives the other, -0 < +0 */
static void *fminmax(struct cg *g, int max, void *x, void *y, int t)
{
    void *bt = t == T_F32 ? g->i32 : g->i64;
    void *xn = LL->LLVMBuildFCmp(g->b, FUNO, x, x, ""), *yn = LL->LLVMBuildFCmp(g->b, FUNO, y, y, "");
    void *xs = LL->LLVMBuildICmp(g->b, ISLT, LL->LLVMBuildBitCast(g->b, x, bt, ""), LL->LLVMConstInt(bt, 0, 0), "");
    void *zero = LL->LLVMBuildAnd(g->b, LL->LLVMBuildFCmp(g->b, FOEQ, x, y, ""),
                                  LL->LLVMBuildFCmp(g->b, FOEQ, x, LL->LLVMConstNull(t == T_F32 ? g->f32 : g->f64), ""), "");
    void *z = max ? LL->LLVMBuildSelect(g->b, xs, y, x, "") : LL->LLVMBuildSelect(g->b, xs, x, y, "");
    void *c = LL->LLVMBuildFCmp(g->b, max ? FOGT : FOLT, x, y, "");
    void *r = LL->LLVMBuildSelect(g->b, c, x, y, "");
    r = LL->LLVMBuildSelect(g->b, zero, z, r, "");
    r = LL->LLVMBuildSelect(g->b, yn, x, r, "");
    return LL->LLVMBuildSelect(g->b, xn, y, r, "");
}

static void *farith(struct cg *g, const struct ir_ins *in)
{
    int t = in->type;
    void *fty = t == T_F32 ? g->f32 : g->f64;
    const char *sq = t == T_F32 ? "llvm.sqrt.f32" : "llvm.sqrt.f64", *fm = t == T_F32 ? "llvm.fma.f32" : "llvm.fma.f64";
    void *x = fval(g, in->a, t), *r;
    void *one = LL->LLVMBuildBitCast(g->b, t == T_F32 ? ci(g, g->i32, 0x3f800000u) : c64(g, 0x3ff0000000000000ull), fty, "");
    switch (in->op) {
    case OP_ADD: r = LL->LLVMBuildFAdd(g->b, x, fval(g, in->b, t), ""); break;
    case OP_SUB: r = LL->LLVMBuildFSub(g->b, x, fval(g, in->b, t), ""); break;
    case OP_MUL: r = LL->LLVMBuildFMul(g->b, x, fval(g, in->b, t), ""); break;
    case OP_DIV: r = LL->LLVMBuildFDiv(g->b, x, fval(g, in->b, t), ""); break;
    case OP_MIN: case OP_MAX: r = fminmax(g, in->op == OP_MAX, x, fval(g, in->b, t), t); break;
    case OP_MAD: case OP_FMA: {
        void *args[3] = { x, fval(g, in->b, t), fval(g, in->c, t) };
        r = intrinsic(g, fm, fty, args, 3);
        break;
    }
    case OP_SQRT: r = intrinsic(g, sq, fty, &x, 1); break;
    case OP_RCP: r = LL->LLVMBuildFDiv(g->b, one, x, ""); break;
    default: /* OP_RSQRT */
        r = LL->LLVMBuildFDiv(g->b, one, intrinsic(g, sq, fty, &x, 1), "");
        break;
    }
    return fbits(g, r, t);
}

static int fpred(int c)
{
    switch (c) {
    case CMP_EQ: return FOEQ; case CMP_NE: return FONE; case CMP_LT: return FOLT; case CMP_LE: return FOLE;
    case CMP_GT: return FOGT; case CMP_GE: return FOGE; case CMP_EQU: return FUEQ; case CMP_NEU: return FUNE;
    case CMP_LTU: return FULT; case CMP_LEU: return FULE; case CMP_GTU: return FUGT; case CMP_GEU: return FUGE;
    case CMP_NUM: return FORD; case CMP_NAN: return FUNO;
    default: return FFALSE;
    }
}
static int ipred(int c, int sg)
{
    switch (c) {
    case CMP_EQ: return IEQ; case CMP_NE: return INE;
    case CMP_LT: case CMP_LO: return sg ? ISLT : IULT;
    case CMP_LE: case CMP_LS: return sg ? ISLE : IULE;
    case CMP_GT: case CMP_HI: return sg ? ISGT : IUGT;
    case CMP_GE: case CMP_HS: return sg ? ISGE : IUGE;
    default: return -1;
    }
}

static void setp(struct cg *g, const struct ir_ins *in)
{
    int t = in->type;
    void *r;
    if (t == T_F32 || t == T_F64) {
        int p = fpred(in->sub);
        r = p == FFALSE ? ci(g, g->i1, 0) : LL->LLVMBuildFCmp(g->b, p, fval(g, in->a, t), fval(g, in->b, t), "");
    } else {
        unsigned n = ir_type_size(t);
        int p = ipred(in->sub, ir_type_signed(t));
        r = p < 0 ? ci(g, g->i1, 0) : LL->LLVMBuildICmp(g->b, p, trunc_(g, get(g, in->a), n), trunc_(g, get(g, in->b), n), "");
    }
    void *r2 = LL->LLVMBuildXor(g->b, r, ci(g, g->i1, 1), "");
    if (in->sub2) {
        void *cv = bit0(g, in->c);
        if (in->flags & F_ANEG) cv = LL->LLVMBuildXor(g->b, cv, ci(g, g->i1, 1), "");
        if (in->sub2 == BOOL_AND) { r = LL->LLVMBuildAnd(g->b, r, cv, ""); r2 = LL->LLVMBuildAnd(g->b, r2, cv, ""); }
        else if (in->sub2 == BOOL_OR) { r = LL->LLVMBuildOr(g->b, r, cv, ""); r2 = LL->LLVMBuildOr(g->b, r2, cv, ""); }
        else { r = LL->LLVMBuildXor(g->b, r, cv, ""); r2 = LL->LLVMBuildXor(g->b, r2, cv, ""); }
    }
    set(g, in->d, b2i(g, r));
    if (in->d2 >= 0) set(g, in->d2, b2i(g, r2));
}

static void *cvt(struct cg *g, const struct ir_ins *in)
{
    int t = in->type, st = in->type2;
    unsigned dn = ir_type_size(t), sn = ir_type_size(st);
    if (!ir_type_float(t)) /* int -> int */
        return zext(g, trunc_(g, ival(g, in->a, sn, ir_type_signed(st)), dn), dn);
    if (t == T_F64 && st == T_F32) return fbits(g, LL->LLVMBuildFPExt(g->b, fval(g, in->a, T_F32), g->f64, ""), T_F64);
    if (t == T_F32 && st == T_F64) return fbits(g, LL->LLVMBuildFPTrunc(g->b, fval(g, in->a, T_F64), g->f32, ""), T_F32);
    void *v = ival(g, in->a, sn, ir_type_signed(st));
    void *fty = t == T_F32 ? g->f32 : g->f64;
    void *r = ir_type_signed(st) ? LL->LLVMBuildSIToFP(g->b, v, fty, "") : LL->LLVMBuildUIToFP(g->b, v, fty, "");
    return fbits(g, r, t);
}

static void native(struct cg *g, const struct ir_ins *in)
{
    int t = in->type;
    unsigned n = ir_type_size(t);
    int sg = ir_type_signed(t);
    switch (in->op) {
    case OP_LD: case OP_ST:
        ldst(g, in);
        return;
    case OP_MOV:
        set(g, in->d, t == T_PRED ? LL->LLVMBuildAnd(g->b, get(g, in->a), c64(g, 1), "") : zext(g, trunc_(g, get(g, in->a), n), n));
        return;
    case OP_CVTA: case OP_CVTA_TO: /* global: the same address */
        set(g, in->d, zext(g, trunc_(g, get(g, in->a), n), n));
        return;
    case OP_SETP:
        setp(g, in);
        return;
    case OP_SELP: {
        void *c = bit0(g, in->c);
        if (in->flags & F_ANEG) c = LL->LLVMBuildXor(g->b, c, ci(g, g->i1, 1), "");
        set(g, in->d, LL->LLVMBuildSelect(g->b, c, get(g, in->a), get(g, in->b), ""));
        return;
    }
    case OP_CVT:
        set(g, in->d, cvt(g, in));
        return;
    default:
        break;
    }
    if (t == T_PRED) {
        void *x = LL->LLVMBuildAnd(g->b, get(g, in->a), c64(g, 1), "");
        set(g, in->d, in->op == OP_NOT ? LL->LLVMBuildXor(g->b, x, c64(g, 1), "")
                                       : iop(g, in->op, x, LL->LLVMBuildAnd(g->b, get(g, in->b), c64(g, 1), "")));
        return;
    }
    if (t == T_F32 || t == T_F64) {
        if (in->op == OP_NEG || in->op == OP_ABS) {
            uint64_t sbit = t == T_F32 ? 0x80000000u : 0x8000000000000000ull;
            void *a = zext(g, trunc_(g, get(g, in->a), n), n);
            set(g, in->d, in->op == OP_NEG ? LL->LLVMBuildXor(g->b, a, c64(g, sbit), "") : LL->LLVMBuildAnd(g->b, a, c64(g, sbit - 1), ""));
            return;
        }
        set(g, in->d, farith(g, in));
        return;
    }
    void *r;
    switch (in->op) {
    case OP_ADD: case OP_SUB: case OP_AND: case OP_OR: case OP_XOR:
        r = zext(g, iop(g, in->op, trunc_(g, get(g, in->a), n), trunc_(g, get(g, in->b), n)), n);
        break;
    case OP_MUL:
        r = imul(g, in);
        break;
    case OP_MAD: {
        void *p = imul(g, in);
        unsigned rn = (in->flags & F_WIDE) ? n * 2 : n;
        r = zext(g, trunc_(g, LL->LLVMBuildAdd(g->b, p, get(g, in->c), ""), rn), rn);
        break;
    }
    case OP_DIV: case OP_REM:
        r = idivrem(g, in);
        break;
    case OP_MIN: case OP_MAX: {
        void *x = trunc_(g, get(g, in->a), n), *y = trunc_(g, get(g, in->b), n);
        void *c = LL->LLVMBuildICmp(g->b, in->op == OP_MIN ? (sg ? ISLT : IULT) : (sg ? ISGT : IUGT), x, y, "");
        r = zext(g, LL->LLVMBuildSelect(g->b, c, x, y, ""), n);
        break;
    }
    case OP_SHL: case OP_SHR:
        r = ishift(g, in);
        break;
    case OP_NOT:
        r = zext(g, LL->LLVMBuildNot(g->b, trunc_(g, get(g, in->a), n), ""), n);
        break;
    case OP_CNOT:
        r = b2i(g, LL->LLVMBuildICmp(g->b, IEQ, trunc_(g, get(g, in->a), n), LL->LLVMConstInt(ity(g, n), 0, 0), ""));
        break;
    case OP_NEG: case OP_ABS: {
        void *x = trunc_(g, get(g, in->a), n), *z = LL->LLVMConstInt(ity(g, n), 0, 0);
        void *neg = LL->LLVMBuildSub(g->b, z, x, "");
        r = in->op == OP_NEG ? neg : LL->LLVMBuildSelect(g->b, LL->LLVMBuildICmp(g->b, ISLT, x, z, ""), neg, x, "");
        r = zext(g, r, n);
        break;
    }
    default:
        r = c64(g, 0);
        break;
    }
    set(g, in->d, r);
}

/* the slots an instruction names (for the per-lane handler) */
enum { NAMED_MAX = 34 }; /* a matrix instruction: 4 fragments of up to 8 registers, stride, address */
static int named_slots(const struct ptx_module *m, const struct ir_ins *in, int *s)
{
    int k = 0;
    if (in->op == OP_MMA) { /* its registers are the fragments' (ins.e indexes the module's mmas) */
        const struct ir_mma *x = &m->mmas[in->e];
        const int32_t *frag[4] = { x->d, x->a, x->b, x->c };
        const int nf[4] = { x->nd, x->na, x->nb, x->nc };
        for (int f = 0; f < 4; f++)
            for (int i = 0; i < nf[f] && i < 8; i++)
                if (frag[f][i] >= 0) s[k++] = frag[f][i];
        if (x->stride >= 0) s[k++] = x->stride;
        if (in->a >= 0) s[k++] = in->a;
        return k;
    }
    const int32_t cand[] = { in->d, in->d2, in->a, in->b, in->c, in->e, in->vr[0], in->vr[1], in->vr[2], in->vr[3] };
    for (size_t i = 0; i < sizeof cand / sizeof *cand; i++)
        if (cand[i] >= 0) s[k++] = cand[i];
    return k;
}

/* whether slot s may differ from the register file at instruction k (from
 * F->start): only those are stored back */
static int is_dirty(const struct cg *g, int k, int s)
{
    return k < 0 || k > g->F->end - g->F->start || !g->dirty || (g->dirty[(size_t)k * g->nw + (size_t)s / 64] >> (s % 64) & 1);
}

/* the slots in names that may differ from the file, to the register file */
static void store_named(struct cg *g, const struct ir_ins *in)
{
    int s[NAMED_MAX], n = named_slots(g->m, in, s), k = (int)(in - g->m->ins) - g->F->start;
    for (int i = 0; i < n; i++) {
        if (!is_dirty(g, k, s[i])) continue;
        void *idx = c64(g, (uint64_t)s[i] * 32);
        LL->LLVMBuildStore(g->b, get(g, s[i]), LL->LLVMBuildGEP2(g->b, g->i64, g->R, &idx, 1, ""));
    }
}

static void per_lane(struct cg *g, const struct ir_ins *in, ex_fn f)
{
    int s[NAMED_MAX], n = named_slots(g->m, in, s);
    store_named(g, in);
    void *args[3] = { g->C, fnptr(g, in), fnptr(g, (const void *)(uintptr_t)f) };
    void *r = LL->LLVMBuildCall2(g->b, g->fty_exec, fnptr(g, (const void *)(uintptr_t)g->hp->exec), args, 3, "");
    void *ok = newbb(g);
    LL->LLVMBuildCondBr(g->b, LL->LLVMBuildICmp(g->b, INE, r, ci(g, g->i32, 0), ""), g->failbb, ok);
    LL->LLVMPositionBuilderAtEnd(g->b, ok);
    for (int i = 0; i < n; i++) {
        void *idx = c64(g, (uint64_t)s[i] * 32);
        set(g, s[i], LL->LLVMBuildLoad2(g->b, g->i64, LL->LLVMBuildGEP2(g->b, g->i64, g->R, &idx, 1, ""), ""));
    }
}

/* ---- liveness ------------------------------------------------------------------ */
static void setbit(uint64_t *v, int s, int ns)
{
    if (s >= 0 && s < ns) v[s / 64] |= 1ull << (s % 64);
}

/* which slots may differ from the register file (dirty, forward) and which
 * variables may be read before the next stop (rl, backward), so that a stop
 * stores only what changed since the thread started or resumed, and a start
 * or resume loads only what its region reads: the code between stops stays
 * the size of the kernel's instructions, not the instructions times the
 * registers live across them (the unrolled tensor-core kernels: thousands
 * of stops, a hundred fragment registers live at each). A stop ends a path
 * (a guarded one falls through when its guard is false); a per-lane
 * handler's slots are stored if dirty and loaded back after it (clean). */
static int regions(struct cg *g)
{
    const struct ir_func *F = g->F;
    int nins = F->end - F->start, ns = F->nslots, nw = g->nw;
    size_t sz = (size_t)(nins + 1) * (size_t)nw + 1;
    uint8_t *kind = calloc((size_t)nins + 1, 1);
    uint64_t *tmp = calloc((size_t)nw + 1, 8), *named = calloc((size_t)nins * (size_t)nw + 1, 8);
    g->dirty = calloc(sz, 8);
    g->rl = calloc(sz, 8);
    if (!kind || !tmp || !named || !g->dirty || !g->rl) { free(kind); free(tmp); free(named); return -1; }
    for (int k = 0; k < nins; k++) {
        const struct ir_ins *in = &g->m->ins[F->start + k];
        char why[8];
        kind[k] = (uint8_t)jit_classify(g->m, F, in, g->h[F->start + k], why, sizeof why);
        if (in->op == OP_BAR) kind[k] = K_WSYNC; /* a stop, with no slots named */
        int sl[NAMED_MAX], n = kind[k] == K_LANE || (kind[k] == K_WSYNC && in->op != OP_BAR) ? named_slots(g->m, in, sl) : 0;
        for (int i = 0; i < n; i++) setbit(named + (size_t)k * nw, sl[i], ns);
    }
#define SUCC(k, in, t, fall) /* t: a branch's target or -1; fall: to k + 1 */                                \
    int t = -1, fall = in->guard >= 0;                                                                        \
    if (in->op == OP_BRA) { t = (int)in->imm - F->start; if (t < 0 || t > nins) t = nins; }                   \
    else if (kind[k] != K_WSYNC && in->op != OP_EXIT && in->op != OP_RET && in->op != OP_TRAP) fall = 1;
    for (int changed = 1; changed;) { /* dirty: a may-set, from the start and every resume empty */
        changed = 0;
        for (int k = 0; k < nins; k++) {
            const struct ir_ins *in = &g->m->ins[F->start + k];
            const uint64_t *d = g->dirty + (size_t)k * nw, *nm = named + (size_t)k * nw;
            for (int w = 0; w < nw; w++) tmp[w] = d[w];
            if (kind[k] == K_NATIVE) {
                const int32_t wr[] = { in->d, in->d2, in->vr[0], in->vr[1], in->vr[2], in->vr[3] };
                for (size_t i = 0; i < sizeof wr / sizeof *wr; i++) setbit(tmp, wr[i], ns);
            } else if (kind[k] == K_LANE && in->guard < 0)
                for (int w = 0; w < nw; w++) tmp[w] &= ~nm[w];
            SUCC(k, in, t, fall)
            for (int j = 0; j < 2; j++) {
                int to = j ? t : fall ? k + 1 : -1;
                if (to < 0) continue;
                uint64_t *o = g->dirty + (size_t)to * nw;
                for (int w = 0; w < nw; w++)
                    if (tmp[w] & ~o[w]) { o[w] |= tmp[w]; changed = 1; }
            }
        }
    }
    for (int changed = 1; changed;) { /* rl: liveness within a region */
        changed = 0;
        for (int k = nins - 1; k >= 0; k--) {
            const struct ir_ins *in = &g->m->ins[F->start + k];
            const uint64_t *d = g->dirty + (size_t)k * nw, *nm = named + (size_t)k * nw;
            SUCC(k, in, t, fall)
            memset(tmp, 0, (size_t)nw * 8);
            for (int w = 0; fall && w < nw; w++) tmp[w] = g->rl[(size_t)(k + 1) * nw + w];
            for (int w = 0; t >= 0 && w < nw; w++) tmp[w] |= g->rl[(size_t)t * nw + w];
            if (kind[k] == K_NATIVE && in->guard < 0) {
                const int32_t wr[] = { in->d, in->d2, in->op == OP_LD ? in->vr[0] : -1, in->op == OP_LD ? in->vr[1] : -1,
                                       in->op == OP_LD ? in->vr[2] : -1, in->op == OP_LD ? in->vr[3] : -1 };
                for (size_t i = 0; i < sizeof wr / sizeof *wr; i++)
                    if (wr[i] >= 0 && wr[i] < ns) tmp[wr[i] / 64] &= ~(1ull << (wr[i] % 64));
            }
            if (kind[k] == K_LANE && in->guard < 0)
                for (int w = 0; w < nw; w++) tmp[w] &= ~nm[w];
            setbit(tmp, in->guard, ns);
            if (kind[k] == K_NATIVE) {
                const int32_t rd[] = { in->a, in->b, in->c, in->e };
                for (size_t i = 0; i < sizeof rd / sizeof *rd; i++) setbit(tmp, rd[i], ns);
                if (in->op == OP_ST)
                    for (int i = 0; i < 4 && i < in->vec; i++) setbit(tmp, in->vr[i], ns);
            }
            for (int w = 0; w < nw; w++) tmp[w] |= nm[w] & d[w]; /* store_named */
            if (kind[k] == K_WSYNC) /* spill_live */
                for (int w = 0; w < nw; w++) tmp[w] |= g->live[(size_t)(k + 1) * nw + w] & d[w];
            uint64_t *r = g->rl + (size_t)k * nw;
            for (int w = 0; w < nw; w++)
                if (tmp[w] != r[w]) { r[w] = tmp[w]; changed = 1; }
        }
    }
#undef SUCC
    free(kind); free(tmp); free(named);
    return 0;
}

/* the slots live on entry to each instruction: what a thread must load when
 * it starts or resumes, and store when it stops at a barrier. A per-lane
 * handler reads every slot it names; a guarded write does not kill. */
static int liveness(struct cg *g)
{
    const struct ir_func *F = g->F;
    int nins = F->end - F->start, ns = F->nslots, nw = g->nw;
    uint64_t *use = calloc((size_t)nins * (size_t)nw + 1, 8), *def = calloc((size_t)nins * (size_t)nw + 1, 8);
    uint64_t *out = calloc((size_t)nw + 1, 8);
    g->live = calloc((size_t)(nins + 1) * (size_t)nw + 1, 8);
    if (!use || !def || !out || !g->live) { free(use); free(def); free(out); return -1; }
    for (int k = 0; k < nins; k++) {
        const struct ir_ins *in = &g->m->ins[F->start + k];
        uint64_t *u = use + (size_t)k * nw, *d = def + (size_t)k * nw;
        char why[8];
        int kind = jit_classify(g->m, F, in, g->h[F->start + k], why, sizeof why);
        setbit(u, in->guard, ns);
        if (kind == K_LANE || kind == K_WSYNC) {
            int sl[NAMED_MAX], n = named_slots(g->m, in, sl);
            for (int i = 0; i < n; i++) setbit(u, sl[i], ns);
            continue;
        }
        setbit(u, in->a, ns); setbit(u, in->b, ns); setbit(u, in->c, ns); setbit(u, in->e, ns);
        if (in->op == OP_ST)
            for (int i = 0; i < 4 && i < in->vec; i++) setbit(u, in->vr[i], ns);
        if (in->guard >= 0 || kind != K_NATIVE) continue;
        setbit(d, in->d, ns); setbit(d, in->d2, ns);
        if (in->op == OP_LD)
            for (int i = 0; i < 4 && i < in->vec; i++) setbit(d, in->vr[i], ns);
    }
    for (int changed = 1; changed;) {
        changed = 0;
        for (int k = nins - 1; k >= 0; k--) {
            const struct ir_ins *in = &g->m->ins[F->start + k];
            int falls = in->guard >= 0 || (in->op != OP_BRA && in->op != OP_EXIT && in->op != OP_RET && in->op != OP_TRAP);
            memset(out, 0, (size_t)nw * 8);
            if (falls)
                for (int w = 0; w < nw; w++) out[w] |= g->live[(size_t)(k + 1) * nw + w];
            if (in->op == OP_BRA) {
                int t = (int)in->imm - F->start;
                if (t < 0 || t > nins) t = nins;
                for (int w = 0; w < nw; w++) out[w] |= g->live[(size_t)t * nw + w];
            }
            uint64_t *lv = g->live + (size_t)k * nw, *u = use + (size_t)k * nw, *d = def + (size_t)k * nw;
            for (int w = 0; w < nw; w++) {
                uint64_t v = u[w] | (out[w] & ~d[w]);
                if (v != lv[w]) { lv[w] = v; changed = 1; }
            }
        }
    }
    free(use); free(def); free(out);
    return regions(g);
}

/* the slots read at instruction k (from F->start) before the next stop, loaded from the file */
/* %ctaid from jit_ctx, or NULL: the others are in the register file */
static void *sreg_value(struct cg *g, int r)
{
    if (r < S_CTAID_X || r > S_CTAID_Z) return NULL;
    void *v = field(g, offsetof(struct jit_ctx, ctaid) + 4 * (size_t)(r - S_CTAID_X), g->i32);
    return LL->LLVMBuildZExt(g->b, v, g->i64, "");
}

static void load_live(struct cg *g, int k)
{
    const uint64_t *lv = g->rl + (size_t)k * g->nw;
    for (int s = 0; s < g->F->nslots; s++) {
        if (g->kimm[s] || !(lv[s / 64] >> (s % 64) & 1)) continue;
        void *v = g->ksreg[s] >= 0 ? sreg_value(g, g->ksreg[s]) : NULL;
        if (v) { set(g, s, v); continue; }
        void *idx = c64(g, (uint64_t)s * 32);
        set(g, s, LL->LLVMBuildLoad2(g->b, g->i64, LL->LLVMBuildGEP2(g->b, g->i64, g->R, &idx, 1, ""), ""));
    }
}

/* registers live at instruction k back to the file (a stop before it: the
 * thread resumes there) where they may differ from it; constants are there
 * already */
static void spill_live(struct cg *g, int k)
{
    const uint64_t *lv = g->live + (size_t)k * g->nw;
    for (int s = 0; s < g->F->nslots; s++) {
        if (g->kconst[s] || !(lv[s / 64] >> (s % 64) & 1) || !is_dirty(g, k - 1, s)) continue;
        void *idx = c64(g, (uint64_t)s * 32);
        LL->LLVMBuildStore(g->b, get(g, s), LL->LLVMBuildGEP2(g->b, g->i64, g->R, &idx, 1, ""));
    }
}

static void body(struct cg *g)
{
    const struct ir_func *F = g->F;
    int nins = F->end - F->start;
    for (int k = 0; k < nins; k++) {
        int i = F->start + k;
        const struct ir_ins *in = &g->m->ins[i];
        char why[8];
        int kind = jit_classify(g->m, F, in, g->h[i], why, sizeof why);
        void *next = g->bb[k + 1];
        LL->LLVMPositionBuilderAtEnd(g->b, g->bb[k]);
        LL->LLVMBuildStore(g->b, LL->LLVMBuildAdd(g->b, LL->LLVMBuildLoad2(g->b, g->i64, g->ic, ""), c64(g, 1), ""), g->ic);
        void *guard = NULL;
        if (in->guard >= 0) {
            guard = bit0(g, in->guard);
            if (in->gneg) guard = LL->LLVMBuildXor(g->b, guard, ci(g, g->i1, 1), "");
        }
        if (in->op == OP_BRA) {
            int target = (int)in->imm - F->start;
            if (target < 0 || target > nins) target = nins;
            void *dest = g->bb[target];
            if (target <= k) { /* a loop: now and then, the limits */
                void *poll = newbb(g), *go = newbb(g);
                void *cnt = LL->LLVMBuildLoad2(g->b, g->i64, g->ic, "");
                void *c = LL->LLVMBuildICmp(g->b, IUGE, cnt, c64(g, POLL_EVERY), "");
                if (guard) c = LL->LLVMBuildAnd(g->b, c, guard, "");
                LL->LLVMBuildCondBr(g->b, c, poll, go);
                LL->LLVMPositionBuilderAtEnd(g->b, poll);
                void *args[2] = { g->C, LL->LLVMBuildLoad2(g->b, g->i64, g->ic, "") };
                void *r = LL->LLVMBuildCall2(g->b, g->fty_poll, fnptr(g, (const void *)(uintptr_t)g->hp->poll), args, 2, "");
                LL->LLVMBuildStore(g->b, c64(g, 0), g->ic);
                LL->LLVMBuildCondBr(g->b, LL->LLVMBuildICmp(g->b, INE, r, ci(g, g->i32, 0), ""), g->failbb, go);
                LL->LLVMPositionBuilderAtEnd(g->b, go);
            }
            if (guard) LL->LLVMBuildCondBr(g->b, guard, dest, next);
            else LL->LLVMBuildBr(g->b, dest);
            continue;
        }
        void *run = NULL;
        if (guard) {
            run = newbb(g);
            LL->LLVMBuildCondBr(g->b, guard, run, next);
            LL->LLVMPositionBuilderAtEnd(g->b, run);
        }
        if (kind == K_WSYNC) { /* a warp rendezvous: operands to the file, stop there */
            store_named(g, in);
            g->barid[g->nbars] = JIT_WSTOP;
            g->barpc[g->nbars] = i;
            g->resume[g->nbars] = next;
            g->nwstops++;
            spill_live(g, k + 1);
            flush_ret(g, ++g->nbars);
            continue;
        }
        switch (in->op) {
        case OP_EXIT: case OP_RET:
            flush_ret(g, 0);
            continue;
        case OP_BAR: {
            int64_t id = 0;
            jit_imm_of(g->m, F, in->a, &id);
            g->barid[g->nbars] = (uint8_t)id;
            g->barpc[g->nbars] = i;
            g->resume[g->nbars] = next;
            spill_live(g, k + 1);
            flush_ret(g, ++g->nbars);
            continue;
        }
        case OP_MEMBAR:
            LL->LLVMBuildFence(g->b, SEQ_CST, 0, "");
            break;
        case OP_TRAP: {
            void *args[2] = { g->C, fnptr(g, in) };
            LL->LLVMBuildCall2(g->b, g->fty_trap, fnptr(g, (const void *)(uintptr_t)g->hp->trap), args, 2, "");
            LL->LLVMBuildBr(g->b, g->failbb);
            continue;
        }
        case OP_NOP:
            break;
        default:
            if (kind == K_NATIVE) native(g, in);
            else per_lane(g, in, g->h[i]);
            break;
        }
        LL->LLVMBuildBr(g->b, next);
    }
    LL->LLVMPositionBuilderAtEnd(g->b, g->bb[nins]);
    flush_ret(g, 0);
}

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static void llvm_error(const struct llvm_api *L, void *err, const char *what, struct jit_kernel *k)
{
    char *msg = L->LLVMGetErrorMessage(err);
    snprintf(k->why, sizeof k->why, "LLVM %s: %s", what, msg ? msg : "?");
    L->LLVMDisposeErrorMessage(msg);
}

/* the IR of the entry into g->mod (the function named sym) */
static int build(struct cg *g, const char *sym)
{
    const struct ir_func *F = g->F;
    const struct ptx_module *m = g->m;
    int nins = F->end - F->start, ns = F->nslots;
    g->i1 = LL->LLVMIntTypeInContext(g->ctx, 1);
    g->i8 = LL->LLVMIntTypeInContext(g->ctx, 8);
    g->i16 = LL->LLVMIntTypeInContext(g->ctx, 16);
    g->i32 = LL->LLVMIntTypeInContext(g->ctx, 32);
    g->i64 = LL->LLVMIntTypeInContext(g->ctx, 64);
    g->f32 = LL->LLVMFloatTypeInContext(g->ctx);
    g->f64 = LL->LLVMDoubleTypeInContext(g->ctx);
    g->ptr = LL->LLVMPointerTypeInContext(g->ctx, 0);
    void *pm[4] = { g->ptr, g->ptr, g->ptr, g->i32 };
    g->fty_mem = LL->LLVMFunctionType(g->ptr, (void *[]){ g->ptr, g->ptr, g->i64, g->i32, g->i32 }, 5, 0);
    g->fty_poll = LL->LLVMFunctionType(g->i32, (void *[]){ g->ptr, g->i64 }, 2, 0);
    g->fty_exec = LL->LLVMFunctionType(g->i32, (void *[]){ g->ptr, g->ptr, g->ptr }, 3, 0);
    g->fty_trap = LL->LLVMFunctionType(LL->LLVMVoidTypeInContext(g->ctx), (void *[]){ g->ptr, g->ptr }, 2, 0);
    void *fty = LL->LLVMFunctionType(g->i32, (void *[]){ pm[0], pm[1], pm[3] }, 3, 0);
    g->fn = LL->LLVMAddFunction(g->mod, sym, fty);
    unsigned noalias = LL->LLVMGetEnumAttributeKindForName("noalias", 7);
    if (noalias) LL->LLVMAddAttributeAtIndex(g->fn, 2, LL->LLVMCreateEnumAttribute(g->ctx, noalias, 0));
    g->R = LL->LLVMGetParam(g->fn, 0);
    g->C = LL->LLVMGetParam(g->fn, 1);
    void *resume = LL->LLVMGetParam(g->fn, 2);
    g->slot = calloc((size_t)ns + 1, sizeof *g->slot);
    g->kimm = calloc((size_t)ns + 1, sizeof *g->kimm);
    g->kval = calloc((size_t)ns + 1, sizeof *g->kval);
    g->bb = calloc((size_t)nins + 1, sizeof *g->bb);
    g->barid = calloc((size_t)nins + 1, 1);
    g->resume = calloc((size_t)nins + 1, sizeof *g->resume);
    g->barpc = calloc((size_t)nins + 1, sizeof *g->barpc);
    g->kconst = calloc((size_t)ns + 1, 1);
    g->ksreg = malloc(sizeof *g->ksreg * ((size_t)ns + 1));
    if (!g->ksreg) return -1;
    for (int s = 0; s <= ns; s++) g->ksreg[s] = -1;
    g->nw = (ns + 63) / 64 + 1;
    if (!g->slot || !g->kimm || !g->kval || !g->bb || !g->barid || !g->resume || !g->kconst || !g->barpc ||
        liveness(g))
        return -1;
    for (int k = F->cstart; k < F->cend; k++) {
        const struct ir_const *c = &m->consts[k];
        if (c->slot >= 0 && c->slot < ns) g->kconst[c->slot] = 1;
        if (c->slot >= 0 && c->slot < ns && c->kind == K_SREG) {
            g->ksreg[c->slot] = (int)c->val;
            /* the block's own, but for %ctaid: block_begin must fill them */
            if (c->val == S_SMID || (c->val >= S_CLUSTERID_X && c->val <= S_CLUSTERID_Z)) g->sregs_filled = 1;
        }
        if (c->slot >= 0 && c->slot < ns && (c->kind == K_IMM || c->kind == K_PARAM)) {
            g->kimm[c->slot] = 1;
            g->kval[c->slot] = c->val;
        }
    }
    void *entry = newbb(g);
    LL->LLVMPositionBuilderAtEnd(g->b, entry);
    for (int s = 0; s < ns; s++) g->slot[s] = LL->LLVMBuildAlloca(g->b, g->i64, "");
    g->ic = LL->LLVMBuildAlloca(g->b, g->i64, "");
    g->pv = LL->LLVMBuildAlloca(g->b, g->ptr, "");
    LL->LLVMBuildStore(g->b, c64(g, 0), g->ic);
    for (int s = 0; s < ns && !g->light; s++) set(g, s, c64(g, g->kimm[s] ? (uint64_t)g->kval[s] : 0));
    for (int k = 0; k <= nins; k++) g->bb[k] = newbb(g);
    g->failbb = newbb(g);
    body(g);
    LL->LLVMPositionBuilderAtEnd(g->b, g->failbb);
    flush_ret(g, -1);
    /* where a thread starts or resumes: what is live there, loaded */
    void *start = newbb(g);
    LL->LLVMPositionBuilderAtEnd(g->b, start);
    load_live(g, 0);
    LL->LLVMBuildBr(g->b, g->bb[0]);
    void **rs = calloc((size_t)g->nbars + 1, sizeof *rs);
    if (!rs) return -1;
    for (int k = 0; k < g->nbars; k++) {
        rs[k] = newbb(g);
        LL->LLVMPositionBuilderAtEnd(g->b, rs[k]);
        load_live(g, g->barpc[k] - F->start + 1);
        LL->LLVMBuildBr(g->b, g->resume[k]);
    }
    LL->LLVMPositionBuilderAtEnd(g->b, entry);
    void *sw = LL->LLVMBuildSwitch(g->b, resume, start, (unsigned)g->nbars);
    for (int k = 0; k < g->nbars; k++) LL->LLVMAddCase(sw, ci(g, g->i32, (uint64_t)k + 1), rs[k]);
    free(rs);
    return 0;
}

/* the round of a block (jit.h, jit_round_fn) named sym, a loop over its
 * threads calling the thread's function g->fn, which LLVM inlines: one
 * call per block and round instead of one per thread */
static void build_round(struct cg *g, const char *sym)
{
    void *tfty = LL->LLVMFunctionType(g->i32, (void *[]){ g->ptr, g->ptr, g->i32 }, 3, 0);
    void *fty = LL->LLVMFunctionType(g->i32, (void *[]){ g->ptr, g->ptr, g->ptr, g->ptr, g->i32 }, 5, 0);
    unsigned inl = LL->LLVMGetEnumAttributeKindForName("alwaysinline", 12);
    if (inl) LL->LLVMAddAttributeAtIndex(g->fn, ~0u, LL->LLVMCreateEnumAttribute(g->ctx, inl, 0));
    void *thread = g->fn;
    void *fn = g->fn = LL->LLVMAddFunction(g->mod, sym, fty);
    unsigned noalias = LL->LLVMGetEnumAttributeKindForName("noalias", 7);
    for (unsigned i = 1; noalias && i <= 4; i++)
        LL->LLVMAddAttributeAtIndex(fn, i, LL->LLVMCreateEnumAttribute(g->ctx, noalias, 0));
    void *C = LL->LLVMGetParam(fn, 0), *th = LL->LLVMGetParam(fn, 1), *res = LL->LLVMGetParam(fn, 2);
    void *done = LL->LLVMGetParam(fn, 3), *nth = LL->LLVMGetParam(fn, 4);
    void *entry = newbb(g), *head = newbb(g), *body = newbb(g), *run = newbb(g), *fail = newbb(g), *ok = newbb(g);
    void *exited = newbb(g), *waits = newbb(g), *next = newbb(g), *end = newbb(g);
    LL->LLVMPositionBuilderAtEnd(g->b, entry);
    void *t = LL->LLVMBuildAlloca(g->b, g->i32, ""), *nw = LL->LLVMBuildAlloca(g->b, g->i32, "");
    LL->LLVMBuildStore(g->b, ci(g, g->i32, 0), t);
    LL->LLVMBuildStore(g->b, ci(g, g->i32, 0), nw);
    LL->LLVMBuildBr(g->b, head);
    LL->LLVMPositionBuilderAtEnd(g->b, head);
    void *tv = LL->LLVMBuildLoad2(g->b, g->i32, t, "");
    LL->LLVMBuildCondBr(g->b, LL->LLVMBuildICmp(g->b, IULT, tv, nth, ""), body, end);
    LL->LLVMPositionBuilderAtEnd(g->b, body);
    void *t64 = LL->LLVMBuildZExt(g->b, tv, g->i64, "");
    void *dp = LL->LLVMBuildGEP2(g->b, g->i8, done, &t64, 1, "");
    void *d = LL->LLVMBuildLoad2(g->b, g->i8, dp, "");
    LL->LLVMBuildCondBr(g->b, LL->LLVMBuildICmp(g->b, INE, d, ci(g, g->i8, 0), ""), next, run);
    LL->LLVMPositionBuilderAtEnd(g->b, run);
    void *toff = LL->LLVMBuildMul(g->b, t64, c64(g, sizeof(struct jit_thr)), "");
    void *tp = LL->LLVMBuildGEP2(g->b, g->i8, th, &toff, 1, "");
#define THR(f, ty) LL->LLVMBuildLoad2(g->b, ty, LL->LLVMBuildGEP2(g->b, g->i8, tp, (void *[]){ c64(g, offsetof(struct jit_thr, f)) }, 1, ""), "")
#define CTX(f) LL->LLVMBuildGEP2(g->b, g->i8, C, (void *[]){ c64(g, offsetof(struct jit_ctx, f)) }, 1, "")
    void *R = THR(R, g->ptr), *w = THR(w, g->ptr), *lane = THR(lane, g->i32);
    LL->LLVMBuildStore(g->b, THR(local, g->ptr), CTX(local));
    LL->LLVMBuildStore(g->b, w, CTX(w));
    LL->LLVMBuildStore(g->b, THR(Rw, g->ptr), CTX(Rw));
    LL->LLVMBuildStore(g->b, lane, CTX(lane));
    LL->LLVMBuildStore(g->b, THR(tid, g->i32), CTX(tid));
#undef THR
#undef CTX
    void *rp = LL->LLVMBuildGEP2(g->b, g->i32, res, &t64, 1, "");
    void *r = LL->LLVMBuildCall2(g->b, tfty, thread, (void *[]){ R, C, LL->LLVMBuildLoad2(g->b, g->i32, rp, "") }, 3, "");
    LL->LLVMBuildCondBr(g->b, LL->LLVMBuildICmp(g->b, ISLT, r, ci(g, g->i32, 0), ""), fail, ok);
    LL->LLVMPositionBuilderAtEnd(g->b, fail);
    LL->LLVMBuildRet(g->b, ci(g, g->i32, (uint64_t)(uint32_t)-1));
    LL->LLVMPositionBuilderAtEnd(g->b, ok);
    void *ex = LL->LLVMBuildOr(g->b, LL->LLVMBuildICmp(g->b, IEQ, r, ci(g, g->i32, 0), ""),
                               LL->LLVMBuildICmp(g->b, ISGT, r, ci(g, g->i32, (uint64_t)g->nbars), ""), "");
    LL->LLVMBuildCondBr(g->b, ex, exited, waits);
    LL->LLVMPositionBuilderAtEnd(g->b, exited);
    LL->LLVMBuildStore(g->b, ci(g, g->i8, 1), dp);
    void *lp = LL->LLVMBuildGEP2(g->b, g->i8, w, (void *[]){ c64(g, offsetof(struct warp, live)) }, 1, "");
    void *bit = LL->LLVMBuildShl(g->b, ci(g, g->i32, 1), lane, "");
    LL->LLVMBuildStore(g->b, LL->LLVMBuildAnd(g->b, LL->LLVMBuildLoad2(g->b, g->i32, lp, ""), LL->LLVMBuildNot(g->b, bit, ""), ""), lp);
    LL->LLVMBuildBr(g->b, next);
    LL->LLVMPositionBuilderAtEnd(g->b, waits);
    LL->LLVMBuildStore(g->b, r, rp);
    LL->LLVMBuildStore(g->b, LL->LLVMBuildAdd(g->b, LL->LLVMBuildLoad2(g->b, g->i32, nw, ""), ci(g, g->i32, 1), ""), nw);
    LL->LLVMBuildBr(g->b, next);
    LL->LLVMPositionBuilderAtEnd(g->b, next);
    LL->LLVMBuildStore(g->b, LL->LLVMBuildAdd(g->b, tv, ci(g, g->i32, 1), ""), t);
    LL->LLVMBuildBr(g->b, head);
    LL->LLVMPositionBuilderAtEnd(g->b, end);
    LL->LLVMBuildRet(g->b, LL->LLVMBuildLoad2(g->b, g->i32, nw, ""));
    g->fn = thread;
}

/* k's round function (sym's, named sym_round), compiled or loaded from the
 * cache; none for kernels with warp rendezvous, or an object without it */
static void round_of(const struct llvm_api *L, struct jit_kernel *k, const char *sym)
{
    char name[96];
    char pfx = L->LLVMOrcLLJITGetGlobalPrefix(L->jit);
    uint64_t addr = 0;
    k->round = NULL;
    if (k->nwstops) return;
    snprintf(name, sizeof name, "%s%s_round", pfx ? (char[]){ pfx, 0 } : "", sym);
    void *err = L->LLVMOrcLLJITLookup(L->jit, &addr, name);
    if (err) L->LLVMDisposeErrorMessage(L->LLVMGetErrorMessage(err));
    else if (addr) k->round = (jit_round_fn)(uintptr_t)addr;
}

void jit_compile(const struct ptx_module *m, int entry, const ex_fn *h, const struct jit_helpers *hp,
                 struct jit_kernel *k)
{
    const char *why = NULL;
    k->state = -1;
    if (jit_supported(m, entry, h, k->why, sizeof k->why)) return; /* the kernel's reason before LLVM's */
    const struct llvm_api *L = jit_llvm(&why);
    if (!L) { snprintf(k->why, sizeof k->why, "%s", why); return; }
    double t0 = now_ms();
    struct cg G, *g = &G;
    memset(g, 0, sizeof *g);
    g->api = L; g->m = m; g->F = &m->funcs[entry]; g->h = h; g->hp = hp;
    g->light = jit_light(g->F);
    char sym[64];
    jit_llvm_lock();
    if (jitc_begin(L, m, entry, h, hp, sym, sizeof sym) && jitc_load(L, k)) {
        round_of(L, k, sym);
        k->compile_ms = now_ms() - t0;
        jitc_end(k);
        jit_llvm_unlock();
        return;
    }
    void *tsc = L->LLVMOrcCreateNewThreadSafeContext();
    g->ctx = L->LLVMOrcThreadSafeContextGetContext(tsc);
    g->mod = L->LLVMModuleCreateWithNameInContext(sym, g->ctx);
    L->LLVMSetDataLayout(g->mod, L->LLVMOrcLLJITGetDataLayoutStr(L->jit));
    g->b = L->LLVMCreateBuilderInContext(g->ctx);
    char rsym[80];
    snprintf(rsym, sizeof rsym, "%s_round", sym);
    int bad = build(g, sym);
    if (!bad && !g->nwstops) build_round(g, rsym); /* jit_warp.c runs the others thread by thread */
    L->LLVMDisposeBuilder(g->b);
    char *msg = NULL;
    void *rt = NULL, *err;
    if (bad) {
        snprintf(k->why, sizeof k->why, "out of memory");
        L->LLVMDisposeModule(g->mod);
        goto out;
    }
    if (L->LLVMVerifyModule(g->mod, 2 /* LLVMReturnStatusAction */, &msg)) {
        snprintf(k->why, sizeof k->why, "internal error: the IR of %s does not verify: %.160s", g->F->name, msg ? msg : "?");
        L->LLVMDisposeMessage(msg);
        L->LLVMDisposeModule(g->mod);
        goto out;
    }
    L->LLVMDisposeMessage(msg);
    void *opts = L->LLVMCreatePassBuilderOptions();
    /* the light pipeline: simplifications whose time grows with the size */
    err = L->LLVMRunPasses(g->mod, g->light ? "function(early-cse<memssa>,instcombine,simplifycfg)" : "default<O2>", NULL, opts);
    L->LLVMDisposePassBuilderOptions(opts);
    if (err) { llvm_error(L, err, "optimisation failed", k); L->LLVMDisposeModule(g->mod); goto out; }
    rt = L->LLVMOrcJITDylibCreateResourceTracker(L->jd);
    if (jitc_add(L, g->mod, rt, g->light, k->why, sizeof k->why)) { /* native code, disposes of g->mod */
        L->LLVMOrcReleaseResourceTracker(rt);
        goto out;
    }
    uint64_t addr = 0;
    char name[96];
    char pfx = L->LLVMOrcLLJITGetGlobalPrefix(L->jit);
    snprintf(name, sizeof name, "%s%s", pfx ? (char[]){ pfx, 0 } : "", sym);
    if ((err = L->LLVMOrcLLJITLookup(L->jit, &addr, name)) || !addr || jitc_bind(L, k->why, sizeof k->why)) {
        if (err) llvm_error(L, err, "could not generate code", k);
        else if (!addr) snprintf(k->why, sizeof k->why, "LLVM generated no code");
        jitc_forget(rt);
        void *e2 = L->LLVMOrcResourceTrackerRemove(rt);
        if (e2) L->LLVMDisposeErrorMessage(L->LLVMGetErrorMessage(e2));
        L->LLVMOrcReleaseResourceTracker(rt);
        goto out;
    }
    k->fn = (jit_fn)(uintptr_t)addr;
    k->rt = rt;
    k->nbars = g->nbars;
    k->nwstops = g->nwstops;
    round_of(L, k, sym);
    k->ngc = g->ngc;
    k->sregs_filled = g->sregs_filled;
    k->barid = g->barid;
    k->barpc = g->barpc;
    g->barid = NULL;
    g->barpc = NULL;
    k->state = 1;
    k->why[0] = 0;
    k->compile_ms = now_ms() - t0;
out:
    jitc_end(k);
    L->LLVMOrcDisposeThreadSafeContext(tsc);
    jit_llvm_unlock();
    free(g->slot); free(g->ksreg); free(g->kconst); free(g->live); free(g->dirty); free(g->rl); free(g->kimm); free(g->kval); free(g->bb); free(g->barid); free(g->barpc); free(g->resume);
}

void jit_release(struct jit_kernel *k)
{
    const struct llvm_api *L = jit_llvm(NULL);
    if (k->rt && L) {
        jit_llvm_lock();
        void *err = L->LLVMOrcResourceTrackerRemove(k->rt);
        if (err) L->LLVMDisposeErrorMessage(L->LLVMGetErrorMessage(err));
        L->LLVMOrcReleaseResourceTracker(k->rt);
        jitc_forget(k->rt);
        jit_llvm_unlock();
    }
    free(k->barid);
    free(k->barpc);
    memset(k, 0, sizeof *k);
}
