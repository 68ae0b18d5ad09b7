/* SPDX-License-Identifier: Apache-2.0 */
/* The PTX JIT's warp function (jit.h, jit_warp_fn; docs/ptx-jit.md, "A
 * warp's lanes as vectors"): the lanes of a warp that stand at one resume
 * point run together, each register a vector of 32 lanes, the native
 * instructions built by jit_ir.c's own code at that width.
 *
 * What stays vectors: native arithmetic (guarded: a select, the lanes
 * whose guard is false keep their values), branches, exits and barriers
 * whose guard is the same on every lane of the mask, loads and stores whose
 * every lane (of the mask and the guard) passes the thread's own checks
 * inline (alignment, the allocation the access last found, the shared and
 * parameter windows): then, per half warp, a masked load or store of
 * consecutive addresses, a scalar load of one address, or else masked
 * gathers and scatters (ldst; docs/ptx-jit.md, "The warp's loads and
 * stores"); shfl.sync,
 * vote.sync and bar.warp.sync whose member mask is the lanes running and
 * whose guard is uniform (a shuffle: a gather from the source lanes).
 * Anything else
 * leaves the vector form before the instruction (an entry, jit.c): the
 * live registers go to the register file, in the layout the thread's
 * function reads, and each lane runs on from there through the thread's
 * function with entries, which does exactly what the thread's function
 * does (its checks, faults, per-lane handlers, divergence). The
 * instruction count adds the mask's lanes per instruction, as the threads
 * would have counted. */
#include "jit_cg.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct vg {
    struct cg *g;
    void *mask;                  /* the lanes running (i32) */
    void *npop;                  /* how many (i64) */
    void *vptr;                  /* <32 x ptr> */
    void *sbuf;                  /* a shuffle's source values: a <32 x i64> in the frame */
    void *abuf[4], *amask;       /* an inline atomic's lanes' address, operands and results
                                    (<32 x i64> each), and the lanes left (atom()); NULL in a
                                    kernel without one */
    uint64_t *wd;                /* written(): by instruction, the slots written since
                                    the start or resume */
    void *ltmp[4][4];            /* a load's values, by log2 of the size and element, as
                                    loaded (<32 x iN>) on each of its paths: extended once
                                    after them (so a truncation of the register folds) */
    int nbars;                   /* the thread's barriers and rendezvous, all (g->nbars
                                    counts them as body() meets them) */
    void *pmask, *ppop;          /* the lanes the function runs, and how many */
    void *cur;                   /* in a region (g->rin): the lanes on its path (an i32
                                    variable; outside, the same as pmask) */
    void **outer;                /* by region branch: the lanes before it (i32 variables) */
    void **dirty;                /* by slot written somewhere: an i1 variable, set when an
                                    instruction that writes it starts (spill_live stores
                                    it only then), NULL for the others */
    uint16_t *nreg;              /* by slot: its .shared and .param accesses at small
                                    aligned offsets (reg_window), at most 65535 */
    uint16_t *nld;               /* by slot: the loads whose address register it is, at
                                    most 65535 */
    int *glead;                  /* by instruction: an access's group's first (groups()),
                                    -1 for none */
    int64_t *gmin, *gmax;        /* by a group's first: its accesses' offsets' range */
    struct vgroup {              /* by a group's first, as last built (ldst) */
        void *eff;               /* its lanes (i32): a member of other lanes has none */
        void *cons, *one;        /* (i1) every access of the group passes its checks and
                                    is consecutive, or (loads) one address, a half */
    } *grp;
    void *gtmp[2];               /* group_tests: the shapes' tests where a claim fails (i1) */
    int copying;                 /* building a region's uniform copy (uniform_copy) */
    int lane_only;               /* a barrier's stop stores a uniform register to its lane
                                    ulane only (spill_live) */
};

/* ---- regions: divergent forward branches run with masks ------------------------ */
static int ins_kind(const struct cg *g, int k)
{
    char why[8];
    return jit_classify(g->m, g->F, &g->m->ins[g->F->start + k], g->h[g->F->start + k], why, sizeof why);
}
static int target_of(const struct cg *g, int k)
{
    int n = g->F->end - g->F->start, t = (int)g->m->ins[g->F->start + k].imm - g->F->start;
    return t < 0 || t > n ? n : t;
}

/* whether branch k's region (k, j), else part from e (or -1), can run with
 * masks: at most JIT_REGION_MAX instructions (the analysis stays linear in
 * the kernel's size); inside, only what the warp's function builds as
 * vectors or hands on from one instruction (loads and stores), and
 * branches only of regions nested within one part; no branch from outside
 * into it (pre: prefix sums of the branches to each instruction) */
static int region_ok(const struct cg *g, const int *pre, int k, int e, int j)
{
    if (j - k > JIT_REGION_MAX) return 0;
    int into = pre[j] - pre[k + 1]; /* branches to (k, j): all from k or inside */
    for (int i = k; i < j; i++)
        if (g->m->ins[g->F->start + i].op == OP_BRA && target_of(g, i) > k && target_of(g, i) < j) into--;
    if (into) return 0;
    for (int i = k + 1; i < j; i++) {
        const struct ir_ins *in = &g->m->ins[g->F->start + i];
        if (e >= 0 && i == e - 1) continue; /* the then part's branch to the join */
        int end = e >= 0 && i < e - 1 ? e - 1 : j, kind = ins_kind(g, i);
        if (in->op == OP_BRA) {
            if (g->rjoin[i] < 0 || g->rjoin[i] > end) return 0;
            i = g->rjoin[i] - 1; /* a nested region, checked */
            continue;
        }
        if (in->op == OP_EXIT || in->op == OP_RET || in->op == OP_BAR || in->op == OP_TRAP ||
            (kind != K_NATIVE && kind != K_LANE) || ((in->op == OP_LD || in->op == OP_ST) && in->space == SP_LOCAL))
            return 0;
    }
    return 1;
}

int jit_vec_regions(struct cg *g)
{
    int n = g->F->end - g->F->start;
    g->rjoin = malloc(sizeof *g->rjoin * ((size_t)n + 1));
    g->relse = malloc(sizeof *g->relse * ((size_t)n + 1));
    g->rin = malloc(sizeof *g->rin * ((size_t)n + 1));
    if (!g->rjoin || !g->relse || !g->rin) return -1;
    for (int k = 0; k <= n; k++) g->rjoin[k] = g->relse[k] = g->rin[k] = -1;
    if (g->light) return 0; /* no warp's function */
    int *pre = calloc((size_t)n + 2, sizeof *pre); /* pre[t]: the branches to instructions before t */
    if (!pre) return -1;
    for (int i = 0; i < n; i++)
        if (g->m->ins[g->F->start + i].op == OP_BRA) pre[target_of(g, i) + 1]++;
    for (int t = 1; t <= n + 1; t++) pre[t] += pre[t - 1];
    for (int k = n - 1; k >= 0; k--) { /* the inner ones first */
        const struct ir_ins *in = &g->m->ins[g->F->start + k];
        if (in->op != OP_BRA || in->guard < 0) continue;
        int t = target_of(g, k), e = -1, j = t;
        if (t <= k + 1 || t >= n) continue;
        const struct ir_ins *lb = &g->m->ins[g->F->start + t - 1];
        if (t - 1 > k && lb->op == OP_BRA && lb->guard < 0) { /* if-then-else */
            j = target_of(g, t - 1);
            if (j <= t || j >= n) continue;
            e = t;
        }
        if (!region_ok(g, pre, k, e, j)) continue;
        g->rjoin[k] = j;
        g->relse[k] = e;
        for (int i = k + 1; i < j; i++)
            if (g->rin[i] < 0) g->rin[i] = k;
    }
    free(pre);
    return 0;
}


static void *bits(struct cg *g, void *v) { return LL->LLVMBuildBitCast(g->b, v, g->s32, ""); }


/* the instructions branch j makes some lanes run apart from the others
 * into div: those it jumps over forward (not its target, where they meet
 * again), or a loop's back to its target, itself too (they run it a
 * different number of times); whether one was not there yet */
static int mark_span(const struct cg *g, uint8_t *div, int j)
{
    int t = target_of(g, j), lo = t > j ? j + 1 : t, hi = t > j ? t - 1 : j, grew = 0;
    for (int i = lo; i <= hi; i++)
        if (!div[i]) div[i] = 1, grew = 1;
    return grew;
}

/* the registers the warp's function holds as one value (g->uni): those
 * the same on every lane it runs whatever the lanes did, a greatest fixed
 * point. A register is uniform when each of its writers is native (no
 * per-lane handler, rendezvous or stop), not a load but of .param, reads
 * only uniform registers and constants the same on every thread (not
 * %tid, %laneid, a .local address) under no guard or a uniform one, and
 * stands outside every region with masks and every divergent range. A
 * divergent range is what a branch whose guard is not uniform jumps over
 * (or a loop's body, from a branch back), closed under the branches that
 * leave it (mark_span): the lanes leave it at its end together, and what
 * is written inside it differs.
 * Outside, the function runs every lane of the warp, or hands all of them
 * on; the thread's function runs them one by one through the same
 * branches, so their values agree again at any stop outside a range. A
 * stop inside one (a barrier, a rendezvous) can see its lanes at
 * different passes of a loop around it: then no register is uniform.
 * 0, or -1 out of memory (none is) */
static int uniforms(struct cg *g)
{
    const struct ir_func *F = g->F;
    int ns = F->nslots, nins = F->end - F->start;
    uint8_t *u = calloc((size_t)ns + 1, 1), *src = calloc((size_t)ns + 1, 1), *div = calloc((size_t)nins + 1, 1);
    g->uni = calloc((size_t)ns + 1, sizeof *g->uni);
    if (!u || !src || !div || !g->uni) {
        free(u);
        free(src);
        free(div);
        free(g->uni);
        g->uni = NULL;
        return -1;
    }
    for (int k = F->cstart; k < F->cend; k++) { /* the constants the same on every thread */
        const struct ir_const *c = &g->m->consts[k];
        if (c->slot < 0 || c->slot >= ns) continue;
        int v = (int)c->val, ok = c->kind == K_IMM || c->kind == K_PARAM || c->kind == K_GLOBAL || c->kind == K_SHARED ||
                                 c->kind == K_FUNC;
        if (c->kind == K_SREG)
            ok = jit_sreg_warp_same(v);
        src[c->slot] = (uint8_t)ok;
    }
    for (int k = 0; k < nins; k++) { /* candidates: the registers written, but constants */
        int32_t wr[JIT_WRITES];
        jit_writes(&g->m->ins[F->start + k], wr);
        for (int j = 0; j < JIT_WRITES; j++)
            if (wr[j] >= 0 && wr[j] < ns && !g->kimm[wr[j]] && !g->kconst[wr[j]]) u[wr[j]] = 1;
    }
#define UNI(s) ((s) < 0 || ((s) < ns && (u[s] || src[s])))
    for (int changed = 1; changed;) {
        changed = 0;
        memset(div, 0, (size_t)nins + 1);
        for (int j = 0; j < nins; j++) { /* the divergent branches' spans */
            const struct ir_ins *in = &g->m->ins[F->start + j];
            if (in->op == OP_BRA && !UNI(in->guard)) (void)mark_span(g, div, j);
        }
        for (int grown = 1; grown;) { /* closed under the branches that leave them */
            grown = 0;
            for (int j = 0; j < nins; j++) {
                if (div[j] && g->m->ins[F->start + j].op == OP_BRA && mark_span(g, div, j)) grown = 1;
            }
        }
        for (int k = 0; k < nins; k++) {
            const struct ir_ins *in = &g->m->ins[F->start + k];
            int s[JIT_NAMED_MAX], n = jit_named_slots(g->m, in, s), kind = ins_kind(g, k), ok;
            if (div[k] && (in->op == OP_BAR || kind == K_WSYNC)) { /* a stop inside a range */
                memset(u, 0, (size_t)ns + 1);
                break;
            }
            if (kind != K_NATIVE) { /* what it names, it may write */
                for (int i = 0; i < n; i++)
                    if (s[i] >= 0 && s[i] < ns && u[s[i]]) u[s[i]] = 0, changed = 1;
                continue;
            }
            if (in->op == OP_ST) continue; /* its vr are what it stores */
            ok = !div[k] && g->rin[k] < 0 && in->op != OP_BAR &&
                 (in->op != OP_LD || in->space == SP_PARAM) && UNI(in->guard);
            for (int i = 0; i < n && ok; i++) ok = UNI(s[i]);
            int32_t wr[JIT_WRITES];
            jit_writes(in, wr);
            for (int j = 0; j < JIT_WRITES && !ok; j++)
                if (wr[j] >= 0 && wr[j] < ns && u[wr[j]]) u[wr[j]] = 0, changed = 1;
        }
    }
#undef UNI
    for (int s = 0; s < ns; s++)
        if (u[s]) g->uni[s] = LL->LLVMBuildAlloca(g->b, g->s64, "");
    free(u);
    free(src);
    free(div);
    return 0;
}

/* the slots instruction k (from F->start) may write, into s; how many
 * (some -1). A native one's destinations (a store's registers are what
 * it stores); any other's every slot it names: a per-lane handler's
 * registers are written back after it runs, what it reads too */
static int writes_of(const struct cg *g, int k, int *s)
{
    const struct ir_ins *in = &g->m->ins[g->F->start + k];
    if (ins_kind(g, k) != K_NATIVE) return jit_named_slots(g->m, in, s);
    int32_t wr[JIT_WRITES];
    jit_writes(in, wr);
    for (int i = 0; i < JIT_WRITES; i++) s[i] = wr[i];
    return in->op == OP_ST ? 2 : JIT_WRITES;
}

/* the registers the warp's function holds as two 32-bit halves (g->shi,
 * jit_ir.c's jit_set_halves): those whose every writer in the kernel is
 * native and (by its type) at most 32 bits wide, not .wide. Their writes
 * are then zero extensions, which set() checks of each write the function
 * builds (any other keeps its upper half, hiset). A register read from the
 * file (load_live) whose writes were all checked so has 0 there too: the
 * thread's function builds the same native instructions by the same code,
 * and nothing else writes it (the launch's constants and special registers
 * are not held so). 0, or -1 out of memory */
static int halves(struct cg *g)
{
    const struct ir_func *F = g->F;
    int ns = F->nslots, nins = F->end - F->start;
    uint8_t *st = calloc((size_t)ns + 1, 1); /* by slot: 1 a writer seen, 2 one not narrow */
    g->shi = calloc((size_t)ns + 1, sizeof *g->shi);
    g->hiset = calloc((size_t)ns + 1, 1);
    if (!st || !g->shi || !g->hiset) {
        free(st);
        free(g->shi);
        free(g->hiset);
        g->shi = NULL;
        g->hiset = NULL;
        return -1;
    }
    for (int k = 0; k < nins; k++) {
        const struct ir_ins *in = &g->m->ins[F->start + k];
        int s[JIT_NAMED_MAX], n = writes_of(g, k, s), native = ins_kind(g, k) == K_NATIVE;
        int narrow = native && !((in->op == OP_LD || in->op == OP_ST) && in->space == SP_LOCAL) &&
                     (in->op == OP_SETP || (ir_type_size(in->type) <= 4 && !(in->flags & F_WIDE)));
        for (int i = 0; i < n; i++)
            if (s[i] >= 0 && s[i] < ns) st[s[i]] = narrow && st[s[i]] != 2 ? 1 : 2;
    }
    for (int s = 0; s < ns; s++)
        if (st[s] == 1 && !g->kimm[s] && !g->kconst[s] && g->ksreg[s] < 0 && !(g->uni && g->uni[s]))
            g->shi[s] = LL->LLVMBuildAlloca(g->b, g->i32, "");
    free(st);
    return 0;
}

/* the longest chain of thread constants' writers a resume runs for one */
#define JIT_TC_DEPTH 16

/* a constant slot (g->tck): what a thread constant may read; those the
 * same on every thread the warp's function loads from lane 0 */
enum { TK_OTHER, TK_SAME, TK_THREAD };

/* the thread constants (g->tcw): registers whose value is the same
 * function of the thread's %tid and the launch's constants wherever they
 * are read, so a resume computes them again from those, cheaper than
 * loading 32 lanes of 64 bits (the reduction's %r2, a copy of %tid.x; the
 * tiled SGEMM's shared addresses, %tid.y * 64 + %tid.x * 4 + a tile's
 * address). Such a register has one writer in the kernel, native and
 * unguarded integer arithmetic (mov, add, sub, mul, mad, shl, shr, and,
 * or, xor, cvt, cvta) of immediates, constants the same on every thread,
 * %tid, %ctaid (the block's; a resume is in the same block) and thread
 * constants; and it is not live at the start. Then every path from the
 * start to a read of it runs its writer: a lane that reads it after a
 * resume ran that writer before, computing what the resume computes (the
 * thread's function too: the same instruction), and a lane that did not
 * never reads it. 0, or -1 out of memory (none is) */
static int tconsts(struct cg *g)
{
    const struct ir_func *F = g->F;
    int ns = F->nslots, nins = F->end - F->start;
    uint8_t *nwr = calloc((size_t)ns + 1, 1);
    g->tcw = malloc(sizeof *g->tcw * ((size_t)ns + 1));
    g->tck = calloc((size_t)ns + 1, 1);
    if (!nwr || !g->tcw || !g->tck) {
        free(nwr);
        free(g->tcw);
        free(g->tck);
        g->tcw = NULL;
        g->tck = NULL;
        return -1;
    }
    for (int s = 0; s <= ns; s++) g->tcw[s] = -1;
    for (int k = F->cstart; k < F->cend; k++) {
        const struct ir_const *c = &g->m->consts[k];
        if (c->slot < 0 || c->slot >= ns) continue;
        int v = (int)c->val;
        g->tck[c->slot] = c->kind == K_GLOBAL || c->kind == K_SHARED || c->kind == K_FUNC ? TK_SAME : TK_OTHER;
        if (c->kind == K_SREG)
            g->tck[c->slot] = (v >= S_TID_X && v <= S_TID_Z) || (v >= S_CTAID_X && v <= S_CTAID_Z) ? TK_THREAD
                              : jit_sreg_warp_same(v) ? TK_SAME : TK_OTHER; /* %ctaid: TK_THREAD first */
    }
    for (int k = 0; k < nins; k++) {
        int s[JIT_NAMED_MAX], n = writes_of(g, k, s);
        for (int i = 0; i < n; i++)
            if (s[i] >= 0 && s[i] < ns) {
                if (nwr[s[i]] < 2) nwr[s[i]]++;
                g->tcw[s[i]] = k;
            }
    }
    const uint64_t *start = g->live;
    for (int s = 0; s < ns; s++) {
        int k = g->tcw[s];
        const struct ir_ins *in = k >= 0 ? &g->m->ins[F->start + k] : NULL;
        int op = in ? in->op : -1;
        int pure = op == OP_MOV || op == OP_ADD || op == OP_SUB || op == OP_MUL || op == OP_MAD || op == OP_SHL ||
                   op == OP_SHR || op == OP_AND || op == OP_OR || op == OP_XOR || op == OP_CVT || op == OP_CVTA ||
                   op == OP_CVTA_TO;
        if (nwr[s] != 1 || g->kconst[s] || g->kimm[s] || !pure || ins_kind(g, k) != K_NATIVE || in->guard >= 0 ||
            in->d != s || in->d2 >= 0 || in->e >= 0 || in->type == T_PRED || ir_type_float(in->type) ||
            (op == OP_CVT && ir_type_float(in->type2)) || (start[s / 64] >> (s % 64) & 1))
            g->tcw[s] = -1;
    }
    /* sources: immediates, such constants, thread constants; and chains
     * of at most JIT_TC_DEPTH writers (nwr now counts a chain's length) */
    for (int s = 0; s < ns; s++) nwr[s] = 1;
    for (int changed = 1; changed;) {
        changed = 0;
        for (int s = 0; s < ns; s++) {
            if (g->tcw[s] < 0) continue;
            const struct ir_ins *in = &g->m->ins[F->start + g->tcw[s]];
            int src[3] = { in->a, in->b, in->c }, ok = 1, len = 1;
            for (int i = 0; i < 3 && ok; i++) {
                int o = src[i];
                if (o < 0 || (o < ns && (g->kimm[o] || (g->kconst[o] && g->tck[o] != TK_OTHER)))) continue;
                ok = o < ns && g->tcw[o] >= 0;
                if (ok && nwr[o] + 1 > len) len = nwr[o] + 1;
            }
            if (!ok || len > JIT_TC_DEPTH) g->tcw[s] = -1, changed = 1;
            else if (len != nwr[s]) nwr[s] = (uint8_t)len, changed = 1;
        }
    }
    free(nwr);
    return 0;
}

/* slot s's value from where the function's start or a resume finds it:
 * %ctaid from jit_ctx, %tid packed (jit_ctx.tids), a constant the same on
 * every thread from lane 0, a uniform register from lane ulane, a thread
 * constant computed again (remat), the rest from the file */
/* the lowest lane of mask (not 0; and 31 keeps the index in the vector
 * even so), an i32 */
static void *first_lane(struct cg *g, void *mask)
{
    return LL->LLVMBuildAnd(g->b, call(g, "llvm.cttz.i32", g->s32, (void *[]){ g->s32, g->s1 },
                                       (void *[]){ mask, LL->LLVMConstInt(g->s1, 0, 0) }, 2), k32(g, 31), "");
}

/* slot s of lane l (an i32) in the register file g->R */
static void *rf_lane(struct cg *g, int s, void *l)
{
    void *idx = LL->LLVMBuildZExt(g->b, l, g->s64, "");
    return LL->LLVMBuildGEP2(g->b, g->s64, rf(g, s), &idx, 1, "");
}

static void remat(struct cg *g, int s);
static void load_slot(struct cg *g, int s)
{
    int r = g->ksreg[s];
    if (r >= S_CTAID_X && r <= S_CTAID_Z) {
        void *v = field(g, offsetof(struct jit_ctx, ctaid) + 4 * (size_t)(r - S_CTAID_X), g->s32);
        set(g, s, splat(g, LL->LLVMBuildZExt(g->b, v, g->s64, ""), g->i64));
        return;
    }
    if (r >= S_TID_X && r <= S_TID_Z) { /* 32-bit lanes, not the file's 64 */
        set(g, s, LL->LLVMBuildZExt(g->b, jit_tids(g, r - S_TID_X), g->i64, ""));
        return;
    }
    if (g->tck && g->kconst[s] && g->tck[s] == TK_SAME) {
        set(g, s, splat(g, LL->LLVMBuildLoad2(g->b, g->s64, rf(g, s), ""), g->i64));
        return;
    }
    if (g->uni && g->uni[s]) { /* lane ulane's: every lane the function runs holds it */
        LL->LLVMBuildStore(g->b, LL->LLVMBuildLoad2(g->b, g->s64, rf_lane(g, s, g->ulane), ""), g->uni[s]);
        return;
    }
    if (g->tcw && g->tcw[s] >= 0) {
        remat(g, s);
        return;
    }
    void *v = LL->LLVMBuildLoad2(g->b, g->i64, rf(g, s), "");
    LL->LLVMSetAlignment(v, 8);
    if (g->shi && g->shi[s] && !g->hiset[s]) /* its upper half is 0 (halves()) */
        v = LL->LLVMBuildZExt(g->b, LL->LLVMBuildTrunc(g->b, v, g->i32, ""), g->i64, "");
    set(g, s, v);
}

/* thread constant s (tconsts()) computed again by its writer, from its
 * sources first: constants loaded, registers computed again too (one not
 * live here is not in the file: the reduction's %r13, the shared
 * variable's address its %r6 adds %tid.x * 4 to) */
static void remat(struct cg *g, int s)
{
    const struct ir_ins *in = &g->m->ins[g->F->start + g->tcw[s]];
    int src[3] = { in->a, in->b, in->c };
    for (int i = 0; i < 3; i++) {
        int o = src[i];
        if (o < 0 || g->kimm[o]) continue;
        if (g->kconst[o]) load_slot(g, o);
        else remat(g, o);
    }
    jit_native(g, in); /* its claim is computed where it is read (jit_aff.c) */
}

static void load_live(struct cg *g, int k)
{
    const uint64_t *lv = g->live + (size_t)k * g->nw;
    for (int s = 0; s < g->F->nslots; s++)
        if (!g->kimm[s] && (lv[s / 64] >> (s % 64) & 1)) load_slot(g, s);
}

/* the live registers at instruction `at` back to the file, those the
 * warp's function may have written since it started or resumed (wd, the
 * row of instruction k: see written()); the others hold what was loaded.
 * A uniform register (one value on the lanes the function runs): at a
 * barrier's stop (bar) in a kernel where v->lane_only, to its lane ulane
 * only, where the next resume reads it (load_slot), as that barrier's
 * lanes are the next call's and nothing else reads the file in between
 * (no rendezvous whose lanes the interpreter's code runs, no bar.red
 * whose predicates jit_bar_red reads; the lanes of a warp at one point
 * always resume in the warp's function); elsewhere to every lane of the
 * mask. Where a hand-over leaves one unwritten since the resume, its
 * other lanes may hold an older value: the runner copies every uniform
 * register's lane ulane to the lanes handed on (the kernel's _warp_ubc,
 * build_ubc) before the thread's function reads each lane's */
static void spill_live(struct vg *v, int k, int at, int bar)
{
    struct cg *g = v->g;
    const uint64_t *lv = g->live + (size_t)at * g->nw, *wd = v->wd ? v->wd + (size_t)k * g->nw : NULL;
    for (int s = 0; s < g->F->nslots; s++) {
        int uni = g->uni && g->uni[s];
        if (g->kconst[s] || !(lv[s / 64] >> (s % 64) & 1)) continue;
        if (wd && !(wd[s / 64] >> (s % 64) & 1)) continue;
        void *st = NULL, *go = NULL;
        if (v->dirty && v->dirty[s]) { /* written on this run's path: wd holds every path's (the
                                          tiled SGEMM's loop barrier, reached from the start, where
                                          its addresses are computed, and from the next resume) */
            st = newbb(g);
            go = newbb(g);
            LL->LLVMBuildCondBr(g->b, LL->LLVMBuildLoad2(g->b, g->s1, v->dirty[s], ""), st, go);
            LL->LLVMPositionBuilderAtEnd(g->b, st);
        }
        if (uni && v->lane_only && bar)
            LL->LLVMBuildStore(g->b, LL->LLVMBuildLoad2(g->b, g->s64, g->uni[s], ""), rf_lane(g, s, g->ulane));
        else if (uni)
            jit_store_lanes(g, s, v->pmask);
        else
            LL->LLVMSetAlignment(LL->LLVMBuildStore(g->b, get(g, s), rf(g, s)), 8);
        if (go) {
            LL->LLVMBuildBr(g->b, go);
            LL->LLVMPositionBuilderAtEnd(g->b, go);
        }
    }
}

/* the slots the warp's function may have written on some path from its
 * start or a resume (after a bar.sync) to each instruction, a forward
 * may-set: an instruction writes at most d, d2 and vr[]; a path ends at
 * a bar.sync that stops (its resume starts afresh), an exit, a hand-over;
 * a branch goes on at its target and after it (a region with masks runs
 * its then part, its else part, its join one after the other).
 * Not the thread's g->dirty: the warp's function runs shuffles and votes
 * inline where the thread stops (and stores). Kept where it over-counts
 * (guarded control and hand-overs taken as falling through): a slot more
 * is only a store more. NULL (store every live slot) without memory */
static uint64_t *written(struct cg *g)
{
    const struct ir_func *F = g->F;
    int nins = F->end - F->start, ns = F->nslots, nw = g->nw;
    uint64_t *wd = calloc((size_t)(nins + 1) * (size_t)nw + 1, 8), *t = calloc((size_t)nw + 1, 8);
    if (!wd || !t) { free(wd); free(t); return NULL; }
    for (int changed = 1; changed;) {
        changed = 0;
        for (int k = 0; k < nins; k++) {
            const struct ir_ins *in = &g->m->ins[F->start + k];
            memcpy(t, wd + (size_t)k * nw, (size_t)nw * 8);
            int32_t wr[JIT_WRITES];
            jit_writes(in, wr);
            for (int i = 0; i < JIT_WRITES; i++)
                if (wr[i] >= 0 && wr[i] < ns) t[wr[i] / 64] |= 1ull << (wr[i] % 64);
            int to[2] = { -1, -1 };
            if (in->op == OP_BRA) {
                to[0] = (int)in->imm - F->start;
                if (to[0] < 0 || to[0] > nins) to[0] = nins;
                to[1] = k + 1; /* guarded; or the then part's end, from which a region
                                  runs its else part (and some dead code after a jump) */
            } else if ((in->op != OP_EXIT && in->op != OP_RET && (in->op != OP_BAR || g->entryof[k] >= 0)) || in->guard >= 0)
                to[0] = k + 1;
            for (int j = 0; j < 2; j++) {
                if (to[j] < 0) continue;
                uint64_t *o = wd + (size_t)to[j] * nw;
                for (int w = 0; w < nw; w++)
                    if (t[w] & ~o[w]) { o[w] |= t[w]; changed = 1; }
            }
        }
    }
    free(t);
    return wd;
}

/* leaving the vector form before instruction k (its entry): not counted */
static void *handover(struct vg *v, int k)
{
    struct cg *g = v->g;
    void *here = LL->LLVMGetInsertBlock(g->b), *bb = newbb(g);
    LL->LLVMPositionBuilderAtEnd(g->b, bb);
    LL->LLVMBuildStore(g->b, LL->LLVMBuildSub(g->b, LL->LLVMBuildLoad2(g->b, g->s64, g->ic, ""), v->npop, ""), g->ic);
    spill_live(v, k, k, 0);
    if (g->rin[k] < 0) jit_flush_ret(g, v->nbars + 1 + g->entryof[k]);
    else { /* in a region: the lanes of each enclosing path where they go on */
        void *res = splat(g, k32(g, (uint64_t)(v->nbars + 1 + g->entryof[k])), g->i32), *m = v->mask;
        for (int r = g->rin[k]; r >= 0; r = g->rin[r]) {
            int p = g->relse[r] >= 0 && k < g->relse[r] ? g->relse[r] : g->rjoin[r];
            spill_live(v, k, p, 0);
            void *o = LL->LLVMBuildLoad2(g->b, g->s32, v->outer[r], "");
            res = LL->LLVMBuildSelect(g->b, lanes(g, m), res, splat(g, k32(g, (uint64_t)(v->nbars + 1 + g->entryof[p])), g->i32), "");
            m = o;
        }
        LL->LLVMSetAlignment(LL->LLVMBuildStore(g->b, res, field_ptr(g, offsetof(struct jit_ctx, lres))), 4);
        jit_flush_ret(g, JIT_VEC_SPLIT);
    }
    LL->LLVMPositionBuilderAtEnd(g->b, here);
    return bb;
}

/* the block for the edge from instruction i to t: leaving regions, the
 * lanes of the outermost one left again */
static void *edge(struct vg *v, int i, int t)
{
    struct cg *g = v->g;
    int out = -1;
    for (int r = g->rin[i]; r >= 0; r = g->rin[r])
        if (!(t > r && t < g->rjoin[r])) out = r;
    if (out < 0) return g->bb[t];
    void *here = LL->LLVMGetInsertBlock(g->b), *bb = newbb(g);
    LL->LLVMPositionBuilderAtEnd(g->b, bb);
    LL->LLVMBuildStore(g->b, LL->LLVMBuildLoad2(g->b, g->s32, v->outer[out], ""), v->cur);
    LL->LLVMBuildBr(g->b, g->bb[t]);
    LL->LLVMPositionBuilderAtEnd(g->b, here);
    return bb;
}

/* the lane numbers 0..31 as i64, times k */
static void *lane_times(struct cg *g, uint64_t k)
{
    void *el[JIT_LANES];
    for (int i = 0; i < JIT_LANES; i++) el[i] = LL->LLVMConstInt(g->s64, (uint64_t)i * k, 0);
    return LL->LLVMConstVector(el, JIT_LANES);
}

/* a shuffle of x (of type xt), or of x and y, by the constant indices
 * idx[0..n) */
static void *shuffle(struct cg *g, void *x, void *y, void *xt, const unsigned *idx, unsigned n)
{
    void *el[256];
    for (unsigned i = 0; i < n; i++) el[i] = k32(g, idx[i]);
    return LL->LLVMBuildShuffleVector(g->b, x, y ? y : LL->LLVMConstNull(xt), LL->LLVMConstVector(el, n), "");
}

/* the halves of a warp: lanes 0-15 and 16-31 (a 16 x 16 block's warp
 * holds two rows: its addresses are often consecutive, or one, in each) */
#define HALF (JIT_LANES / 2)

/* a register's .shared and .param accesses at small aligned offsets from
 * which their window test is the register's (ldst) */
#define JIT_REG_WINDOW_MIN 4

/* whether x (<32 x i64>) is on every lane of eff (i32) its half's first
 * lane's (lane 0's or 16's; those need not run: the test then fails
 * unless their value is the same) */
static void *halves_same(struct cg *g, void *x, void *eff)
{
    unsigned idx[JIT_LANES];
    for (unsigned l = 0; l < JIT_LANES; l++) idx[l] = l / HALF * HALF;
    void *eq = bits(g, LL->LLVMBuildICmp(g->b, IEQ, x, shuffle(g, x, NULL, g->i64, idx, JIT_LANES), ""));
    return LL->LLVMBuildICmp(g->b, IEQ, LL->LLVMBuildOr(g->b, eq, LL->LLVMBuildNot(g->b, eff, ""), ""), k32(g, ~0u), "");
}

/* an address o (i64; an offset from base, NULL: an address) as a pointer */
static void *at(struct cg *g, void *base, void *o)
{
    return base ? LL->LLVMBuildGEP2(g->b, g->s8, base, &o, 1, "") : LL->LLVMBuildIntToPtr(g->b, o, g->ptr, "");
}

/* the halves' first lanes' values of x (<32 x i64>) plus add: o[0], o[1] */
static void firsts(struct cg *g, void *x, uint64_t add, void **o)
{
    for (unsigned h = 0; h < 2; h++) {
        o[h] = LL->LLVMBuildExtractElement(g->b, x, k32(g, h * HALF), "");
        if (add) o[h] = LL->LLVMBuildAdd(g->b, o[h], k64(g, add), "");
    }
}

/* a branch to t where the lanes of eff (i32) access, in each half, the
 * address register s's first lane's value plus lane * step (x: the
 * register less lane * step; test: halves_same of it, or NULL), else to f
 * (hint: the branch expects t). Where s has a claim (jit_aff.c) its
 * stride decides, and no vector test runs: that is built past the claim */
static void br_step(struct cg *g, int s, uint64_t step, void *x, void *test, void *eff, int hint, void *t, void *f)
{
    void *ok, *k;
    if (jit_aff_get(g, s, &ok, &k)) {
        void *dec = newbb(g), *slow = newbb(g), *is = LL->LLVMBuildICmp(g->b, IEQ, k, k64(g, step), "");
        LL->LLVMBuildCondBr(g->b, likely(g, ok), dec, slow);
        LL->LLVMPositionBuilderAtEnd(g->b, dec);
        LL->LLVMBuildCondBr(g->b, hint ? likely(g, is) : is, t, f);
        LL->LLVMPositionBuilderAtEnd(g->b, slow);
    }
    if (!test) test = halves_same(g, x, eff);
    LL->LLVMBuildCondBr(g->b, hint ? likely(g, test) : test, t, f);
}

/* the lanes of eff whose addresses are, in each half, consecutive from
 * the half's first lane's: lane l's is o[h] + (l - 16 h) * tot for its
 * half h (o: the halves' first lanes' addresses, firsts()). Per half one
 * masked load or store of its 16 x vec elements from o[h] (nothing is
 * accessed where a lane is not in eff, so a half without one reads
 * nothing from its o), or, where eff is every lane
 * (whole), a plain one, which needs no mask vector (a masked load's mask
 * cost more than the load on the AVX2 host measured), split into (or made
 * of) the vec registers' vectors by shuffles */
static void ldst_consecutive(struct cg *g, const struct ir_ins *in, void *ev, void *base, void **o, void **tmp, int whole)
{
    unsigned n = ir_type_size(in->type), nv = (unsigned)in->vec, ne = JIT_LANES * nv, hn = ne / 2, idx[256];
    void *st = LL->LLVMIntTypeInContext(g->ctx, 8 * n), *wt = LL->LLVMVectorType(st, ne);
    void *ht = LL->LLVMVectorType(st, hn), *hm = LL->LLVMVectorType(g->s1, hn), *m[2], *p[2];
    char name[64];
    for (unsigned h = 0; h < 2; h++) { /* the half's mask bits, on its lanes' vec elements */
        for (unsigned j = 0; j < hn; j++) idx[j] = h * HALF + j / nv;
        m[h] = shuffle(g, ev, NULL, g->i1, idx, hn);
        p[h] = at(g, base, o[h]);
    }
    if (in->op == OP_LD) {
        snprintf(name, sizeof name, "llvm.masked.load.v%ui%u.p0", hn, 8 * n);
        void *x[2];
        for (unsigned h = 0; h < 2; h++) {
            if (whole) {
                x[h] = LL->LLVMBuildLoad2(g->b, ht, p[h], "");
                LL->LLVMSetAlignment(x[h], n);
            } else
                x[h] = call(g, name, ht, (void *[]){ g->ptr, g->s32, hm, ht },
                            (void *[]){ p[h], k32(g, n), m[h], LL->LLVMConstNull(ht) }, 4);
        }
        for (unsigned i = 0; i < nv; i++) {
            if (in->vr[i] < 0) continue;
            /* lane l's element i: at l * vec + i of the two halves one after the other */
            for (unsigned l = 0; l < JIT_LANES; l++) idx[l] = l * nv + i;
            LL->LLVMBuildStore(g->b, shuffle(g, x[0], x[1], NULL, idx, JIT_LANES), tmp[i]);
        }
        return;
    }
    void *w[4] = { NULL, NULL, NULL, NULL };
    for (unsigned i = 0; i < nv && i < 4; i++) w[i] = trunc_(g, get(g, in->vr[i]), n);
    for (unsigned k = nv, len = JIT_LANES; k > 1; k /= 2, len *= 2) /* concatenated: register i at i * 32 */
        for (unsigned i = 0; i < k / 2; i++) {
            for (unsigned j = 0; j < 2 * len; j++) idx[j] = j;
            w[i] = shuffle(g, w[2 * i], w[2 * i + 1], NULL, idx, 2 * len);
        }
    snprintf(name, sizeof name, "llvm.masked.store.v%ui%u.p0", hn, 8 * n);
    for (unsigned h = 0; h < 2; h++) { /* element j of the half: lane h * 16 + j / vec's register j % vec */
        for (unsigned j = 0; j < hn; j++) idx[j] = (j % nv) * JIT_LANES + h * HALF + j / nv;
        void *x = shuffle(g, w[0], NULL, wt, idx, hn);
        if (whole)
            LL->LLVMSetAlignment(LL->LLVMBuildStore(g->b, x, p[h]), n);
        else
            call(g, name, LL->LLVMVoidTypeInContext(g->ctx), (void *[]){ ht, g->ptr, g->s32, hm },
                 (void *[]){ x, p[h], k32(g, n), m[h] }, 4);
    }
}

/* a load whose lanes of eff read, in each half, one address (the half's
 * first lane's, o[h], firsts()): a scalar load per half and element,
 * splat on the half. A half without a lane of eff reads the other's
 * address (its own may be anything) */
static void ld_broadcast(struct cg *g, const struct ir_ins *in, void *eff, void *base, void **o, void **tmp)
{
    unsigned n = ir_type_size(in->type), idx[JIT_LANES];
    void *st = LL->LLVMIntTypeInContext(g->ctx, 8 * n), *et = ity(g, n);
    void *lo = LL->LLVMBuildICmp(g->b, INE, LL->LLVMBuildAnd(g->b, eff, k32(g, 0xffffu), ""), k32(g, 0), "");
    void *hi = LL->LLVMBuildICmp(g->b, INE, LL->LLVMBuildLShr(g->b, eff, k32(g, HALF), ""), k32(g, 0), "");
    void *a[2] = { LL->LLVMBuildSelect(g->b, lo, o[0], o[1], ""), LL->LLVMBuildSelect(g->b, hi, o[1], o[0], "") };
    for (unsigned l = 0; l < JIT_LANES; l++) idx[l] = l / HALF * HALF;
    for (int i = 0; i < in->vec; i++) {
        if (in->vr[i] < 0) continue;
        void *v = LL->LLVMConstNull(et);
        for (unsigned h = 0; h < 2; h++) {
            void *e = i ? LL->LLVMBuildAdd(g->b, a[h], k64(g, (uint64_t)i * n), "") : a[h];
            void *sv = LL->LLVMBuildLoad2(g->b, st, at(g, base, e), "");
            LL->LLVMSetAlignment(sv, n);
            v = LL->LLVMBuildInsertElement(g->b, v, sv, k32(g, h * HALF), "");
        }
        LL->LLVMBuildStore(g->b, shuffle(g, v, NULL, et, idx, JIT_LANES), tmp[i]);
    }
}

/* a load's values, as its paths loaded them, to its registers */
static void ld_extend(struct cg *g, const struct ir_ins *in, void **tmp)
{
    unsigned n = ir_type_size(in->type);
    for (int i = 0; i < in->vec; i++) {
        if (in->vr[i] < 0) continue;
        void *r = LL->LLVMBuildLoad2(g->b, ity(g, n), tmp[i], "");
        set(g, in->vr[i], ir_type_signed(in->type) ? sext_(g, r, n) : zext(g, r, n));
    }
}

/* a .shared or .param access of a register plus an offset below 2^32 and
 * aligned to the access's size: its window test can be the register's
 * (ldst) */
static int reg_window(const struct ir_ins *in)
{
    uint64_t tot = (uint64_t)ir_type_size(in->type) * (uint64_t)in->vec, imm = (uint64_t)in->imm;
    return (in->op == OP_LD || in->op == OP_ST) && (in->space == SP_SHARED || in->space == SP_PARAM) && in->a >= 0 &&
           imm < (1ull << 32) && !(imm & (tot - 1));
}

/* ---- groups: the accesses of one register that share their tests -------------- */
/* an access that may be in a group: a load or store of an address
 * register, in .shared or .param at a small aligned offset (reg_window),
 * or global or generic */
static int groupable(const struct ir_ins *in)
{
    return reg_window(in) ||
           ((in->op == OP_LD || in->op == OP_ST) && (in->space == SP_GLOBAL || in->space == SP_GENERIC) && in->a >= 0);
}

/* groups of two or more accesses (groupable) of one address register,
 * space and size, their offsets the same modulo the size and within 2^31
 * of the first's, unguarded, in one stretch of native instructions that
 * nothing branches into or resumes at (a barrier, a rendezvous, any
 * control ends it) and nothing in which writes the register: the tiled
 * SGEMM's 16 [%r8+k*64] and 16 [%r7+k*4] after its barrier, saxpy's load
 * and store of y[i]. At the first access (v->glead[k] == k) ldst builds
 * one test of every access's checks and shape (group_tests), which
 * dominates the others in the stretch, and each access's fast path then
 * branches on it alone. 0, or -1 out of memory (no group) */
static int groups(struct vg *v)
{
    struct cg *g = v->g;
    int nins = g->F->end - g->F->start, ns = g->F->nslots, nopen = 0;
    v->glead = malloc(sizeof *v->glead * ((size_t)nins + 1));
    v->gmin = calloc((size_t)nins + 1, sizeof *v->gmin);
    v->gmax = calloc((size_t)nins + 1, sizeof *v->gmax);
    v->grp = calloc((size_t)nins + 1, sizeof *v->grp);
    int *open = malloc(sizeof *open * ((size_t)ns + 1)), *list = malloc(sizeof *list * ((size_t)nins + 1));
    int *cnt = calloc((size_t)nins + 1, sizeof *cnt);
    uint8_t *tgt = calloc((size_t)nins + 1, 1);
    if (!v->glead || !v->gmin || !v->gmax || !v->grp || !open || !list || !cnt || !tgt) {
        free(v->glead);
        free(v->gmin);
        free(v->gmax);
        free(v->grp);
        v->glead = NULL;
        v->gmin = v->gmax = NULL;
        v->grp = NULL;
        free(open);
        free(list);
        free(cnt);
        free(tgt);
        return -1;
    }
    for (int k = 0; k < nins; k++)
        if (g->m->ins[g->F->start + k].op == OP_BRA) tgt[target_of(g, k)] = 1;
    for (int s = 0; s < ns; s++) open[s] = -1;
    for (int k = 0; k < nins; k++) {
        const struct ir_ins *in = &g->m->ins[g->F->start + k];
        int plain = ins_kind(g, k) == K_NATIVE && in->op != OP_BRA && in->op != OP_EXIT && in->op != OP_RET &&
                    in->op != OP_BAR && in->op != OP_TRAP && !((in->op == OP_LD || in->op == OP_ST) && in->space == SP_LOCAL);
        v->glead[k] = -1;
        if (tgt[k] || !plain) { /* the stretch ends before k (entered here too) or at it */
            for (int i = 0; i < nopen; i++) open[list[i]] = -1;
            nopen = 0;
            if (!plain) continue;
        }
        if (groupable(in) && in->guard < 0 && in->a < ns) {
            int L = open[in->a];
            const struct ir_ins *f = L >= 0 ? &g->m->ins[g->F->start + L] : NULL;
            uint64_t tot = (uint64_t)ir_type_size(in->type) * (uint64_t)in->vec;
            uint64_t d = f ? (uint64_t)in->imm - (uint64_t)f->imm : 0; /* within 2^31 of the first's: the
                                                                        group's range below 2^32 */
            if (f && f->space == in->space && (uint64_t)ir_type_size(f->type) * (uint64_t)f->vec == tot && !(d & (tot - 1)) &&
                d + (1ull << 31) < (1ull << 32)) {
                v->glead[k] = L;
                if (in->imm < v->gmin[L]) v->gmin[L] = in->imm;
                if (in->imm > v->gmax[L]) v->gmax[L] = in->imm;
                cnt[L]++;
            } else {
                if (L < 0) list[nopen++] = in->a;
                open[in->a] = v->glead[k] = k;
                v->gmin[k] = v->gmax[k] = in->imm;
                cnt[k] = 1;
            }
        }
        int ws[JIT_NAMED_MAX], nws = writes_of(g, k, ws);
        for (int j = 0; j < nws; j++)
            if (ws[j] >= 0 && ws[j] < ns) open[ws[j]] = -1;
    }
    for (int k = 0; k < nins; k++)
        if (v->glead[k] >= 0 && cnt[v->glead[k]] < 2) v->glead[k] = -1;
    free(open);
    free(list);
    free(cnt);
    free(tgt);
    return 0;
}

/* the tests of group k (groups()) at its first access in, of lanes eff,
 * for each shape: every lane runs; the shape, from the register r's
 * claim (its stride the size: consecutive; 0: one address a half, for
 * loads), else (no claim, or one that fails) from the vector tests (of
 * dr, r less lane * size, and of r), built only on that path; and every
 * access's window, from r's lanes 0 and 16 alone: where the shape holds,
 * half h's addresses lie between r_h plus the smallest offset and r_h
 * plus 15 strides plus the largest, which must be in order (no wrap
 * between them), at most lim past lo (the allocation's start; NULL: the
 * window's, at 0), and r_h plus the smallest offset aligned to the size
 * (the offsets are the same modulo the size, the stride a multiple of
 * it) */
static void group_tests(struct vg *v, const struct ir_ins *in, int k, void *eff, void *lo, void *fits, void *lim, void *r, void *dr)
{
    struct cg *g = v->g;
    uint64_t tot = (uint64_t)ir_type_size(in->type) * (uint64_t)in->vec, span = (uint64_t)v->gmax[k] - (uint64_t)v->gmin[k];
    void *ok, *kk, *rf[2], *t[2] = { NULL, NULL };
    int nshape = in->op == OP_LD ? 2 : 1; /* 0: consecutive, 1: one address (loads) */
    firsts(g, r, 0, rf);
    if (jit_aff_get(g, in->a, &ok, &kk)) {
        void *no = newbb(g), *join = newbb(g);
        for (int shape = 0; shape < nshape; shape++)
            LL->LLVMBuildStore(g->b, LL->LLVMBuildICmp(g->b, IEQ, kk, k64(g, shape ? 0 : tot), ""), v->gtmp[shape]);
        LL->LLVMBuildCondBr(g->b, likely(g, ok), join, no);
        LL->LLVMPositionBuilderAtEnd(g->b, no);
        for (int shape = 0; shape < nshape; shape++) LL->LLVMBuildStore(g->b, halves_same(g, shape ? r : dr, eff), v->gtmp[shape]);
        LL->LLVMBuildBr(g->b, join);
        LL->LLVMPositionBuilderAtEnd(g->b, join);
        for (int shape = 0; shape < nshape; shape++) t[shape] = LL->LLVMBuildLoad2(g->b, g->s1, v->gtmp[shape], "");
    } else
        for (int shape = 0; shape < nshape; shape++) t[shape] = halves_same(g, shape ? r : dr, eff);
    void *all = LL->LLVMBuildAnd(g->b, fits, LL->LLVMBuildICmp(g->b, IEQ, eff, k32(g, ~0u), ""), "");
    for (int shape = 0; shape < nshape; shape++) {
        uint64_t step = shape ? 0 : tot;
        void *w = LL->LLVMBuildAnd(g->b, t[shape], all, "");
        for (unsigned h = 0; h < 2; h++) {
            void *a = LL->LLVMBuildAdd(g->b, rf[h], k64(g, (uint64_t)v->gmin[k]), "");
            void *A = lo ? LL->LLVMBuildSub(g->b, a, lo, "") : a;
            void *B = LL->LLVMBuildAdd(g->b, A, k64(g, 15 * step + span), "");
            void *c = LL->LLVMBuildAnd(g->b, LL->LLVMBuildICmp(g->b, IULE, A, B, ""), LL->LLVMBuildICmp(g->b, IULE, B, lim, ""), "");
            c = LL->LLVMBuildAnd(g->b, c, LL->LLVMBuildICmp(g->b, IEQ, LL->LLVMBuildAnd(g->b, a, k64(g, tot - 1), ""), k64(g, 0), ""), "");
            w = LL->LLVMBuildAnd(g->b, w, c, "");
        }
        t[shape] = w;
    }
    v->grp[k] = (struct vgroup){ eff, t[0], t[1] };
}

/* every lane of eff in the window (its offset off at most lim, where
 * fits: the window holds one access) and its address a aligned to tot: on
 * to go, else to fb */
static void window_all(struct cg *g, void *a, void *off, void *lim, void *fits, void *none, void *eff, unsigned tot,
                       void *go, void *fb)
{
    void *al = LL->LLVMBuildICmp(g->b, IEQ, LL->LLVMBuildAnd(g->b, a, c64(g, tot - 1), ""), c64(g, 0), "");
    void *c1 = LL->LLVMBuildICmp(g->b, IULE, off, splat(g, lim, g->i64), "");
    void *inb = bits(g, LL->LLVMBuildAnd(g->b, c1, al, ""));
    void *ok = LL->LLVMBuildICmp(g->b, IEQ, LL->LLVMBuildOr(g->b, inb, LL->LLVMBuildNot(g->b, eff, ""), ""), k32(g, ~0u), "");
    LL->LLVMBuildCondBr(g->b, likely(g, LL->LLVMBuildAnd(g->b, ok, LL->LLVMBuildOr(g->b, fits, none, ""), "")), go, fb);
}

/* window_all's test where the lanes of eff access, in each half, the
 * address register plus imm at lane * step from its first lane's
 * (halves_same of dr, the register less lane * step: on the half's lanes
 * of eff, its first lane's value; step tot: consecutive, 0: one address):
 * that of the half's lowest and highest lanes of eff, scalars. Their
 * offsets (the address less lo, the allocation's start; NULL: the address
 * is the offset) both at most lim and in order (no wrap between them) hold
 * every lane between; step is 0 or tot, a power of two, so the lanes share
 * the lowest's alignment */
static void *halves_ok(struct cg *g, void *dr, uint64_t imm, unsigned step, void *lo, void *lim, void *fits, void *none,
                       void *eff, unsigned tot)
{
    void *ok = LL->LLVMBuildOr(g->b, fits, none, ""), *f = LL->LLVMConstInt(g->s1, 0, 0);
    for (unsigned h = 0; h < 2; h++) {
        void *dh = LL->LLVMBuildAdd(g->b, LL->LLVMBuildExtractElement(g->b, dr, k32(g, h * HALF), ""), k64(g, imm), "");
        void *m = h ? LL->LLVMBuildLShr(g->b, eff, k32(g, HALF), "") : LL->LLVMBuildAnd(g->b, eff, k32(g, 0xffffu), "");
        void *m0 = LL->LLVMBuildOr(g->b, m, k32(g, 1u << (HALF - 1)), ""), *m1 = LL->LLVMBuildOr(g->b, m, k32(g, 1), "");
        void *tz = call(g, "llvm.cttz.i32", g->s32, (void *[]){ g->s32, g->s1 }, (void *[]){ m0, f }, 2);
        void *lz = call(g, "llvm.ctlz.i32", g->s32, (void *[]){ g->s32, g->s1 }, (void *[]){ m1, f }, 2);
        void *l0 = LL->LLVMBuildZExt(g->b, LL->LLVMBuildAdd(g->b, tz, k32(g, h * HALF), ""), g->s64, "");
        void *l1 = LL->LLVMBuildZExt(g->b, LL->LLVMBuildSub(g->b, k32(g, 31 + h * HALF), lz, ""), g->s64, "");
        void *a0 = LL->LLVMBuildAdd(g->b, dh, LL->LLVMBuildMul(g->b, l0, k64(g, step), ""), "");
        void *a1 = LL->LLVMBuildAdd(g->b, dh, LL->LLVMBuildMul(g->b, l1, k64(g, step), ""), "");
        void *o0 = lo ? LL->LLVMBuildSub(g->b, a0, lo, "") : a0, *o1 = lo ? LL->LLVMBuildSub(g->b, a1, lo, "") : a1;
        void *c = LL->LLVMBuildAnd(g->b, LL->LLVMBuildICmp(g->b, IULE, o0, lim, ""), LL->LLVMBuildICmp(g->b, IULE, o1, lim, ""), "");
        c = LL->LLVMBuildAnd(g->b, c, LL->LLVMBuildICmp(g->b, IULE, o0, o1, ""), "");
        c = LL->LLVMBuildAnd(g->b, c, LL->LLVMBuildICmp(g->b, IEQ, LL->LLVMBuildAnd(g->b, a0, k64(g, tot - 1), ""), k64(g, 0), ""), "");
        c = LL->LLVMBuildOr(g->b, c, LL->LLVMBuildICmp(g->b, IEQ, m, k32(g, 0), ""), "");
        ok = LL->LLVMBuildAnd(g->b, ok, c, "");
    }
    return ok;
}

/* halves_ok's test, on to all (every lane runs: the halves' end lanes are
 * 0, 15, 16 and 31, which LLVM folds into the compares) or some (the
 * mask's lowest and highest lanes of each half, counted), else to fb.
 * For consecutive accesses: the one-address loads of the naive SGEMM ran
 * slower so (0.207 to 0.235 s) */
static void ends_ok(struct cg *g, void *dr, uint64_t imm, unsigned step, void *lo, void *lim, void *fits, void *none,
                    void *eff, unsigned tot, void *all, void *some, void *fb)
{
    void *w = newbb(g), *p = newbb(g);
    LL->LLVMBuildCondBr(g->b, likely(g, LL->LLVMBuildICmp(g->b, IEQ, eff, k32(g, ~0u), "")), w, p);
    LL->LLVMPositionBuilderAtEnd(g->b, w);
    LL->LLVMBuildCondBr(g->b, likely(g, halves_ok(g, dr, imm, step, lo, lim, fits, LL->LLVMConstInt(g->s1, 0, 0), k32(g, ~0u), tot)),
                        all, fb);
    LL->LLVMPositionBuilderAtEnd(g->b, p);
    LL->LLVMBuildCondBr(g->b, likely(g, halves_ok(g, dr, imm, step, lo, lim, fits, none, eff, tot)), some, fb);
}

/* whether slot s (-1: none) is known when the kernel is built or filled
 * by the launch, the same on every lane: an immediate, a parameter's
 * offset, a variable's address (constants the launch fills, but for the
 * special registers, %tid's own on each lane) */
static int launch_same(const struct cg *g, int s)
{
    return s < 0 || g->kimm[s] || (g->kconst[s] && g->ksreg[s] < 0);
}

/* the window of in's space for the lanes' addresses a (<32 x i64>):
 * .shared's and .param's from 0 (*base: its host start; *off = a, *lo
 * NULL), global and generic ones the allocation the access last found
 * (jit_ctx.gc; *base NULL, *lo its start, *off = a less it); *span: its
 * bytes (scalar) */
static void space_window(struct cg *g, const struct ir_ins *in, void *a, void **base, void **off, void **lo, void **span)
{
    *base = *lo = NULL;
    *off = a;
    switch (in->space) {
    case SP_SHARED:
        *span = field(g, offsetof(struct jit_ctx, shsize), g->s64);
        *base = field(g, offsetof(struct jit_ctx, shared), g->ptr);
        break;
    case SP_PARAM:
        *span = field(g, offsetof(struct jit_ctx, pbytes), g->s64);
        *base = field(g, offsetof(struct jit_ctx, params), g->ptr);
        break;
    default: {
        int gid = g->gidof[in - &g->m->ins[g->F->start]];
        void *idx = k64(g, (uint64_t)gid * sizeof(struct jit_gc));
        void *e = LL->LLVMBuildGEP2(g->b, g->s8, field(g, offsetof(struct jit_ctx, gc), g->ptr), &idx, 1, "");
        *lo = LL->LLVMBuildLoad2(g->b, g->s64, e, "");
        idx = k64(g, offsetof(struct jit_gc, span));
        *span = LL->LLVMBuildLoad2(g->b, g->s64, LL->LLVMBuildGEP2(g->b, g->s8, e, &idx, 1, ""), "");
        *off = LL->LLVMBuildSub(g->b, a, splat(g, *lo, g->i64), "");
        break;
    }
    }
}

/* a load or store of the lanes eff (i32; the mask, and the guard), when
 * they all pass the checks inline; else the lanes go on one by one from
 * here (fb). Decided at run time: addresses consecutive in each half
 * (lane l's its half's first lane's plus (l - it) times the access's
 * size) one load or store a half, masked unless every lane runs; a load
 * of one address a half one scalar load a half, splat; anything else
 * masked gathers and scatters. The checks follow the shape: a half's end
 * lanes for the first two (halves_ok), every lane for the rest
 * (window_all); a register of many window accesses its own (reg_window);
 * a load of a constant address (known so when built) lane 0's */
static void ldst(struct vg *v, const struct ir_ins *in, void *eff, void *fb)
{
    struct cg *g = v->g;
    unsigned n = ir_type_size(in->type), tot = n * (unsigned)in->vec;
    void *a = LL->LLVMBuildAdd(g->b, get(g, in->a), c64(g, (uint64_t)in->imm), ""), *base, *off, *lo, *span;
    space_window(g, in, a, &base, &off, &lo, &span);
    /* in the window: off + tot <= span without wrapping, i.e. off <= span - tot
     * where span >= tot; aligned to the access's size */
    void *fits = LL->LLVMBuildICmp(g->b, IUGE, span, k64(g, tot), "");
    void *lim = LL->LLVMBuildSub(g->b, span, k64(g, tot), "");
    void *none = LL->LLVMBuildICmp(g->b, IEQ, eff, k32(g, 0), "");
    void *ev = lanes(g, eff), *join = newbb(g);
    void **tmp = v->ltmp[n == 1 ? 0 : n == 2 ? 1 : n == 4 ? 2 : 3];
    /* x: the lanes' addresses, or their offsets from base; consecutive
     * (with no lane of eff too) first, then (loads) one address a half,
     * else gathers and scatters */
    void *x = base ? off : a, *o[2];
    firsts(g, x, 0, o);
    /* the tests on the address register alone: x is it plus what is the
     * same on every lane (the immediate, the allocation's start), so it
     * passes where x's would, and the loads and stores of one register at
     * different offsets (the tiled SGEMM's [%r8], [%r8+64], ...) share
     * one test, which LLVM computes once */
    void *r = get(g, in->a), *dr = LL->LLVMBuildSub(g->b, r, lane_times(g, tot), "");
    /* a group's access (groups()): its first builds the test of them all */
    int ik = (int)(in - &g->m->ins[g->F->start]), L = v->glead ? v->glead[ik] : -1;
    if (L == ik) group_tests(v, in, ik, eff, lo, fits, lim, r, dr);
    const struct vgroup *gr = L >= 0 && v->grp[L].eff == eff ? &v->grp[L] : NULL;
    if (in->op == OP_LD && launch_same(g, in->a)) {
        /* the address is the same on every lane (an immediate, a
         * parameter's offset, a variable's address: constants the launch
         * fills, but for special registers, %tid's own on each lane): no
         * test of the shape; the window's of lane 0, as scalars (LLVM kept
         * the lanes' vector compares, even of a constant) */
        void *go = newbb(g), *o0 = LL->LLVMBuildExtractElement(g->b, off, k32(g, 0), "");
        void *a0 = LL->LLVMBuildExtractElement(g->b, a, k32(g, 0), "");
        void *al = LL->LLVMBuildICmp(g->b, IEQ, LL->LLVMBuildAnd(g->b, a0, k64(g, tot - 1), ""), k64(g, 0), "");
        void *ok = LL->LLVMBuildAnd(g->b, fits, LL->LLVMBuildAnd(g->b, LL->LLVMBuildICmp(g->b, IULE, o0, lim, ""), al, ""), "");
        LL->LLVMBuildCondBr(g->b, likely(g, LL->LLVMBuildOr(g->b, ok, none, "")), go, fb);
        LL->LLVMPositionBuilderAtEnd(g->b, go);
        ld_broadcast(g, in, eff, base, o, tmp);
        LL->LLVMBuildBr(g->b, join);
        LL->LLVMPositionBuilderAtEnd(g->b, join);
        ld_extend(g, in, tmp);
        return;
    }
    if (gr) { /* where the group's test holds, the access's path with no other,
                 its halves' first addresses from the register's first lanes */
        void *fc = newbb(g), *nc = newbb(g), *one = in->op == OP_LD ? gr->one : NULL, *ro[2];
        firsts(g, r, (uint64_t)in->imm, ro);
        LL->LLVMBuildCondBr(g->b, likely(g, gr->cons), fc, nc);
        LL->LLVMPositionBuilderAtEnd(g->b, fc);
        ldst_consecutive(g, in, ev, base, ro, tmp, 1);
        LL->LLVMBuildBr(g->b, join);
        LL->LLVMPositionBuilderAtEnd(g->b, nc);
        if (one) {
            void *fo = newbb(g), *no = newbb(g);
            LL->LLVMBuildCondBr(g->b, likely(g, one), fo, no);
            LL->LLVMPositionBuilderAtEnd(g->b, fo);
            ld_broadcast(g, in, k32(g, ~0u), base, ro, tmp);
            LL->LLVMBuildBr(g->b, join);
            LL->LLVMPositionBuilderAtEnd(g->b, no);
        }
    }
    /* the branches below expect (llvm.expect) what the measured kernels
     * mostly take: checks that pass, consecutive addresses, every lane.
     * LLVM then lays the other paths (masked and one-address accesses,
     * gathers, hand-overs) out of the line of the hot one: saxpy 0.062 to
     * 0.054 s, the tiled SGEMM 0.130 to 0.114 s, where it had them in
     * between.
     * The shapes' tests: where the register may have a claim (jit_aff.c),
     * which decides the shape where it holds, built past it (br_step);
     * else here, where they dominate the access's paths, for a register
     * that more loads use: LLVM computes each once for the accesses of one
     * register under one mask (16 [%r7+4k] test it once, not in each
     * access's own path); a register of one load tests one address only
     * where its addresses are not consecutive */
    int claims = jit_aff_has(g, in->a);
    void *cons = claims ? NULL : halves_same(g, dr, eff);
    void *one = !claims && in->op == OP_LD && v->nld && v->nld[in->a] > 1 ? halves_same(g, r, eff) : NULL;
    /* ends: the checks follow the shape (halves_ok, else window_all into
     * full); else the register's own window test came first */
    int ends = !(reg_window(in) && v->nreg && v->nreg[in->a] >= JIT_REG_WINDOW_MIN);
    void *cb = ends ? NULL : newbb(g), *other = newbb(g), *gat = newbb(g), *full = ends ? newbb(g) : gat;
    void *whole = newbb(g), *part = newbb(g); /* consecutive: every lane, or the lanes of a mask */
    if (!ends) {
        /* a window from 0 (.shared, .param) and the register plus a small
         * aligned offset, of a register that many accesses use (the tiled
         * SGEMM's 16 [%r8+k*64]): the register's largest value and its
         * bits over the lanes of eff (the same for every access of the
         * register at any such offset: LLVM computes them once) against
         * the window less the offset. Stricter than the lanes' own test
         * only where register plus offset wraps around 2^64 (the lanes
         * then go on one by one from here, where the thread's test
         * decides). Costlier than that test for one access: a register
         * of fewer accesses keeps it */
        uint64_t imm = (uint64_t)in->imm;
        /* on 32-bit lanes, the upper halves only tested 0 (LLVM folds them
         * away for a register of 32-bit halves): a lane at 2^32 or more
         * is outside any such window, or wraps, where the thread decides */
        void *vt = g->i32, *z = LL->LLVMConstNull(g->i32);
        void *rm = LL->LLVMBuildSelect(g->b, ev, LL->LLVMBuildTrunc(g->b, r, vt, ""), z, "");
        void *rh = LL->LLVMBuildSelect(g->b, ev, LL->LLVMBuildTrunc(g->b, LL->LLVMBuildLShr(g->b, r, c64(g, 32), ""), vt, ""), z, "");
        void *mx = LL->LLVMBuildZExt(g->b, call(g, "llvm.vector.reduce.umax.v32i32", g->s32, (void *[]){ vt }, (void *[]){ rm }, 1),
                                     g->s64, "");
        void *orr = LL->LLVMBuildZExt(g->b, call(g, "llvm.vector.reduce.or.v32i32", g->s32, (void *[]){ vt }, (void *[]){ rm }, 1),
                                      g->s64, "");
        void *hor = call(g, "llvm.vector.reduce.or.v32i32", g->s32, (void *[]){ vt }, (void *[]){ rh }, 1);
        void *c1 = LL->LLVMBuildAnd(g->b, LL->LLVMBuildICmp(g->b, IULE, k64(g, imm), lim, ""),
                                    LL->LLVMBuildICmp(g->b, IULE, mx, LL->LLVMBuildSub(g->b, lim, k64(g, imm), ""), ""), "");
        c1 = LL->LLVMBuildAnd(g->b, c1, LL->LLVMBuildICmp(g->b, IEQ, hor, k32(g, 0), ""), "");
        void *al = LL->LLVMBuildICmp(g->b, IEQ, LL->LLVMBuildAnd(g->b, orr, k64(g, tot - 1), ""), k64(g, 0), "");
        void *ok = LL->LLVMBuildOr(g->b, none, LL->LLVMBuildAnd(g->b, fits, LL->LLVMBuildAnd(g->b, c1, al, ""), ""), "");
        void *go = newbb(g);
        LL->LLVMBuildCondBr(g->b, likely(g, ok), go, fb);
        LL->LLVMPositionBuilderAtEnd(g->b, go);
        br_step(g, in->a, tot, dr, cons, eff, 1, cb, other);
        LL->LLVMPositionBuilderAtEnd(g->b, cb);
        LL->LLVMBuildCondBr(g->b, likely(g, LL->LLVMBuildICmp(g->b, IEQ, eff, k32(g, ~0u), "")), whole, part);
    } else {
        /* consecutive, or (loads) one address, in each half: the test of
         * the half's lowest and highest lanes of eff (halves_ok); else
         * every lane's (window_all) */
        void *chk = newbb(g);
        br_step(g, in->a, tot, dr, cons, eff, 1, chk, other);
        LL->LLVMPositionBuilderAtEnd(g->b, chk);
        ends_ok(g, dr, (uint64_t)in->imm, tot, lo, lim, fits, none, eff, tot, whole, part, fb);
    }
    LL->LLVMPositionBuilderAtEnd(g->b, whole);
    ldst_consecutive(g, in, ev, base, o, tmp, 1);
    LL->LLVMBuildBr(g->b, join);
    LL->LLVMPositionBuilderAtEnd(g->b, part);
    ldst_consecutive(g, in, ev, base, o, tmp, 0);
    LL->LLVMBuildBr(g->b, join);
    LL->LLVMPositionBuilderAtEnd(g->b, other);
    if (in->op == OP_LD) { /* one address on each half's lanes */
        void *bb = newbb(g);
        if (ends) {
            void *ob = newbb(g);
            br_step(g, in->a, 0, r, one, eff, 0, ob, full);
            LL->LLVMPositionBuilderAtEnd(g->b, ob);
            LL->LLVMBuildCondBr(g->b, likely(g, halves_ok(g, r, (uint64_t)in->imm, 0, lo, lim, fits, none, eff, tot)), bb, fb);
        } else
            br_step(g, in->a, 0, r, one, eff, 0, bb, gat);
        LL->LLVMPositionBuilderAtEnd(g->b, bb);
        ld_broadcast(g, in, eff, base, o, tmp);
        LL->LLVMBuildBr(g->b, join);
    } else
        LL->LLVMBuildBr(g->b, full);
    if (ends) {
        LL->LLVMPositionBuilderAtEnd(g->b, full);
        window_all(g, a, off, lim, fits, none, eff, tot, gat, fb);
    }
    LL->LLVMPositionBuilderAtEnd(g->b, gat);
    char name[64];
    void *et = ity(g, n);
    const char *es = n == 1 ? "i8" : n == 2 ? "i16" : n == 4 ? "i32" : "i64";
    for (int i = 0; i < in->vec; i++) {
        void *e = LL->LLVMBuildAdd(g->b, x, c64(g, (uint64_t)i * n), "");
        void *p = base ? LL->LLVMBuildGEP2(g->b, g->s8, base, &e, 1, "") : LL->LLVMBuildIntToPtr(g->b, e, v->vptr, "");
        if (in->op == OP_LD) {
            if (in->vr[i] < 0) continue;
            snprintf(name, sizeof name, "llvm.masked.gather.v32%s.v32p0", es);
            LL->LLVMBuildStore(g->b, call(g, name, et, (void *[]){ v->vptr, g->s32, g->i1, et },
                                          (void *[]){ p, k32(g, n), ev, LL->LLVMConstNull(et) }, 4), tmp[i]);
        } else {
            snprintf(name, sizeof name, "llvm.masked.scatter.v32%s.v32p0", es);
            call(g, name, LL->LLVMVoidTypeInContext(g->ctx), (void *[]){ et, v->vptr, g->s32, g->i1 },
                 (void *[]){ trunc_(g, get(g, in->vr[i]), n), p, k32(g, n), ev }, 4);
        }
    }
    LL->LLVMBuildBr(g->b, join);
    LL->LLVMPositionBuilderAtEnd(g->b, join);
    if (in->op == OP_LD) ld_extend(g, in, tmp);
}

/* whether slot s holds the same value on every lane: launch_same's, or a
 * uniform register */
static int lane_same(const struct cg *g, int s)
{
    return launch_same(g, s) || (g->uni && g->uni[s]);
}

/* atom or red `in` (jit_atom_native) for the lanes eff (i32): where every
 * lane's address passes the window's test (the thread's for its space:
 * .shared's, the allocation the thread's code last found for .global), the
 * lanes' read-modify-writes in lane order, as the handler runs them, else
 * the handler for them all (it reports the fault), and the window filled
 * from the lowest lane's address for the next time. The lanes' operands
 * and results pass through the frame (v->abuf), one vector store or load
 * each: an element at a lane known only at run time costs a vector's
 * trip through memory each time; an operand the same on every lane is
 * read as a scalar, and a result nothing reads after is not kept (the
 * reductions' "thread 0 adds the block's sum") */
static void atom(struct vg *v, const struct ir_ins *in, void *eff, ex_fn f)
{
    struct cg *g = v->g;
    unsigned n = ir_type_size(in->type);
    int gid = in->space == SP_GLOBAL ? g->gidof[in - &g->m->ins[g->F->start]] : -1;
    if ((in->space == SP_GLOBAL && gid < 0) || !v->abuf[0]) { /* no window: the thread's code ran it by the handler */
        jit_per_lane(g, in, f, eff);
        return;
    }
    void *a = LL->LLVMBuildAdd(g->b, get(g, in->a), c64(g, (uint64_t)in->imm), ""), *base, *off, *lo, *span;
    space_window(g, in, a, &base, &off, &lo, &span);
    void *fits = LL->LLVMBuildICmp(g->b, IUGE, span, k64(g, n), ""), *lim = LL->LLVMBuildSub(g->b, span, k64(g, n), "");
    void *fast = newbb(g), *head = newbb(g), *body = newbb(g), *done = newbb(g), *slow = newbb(g), *join = newbb(g);
    window_all(g, a, off, lim, fits, LL->LLVMConstInt(g->s1, 0, 0), eff, n, fast, slow);
    LL->LLVMPositionBuilderAtEnd(g->b, fast);
    int k = (int)(in - &g->m->ins[g->F->start]);
    const uint64_t *after = g->live + (size_t)(k + 1) * g->nw;
    int res = in->op == OP_ATOM && in->d >= 0 && (after[in->d / 64] >> (in->d % 64) & 1); /* read after */
    void *ops[4] = { base ? off : a, get(g, in->b), in->sub == AT_CAS ? get(g, in->c) : NULL, res ? get(g, in->d) : NULL };
    int same[3] = { lane_same(g, in->a), lane_same(g, in->b), lane_same(g, in->c) };
    for (int i = 0; i < 4; i++)
        if (ops[i] && (i == 3 || !same[i])) LL->LLVMSetAlignment(LL->LLVMBuildStore(g->b, ops[i], v->abuf[i]), 8);
    LL->LLVMBuildStore(g->b, eff, v->amask);
    LL->LLVMBuildBr(g->b, head);
    LL->LLVMPositionBuilderAtEnd(g->b, head);
    void *m = LL->LLVMBuildLoad2(g->b, g->s32, v->amask, "");
    LL->LLVMBuildCondBr(g->b, LL->LLVMBuildICmp(g->b, IEQ, m, k32(g, 0), ""), done, body);
    LL->LLVMPositionBuilderAtEnd(g->b, body);
    void *l = call(g, "llvm.cttz.i32", g->s32, (void *[]){ g->s32, g->s1 }, (void *[]){ m, LL->LLVMConstInt(g->s1, 1, 0) }, 2);
    void *l6 = LL->LLVMBuildZExt(g->b, l, g->s64, ""), *el[4];
    for (int i = 0; i < 4; i++) { /* the same on every lane: lane 0's, as a scalar */
        el[i] = LL->LLVMBuildGEP2(g->b, g->s64, v->abuf[i], &l6, 1, "");
        if (ops[i] && i < 3)
            ops[i] = same[i] ? LL->LLVMBuildExtractElement(g->b, ops[i], k32(g, 0), "") : LL->LLVMBuildLoad2(g->b, g->s64, el[i], "");
    }
    void *p = base ? LL->LLVMBuildGEP2(g->b, g->s8, base, &ops[0], 1, "") : LL->LLVMBuildIntToPtr(g->b, ops[0], g->ptr, "");
    void *old = jit_atom_rmw(g, in, p, ops[1], ops[2]);
    if (res) LL->LLVMBuildStore(g->b, old, el[3]);
    LL->LLVMBuildStore(g->b, LL->LLVMBuildAnd(g->b, m, LL->LLVMBuildSub(g->b, m, k32(g, 1), ""), ""), v->amask);
    LL->LLVMBuildBr(g->b, head);
    LL->LLVMPositionBuilderAtEnd(g->b, done);
    if (res) {
        void *d = LL->LLVMBuildLoad2(g->b, g->i64, v->abuf[3], "");
        LL->LLVMSetAlignment(d, 8);
        set(g, in->d, d);
    }
    LL->LLVMBuildBr(g->b, join);
    LL->LLVMPositionBuilderAtEnd(g->b, slow);
    jit_per_lane(g, in, f, eff);
    if (gid >= 0) {
        void *l0 = call(g, "llvm.cttz.i32", g->s32, (void *[]){ g->s32, g->s1 }, (void *[]){ eff, LL->LLVMConstInt(g->s1, 1, 0) }, 2);
        jit_gc_fill(g, in, LL->LLVMBuildExtractElement(g->b, a, l0, ""), n, gid);
    }
    LL->LLVMBuildBr(g->b, join);
    LL->LLVMPositionBuilderAtEnd(g->b, join);
}

/* the lane numbers 0..31 (i32) */
static void *lane_ids(struct cg *g)
{
    void *el[JIT_LANES];
    for (int i = 0; i < JIT_LANES; i++) el[i] = LL->LLVMConstInt(LL->LLVMGetElementType(g->i32), (uint64_t)i, 0);
    return LL->LLVMConstVector(el, JIT_LANES);
}
static void *lo32(struct cg *g, int s) { return LL->LLVMBuildTrunc(g->b, get(g, s), g->i32, ""); }

/* a warp rendezvous (shfl.sync, vote.sync, bar.warp.sync) as vectors when
 * the lanes running are exactly those its member mask names (on every
 * lane: then ex_warp_sync would run it at once for them) and the guard is
 * the same on every lane (the caller: `all`, or none); with a shuffle,
 * when every lane reads a running lane. Anything else goes on one by one
 * from here (fb): the thread's stop, jit_warp.c, the interpreter's
 * ex_warp_sync and its errors. Returns 0 when it built it, -1 for the
 * instructions it leaves to the threads */
static int wsync(struct vg *v, const struct ir_ins *in, void *all, void *fb, void *next)
{
    struct cg *g = v->g;
    if (in->op != OP_SHFL && in->op != OP_VOTE && in->op != OP_WARPSYNC && in->op != OP_MATCH && in->op != OP_REDUX &&
        in->op != OP_ELECT)
        return -1;
    if (in->op == OP_SHFL && (in->b < 0 || in->c < 0)) return -1;
    void *vmask = splat(g, v->mask, g->i32);
    void *same = bits(g, LL->LLVMBuildICmp(g->b, IEQ, lo32(g, in->e), vmask, ""));
    void *ok = LL->LLVMBuildICmp(g->b, IEQ, LL->LLVMBuildAnd(g->b, same, v->mask, ""), v->mask, "");
    if (all) ok = LL->LLVMBuildAnd(g->b, ok, all, "");
    if (in->op == OP_MATCH || in->op == OP_REDUX || in->op == OP_ELECT) {
        /* the interpreter's code for the lanes as one group (their member
         * mask is the lanes running): the same results */
        void *go = newbb(g);
        LL->LLVMBuildCondBr(g->b, likely(g, ok), go, fb);
        LL->LLVMPositionBuilderAtEnd(g->b, go);
        jit_per_lane(g, in, ex_warp_group, v->mask);
        LL->LLVMBuildBr(g->b, next);
        return 0;
    }
    void *j = NULL, *inr = NULL, *lid = lane_ids(g);
    if (in->op == OP_SHFL) { /* the source lane j and whether it is in range: exec_warp.c's shfl_src */
        void *c31 = ci(g, g->i32, 31);
        void *bv = LL->LLVMBuildAnd(g->b, lo32(g, in->b), c31, ""), *cv = lo32(g, in->c);
        void *seg = LL->LLVMBuildAnd(g->b, LL->LLVMBuildLShr(g->b, cv, ci(g, g->i32, 8), ""), c31, "");
        void *nseg = LL->LLVMBuildNot(g->b, seg, "");
        void *clamp = LL->LLVMBuildAnd(g->b, cv, c31, "");
        void *minl = LL->LLVMBuildAnd(g->b, lid, seg, "");
        void *maxl = LL->LLVMBuildOr(g->b, minl, LL->LLVMBuildAnd(g->b, clamp, nseg, ""), "");
        switch (in->sub) {
        case SH_UP:
            j = LL->LLVMBuildSub(g->b, lid, bv, "");
            inr = LL->LLVMBuildICmp(g->b, ISGE, j, maxl, "");
            break;
        case SH_DOWN: j = LL->LLVMBuildAdd(g->b, lid, bv, ""); break;
        case SH_BFLY: j = LL->LLVMBuildXor(g->b, lid, bv, ""); break;
        default: j = LL->LLVMBuildOr(g->b, minl, LL->LLVMBuildAnd(g->b, bv, nseg, ""), ""); break;
        }
        if (!inr) inr = LL->LLVMBuildICmp(g->b, ISLE, j, maxl, "");
        j = LL->LLVMBuildSelect(g->b, inr, j, lid, "");
        /* every running lane reads a running lane (else the interpreter's error) */
        void *rd = LL->LLVMBuildTrunc(g->b, LL->LLVMBuildLShr(g->b, vmask, j, ""), g->i1, "");
        void *rb = bits(g, rd);
        void *rok = LL->LLVMBuildICmp(g->b, IEQ, LL->LLVMBuildAnd(g->b, rb, v->mask, ""), v->mask, "");
        ok = LL->LLVMBuildAnd(g->b, ok, rok, "");
    }
    void *go = newbb(g);
    LL->LLVMBuildCondBr(g->b, likely(g, ok), go, fb);
    LL->LLVMPositionBuilderAtEnd(g->b, go);
    switch (in->op) {
    case OP_SHFL: {
        LL->LLVMSetAlignment(LL->LLVMBuildStore(g->b, get(g, in->a), v->sbuf), 8);
        void *idx = LL->LLVMBuildZExt(g->b, j, g->i64, "");
        void *p = LL->LLVMBuildGEP2(g->b, g->s64, v->sbuf, &idx, 1, "");
        void *x = call(g, "llvm.masked.gather.v32i64.v32p0", g->i64, (void *[]){ v->vptr, g->s32, g->i1, g->i64 },
                       (void *[]){ p, k32(g, 8), ci(g, g->i1, 1), LL->LLVMConstNull(g->i64) }, 4);
        set(g, in->d, LL->LLVMBuildAnd(g->b, x, c64(g, 0xffffffffu), ""));
        set(g, in->d2, LL->LLVMBuildZExt(g->b, inr, g->i64, ""));
        break;
    }
    case OP_VOTE: {
        void *p = LL->LLVMBuildTrunc(g->b, get(g, in->a), g->i1, "");
        if (in->flags & F_ANEG) p = LL->LLVMBuildXor(g->b, p, ci(g, g->i1, 1), "");
        void *ballot = LL->LLVMBuildAnd(g->b, bits(g, p), v->mask, ""), *r;
        switch (in->sub) {
        case VO_ALL: r = LL->LLVMBuildICmp(g->b, IEQ, ballot, v->mask, ""); break;
        case VO_ANY: r = LL->LLVMBuildICmp(g->b, INE, ballot, k32(g, 0), ""); break;
        case VO_UNI:
            r = LL->LLVMBuildOr(g->b, LL->LLVMBuildICmp(g->b, IEQ, ballot, k32(g, 0), ""),
                                LL->LLVMBuildICmp(g->b, IEQ, ballot, v->mask, ""), "");
            break;
        default: r = ballot; break;
        }
        set(g, in->d, splat(g, LL->LLVMBuildZExt(g->b, r, g->s64, ""), g->i64));
        break;
    }
    default: /* bar.warp.sync: orders the lanes' memory accesses */
        LL->LLVMBuildFence(g->b, SEQ_CST, 0, "");
        break;
    }
    LL->LLVMBuildBr(g->b, next);
    return 0;
}

/* the lanes an instruction k writes: its guard's, and in a region, only its path's */
static void *rpred(struct vg *v, int k, void *guard)
{
    struct cg *g = v->g;
    if (v->g->rin[k] < 0) return guard;
    void *m = lanes(g, v->mask);
    return guard ? LL->LLVMBuildAnd(g->b, guard, m, "") : m;
}

/* load or store k (in) of the lanes eff, its guard guard, as ldst builds
 * it (fb: where its lanes hand on) */
static void ldst_at(struct vg *v, int k, const struct ir_ins *in, void *guard, void *eff, void *fb)
{
    v->g->vpred = rpred(v, k, guard);
    ldst(v, in, eff, fb);
    v->g->vpred = NULL;
}

/* where no lane runs the instruction (none, an i1, or NULL when some
 * always does), on to next */
static void skip_if_none(struct cg *g, void *none, void *next)
{
    if (!none) return;
    void *some = newbb(g);
    LL->LLVMBuildCondBr(g->b, none, next, some);
    LL->LLVMPositionBuilderAtEnd(g->b, some);
}

/* by instruction: 1 inside a loop with no bar.sync (the range from a
 * backward branch's target to it), where a thread may spin on a flag that
 * only another warp's turn sets; NULL without memory (every instruction) */
static uint8_t *spin_ranges(const struct cg *g)
{
    int n = g->F->end - g->F->start;
    uint8_t *in_spin = calloc((size_t)n + 1, 1);
    if (!in_spin) return NULL;
    for (int j = 0; j < n; j++) {
        int t = g->m->ins[g->F->start + j].op == OP_BRA ? target_of(g, j) : n;
        if (t > j) continue;
        int bar = 0;
        for (int k = t; k <= j && !bar; k++) bar = g->m->ins[g->F->start + k].op == OP_BAR;
        for (int k = t; k <= j && !bar; k++) in_spin[k] = 1;
    }
    return in_spin;
}

static void ins(struct vg *v, int k, const uint8_t *in_spin);

/* the first part (then) of region k, outside any other, built a second
 * time as uniform code, for when no lane takes its branch (the common
 * `if (i < n)` of a grid over an array): the function's lanes run it with
 * no mask, so without a select at each write; it goes on to the join (the
 * first part's branch there, or its end), as the masked part does where
 * no lane is left for the else part. Its instructions are built in fresh
 * blocks, as outside the region (their g->rin); regions nested in it are
 * masked ones, with no copy of their own. Returns its first block, or NULL
 * (an empty then part, or out of memory: the masked part runs) */
static void *uniform_copy(struct vg *v, int k, const uint8_t *in_spin)
{
    struct cg *g = v->g;
    int end = g->relse[k] >= 0 ? g->relse[k] : g->rjoin[k], n = end - k - 1;
    if (n <= 0) return NULL;
    void **keep = malloc(sizeof *keep * (size_t)n);
    int *rk = malloc(sizeof *rk * (size_t)n);
    if (!keep || !rk) {
        free(keep);
        free(rk);
        return NULL;
    }
    void *here = LL->LLVMGetInsertBlock(g->b);
    for (int i = k + 1; i < end; i++) {
        keep[i - k - 1] = g->bb[i];
        rk[i - k - 1] = g->rin[i];
        g->bb[i] = newbb(g);
        if (g->rin[i] == k) g->rin[i] = g->rin[k];
    }
    void *first = g->bb[k + 1];
    v->copying = 1;
    for (int i = k + 1; i < end; i++) ins(v, i, in_spin);
    v->copying = 0;
    for (int i = k + 1; i < end; i++) {
        g->bb[i] = keep[i - k - 1];
        g->rin[i] = rk[i - k - 1];
    }
    free(keep);
    free(rk);
    LL->LLVMPositionBuilderAtEnd(g->b, here);
    return first;
}

/* instruction k, into g->bb[k] */
static void ins(struct vg *v, int k, const uint8_t *in_spin)
{
    struct cg *g = v->g;
    const struct ir_func *F = g->F;
    int nins = F->end - F->start;
    int i = F->start + k;
    const struct ir_ins *in = &g->m->ins[i];
    char why[8];
    int kind = jit_classify(g->m, F, in, g->h[i], why, sizeof why);
    LL->LLVMPositionBuilderAtEnd(g->b, g->bb[k]);
    struct jit_aff_src src[3]; /* a native writer's sources' claims, before it writes */
    jit_aff_pre(g, in, src);
    int ws[JIT_NAMED_MAX], nws = writes_of(g, k, ws);
    for (int j = 0; j < nws; j++) jit_aff_kill(g, ws[j]);
    int32_t wr[JIT_WRITES];
    jit_writes(in, wr);
    for (int j = 0; j < JIT_WRITES && v->dirty; j++) /* before it runs: a store more at most,
                                                        where it hands over first */
        if (wr[j] >= 0 && wr[j] < F->nslots && v->dirty[wr[j]])
            LL->LLVMBuildStore(g->b, LL->LLVMConstInt(g->s1, 1, 0), v->dirty[wr[j]]);
    void *next = edge(v, k, k + 1);
    if (g->rin[k] < 0) { /* uniform: the function's lanes */
        v->mask = v->pmask;
        v->npop = v->ppop;
    } else { /* in a region: its path's */
        v->mask = LL->LLVMBuildLoad2(g->b, g->s32, v->cur, "");
        v->npop = LL->LLVMBuildZExt(g->b, call(g, "llvm.ctpop.i32", g->s32, (void *[]){ g->s32 }, &v->mask, 1), g->s64, "");
    }
    LL->LLVMBuildStore(g->b, LL->LLVMBuildAdd(g->b, LL->LLVMBuildLoad2(g->b, g->s64, g->ic, ""), v->npop, ""), g->ic);
    void *fb = g->entryof[k] >= 0 ? handover(v, k) : NULL;
    void *guard = NULL, *gb = v->mask, *all = NULL, *none = NULL;
    if (in->guard >= 0 && g->uni && g->uni[in->guard]) { /* one bit: every lane of the mask or none */
        void *p = LL->LLVMBuildTrunc(g->b, LL->LLVMBuildLoad2(g->b, g->s64, g->uni[in->guard], ""), g->s1, "");
        if (in->gneg) p = LL->LLVMBuildXor(g->b, p, LL->LLVMConstInt(g->s1, 1, 0), "");
        guard = splat(g, p, g->i1);
        gb = LL->LLVMBuildSelect(g->b, p, v->mask, k32(g, 0), "");
    } else if (in->guard >= 0) {
        guard = bit0(g, in->guard);
        if (in->gneg) guard = LL->LLVMBuildXor(g->b, guard, ci(g, g->i1, 1), "");
        gb = LL->LLVMBuildAnd(g->b, bits(g, guard), v->mask, "");
    }
    if (guard) {
        all = LL->LLVMBuildICmp(g->b, IEQ, gb, v->mask, "");
        none = LL->LLVMBuildICmp(g->b, IEQ, gb, k32(g, 0), "");
    }
    /* guarded control: the same on every lane, or one by one from here */
    void *taken = NULL;
    if (guard && (in->op == OP_BRA || in->op == OP_EXIT || in->op == OP_RET)) {
        void *notall = newbb(g);
        taken = newbb(g);
        if (g->rjoin[k] >= 0) { /* a region's: the lanes before it, and when it diverges,
                                   its first part with the lanes that fall through */
            void *split = newbb(g), *here = LL->LLVMGetInsertBlock(g->b);
            LL->LLVMBuildStore(g->b, v->mask, v->outer[k]);
            LL->LLVMPositionBuilderAtEnd(g->b, split);
            LL->LLVMBuildStore(g->b, LL->LLVMBuildAnd(g->b, v->mask, LL->LLVMBuildNot(g->b, gb, ""), ""), v->cur);
            LL->LLVMBuildBr(g->b, g->bb[k + 1]);
            fb = split;
            LL->LLVMPositionBuilderAtEnd(g->b, here);
        }
        LL->LLVMBuildCondBr(g->b, all, taken, notall);
        LL->LLVMPositionBuilderAtEnd(g->b, notall);
        void *uc = g->rjoin[k] >= 0 && g->rin[k] < 0 && !v->copying ? uniform_copy(v, k, in_spin) : NULL;
        LL->LLVMBuildCondBr(g->b, none, uc ? uc : next, fb);
        LL->LLVMPositionBuilderAtEnd(g->b, taken);
    }
    if (in->op == OP_BRA && g->rin[k] >= 0 && g->relse[g->rin[k]] == k + 1) {
        /* the end of a region's then part: its else part with the other
         * lanes before it, if any, else the join */
        int r = g->rin[k];
        void *els = newbb(g);
        void *em = LL->LLVMBuildAnd(g->b, LL->LLVMBuildLoad2(g->b, g->s32, v->outer[r], ""), LL->LLVMBuildNot(g->b, v->mask, ""), "");
        LL->LLVMBuildCondBr(g->b, LL->LLVMBuildICmp(g->b, INE, em, k32(g, 0), ""), els, edge(v, k, g->rjoin[r]));
        LL->LLVMPositionBuilderAtEnd(g->b, els);
        LL->LLVMBuildStore(g->b, em, v->cur);
        LL->LLVMBuildBr(g->b, g->bb[k + 1]);
        return;
    }
    if (in->op == OP_BRA) {
        int target = (int)in->imm - F->start;
        if (target < 0 || target > nins) target = nins;
        if (target <= k) { /* a loop: now and then, the limits */
            void *poll = newbb(g), *go = newbb(g);
            void *cnt = LL->LLVMBuildLoad2(g->b, g->s64, g->ic, "");
            LL->LLVMBuildCondBr(g->b, expect(g, LL->LLVMBuildICmp(g->b, IUGE, cnt, k64(g, POLL_EVERY), ""), 0), poll, go);
            LL->LLVMPositionBuilderAtEnd(g->b, poll);
            void *args[2] = { g->C, cnt };
            void *r = LL->LLVMBuildCall2(g->b, g->fty_poll, fnptr(g, (const void *)(uintptr_t)g->hp->poll), args, 2, "");
            LL->LLVMBuildStore(g->b, k64(g, 0), g->ic);
            LL->LLVMBuildCondBr(g->b, LL->LLVMBuildICmp(g->b, INE, r, k32(g, 0), ""), g->failbb, go);
            LL->LLVMPositionBuilderAtEnd(g->b, go);
        }
        LL->LLVMBuildBr(g->b, edge(v, k, target));
        return;
    }
    if (in->op == OP_EXIT || in->op == OP_RET) {
        jit_flush_ret(g, 0);
        return;
    }
    if (kind == K_WSYNC && jit_pc_group(in)) {
        /* activemask, a builtin's call, mbarrier, or a volatile or
         * strong access: the interpreter's code for the warp's lanes at
         * once (its group, in lockstep order), but for such an access of
         * .shared, which runs as a weak one (jit_strong_inline: no other
         * warp can come between its lanes' accesses; where its checks fail
         * the lanes hand on to the thread's stop before it); for an access
         * or an mbarrier in a loop with no bar.sync the warp stops before
         * it instead, as the thread does (its operands and what is live in
         * the file), and jit_warp.c runs it for the lanes whose guard
         * holds: a spin on a flag gives the other warps their turn */
        g->resume[g->nbars++] = next; /* the thread's numbering of its stops */
        skip_if_none(g, none, next);
        if (!jit_may_wait(in) || (in_spin && !in_spin[k])) { /* no stop */
            if (jit_strong_inline(g->m, in))
                ldst_at(v, k, in, guard, gb, fb); /* as a weak access; its hand-over stops there */
            else
                jit_per_lane(g, in, jit_group_fn(in, g->h[i]), gb);
            LL->LLVMBuildBr(g->b, next);
            return;
        }
        spill_live(v, k, k, 0);
        jit_flush_ret(g, g->nbars);
        return;
    }
    if (kind == K_WSYNC) { /* a rendezvous: the thread's numbering of its stops */
        g->resume[g->nbars++] = next;
        skip_if_none(g, none, next);
        if (!fb || wsync(v, in, all, fb, next)) LL->LLVMBuildBr(g->b, fb ? fb : next);
        return;
    }
    if (kind == K_LANE && !((in->op == OP_LD || in->op == OP_ST) && in->space == SP_LOCAL)) {
        skip_if_none(g, none, next);
        if (jit_atom_native(in)) atom(v, in, gb, g->h[i]);
        else jit_per_lane(g, in, g->h[i], gb); /* the lanes at once, as the interpreter runs them */
        LL->LLVMBuildBr(g->b, next);
        return;
    }
    if (fb && (in->op == OP_TRAP || (in->op == OP_BAR && in->guard >= 0) ||
               ((in->op == OP_LD || in->op == OP_ST) && in->space == SP_LOCAL))) {
        /* the lanes one by one (a trap, a guarded barrier, a thread's
         * own .local window), unless none runs it */
        if (in->op == OP_BAR) g->resume[g->nbars++] = next; /* the thread's numbering */
        if (none) LL->LLVMBuildCondBr(g->b, none, next, fb);
        else LL->LLVMBuildBr(g->b, fb);
        return;
    }
    switch (in->op) {
    case OP_BAR: {
        g->resume[g->nbars] = next;
        spill_live(v, k, in->sub2 == BK_RED ? k : k + 1, 1); /* bar.red's predicate too */
        jit_flush_ret(g, ++g->nbars);
        return;
    }
    case OP_MEMBAR:
        LL->LLVMBuildFence(g->b, SEQ_CST, 0, "");
        break;
    case OP_NOP:
        break;
    case OP_LD: case OP_ST:
        ldst_at(v, k, in, guard, gb, fb);
        break;
    default:
        g->vpred = rpred(v, k, guard);
        jit_native(g, in);
        jit_aff_post(g, in, src);
        g->vpred = NULL;
        break;
    }
    LL->LLVMBuildBr(g->b, next);
}

static void body(struct vg *v)
{
    struct cg *g = v->g;
    const struct ir_func *F = g->F;
    int nins = F->end - F->start;
    uint8_t *in_spin = spin_ranges(g);
    for (int k = 0; k < nins; k++) ins(v, k, in_spin);
    free(in_spin);
    LL->LLVMPositionBuilderAtEnd(g->b, g->bb[nins]);
    jit_flush_ret(g, 0);
}

/* sym_ubc (jit.h, jit_ubc_fn): each uniform register's value on the
 * lowest lane of mask copied to the mask's other lanes, where a barrier's
 * stop stores it to that lane only (lane_only, spill_live); else (no
 * barrier, a rendezvous or bar.red) it returns at once. The warp's
 * function stays g->fn */
static void build_ubc(struct cg *g, const char *sym, int lane_only)
{
    char name[160];
    snprintf(name, sizeof name, "%s_ubc", sym);
    void *wfn = g->fn, *R = g->R, *here = LL->LLVMGetInsertBlock(g->b);
    void *fty = LL->LLVMFunctionType(LL->LLVMVoidTypeInContext(g->ctx), (void *[]){ g->ptr, g->s32 }, 2, 0);
    void *fn = g->fn = LL->LLVMAddFunction(g->mod, name, fty);
    g->R = LL->LLVMGetParam(fn, 0);
    void *mask = LL->LLVMGetParam(fn, 1);
    LL->LLVMPositionBuilderAtEnd(g->b, newbb(g));
    void *l = first_lane(g, mask), *m = lanes(g, mask);
    for (int s = 0; s < g->F->nslots && lane_only; s++) {
        if (!g->uni || !g->uni[s]) continue;
        void *x = LL->LLVMBuildLoad2(g->b, g->s64, rf_lane(g, s, l), "");
        call(g, "llvm.masked.store.v32i64.p0", LL->LLVMVoidTypeInContext(g->ctx), (void *[]){ g->i64, g->ptr, g->s32, g->i1 },
             (void *[]){ splat(g, x, g->i64), rf(g, s), k32(g, 8), m }, 4);
    }
    LL->LLVMBuildRetVoid(g->b);
    g->fn = wfn;
    g->R = R;
    LL->LLVMPositionBuilderAtEnd(g->b, here);
}

void jit_build_vec(struct cg *g, const char *sym)
{
    const struct ir_func *F = g->F;
    int nins = F->end - F->start, ns = F->nslots, nbars = g->nbars;
    struct vg V = { .g = g, .nbars = nbars }, *v = &V;
    jit_cg_types(g, JIT_LANES);
    v->vptr = LL->LLVMVectorType(g->ptr, JIT_LANES);
    void *fty = LL->LLVMFunctionType(g->s32, (void *[]){ g->ptr, g->ptr, g->s32, g->s32 }, 4, 0);
    g->fn = LL->LLVMAddFunction(g->mod, sym, fty);
    void *noalias = enum_attr(g, "noalias");
    if (noalias) LL->LLVMAddAttributeAtIndex(g->fn, 2, noalias);
    g->R = LL->LLVMGetParam(g->fn, 0);
    g->C = LL->LLVMGetParam(g->fn, 1);
    void *resume = LL->LLVMGetParam(g->fn, 2);
    v->mask = v->pmask = LL->LLVMGetParam(g->fn, 3);
    void *entry = newbb(g);
    LL->LLVMPositionBuilderAtEnd(g->b, entry);
    v->outer = calloc((size_t)nins + 1, sizeof *v->outer);
    v->cur = LL->LLVMBuildAlloca(g->b, g->s32, "");
    LL->LLVMBuildStore(g->b, v->pmask, v->cur);
    for (int k = 0; k < nins && v->outer; k++)
        if (g->rjoin[k] >= 0) v->outer[k] = LL->LLVMBuildAlloca(g->b, g->s32, "");
    g->ulane = first_lane(g, v->pmask); /* the function's first lane */
    (void)uniforms(g); /* out of memory: none */
    (void)halves(g); /* out of memory: every register 64 bits */
    (void)tconsts(g); /* out of memory: none */
    for (int s = 0; s < ns; s++) g->slot[s] = LL->LLVMBuildAlloca(g->b, g->shi && g->shi[s] ? g->i32 : g->i64, "");
    (void)jit_aff_init(g); /* out of memory: no register is affine */
    g->ic = LL->LLVMBuildAlloca(g->b, g->s64, "");
    v->sbuf = LL->LLVMBuildAlloca(g->b, g->i64, "");
    LL->LLVMSetAlignment(v->sbuf, 8);
    for (int k = 0; k < nins && !v->abuf[0]; k++)
        if (jit_atom_native(&g->m->ins[F->start + k])) {
            for (int i = 0; i < 4; i++) v->abuf[i] = LL->LLVMBuildAlloca(g->b, g->i64, "");
            v->amask = LL->LLVMBuildAlloca(g->b, g->s32, "");
        }
    for (unsigned z = 0; z < 4; z++)
        for (int i = 0; i < 4; i++) v->ltmp[z][i] = LL->LLVMBuildAlloca(g->b, ity(g, 1u << z), "");
    for (int i = 0; i < 2; i++) v->gtmp[i] = LL->LLVMBuildAlloca(g->b, g->s1, "");
    LL->LLVMBuildStore(g->b, k64(g, 0), g->ic);
    v->npop = v->ppop = LL->LLVMBuildZExt(g->b, call(g, "llvm.ctpop.i32", g->s32, (void *[]){ g->s32 }, &v->mask, 1), g->s64, "");
    for (int s = 0; s < ns; s++)
        if (g->shi && g->shi[s]) { /* 0, both halves */
            LL->LLVMBuildStore(g->b, LL->LLVMConstNull(g->i32), g->slot[s]);
            LL->LLVMBuildStore(g->b, LL->LLVMConstNull(g->i32), g->shi[s]);
        } else
            set(g, s, c64(g, g->kimm[s] ? (uint64_t)g->kval[s] : 0));
    if ((v->dirty = calloc((size_t)ns + 1, sizeof *v->dirty)))
        for (int k = 0; k < nins; k++) {
            int32_t wr[JIT_WRITES];
            jit_writes(&g->m->ins[F->start + k], wr);
            for (int j = 0; j < JIT_WRITES; j++)
                if (wr[j] >= 0 && wr[j] < ns && !g->kconst[wr[j]] && !v->dirty[wr[j]]) {
                    v->dirty[wr[j]] = LL->LLVMBuildAlloca(g->b, g->s1, "");
                    LL->LLVMBuildStore(g->b, LL->LLVMConstInt(g->s1, 0, 0), v->dirty[wr[j]]);
                }
        }
    for (int k = 0; k <= nins; k++) g->bb[k] = newbb(g);
    g->failbb = newbb(g);
    g->nbars = 0;
    if (!v->outer) /* out of memory: no region runs with masks */
        for (int k = 0; k <= nins; k++) g->rjoin[k] = g->relse[k] = g->rin[k] = -1;
    v->wd = written(g);
    v->lane_only = nbars > 0; /* where a barrier stops, and no rendezvous or bar.red reads the file */
    for (int k = 0; k < nins; k++) {
        const struct ir_ins *in = &g->m->ins[F->start + k];
        if (ins_kind(g, k) == K_WSYNC || (in->op == OP_BAR && in->sub2 == BK_RED)) v->lane_only = 0;
    }
    v->nreg = calloc((size_t)ns + 1, sizeof *v->nreg);
    v->nld = calloc((size_t)ns + 1, sizeof *v->nld);
    for (int k = 0; k < nins && v->nreg && v->nld; k++) {
        const struct ir_ins *in = &g->m->ins[F->start + k];
        if (reg_window(in) && in->a < ns && v->nreg[in->a] < UINT16_MAX) v->nreg[in->a]++;
        if (in->op == OP_LD && in->a >= 0 && in->a < ns && v->nld[in->a] < UINT16_MAX) v->nld[in->a]++;
    }
    (void)groups(v); /* out of memory: none */
    body(v);
    free(v->nreg);
    free(v->nld);
    free(v->glead);
    free(v->gmin);
    free(v->gmax);
    free(v->grp);
    free(v->wd);
    free(v->dirty);
    v->dirty = NULL;
    free(v->outer);
    LL->LLVMPositionBuilderAtEnd(g->b, g->failbb);
    jit_flush_ret(g, -1);
    void *start = newbb(g);
    LL->LLVMPositionBuilderAtEnd(g->b, start);
    load_live(g, 0);
    LL->LLVMBuildBr(g->b, g->bb[0]);
    LL->LLVMPositionBuilderAtEnd(g->b, entry);
    void *sw = LL->LLVMBuildSwitch(g->b, resume, start, (unsigned)nbars);
    for (int k = 0; k < nbars; k++) {
        void *rb = newbb(g);
        LL->LLVMAddCase(sw, k32(g, (uint64_t)k + 1), rb);
        LL->LLVMPositionBuilderAtEnd(g->b, rb);
        load_live(g, g->barpc[k] - F->start + 1);
        LL->LLVMBuildBr(g->b, g->resume[k]);
    }
    g->nbars = nbars;
    build_ubc(g, sym, v->lane_only);
    free(g->shi);
    free(g->hiset);
    free(g->uni);
    free(g->tcw);
    free(g->tck);
    jit_aff_done(g);
    g->shi = NULL;
    g->hiset = NULL;
    g->uni = NULL;
    g->tcw = NULL;
    g->tck = NULL;
}

/* whether the warps' round inlines the warp's function for each resume
 * point: the copies are pruned to what each point reaches, but they add
 * to the compile time (JIT_WROUND_INLINE bounds resume points times PTX
 * instructions), and a loop with no stop in it runs in the round with the
 * round's values live around it (the naive SGEMM and Mandelbrot ran 5 to
 * 11% slower so); what it saves is a call a warp and interval, which
 * counts where barriers come every few instructions */
static int wround_inlines(const struct cg *g)
{
    int n = g->F->end - g->F->start;
    if ((int64_t)(g->nbars + 1) * n > JIT_WROUND_INLINE) return 0;
    for (int k = 0; k < n; k++) {
        int t = target_of(g, k), stop = 0;
        if (g->m->ins[g->F->start + k].op != OP_BRA || t > k) continue;
        for (int j = 0; j < g->nbars && !stop; j++) {
            int p = g->barpc[j] - g->F->start;
            stop = p >= t && p <= k;
        }
        if (!stop) return 0;
    }
    return 1;
}

/* the warps' round (jit.h, jit_wround_fn) named sym: a loop over a
 * block's warps from `from` calling the warp's function (g->fn, just
 * built) for each warp whose lanes that have not exited stand at one
 * point, one call per block and round up to the first warp that needs the
 * runner (lanes at different points, lanes handed on, a failure) instead
 * of one per warp */
void jit_build_wround(struct cg *g, const char *sym)
{
    void *wfn = g->fn, *i32 = g->s32, *i64 = g->s64, *P = g->ptr;
    void *wfty = LL->LLVMFunctionType(i32, (void *[]){ P, P, i32, i32 }, 4, 0);
    void *fty = LL->LLVMFunctionType(i32, (void *[]){ P, P, P, P, i32, i32, P, P }, 8, 0);
    void *fn = g->fn = LL->LLVMAddFunction(g->mod, sym, fty);
    void *C = LL->LLVMGetParam(fn, 0), *wt = LL->LLVMGetParam(fn, 1), *at = LL->LLVMGetParam(fn, 2);
    void *lv = LL->LLVMGetParam(fn, 3), *from = LL->LLVMGetParam(fn, 4), *nw = LL->LLVMGetParam(fn, 5);
    void *rr = LL->LLVMGetParam(fn, 6), *runs = LL->LLVMGetParam(fn, 7);
    void *entry = newbb(g), *head = newbb(g), *body = newbb(g), *one = newbb(g), *run = newbb(g);
    void *gone = newbb(g), *other = newbb(g), *stop = newbb(g), *waits = newbb(g), *next = newbb(g), *end = newbb(g);
    void *said = newbb(g);
    LL->LLVMPositionBuilderAtEnd(g->b, entry);
    /* i, the calls (one store of *runs at the end, not one a warp), and
     * what the warp's function returned: values once promoted */
    void *iv = LL->LLVMBuildAlloca(g->b, i32, ""), *rv = LL->LLVMBuildAlloca(g->b, i32, "");
    void *nv = LL->LLVMBuildAlloca(g->b, i32, "");
    LL->LLVMBuildStore(g->b, from, iv);
    LL->LLVMBuildStore(g->b, k32(g, 0), nv);
    LL->LLVMBuildBr(g->b, head);
    LL->LLVMPositionBuilderAtEnd(g->b, head);
    void *i = LL->LLVMBuildLoad2(g->b, i32, iv, "");
    LL->LLVMBuildCondBr(g->b, LL->LLVMBuildICmp(g->b, IULT, i, nw, ""), body, end);
    LL->LLVMPositionBuilderAtEnd(g->b, body);
    void *i6 = LL->LLVMBuildZExt(g->b, i, i64, "");
    void *lp = LL->LLVMBuildGEP2(g->b, i32, lv, &i6, 1, ""), *ap = LL->LLVMBuildGEP2(g->b, i32, at, &i6, 1, "");
    void *live = LL->LLVMBuildLoad2(g->b, i32, lp, "");
    LL->LLVMBuildCondBr(g->b, LL->LLVMBuildICmp(g->b, IEQ, live, k32(g, 0), ""), next, one);
    LL->LLVMPositionBuilderAtEnd(g->b, one); /* lanes at different points: the runner's */
    void *a = LL->LLVMBuildLoad2(g->b, i32, ap, "");
    LL->LLVMBuildCondBr(g->b, LL->LLVMBuildICmp(g->b, ISLT, a, k32(g, 0), ""), stop, run);
    LL->LLVMPositionBuilderAtEnd(g->b, run);
    void *woff = LL->LLVMBuildMul(g->b, i6, k64(g, sizeof(struct jit_wthr)), "");
    void *tp = LL->LLVMBuildGEP2(g->b, g->s8, wt, &woff, 1, "");
#define WT(f, ty) LL->LLVMBuildLoad2(g->b, ty, LL->LLVMBuildGEP2(g->b, g->s8, tp, (void *[]){ k64(g, offsetof(struct jit_wthr, f)) }, 1, ""), "")
#define CTX(f) LL->LLVMBuildGEP2(g->b, g->s8, C, (void *[]){ k64(g, offsetof(struct jit_ctx, f)) }, 1, "")
    /* c's warp fields; its thread's (lane, tid, local) are the thread's
     * function's, which the runner sets (jit_ctx_thread), not the warp's */
    void *Rw = WT(Rw, P), *w = WT(w, P);
    LL->LLVMBuildStore(g->b, w, CTX(w));
    LL->LLVMBuildStore(g->b, Rw, CTX(Rw));
    LL->LLVMBuildStore(g->b, WT(tids, P), CTX(tids));
#undef WT
#undef CTX
    /* where wround_inlines, the warp's function inlined once for each resume
     * point, its resume a constant: each copy keeps only the code reachable
     * from its entry (no call, no dispatch, the context's fields as values).
     * The function itself is then internal, gone after the inlining, and
     * another point (none: jit_run.c's runner keeps at[] to 0 ... nbars)
     * goes back to the runner with JIT_VEC_CALL */
    void *r;
    void *inl = wround_inlines(g) ? enum_attr(g, "alwaysinline") : NULL;
    if (inl) {
        void *joined = newbb(g), *dflt = newbb(g);
        void *sw = LL->LLVMBuildSwitch(g->b, a, dflt, (unsigned)g->nbars + 1);
        for (int k = 0; k <= g->nbars; k++) {
            void *bb = newbb(g);
            LL->LLVMAddCase(sw, k32(g, (uint32_t)k), bb);
            LL->LLVMPositionBuilderAtEnd(g->b, bb);
            void *cr = LL->LLVMBuildCall2(g->b, wfty, wfn, (void *[]){ Rw, C, k32(g, (uint32_t)k), live }, 4, "");
            LL->LLVMAddCallSiteAttribute(cr, ~0u, inl);
            LL->LLVMBuildStore(g->b, cr, rv);
            LL->LLVMBuildBr(g->b, joined);
        }
        LL->LLVMPositionBuilderAtEnd(g->b, dflt);
        LL->LLVMBuildStore(g->b, LL->LLVMConstInt(i32, (uint32_t)JIT_VEC_CALL, 1), rr);
        LL->LLVMBuildBr(g->b, stop);
        LL->LLVMSetLinkage(wfn, LLVM_INTERNAL_LINKAGE);
        LL->LLVMPositionBuilderAtEnd(g->b, joined);
        r = LL->LLVMBuildLoad2(g->b, i32, rv, "");
    } else
        r = LL->LLVMBuildCall2(g->b, wfty, wfn, (void *[]){ Rw, C, a, live }, 4, "");
    LL->LLVMBuildStore(g->b, LL->LLVMBuildAdd(g->b, LL->LLVMBuildLoad2(g->b, i32, nv, ""), k32(g, 1), ""), nv);
    LL->LLVMBuildCondBr(g->b, LL->LLVMBuildICmp(g->b, IEQ, r, k32(g, 0), ""), gone, other);
    LL->LLVMPositionBuilderAtEnd(g->b, gone); /* they all exited: out of the warp's live mask */
    LL->LLVMBuildStore(g->b, k32(g, 0), lp);
    void *wl = LL->LLVMBuildGEP2(g->b, g->s8, w, (void *[]){ k64(g, offsetof(struct warp, live)) }, 1, "");
    LL->LLVMBuildStore(g->b, LL->LLVMBuildAnd(g->b, LL->LLVMBuildLoad2(g->b, i32, wl, ""), LL->LLVMBuildNot(g->b, live, ""), ""), wl);
    LL->LLVMBuildBr(g->b, next);
    LL->LLVMPositionBuilderAtEnd(g->b, other); /* a barrier, or the runner's: a failure, lanes handed on */
    void *bar = LL->LLVMBuildAnd(g->b, LL->LLVMBuildICmp(g->b, ISGT, r, k32(g, 0), ""),
                                 LL->LLVMBuildICmp(g->b, ISLE, r, k32(g, (uint32_t)g->nbars), ""), "");
    LL->LLVMBuildCondBr(g->b, bar, waits, said);
    LL->LLVMPositionBuilderAtEnd(g->b, said);
    LL->LLVMBuildStore(g->b, r, rr);
    LL->LLVMBuildBr(g->b, stop);
    LL->LLVMPositionBuilderAtEnd(g->b, waits);
    LL->LLVMBuildStore(g->b, r, ap);
    LL->LLVMBuildBr(g->b, next);
    LL->LLVMPositionBuilderAtEnd(g->b, next);
    LL->LLVMBuildStore(g->b, LL->LLVMBuildAdd(g->b, i, k32(g, 1), ""), iv);
    LL->LLVMBuildBr(g->b, head);
    LL->LLVMPositionBuilderAtEnd(g->b, stop);
    LL->LLVMBuildStore(g->b, LL->LLVMBuildLoad2(g->b, i32, nv, ""), runs);
    LL->LLVMBuildRet(g->b, i);
    LL->LLVMPositionBuilderAtEnd(g->b, end);
    LL->LLVMBuildStore(g->b, LL->LLVMBuildLoad2(g->b, i32, nv, ""), runs);
    LL->LLVMBuildRet(g->b, nw);
    g->fn = wfn;
}
