/* SPDX-License-Identifier: Apache-2.0 */
/* Lane-affine registers of the warp's function (jit_vec.c).
 *
 * An address is mostly the thread's index times the access's size plus
 * what every lane shares (saxpy's x + 4 * (%ctaid.x * %ntid.x + %tid.x)),
 * and the warp's loads and stores test at run time that their lanes'
 * addresses are consecutive in each half of the warp (lanes 0-15, 16-31)
 * or one address: vector compares of 32 lanes of 64 bits. For a register
 * that an access's address is computed from, the function keeps, beside
 * its value, two variables that say the same at the cost of a few
 * scalars: ok (i1) and k (i64). ok claims that on all 32 lanes, in each
 * half, lane l's 64-bit value is the half's first lane's plus
 * (l - first) * k modulo 2^64. The native integer writers (mov, cvta, add,
 * sub, mul, mad, shl, integer cvt) compute the claim from their sources'
 * (a constant, a uniform register: k 0; %tid.x: k 1 where each half of the
 * warp lies in one row of the block, %tid.y and .z then k 0), checking
 * what modular arithmetic does not give: a product's stride the same in
 * both halves, and no wrap within a half where a 32-bit value is extended
 * to 64 bits (zero-extended as the register holds it, or as mul.wide and
 * cvt extend it). Any other write of the register, a write under a mask
 * that is not every lane, and the function's start and resumes clear ok.
 * A thread constant (jit_vec.c's tconsts()) has no variables: its claim
 * is computed where it is read, from its writer's sources, so a resume
 * computes none. Where an access's register has a claim, its stride
 * decides the shape (the access's size: consecutive; 0: one address; else
 * gathers and scatters) with no vector test, only the window's of the
 * halves' end lanes, scalars; where ok is clear the vector tests run as
 * before. A claim holds on all 32 lanes, so the shape it picks is one the
 * vector test would have found for the lanes that run, or a more general
 * one (a claim of another stride where only one lane a half runs). */
#include "jit_cg.h"

#include <stdlib.h>

/* what is known of slot s's claim when the function is built: 1 true
 * with k 0 (an immediate, a constant the same on every thread, the
 * block's own %ctaid, a uniform register), 0 none, -1 decided at run time
 * (a register, %tid) */
static int fixed(const struct cg *g, int s)
{
    if (s < 0 || s >= g->F->nslots) return 0;
    if (g->kimm[s] || (g->uni && g->uni[s])) return 1;
    if (!g->kconst[s]) return -1;
    int r = g->ksreg[s];
    if (r < 0 || jit_sreg_warp_same(r)) return 1;
    return r >= S_TID_X && r <= S_TID_Z ? -1 : 0;
}

/* the writers whose claim is computed from their sources' */
static int affine_op(const struct ir_ins *in)
{
    unsigned n = ir_type_size(in->type);
    if (in->type == T_PRED || ir_type_float(in->type) || (n != 4 && n != 8)) return 0;
    switch (in->op) {
    case OP_MOV: case OP_CVTA: case OP_CVTA_TO: case OP_ADD: case OP_SUB: case OP_SHL:
        return 1;
    case OP_MUL: case OP_MAD:
        return !(in->flags & F_HI) && !((in->flags & F_WIDE) && n != 4);
    case OP_CVT: {
        unsigned sn = ir_type_size(in->type2);
        return !ir_type_float(in->type2) && (sn == 4 || sn == 8);
    }
    default:
        return 0;
    }
}

int jit_aff_init(struct cg *g)
{
    const struct ir_func *F = g->F;
    int ns = F->nslots, nins = F->end - F->start;
    uint8_t *t = calloc((size_t)ns + 1, 1);
    g->aok = calloc((size_t)ns + 1, sizeof *g->aok);
    g->ak = calloc((size_t)ns + 1, sizeof *g->ak);
    if (!t || !g->aok || !g->ak) {
        free(t);
        free(g->aok);
        free(g->ak);
        g->aok = g->ak = NULL;
        return -1;
    }
    /* the address registers, and what their affine writers read */
    for (int k = 0; k < nins; k++) {
        const struct ir_ins *in = &g->m->ins[F->start + k];
        if ((in->op == OP_LD || in->op == OP_ST) && fixed(g, in->a) < 0) t[in->a] = 1;
    }
    for (int changed = 1; changed;) {
        changed = 0;
        for (int k = 0; k < nins; k++) {
            const struct ir_ins *in = &g->m->ins[F->start + k];
            if (!affine_op(in) || in->d < 0 || in->d >= ns || !t[in->d]) continue;
            const int32_t src[3] = { in->a, in->b, in->c };
            for (int i = 0; i < 3; i++)
                if (fixed(g, src[i]) < 0 && !t[src[i]]) t[src[i]] = 1, changed = 1;
        }
    }
    for (int s = 0; s < ns; s++)
        if (t[s] && !g->kconst[s] && !(g->tcw && g->tcw[s] >= 0)) { /* claim() computes theirs */
            g->aok[s] = LL->LLVMBuildAlloca(g->b, g->s1, "");
            g->ak[s] = LL->LLVMBuildAlloca(g->b, g->s64, "");
            LL->LLVMBuildStore(g->b, LL->LLVMConstInt(g->s1, 0, 0), g->aok[s]);
            LL->LLVMBuildStore(g->b, k64(g, 0), g->ak[s]);
        }
    free(t);
    return 0;
}

void jit_aff_done(struct cg *g)
{
    free(g->aok);
    free(g->ak);
    g->aok = g->ak = NULL;
}

static void *tr1(struct cg *g) { return LL->LLVMConstInt(g->s1, 1, 0); }
static void *and1(struct cg *g, void *x, void *y) { return LL->LLVMBuildAnd(g->b, x, y, ""); }
static void *eq(struct cg *g, void *x, void *y) { return LL->LLVMBuildICmp(g->b, IEQ, x, y, ""); }
static void *lo32(struct cg *g, void *x) { return LL->LLVMBuildTrunc(g->b, x, g->s32, ""); }
static void *ext32(struct cg *g, void *x, int sg)
{
    return sg ? LL->LLVMBuildSExt(g->b, lo32(g, x), g->s64, "") : LL->LLVMBuildZExt(g->b, lo32(g, x), g->s64, "");
}

/* the writers a claim follows back for a thread constant, at most */
#define AFF_BUDGET 64

static void rule(struct cg *g, const struct ir_ins *in, struct jit_aff_src *src, void *x, void **ok, void **k);

/* each half of the warp in one row of the block: its last lane's %tid.x
 * 15 past its first's (the block's threads in order: a half that wraps
 * to the next row, or rows shorter than 16, end lower) */
static void *tid_rows(struct cg *g)
{
    void *x = jit_tids(g, 0), *ok = tr1(g);
    for (unsigned h = 0; h < 2; h++) {
        void *x0 = LL->LLVMBuildExtractElement(g->b, x, k32(g, h * 16), "");
        void *x1 = LL->LLVMBuildExtractElement(g->b, x, k32(g, h * 16 + 15), "");
        ok = and1(g, ok, eq(g, LL->LLVMBuildSub(g->b, x1, x0, ""), k32(g, 15)));
    }
    return ok;
}

/* slot s's claim (ok, k), its lanes 0 and 16 in v. A thread constant's
 * (jit_vec.c's tconsts(): one writer, of %tid and constants) is computed
 * here, where it is read, from its writer's sources, where that writer is
 * outside the divergent regions: its value and theirs are then the same,
 * on all 32 lanes, wherever they are read, and a barrier's resume,
 * which computes them again, computes no claim that its warp may not
 * read (the reduction's warps that skip the work between two barriers).
 * Others are their variables' (eager: written by their writers) */
static void claim(struct cg *g, int s, struct jit_aff_src *c, int *budget)
{
    int f = fixed(g, s);
    if (s < 0) {
        c->ok = LL->LLVMConstInt(g->s1, 0, 0);
        c->k = c->v[0] = c->v[1] = k64(g, 0);
        return;
    }
    void *x = get(g, s);
    for (unsigned h = 0; h < 2; h++) c->v[h] = LL->LLVMBuildExtractElement(g->b, x, k32(g, h * 16), "");
    c->ok = LL->LLVMConstInt(g->s1, f > 0, 0);
    c->k = k64(g, 0);
    if (f >= 0) return;
    int r = g->ksreg[s];
    if (g->kconst[s] && r >= S_TID_X && r <= S_TID_Z) {
        c->ok = tid_rows(g);
        c->k = k64(g, r == S_TID_X);
        return;
    }
    if (g->tcw && g->tcw[s] >= 0) {
        const struct ir_ins *in = &g->m->ins[g->F->start + g->tcw[s]];
        /* written outside the divergent regions, on all 32 lanes (in one,
         * the lanes off its path keep what they held) */
        if (!affine_op(in) || g->rin[g->tcw[s]] >= 0 || --*budget < 0) return;
        struct jit_aff_src src[3];
        const int32_t o[3] = { in->a, in->b, in->c };
        for (int i = 0; i < 3; i++) claim(g, o[i], &src[i], budget); /* -1: a false claim */
        rule(g, in, src, x, &c->ok, &c->k);
        return;
    }
    if (g->aok && g->aok[s]) {
        c->ok = LL->LLVMBuildLoad2(g->b, g->s1, g->aok[s], "");
        c->k = LL->LLVMBuildLoad2(g->b, g->s64, g->ak[s], "");
    }
}

/* c's claim carried to its value's lower n bytes extended to 64 bits
 * (sg: signed): where no half wraps, i.e. the exact value of its last
 * lane, ext(first) + 15 * k (k as n bytes, signed), is in the extension's
 * range (the lanes between lie between), the stride is k extended */
static void widen(struct cg *g, struct jit_aff_src *c, unsigned n, int sg)
{
    if (n >= 8) return;
    void *k = ext32(g, c->k, 1);
    for (unsigned h = 0; h < 2; h++) {
        c->v[h] = ext32(g, c->v[h], sg);
        void *e = LL->LLVMBuildAdd(g->b, c->v[h], LL->LLVMBuildMul(g->b, k, k64(g, 15), ""), "");
        c->ok = and1(g, c->ok, eq(g, e, ext32(g, e, sg)));
    }
    c->k = k;
}

void jit_aff_pre(struct cg *g, const struct ir_ins *in, struct jit_aff_src *src)
{
    const int32_t s[3] = { in->a, in->b, in->c };
    int budget = AFF_BUDGET;
    for (int i = 0; i < 3; i++) {
        src[i].ok = NULL;
        if (g->aok && affine_op(in) && in->d >= 0 && in->d < g->F->nslots && g->aok[in->d] && s[i] >= 0)
            claim(g, s[i], &src[i], &budget);
    }
}

/* the stride of a * b (+ c) in both halves where that is one stride: a
 * product of a + l ka and b + l kb is a b + l (ka b + kb a) + l^2 ka kb,
 * its stride the first term's where ka kb is 0, in each half from its
 * first lanes' a and b; compared modulo 2^(8n) */
static void product(struct cg *g, struct jit_aff_src *a, struct jit_aff_src *b, unsigned n, void **ok, void **k)
{
    void *st[2];
    for (unsigned h = 0; h < 2; h++)
        st[h] = LL->LLVMBuildAdd(g->b, LL->LLVMBuildMul(g->b, a->k, b->v[h], ""), LL->LLVMBuildMul(g->b, b->k, a->v[h], ""), "");
    void *cross = LL->LLVMBuildMul(g->b, a->k, b->k, "");
    if (n < 8) {
        st[0] = ext32(g, st[0], 0);
        st[1] = ext32(g, st[1], 0);
        cross = ext32(g, cross, 0);
    }
    *ok = and1(g, and1(g, a->ok, b->ok), and1(g, eq(g, st[0], st[1]), eq(g, cross, k64(g, 0))));
    *k = st[0];
}

/* the claim of in's result x (its destination's value) from its sources' */
static void rule(struct cg *g, const struct ir_ins *in, struct jit_aff_src *src, void *x, void **okp, void **kp)
{
    unsigned n = ir_type_size(in->type), rn = n;
    struct jit_aff_src *a = &src[0], *b = &src[1], *c = &src[2];
    void *ok, *k;
    switch (in->op) {
    case OP_ADD: case OP_SUB:
        ok = and1(g, a->ok, b->ok);
        k = in->op == OP_ADD ? LL->LLVMBuildAdd(g->b, a->k, b->k, "") : LL->LLVMBuildSub(g->b, a->k, b->k, "");
        break;
    case OP_MUL: case OP_MAD:
        if (in->flags & F_WIDE) {
            widen(g, a, n, ir_type_signed(in->type));
            widen(g, b, n, ir_type_signed(in->type));
            rn = 2 * n;
        }
        product(g, a, b, rn, &ok, &k);
        if (in->op == OP_MAD) ok = and1(g, ok, c->ok), k = LL->LLVMBuildAdd(g->b, k, c->k, "");
        break;
    case OP_SHL: { /* by the same amount on every lane: k shifted; by n * 8 or more: 0 */
        void *sh = ext32(g, b->v[0], 0), *big = LL->LLVMBuildICmp(g->b, IUGE, sh, k64(g, 8 * n), "");
        ok = and1(g, and1(g, a->ok, b->ok), and1(g, eq(g, ext32(g, b->k, 0), k64(g, 0)), eq(g, sh, ext32(g, b->v[1], 0))));
        k = LL->LLVMBuildSelect(g->b, big, k64(g, 0), LL->LLVMBuildShl(g->b, a->k, LL->LLVMBuildSelect(g->b, big, k64(g, 0), sh, ""), ""), "");
        break;
    }
    case OP_CVT:
        widen(g, a, ir_type_size(in->type2), ir_type_signed(in->type2));
        ok = a->ok, k = a->k;
        break;
    default: /* mov, cvta: the value */
        ok = a->ok, k = a->k;
        break;
    }
    if (rn < 8) { /* held zero-extended */
        struct jit_aff_src r = { ok, k, { NULL, NULL } };
        for (unsigned h = 0; h < 2; h++) r.v[h] = LL->LLVMBuildExtractElement(g->b, x, k32(g, h * 16), "");
        widen(g, &r, rn, 0);
        ok = r.ok, k = r.k;
    }
    *okp = ok;
    *kp = k;
}

void jit_aff_post(struct cg *g, const struct ir_ins *in, struct jit_aff_src *src)
{
    int d = in->d;
    if (!g->aok || d < 0 || d >= g->F->nslots || !g->aok[d]) return;
    if (!src[0].ok) { /* not affine: no claim */
        LL->LLVMBuildStore(g->b, LL->LLVMConstInt(g->s1, 0, 0), g->aok[d]);
        return;
    }
    void *ok, *k;
    rule(g, in, src, get(g, d), &ok, &k);
    if (g->vpred) /* a masked write holds for every lane only where it writes every lane */
        ok = and1(g, ok, eq(g, LL->LLVMBuildBitCast(g->b, g->vpred, g->s32, ""), k32(g, ~0u)));
    LL->LLVMBuildStore(g->b, ok, g->aok[d]);
    LL->LLVMBuildStore(g->b, k, g->ak[d]);
}

void jit_aff_kill(struct cg *g, int s)
{
    if (g->aok && s >= 0 && s < g->F->nslots && g->aok[s]) LL->LLVMBuildStore(g->b, LL->LLVMConstInt(g->s1, 0, 0), g->aok[s]);
}

int jit_aff_has(const struct cg *g, int s)
{
    int f = fixed(g, s);
    return f > 0 || (f < 0 && ((g->aok && g->aok[s]) || (g->tcw && g->tcw[s] >= 0) || g->kconst[s]));
}

int jit_aff_get(struct cg *g, int s, void **ok, void **k)
{
    int budget = AFF_BUDGET;
    if (!jit_aff_has(g, s)) return 0;
    struct jit_aff_src c;
    claim(g, s, &c, &budget);
    *ok = c.ok;
    *k = c.k;
    return 1;
}
