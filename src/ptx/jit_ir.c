/* SPDX-License-Identifier: Apache-2.0 */
/* The PTX JIT's IR of the native instructions (jit_cg.h): integer,
 * predicate and f32/f64 arithmetic, compares, selects, conversions with
 * the interpreter's exact results (canonical NaNs, shifts clamped,
 * division by 0 as PTX defines it), for one lane or, with W = JIT_LANES,
 * for a warp's lanes as vectors (the same builders on vector operands);
 * and, for a thread's function, its loads and stores with the
 * interpreter's checks and its calls of per-lane handlers. */
#include "jit_cg.h"

#include <stdio.h>
#include <stdlib.h>

void jit_cg_types(struct cg *g, int W)
{
    g->W = W;
    g->s1 = LL->LLVMIntTypeInContext(g->ctx, 1);
    g->s8 = LL->LLVMIntTypeInContext(g->ctx, 8);
    g->s32 = LL->LLVMIntTypeInContext(g->ctx, 32);
    g->s64 = LL->LLVMIntTypeInContext(g->ctx, 64);
    g->ptr = LL->LLVMPointerTypeInContext(g->ctx, 0);
    g->i1 = vty(g, g->s1);
    g->i8 = vty(g, g->s8);
    g->i16 = vty(g, LL->LLVMIntTypeInContext(g->ctx, 16));
    g->i32 = vty(g, g->s32);
    g->i64 = vty(g, g->s64);
    g->f32 = vty(g, LL->LLVMFloatTypeInContext(g->ctx));
    g->f64 = vty(g, LL->LLVMDoubleTypeInContext(g->ctx));
}

/* a register held as two 32-bit halves (jit_cg.h, shi): where each write
 * whose value is a zero extension from at most 32 bits stores 0 as its
 * upper half, LLVM folds the upper half away (a constant on every path)
 * and the register's operations and variables are 32 bits a lane, half
 * the vectors of 64 bits. A write of anything else keeps its upper half
 * (the value is the same either way) and says so (hiset) */
void *jit_get_halves(struct cg *g, int s)
{
    void *lo = LL->LLVMBuildZExt(g->b, LL->LLVMBuildLoad2(g->b, g->i32, g->slot[s], ""), g->i64, "");
    void *hi = LL->LLVMBuildZExt(g->b, LL->LLVMBuildLoad2(g->b, g->i32, g->shi[s], ""), g->i64, "");
    return LL->LLVMBuildOr(g->b, lo, LL->LLVMBuildShl(g->b, hi, c64(g, 32), ""), "");
}
void jit_set_halves(struct cg *g, int s, void *v)
{
    void *lo = NULL, *hi = LL->LLVMConstNull(g->i32);
    if (LL->LLVMIsAZExtInst(v)) {
        void *x = LL->LLVMGetOperand(v, 0);
        unsigned w = LL->LLVMGetIntTypeWidth(LL->LLVMGetElementType(LL->LLVMTypeOf(x)));
        lo = w == 32 ? x : w < 32 ? LL->LLVMBuildZExt(g->b, x, g->i32, "") : NULL;
    }
    if (!lo) {
        lo = LL->LLVMBuildTrunc(g->b, v, g->i32, "");
        hi = LL->LLVMBuildTrunc(g->b, LL->LLVMBuildLShr(g->b, v, c64(g, 32), ""), g->i32, "");
        g->hiset[s] = 1;
    }
    if (g->vpred) {
        lo = LL->LLVMBuildSelect(g->b, g->vpred, lo, LL->LLVMBuildLoad2(g->b, g->i32, g->slot[s], ""), "");
        hi = LL->LLVMBuildSelect(g->b, g->vpred, hi, LL->LLVMBuildLoad2(g->b, g->i32, g->shi[s], ""), "");
    }
    LL->LLVMBuildStore(g->b, lo, g->slot[s]);
    LL->LLVMBuildStore(g->b, hi, g->shi[s]);
}

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
static void *b2i(struct cg *g, void *c) { return LL->LLVMBuildZExt(g->b, c, g->i64, ""); }


/* llvm.NAME of type ty (f32 or f64, vectors of W) on n operands */
static void *intrinsic(struct cg *g, const char *name, int t, void **args, unsigned n)
{
    void *ty = t == T_F32 ? g->f32 : g->f64;
    char full[48];
    snprintf(full, sizeof full, "llvm.%s.%s%s", name, g->W > 1 ? "v32" : "", t == T_F32 ? "f32" : "f64");
    return call(g, full, ty, (void *[]){ ty, ty, ty }, args, n);
}

/* the instruction count and a return */
void jit_flush_ret(struct cg *g, int32_t v)
{
    void *p = field_ptr(g, offsetof(struct jit_ctx, icount));
    void *old = LL->LLVMBuildLoad2(g->b, g->s64, p, "");
    LL->LLVMBuildStore(g->b, LL->LLVMBuildAdd(g->b, old, LL->LLVMBuildLoad2(g->b, g->s64, g->ic, ""), ""), p);
    LL->LLVMBuildRet(g->b, k32(g, (uint64_t)(uint32_t)v));
}

/* the inline check of an access of n bytes at a by in (W == 1): whether
 * it passes (i1), its host pointer if so (*ptr), its entry in jit_ctx.gc
 * (*gid, -1 for a window of the context's own) */
static void *window(struct cg *g, const struct ir_ins *in, void *a, unsigned n, void **pp, int *gp)
{
    void *ptr;
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
        g->gidof[in - &g->m->ins[g->F->start]] = gid;
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
    *pp = ptr;
    *gp = gid;
    return LL->LLVMBuildAnd(g->b, LL->LLVMBuildAnd(g->b, c1, c2, ""), al, "");
}

/* the host pointer of an access of n bytes at a by in: the inline check,
 * else the helper; a fault leaves through failbb */
static void *address(struct cg *g, const struct ir_ins *in, void *a, unsigned n)
{
    void *ptr;
    int gid;
    void *inb = window(g, in, a, n, &ptr, &gid);
    LL->LLVMBuildStore(g->b, ptr, g->pv);
    void *slow = newbb(g), *join = newbb(g);
    LL->LLVMBuildCondBr(g->b, likely(g, inb), join, slow);
    LL->LLVMPositionBuilderAtEnd(g->b, slow);
    void *args[5] = { g->C, fnptr(g, in), a, ci(g, g->i32, n), ci(g, g->i32, (uint64_t)(uint32_t)gid) };
    void *p = LL->LLVMBuildCall2(g->b, g->fty_mem, fnptr(g, (const void *)(uintptr_t)g->hp->mem), args, 5, "");
    LL->LLVMBuildStore(g->b, p, g->pv);
    void *isnull = LL->LLVMBuildICmp(g->b, IEQ, p, LL->LLVMConstNull(g->ptr), "");
    LL->LLVMBuildCondBr(g->b, expect(g, isnull, 0), g->failbb, join);
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

/* f32 bits x (scalar i32) with a subnormal flushed to a zero of its sign */
static void *ftz_bits(struct cg *g, void *x)
{
    void *sub = LL->LLVMBuildICmp(g->b, IEQ, LL->LLVMBuildAnd(g->b, x, k32(g, 0x7f800000u), ""), k32(g, 0), "");
    return LL->LLVMBuildSelect(g->b, sub, LL->LLVMBuildAnd(g->b, x, k32(g, 0x80000000u), ""), x, "");
}

void *jit_atom_rmw(struct cg *g, const struct ir_ins *in, void *p, void *v, void *c)
{
    unsigned n = ir_type_size(in->type);
    void *it = n == 4 ? g->s32 : g->s64, *x = n == 4 ? LL->LLVMBuildTrunc(g->b, v, it, "") : v, *old;
    int sg = ir_type_signed(in->type);
    if (in->sub == AT_CAS) { /* the old value, whether it matched or not */
        void *y = n == 4 ? LL->LLVMBuildTrunc(g->b, c, it, "") : c;
        old = LL->LLVMBuildExtractValue(g->b, LL->LLVMBuildAtomicCmpXchg(g->b, p, x, y, SEQ_CST, SEQ_CST, 0), 0, "");
    } else if (in->type == T_F32 && in->space == SP_GLOBAL) {
        /* add on global memory flushes subnormal inputs and results to
         * sign-preserving zero (PTX ISA, atom and red; on shared memory it
         * does not): a cmpxchg loop on the flushed sum, from a guess of 0
         * (it fails and reads the value unless memory holds 0) */
        void *pre = LL->LLVMGetInsertBlock(g->b), *loop = newbb(g), *done = newbb(g);
        LL->LLVMBuildBr(g->b, loop);
        LL->LLVMPositionBuilderAtEnd(g->b, loop);
        void *cur = LL->LLVMBuildPhi(g->b, it, "");
        void *ft = LL->LLVMFloatTypeInContext(g->ctx);
        void *s = LL->LLVMBuildFAdd(g->b, LL->LLVMBuildBitCast(g->b, ftz_bits(g, cur), ft, ""),
                                    LL->LLVMBuildBitCast(g->b, ftz_bits(g, x), ft, ""), "");
        void *pair = LL->LLVMBuildAtomicCmpXchg(g->b, p, cur, ftz_bits(g, LL->LLVMBuildBitCast(g->b, s, it, "")), SEQ_CST, SEQ_CST, 0);
        void *got = LL->LLVMBuildExtractValue(g->b, pair, 0, "");
        LL->LLVMAddIncoming(cur, (void *[]){ k32(g, 0), got }, (void *[]){ pre, LL->LLVMGetInsertBlock(g->b) }, 2);
        LL->LLVMBuildCondBr(g->b, LL->LLVMBuildExtractValue(g->b, pair, 1, ""), done, loop);
        LL->LLVMPositionBuilderAtEnd(g->b, done);
        old = cur;
    } else if (ir_type_float(in->type)) { /* add, as the host adds (the handler's F32(o) + F32(v)) */
        void *ft = LL->LLVMBuildBitCast(g->b, x, n == 4 ? LL->LLVMFloatTypeInContext(g->ctx) : LL->LLVMDoubleTypeInContext(g->ctx), "");
        old = LL->LLVMBuildBitCast(g->b, LL->LLVMBuildAtomicRMW(g->b, RMW_FADD, p, ft, SEQ_CST, 0), it, "");
    } else {
        int op = in->sub == AT_ADD ? RMW_ADD : in->sub == AT_AND ? RMW_AND : in->sub == AT_OR ? RMW_OR
               : in->sub == AT_XOR ? RMW_XOR : in->sub == AT_EXCH ? RMW_XCHG : in->sub == AT_MIN ? (sg ? RMW_MIN : RMW_UMIN)
               : (sg ? RMW_MAX : RMW_UMAX);
        old = LL->LLVMBuildAtomicRMW(g->b, op, p, x, SEQ_CST, 0);
    }
    return n == 4 ? LL->LLVMBuildZExt(g->b, old, g->s64, "") : old; /* D[l] = old, zero-extended */
}

void jit_atom(struct cg *g, const struct ir_ins *in, ex_fn f)
{
    unsigned n = ir_type_size(in->type);
    void *ptr, *a = LL->LLVMBuildAdd(g->b, get(g, in->a), c64(g, (uint64_t)in->imm), "");
    int gid;
    void *inb = window(g, in, a, n, &ptr, &gid);
    void *fast = newbb(g), *slow = newbb(g), *join = newbb(g);
    LL->LLVMBuildCondBr(g->b, likely(g, inb), fast, slow);
    LL->LLVMPositionBuilderAtEnd(g->b, fast);
    jit_store_named(g, in); /* as the handler's path (slow, below) does: what it names in the file after it */
    void *old = jit_atom_rmw(g, in, ptr, get(g, in->b), get(g, in->c));
    if (in->op == OP_ATOM && in->d >= 0) {
        set(g, in->d, old);
        LL->LLVMSetAlignment(LL->LLVMBuildStore(g->b, old, rf(g, in->d)), 8);
    }
    LL->LLVMBuildBr(g->b, join);
    LL->LLVMPositionBuilderAtEnd(g->b, slow);
    jit_per_lane(g, in, f, NULL);
    if (gid >= 0) jit_gc_fill(g, in, a, n, gid);
    LL->LLVMBuildBr(g->b, join);
    LL->LLVMPositionBuilderAtEnd(g->b, join);
}

void jit_gc_fill(struct cg *g, const struct ir_ins *in, void *a, unsigned n, int gid)
{
    void *args[5] = { g->C, fnptr(g, in), a, ci(g, g->s32, n), ci(g, g->s32, (uint64_t)(uint32_t)gid) };
    LL->LLVMBuildCall2(g->b, g->fty_mem, fnptr(g, (const void *)(uintptr_t)g->hp->mem), args, 5, "");
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
    void *w = vty(g, LL->LLVMIntTypeInContext(g->ctx, n * 16));
    void *x = trunc_(g, get(g, in->a), n), *y = trunc_(g, get(g, in->b), n);
    x = sg ? LL->LLVMBuildSExt(g->b, x, w, "") : LL->LLVMBuildZExt(g->b, x, w, "");
    y = sg ? LL->LLVMBuildSExt(g->b, y, w, "") : LL->LLVMBuildZExt(g->b, y, w, "");
    void *p = LL->LLVMBuildMul(g->b, x, y, "");
    if (in->flags & F_WIDE) return n * 2 >= 8 ? LL->LLVMBuildTrunc(g->b, p, g->i64, "") : LL->LLVMBuildZExt(g->b, p, g->i64, "");
    p = LL->LLVMBuildLShr(g->b, p, ci(g, w, n * 8), "");
    return zext(g, LL->LLVMBuildTrunc(g->b, p, ity(g, n), ""), n);
}

static void *idivrem(struct cg *g, const struct ir_ins *in)
{
    unsigned n = ir_type_size(in->type);
    int sg = ir_type_signed(in->type), div = in->op == OP_DIV;
    void *ty = ity(g, n);
    void *x = trunc_(g, get(g, in->a), n), *y = trunc_(g, get(g, in->b), n);
    void *zero = ci(g, ty, 0), *one = ci(g, ty, 1), *m1 = ci(g, ty, ~0ull);
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
    void *xs = LL->LLVMBuildICmp(g->b, ISLT, LL->LLVMBuildBitCast(g->b, x, bt, ""), ci(g, bt, 0), "");
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
        r = intrinsic(g, "fma", t, args, 3);
        break;
    }
    case OP_SQRT: r = intrinsic(g, "sqrt", t, &x, 1); break;
    case OP_RCP: r = LL->LLVMBuildFDiv(g->b, one, x, ""); break;
    default: /* OP_RSQRT */
        r = LL->LLVMBuildFDiv(g->b, one, intrinsic(g, "sqrt", t, &x, 1), "");
        break;
    }
    int k = (int)(in - &g->m->ins[g->F->start]);
    if (g->fraw && g->fraw[k]) /* its one reader makes a NaN canonical */
        return zext(g, LL->LLVMBuildBitCast(g->b, r, t == T_F32 ? g->i32 : g->i64, ""), t == T_F32 ? 4 : 8);
    return fbits(g, r, t);
}

/* float arithmetic whose result a NaN operand makes NaN, canonical (farith) */
static int nan_arith(const struct cg *g, int k)
{
    const struct ir_ins *in = &g->m->ins[g->F->start + k];
    char why[8];
    return (in->op == OP_ADD || in->op == OP_SUB || in->op == OP_MUL || in->op == OP_FMA || in->op == OP_MAD) &&
           (in->type == T_F32 || in->type == T_F64) &&
           jit_classify(g->m, g->F, in, g->h[g->F->start + k], why, sizeof why) == K_NATIVE;
}

/* A float sum's NaN need be canonical only where its bits are seen: a
 * chain of sums (the SGEMMs' accumulator through a k-loop) makes its last
 * canonical, as PTX's is. A result needs none when its register has one
 * reader in the kernel, float arithmetic of its type reading it only as
 * an operand: a NaN there gives a canonical NaN whatever its bits, and
 * nothing else (a store, a move, a handler, the register file's other
 * readers) sees them */
int jit_float_raw(struct cg *g)
{
    const struct ir_func *F = g->F;
    int ns = F->nslots, nins = F->end - F->start;
    int *nread = calloc((size_t)ns + 1, sizeof *nread), *reader = calloc((size_t)ns + 1, sizeof *reader);
    g->fraw = calloc((size_t)nins + 1, 1);
    if (!nread || !reader || !g->fraw) {
        free(nread);
        free(reader);
        free(g->fraw);
        g->fraw = NULL;
        return -1;
    }
    for (int k = 0; k < nins; k++) { /* by slot: the instructions reading it, the last */
        const struct ir_ins *in = &g->m->ins[F->start + k];
        int s[JIT_NAMED_MAX + 1], n = jit_named_slots(g->m, in, s);
        s[n++] = in->guard;
        for (int i = 0; i < n; i++) {
            if (s[i] < 0 || s[i] >= ns || ((s[i] == in->d || s[i] == in->d2) && !(in->a == s[i] || in->b == s[i] ||
                                                                                 in->c == s[i] || in->e == s[i] || in->guard == s[i])))
                continue;
            int dup = 0;
            for (int j = 0; j < i; j++) dup |= s[j] == s[i];
            if (dup) continue;
            nread[s[i]]++;
            reader[s[i]] = k;
        }
    }
    for (int k = 0; k < nins; k++) {
        const struct ir_ins *in = &g->m->ins[F->start + k];
        int d = in->d;
        if (d < 0 || d >= ns || !nan_arith(g, k) || nread[d] != 1) continue;
        const struct ir_ins *r = &g->m->ins[F->start + reader[d]];
        g->fraw[k] = (uint8_t)(nan_arith(g, reader[d]) && r->type == in->type && r->guard != d && r->e != d);
    }
    free(nread);
    free(reader);
    return 0;
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

void jit_native(struct cg *g, const struct ir_ins *in)
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
        r = b2i(g, LL->LLVMBuildICmp(g->b, IEQ, trunc_(g, get(g, in->a), n), ci(g, ity(g, n), 0), ""));
        break;
    case OP_NEG: case OP_ABS: {
        void *x = trunc_(g, get(g, in->a), n), *z = ci(g, ity(g, n), 0);
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

/* the slots a native instruction may write (jit_cg.h) */
void jit_writes(const struct ir_ins *in, int32_t *wr)
{
    const int32_t w[JIT_WRITES] = { in->d, in->d2, in->vr[0], in->vr[1], in->vr[2], in->vr[3] };
    memcpy(wr, w, sizeof w);
}

/* the slots an instruction names (for the per-lane handler) */
int jit_named_slots(const struct ptx_module *m, const struct ir_ins *in, int *s)
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

/* the slots in names that may differ from the file, to the register file */
void jit_store_named(struct cg *g, const struct ir_ins *in)
{
    int s[JIT_NAMED_MAX], n = jit_named_slots(g->m, in, s), k = (int)(in - g->m->ins) - g->F->start;
    for (int i = 0; i < n; i++) {
        if (!is_dirty(g, k, s[i])) continue;
        LL->LLVMBuildStore(g->b, get(g, s[i]), rf(g, s[i]));
    }
}

/* a uniform register's value (uni) to the register file on the lanes of
 * mask (i32) only: the others may stand elsewhere with values of their own.
 * One plain store where every lane is in mask, else a masked one */
void jit_store_lanes(struct cg *g, int s, void *mask)
{
    void *all = newbb(g), *part = newbb(g), *done = newbb(g), *x = get(g, s);
    LL->LLVMBuildCondBr(g->b, likely(g, LL->LLVMBuildICmp(g->b, IEQ, mask, k32(g, ~0u), "")), all, part);
    LL->LLVMPositionBuilderAtEnd(g->b, all);
    LL->LLVMSetAlignment(LL->LLVMBuildStore(g->b, x, rf(g, s)), 8);
    LL->LLVMBuildBr(g->b, done);
    LL->LLVMPositionBuilderAtEnd(g->b, part);
    call(g, "llvm.masked.store.v32i64.p0", LL->LLVMVoidTypeInContext(g->ctx), (void *[]){ g->i64, g->ptr, g->s32, g->i1 },
         (void *[]){ x, rf(g, s), k32(g, 8), lanes(g, mask) }, 4);
    LL->LLVMBuildBr(g->b, done);
    LL->LLVMPositionBuilderAtEnd(g->b, done);
}

/* the slots the instruction names to the register file (the thread's:
 * those that may differ from it; the warp's function, whose own analysis
 * g->dirty is not: all), the handler by the helper, the slots back (the
 * handler writes only the lanes it runs for; the others read back what was
 * stored); a failure, reported by the handler, ends the function */
void jit_per_lane(struct cg *g, const struct ir_ins *in, ex_fn f, void *eff)
{
    int s[JIT_NAMED_MAX], n = jit_named_slots(g->m, in, s);
    if (!eff) jit_store_named(g, in);
    for (int i = 0; eff && i < n; i++)
        if (g->uni && g->uni[s[i]]) jit_store_lanes(g, s[i], eff);
        else LL->LLVMSetAlignment(LL->LLVMBuildStore(g->b, get(g, s[i]), rf(g, s[i])), 8);
    void *xm = eff ? field_ptr(g, offsetof(struct jit_ctx, xmask)) : NULL;
    if (xm) LL->LLVMBuildStore(g->b, eff, xm);
    void *args[3] = { g->C, fnptr(g, in), fnptr(g, (const void *)(uintptr_t)f) };
    void *r = LL->LLVMBuildCall2(g->b, g->fty_exec, fnptr(g, (const void *)(uintptr_t)g->hp->exec), args, 3, "");
    if (xm) LL->LLVMBuildStore(g->b, k32(g, 0), xm);
    void *ok = newbb(g);
    LL->LLVMBuildCondBr(g->b, LL->LLVMBuildICmp(g->b, INE, r, k32(g, 0), ""), g->failbb, ok);
    LL->LLVMPositionBuilderAtEnd(g->b, ok);
    for (int i = 0; i < n; i++) {
        if (g->uni && g->uni[s[i]]) continue; /* no handler writes one (uniforms()) */
        void *x = LL->LLVMBuildLoad2(g->b, g->i64, rf(g, s[i]), "");
        LL->LLVMSetAlignment(x, 8);
        set(g, s[i], x);
    }
}
