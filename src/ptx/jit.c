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
 *    volatile and strong loads/stores of global, shared or generic memory
 *    are rendezvous too: the lanes there run them together;
 *  - refused: activemask, non-.sync shfl/vote, block-cluster
 *    instructions, calls (which lanes run together could show): the
 *    kernel runs on the interpreter, the report names it.
 * Every load and store checks its address as the interpreter does: the
 * allocation last found (global), the window's size (shared, local,
 * param), alignment; anything else goes to the run-time helper, which asks
 * the host's allocation map and reports the fault. */
#include "jit_cg.h"

#include <stdio.h>
#include <stdlib.h>
#include <time.h>

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
        int sl[JIT_NAMED_MAX], n = kind[k] == K_LANE || (kind[k] == K_WSYNC && in->op != OP_BAR) ? jit_named_slots(g->m, in, sl) : 0;
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
                int32_t wr[JIT_WRITES];
                jit_writes(in, wr);
                for (int i = 0; i < JIT_WRITES; i++) setbit(tmp, wr[i], ns);
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
            if (kind[k] == K_NATIVE || (kind[k] == K_LANE && jit_atom_native(in))) { /* an atomic's
                                                     inline path reads its operands too */
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
            int sl[JIT_NAMED_MAX], n = jit_named_slots(g->m, in, sl);
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

/* %ctaid from jit_ctx, or NULL: the others are in the register file */
static void *sreg_value(struct cg *g, int r)
{
    if (r < S_CTAID_X || r > S_CTAID_Z) return NULL;
    void *v = field(g, offsetof(struct jit_ctx, ctaid) + 4 * (size_t)(r - S_CTAID_X), g->i32);
    return LL->LLVMBuildZExt(g->b, v, g->i64, "");
}

static void load_set(struct cg *g, const uint64_t *lv)
{
    for (int s = 0; s < g->F->nslots; s++) {
        if (g->kimm[s] || !(lv[s / 64] >> (s % 64) & 1)) continue;
        void *v = g->ksreg[s] >= 0 ? sreg_value(g, g->ksreg[s]) : NULL;
        if (v) { set(g, s, v); continue; }
        void *idx = c64(g, (uint64_t)s * 32);
        set(g, s, LL->LLVMBuildLoad2(g->b, g->i64, LL->LLVMBuildGEP2(g->b, g->i64, g->R, &idx, 1, ""), ""));
    }
}

/* the slots read at instruction k (from F->start) before the next stop, loaded from the file */
static void load_live(struct cg *g, int k) { load_set(g, g->rl + (size_t)k * g->nw); }

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
                LL->LLVMBuildCondBr(g->b, expect(g, c, 0), poll, go);
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
            jit_store_named(g, in);
            if (in->guard >= 0 && is_dirty(g, k, in->guard)) /* the runner reads it (jit_warp.c) */
                LL->LLVMBuildStore(g->b, get(g, in->guard), rf(g, in->guard));
            g->barid[g->nbars] = JIT_WSTOP;
            g->barpc[g->nbars] = i;
            g->resume[g->nbars] = next;
            g->nwstops++;
            spill_live(g, k + 1);
            jit_flush_ret(g, ++g->nbars);
            continue;
        }
        switch (in->op) {
        case OP_EXIT: case OP_RET:
            jit_flush_ret(g, 0);
            continue;
        case OP_BAR: {
            int64_t id = 0;
            jit_imm_of(g->m, F, in->a, &id);
            g->barid[g->nbars] = (uint8_t)id;
            g->barpc[g->nbars] = i;
            g->resume[g->nbars] = next;
            if (in->sub2 == BK_RED) jit_store_named(g, in); /* its predicate, for jit_bar_red */
            spill_live(g, k + 1);
            jit_flush_ret(g, ++g->nbars);
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
            if (kind == K_NATIVE) jit_native(g, in);
            else if (jit_atom_native(in)) jit_atom(g, in, g->h[i]);
            else jit_per_lane(g, in, g->h[i], NULL);
            break;
        }
        LL->LLVMBuildBr(g->b, next);
    }
    LL->LLVMPositionBuilderAtEnd(g->b, g->bb[nins]);
    jit_flush_ret(g, 0);
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

/* what the functions of the entry share: types, constants, liveness, the
 * instructions before which the warp's function may hand its lanes to the
 * thread's (entries: loads and stores, rendezvous, trap, guarded control,
 * a region's else part and join; the per-lane handlers it calls itself) */
static int prepare(struct cg *g)
{
    const struct ir_func *F = g->F;
    const struct ptx_module *m = g->m;
    int nins = F->end - F->start, ns = F->nslots;
    jit_cg_types(g, 1);
    g->fty_mem = LL->LLVMFunctionType(g->ptr, (void *[]){ g->ptr, g->ptr, g->s64, g->s32, g->s32 }, 5, 0);
    g->fty_poll = LL->LLVMFunctionType(g->s32, (void *[]){ g->ptr, g->s64 }, 2, 0);
    g->fty_exec = LL->LLVMFunctionType(g->s32, (void *[]){ g->ptr, g->ptr, g->ptr }, 3, 0);
    g->fty_trap = LL->LLVMFunctionType(LL->LLVMVoidTypeInContext(g->ctx), (void *[]){ g->ptr, g->ptr }, 2, 0);
    g->slot = calloc((size_t)ns + 1, sizeof *g->slot);
    g->kimm = calloc((size_t)ns + 1, sizeof *g->kimm);
    g->kval = calloc((size_t)ns + 1, sizeof *g->kval);
    g->bb = calloc((size_t)nins + 1, sizeof *g->bb);
    g->barid = calloc((size_t)nins + 1, 1);
    g->resume = calloc((size_t)nins + 1, sizeof *g->resume);
    g->barpc = calloc((size_t)nins + 1, sizeof *g->barpc);
    g->kconst = calloc((size_t)ns + 1, 1);
    g->gidof = calloc((size_t)nins + 1, sizeof *g->gidof);
    g->entryof = calloc((size_t)nins + 1, sizeof *g->entryof);
    g->ksreg = malloc(sizeof *g->ksreg * ((size_t)ns + 1));
    if (!g->ksreg) return -1;
    for (int s = 0; s <= ns; s++) g->ksreg[s] = -1;
    g->nw = (ns + 63) / 64 + 1;
    if (!g->slot || !g->kimm || !g->kval || !g->bb || !g->barid || !g->resume || !g->kconst || !g->barpc ||
        !g->gidof || !g->entryof || liveness(g))
        return -1;
    (void)jit_float_raw(g); /* out of memory: every NaN canonical */
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
    if (jit_vec_regions(g)) return -1;
    for (int k = 0; k < nins; k++) g->entryof[k] = -1;
    for (int k = 0; k < nins; k++) { /* a region's else part and join: where its lanes go on */
        if (g->rjoin[k] >= 0) g->entryof[g->rjoin[k]] = 0;
        if (g->relse[k] >= 0) g->entryof[g->relse[k]] = 0;
    }
    for (int k = 0; k < nins; k++) {
        const struct ir_ins *in = &m->ins[F->start + k];
        char why[8];
        int kind = jit_classify(m, F, in, g->h[F->start + k], why, sizeof why);
        int ctl = in->op == OP_BRA || in->op == OP_EXIT || in->op == OP_RET || in->op == OP_BAR;
        g->gidof[k] = -1;
        g->entryof[k] = kind == K_WSYNC || in->op == OP_LD || in->op == OP_ST || in->op == OP_TRAP ||
                        (in->guard >= 0 && ctl) || g->entryof[k] == 0 ? g->nentries++ : -1;
    }
    return 0;
}

/* the thread's function (jit_fn) named sym; with entries, also resumed
 * before each entry j (resume nbars + 1 + j): the lanes the warp's
 * function hands on */
static void thread_fn(struct cg *g, const char *sym, int entries)
{
    const struct ir_func *F = g->F;
    int nins = F->end - F->start, ns = F->nslots;
    void *fty = LL->LLVMFunctionType(g->s32, (void *[]){ g->ptr, g->ptr, g->s32 }, 3, 0);
    g->fn = LL->LLVMAddFunction(g->mod, sym, fty);
    g->nbars = g->nwstops = g->ngc = 0;
    void *noalias = enum_attr(g, "noalias");
    if (noalias) LL->LLVMAddAttributeAtIndex(g->fn, 2, noalias);
    g->R = LL->LLVMGetParam(g->fn, 0);
    g->C = LL->LLVMGetParam(g->fn, 1);
    void *resume = LL->LLVMGetParam(g->fn, 2);
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
    jit_flush_ret(g, -1);
    /* where a thread starts or resumes: what is live there, loaded */
    void *start = newbb(g);
    LL->LLVMPositionBuilderAtEnd(g->b, start);
    load_live(g, 0);
    LL->LLVMBuildBr(g->b, g->bb[0]);
    int nent = entries ? g->nentries : 0;
    void *sw = NULL;
    for (int k = 0; k < g->nbars + nent; k++) {
        void *rb = newbb(g);
        LL->LLVMPositionBuilderAtEnd(g->b, rb);
        if (k < g->nbars) {
            load_live(g, g->barpc[k] - F->start + 1);
            LL->LLVMBuildBr(g->b, g->resume[k]);
        } else {
            int at = 0;
            while (g->entryof[at] != k - g->nbars) at++;
            /* all the live slots, not only those read before the next
             * stop: the slots written before the entry since the last
             * stop are dirty there, and a stop stores those */
            load_set(g, g->live + (size_t)at * g->nw);
            LL->LLVMBuildBr(g->b, g->bb[at]);
        }
        if (!sw) {
            LL->LLVMPositionBuilderAtEnd(g->b, entry);
            sw = LL->LLVMBuildSwitch(g->b, resume, start, (unsigned)(g->nbars + nent));
        }
        LL->LLVMAddCase(sw, k32(g, (uint64_t)k + 1), rb);
    }
    if (!sw) {
        LL->LLVMPositionBuilderAtEnd(g->b, entry);
        LL->LLVMBuildBr(g->b, start);
    }
}

/* the round of a block (jit.h, jit_round_fn) named sym, a loop over its
 * threads calling the thread's function g->fn, which LLVM inlines: one
 * call per block and round instead of one per thread */
static void build_round(struct cg *g, const char *sym)
{
    void *tfty = LL->LLVMFunctionType(g->i32, (void *[]){ g->ptr, g->ptr, g->i32 }, 3, 0);
    void *fty = LL->LLVMFunctionType(g->i32, (void *[]){ g->ptr, g->ptr, g->ptr, g->ptr, g->i32 }, 5, 0);
    void *inl = enum_attr(g, "alwaysinline");
    if (inl) LL->LLVMAddAttributeAtIndex(g->fn, ~0u, inl);
    void *thread = g->fn;
    void *fn = g->fn = LL->LLVMAddFunction(g->mod, sym, fty);
    void *noalias = enum_attr(g, "noalias");
    for (unsigned i = 1; noalias && i <= 4; i++) LL->LLVMAddAttributeAtIndex(fn, i, noalias);
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

/* the function sym + suffix of k, compiled or loaded from the cache, or 0 */
static uint64_t lookup(const struct llvm_api *L, const char *sym, const char *suffix)
{
    char name[96];
    char pfx = L->LLVMOrcLLJITGetGlobalPrefix(L->jit);
    uint64_t addr = 0;
    snprintf(name, sizeof name, "%s%s%s", pfx ? (char[]){ pfx, 0 } : "", sym, suffix);
    void *err = L->LLVMOrcLLJITLookup(L->jit, &addr, name);
    if (err) {
        L->LLVMDisposeErrorMessage(L->LLVMGetErrorMessage(err));
        return 0;
    }
    return addr;
}

/* k's round function (sym_round; none for kernels with warp rendezvous),
 * the warp's (sym_warp, with sym_warp_ubc) and the thread's with entries
 * (sym_tail) */
static void round_of(const struct llvm_api *L, struct jit_kernel *k, const char *sym)
{
    k->round = NULL;
    k->warp = NULL;
    k->tail = NULL;
    if (!k->nwstops) k->round = (jit_round_fn)(uintptr_t)lookup(L, sym, "_round");
    k->tail = (jit_fn)(uintptr_t)lookup(L, sym, "_tail");
    k->wround = NULL;
    k->ubc = k->tail ? (jit_ubc_fn)(uintptr_t)lookup(L, sym, "_warp_ubc") : NULL;
    if (!k->ubc) return; /* the hand-overs of the warp's function need it */
    k->warp = (jit_warp_fn)(uintptr_t)lookup(L, sym, "_warp"); /* none where the round inlines it */
    if (!k->nwstops) k->wround = (jit_wround_fn)(uintptr_t)lookup(L, sym, "_wround");
    if (!k->warp && !k->wround) k->ubc = NULL;
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
    /* LLJIT's data layout and triple (the cache's key holds both), for the
     * passes' cost model and the code generator */
    L->LLVMSetDataLayout(g->mod, L->LLVMOrcLLJITGetDataLayoutStr(L->jit));
    L->LLVMSetTarget(g->mod, L->LLVMOrcLLJITGetTripleString(L->jit));
    g->b = L->LLVMCreateBuilderInContext(g->ctx);
    char xsym[80];
    int bad = prepare(g);
    if (!bad) {
        thread_fn(g, sym, 0);
        if (!g->nwstops) { /* jit_warp.c runs the others without it */
            snprintf(xsym, sizeof xsym, "%s_round", sym);
            build_round(g, xsym);
        }
        /* the warp's function and the thread's with entries: not for
         * kernels with many entries, whose compile time they multiply
         * (a CUB radix-sort histogram kernel of 620 instructions and
         * 153 entries: 70 s instead of 2.7 s); those run thread by thread */
        if (g->nentries <= JIT_VEC_MAX_ENTRIES && !g->light) {
            snprintf(xsym, sizeof xsym, "%s_tail", sym);
            thread_fn(g, xsym, 1);
            snprintf(xsym, sizeof xsym, "%s_warp", sym);
            jit_build_vec(g, xsym);
            if (!g->nwstops) { /* jit_warp.c runs the others */
                snprintf(xsym, sizeof xsym, "%s_wround", sym);
                jit_build_wround(g, xsym);
            }
        }
    }
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
    /* the light pipeline: simplifications whose time grows with the size.
     * default<O2> with the target machine that generates the code: without
     * it the passes weigh each choice by LLVM's generic costs, and the
     * scalar tests of the halves' end lanes (jit_vec.c's halves_ok) came
     * out as 8-lane shuffles and compares (docs/ptx-jit.md, "Figures: the
     * optimiser with the target's costs") */
    if (g->light) err = L->LLVMRunPasses(g->mod, "function(early-cse<memssa>,instcombine,simplifycfg)", NULL, opts);
    else err = L->LLVMRunPasses(g->mod, "default<O2>", jitc_target(L), opts);
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
    free(g->gidof); free(g->entryof); free(g->rjoin); free(g->relse); free(g->rin); free(g->fraw);
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
