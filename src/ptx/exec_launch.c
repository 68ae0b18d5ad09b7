/* SPDX-License-Identifier: Apache-2.0 */
/* Launches: the blocks of a grid spread over host threads (an atomic
 * counter hands out block indices in order), each host thread running one
 * block at a time, its warps in turn (exec.c); the layout of a kernel's
 * registers, .local and .param frames; special registers and constants. */
#include "jit.h"

#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

static atomic_ullong total_ins;
uint64_t ptx_instructions(void) { return atomic_load(&total_ins); }

/* ---- blocks ------------------------------------------------------------------ */
static uint64_t sreg(const struct blk *b, const struct warp *w, int l, int64_t which)
{
    const struct plan *P = b->P;
    const struct ptx_launch *Lp = P->l;
    unsigned tid = (unsigned)(w->id * 32 + l);
    if (which >= S_ENVREG0 && which < S_ENVREG0 + 32)
        return Lp->envreg[which - S_ENVREG0];
    switch (which) {
    case S_TID_X: case S_TID_Y: case S_TID_Z: return ex_tid_axis(Lp->block, tid, (int)(which - S_TID_X));
    case S_NTID_X: return Lp->block[0];
    case S_NTID_Y: return Lp->block[1];
    case S_NTID_Z: return Lp->block[2];
    case S_CTAID_X: return b->ctaid[0];
    case S_CTAID_Y: return b->ctaid[1];
    case S_CTAID_Z: return b->ctaid[2];
    case S_NCTAID_X: return Lp->grid[0];
    case S_NCTAID_Y: return Lp->grid[1];
    case S_NCTAID_Z: return Lp->grid[2];
    case S_CLUSTERID_X: case S_CLUSTERID_Y: case S_CLUSTERID_Z:
        return b->ctaid[which - S_CLUSTERID_X] / P->cdim[which - S_CLUSTERID_X];
    case S_NCLUSTERID_X: case S_NCLUSTERID_Y: case S_NCLUSTERID_Z:
        return Lp->grid[which - S_NCLUSTERID_X] / P->cdim[which - S_NCLUSTERID_X];
    case S_CLUSTER_CTAID_X: case S_CLUSTER_CTAID_Y: case S_CLUSTER_CTAID_Z:
        return b->ctaid[which - S_CLUSTER_CTAID_X] % P->cdim[which - S_CLUSTER_CTAID_X];
    case S_CLUSTER_NCTAID_X: case S_CLUSTER_NCTAID_Y: case S_CLUSTER_NCTAID_Z:
        return P->cdim[which - S_CLUSTER_NCTAID_X];
    case S_CLUSTER_CTARANK: return b->crank;
    case S_CLUSTER_NCTARANK: return P->csize;
    case S_IS_EXPLICIT_CLUSTER: return Lp->explicit_cluster != 0;
    case S_LANEID: return (uint64_t)l;
    case S_WARPID: return (uint64_t)w->id;
    case S_NWARPID: return P->nwarps;
    case S_SMID: return (uint64_t)(b->ctaid[0] % (Lp->smcount ? Lp->smcount : 1));
    case S_NSMID: return Lp->smcount ? Lp->smcount : 1;
    case S_GRIDID: return 1;
    case S_LANEMASK_EQ: return 1u << l;
    case S_LANEMASK_LE: return (uint32_t)((2ull << l) - 1);
    case S_LANEMASK_LT: return (1u << l) - 1;
    case S_LANEMASK_GE: return ~((1u << l) - 1);
    case S_LANEMASK_GT: return (uint32_t)~((2ull << l) - 1);
    case S_DYN_SMEM: return Lp->dyn_shared;
    case S_ZERO: return 0;
    default: return P->shsize; /* %total_smem_size, %aggr_smem_size */
    }
}

/* constant slots: special registers of the block (sregs_only), or all */
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
                for (int l = 0; l < 32; l++) S[l] = sreg(b, w, l, c->val);
                continue;
            }
            if (sregs_only) continue;
            uint64_t v;
            switch (c->kind) {
            case K_GLOBAL: v = Lp->gaddr && (c->val & 0xffffff) < M->nglobals ? Lp->gaddr[c->val & 0xffffff] + (uint64_t)(c->val >> 24) : 0; break;
            case K_SHARED: v = ir_shared_value(M, P->entry, c->val); break; /* the entry's layout */
            case K_LOCAL: v = P->localbase[f] + (uint64_t)c->val; break;
            case K_FPARAM: v = P->fparambase[f] + (uint64_t)c->val; break;
            case K_FUNC: v = ir_faddr((int)c->val); break;
            default: v = (uint64_t)c->val; break; /* K_IMM, K_PARAM */
            }
            for (int l = 0; l < 32; l++) S[l] = v;
        }
    }
}

/* block k: rank k % csize of cluster k / csize (clusters and the ranks in
 * them x fastest, as the block indices of a grid) */
static void block_begin(struct blk *b, uint64_t k)
{
    struct plan *P = b->P;
    const struct ptx_launch *Lp = P->l;
    const unsigned *cd = P->cdim;
    uint64_t c = k / P->csize;
    unsigned r = (unsigned)(k % P->csize), ncx = Lp->grid[0] / cd[0], ncy = Lp->grid[1] / cd[1];
    b->ctaid[0] = (unsigned)(c % ncx) * cd[0] + r % cd[0];
    b->ctaid[1] = (unsigned)(c / ncx % ncy) * cd[1] + r / cd[0] % cd[1];
    b->ctaid[2] = (unsigned)(c / ((uint64_t)ncx * ncy)) * cd[2] + r / (cd[0] * cd[1]);
    b->crank = r;
    b->cb_arrived = b->cb_phase = 0;
    b->cwait = 0;
    memset(b->cphase, 0, sizeof *b->cphase * P->nthreads);
    memset(b->lasterr, 0, sizeof *b->lasterr * P->nthreads);
    memset(b->shared, 0, P->shsize);
    memset(b->bars, 0, sizeof b->bars);
    for (int i = 0; i < NBARS; i++) b->bars[i].rand = 1;
    int start = P->m->funcs[P->entry].start;
    b->alive = 0;
    for (unsigned i = 0; i < P->nwarps; i++) {
        struct warp *w = &b->warps[i];
        unsigned left = P->nthreads - i * 32;
        w->live = left >= 32 ? 0xffffffffu : (1u << left) - 1;
        w->wait = w->barw = w->cc = 0;
        w->counted = -1;
        for (int l = 0; l < 32; l++) { w->lpc[l] = start; w->depth[l] = 0; }
        ex_reschedule(w);
        fill_consts(b, w, 1);
        b->alive |= 1u << i;
    }
    if (b->sp)
        for (unsigned t = 0; t < P->nthreads; t++) b->sp[t] = P->lstatic;
}

/* a turn of each warp of b that can run: 1 while the block lives, 0 when
 * it is done or failed */
static int block_turn(struct blk *b)
{
    struct plan *P = b->P;
    int ran = 0;
    for (unsigned i = 0; i < P->nwarps; i++) {
        struct warp *w = &b->warps[i];
        if (!w->active) continue;
        ran = 1;
        if (ex_warp_run(b, w) == W_ERR) return 0;
    }
    if (!b->alive) return 0;
    if (!ran) {
        ex_deadlock(b);
        return 0;
    }
    if (b->icount - b->icount_seen > SLICE && ex_check_limits(b, &b->warps[0], NULL)) return 0;
    return 1;
}

static void run_block(struct blk *b, uint64_t lin)
{
    if (b->P->jit) { /* the JIT starts the block itself, or with block_begin */
        (b->P->jit->nwstops ? jit_warp_block : jit_block)(b, lin, block_begin);
        return;
    }
    block_begin(b, lin);
    while (block_turn(b)) {}
}

/* A round of a cluster's blocks (n of them from bs): a turn of each that
 * lives. 1 while one lives. A round in which every thread that ran only
 * waited at barrier.cluster.wait is a deadlock: the threads it waits for
 * wait elsewhere (a block barrier) and never arrive. */
static int cluster_round(struct blk *bs, unsigned n)
{
    uint64_t ran = 0, waited = 0;
    int live = 0;
    for (unsigned r = 0; r < n; r++) {
        struct blk *b = &bs[r];
        if (!b->alive || b->st != PTX_OK) continue;
        uint64_t i0 = b->icount, w0 = b->cwait;
        if (block_turn(b)) live = 1;
        if (b->st != PTX_OK) return 0;
        ran += b->icount - i0;
        waited += b->cwait - w0;
    }
    if (live && ran && ran == waited) {
        ex_fail(&bs[0], PTX_E_DEADLOCK, "deadlock: the threads of the cluster of block (%u, %u, %u) wait at "
                "barrier.cluster.wait for threads of the cluster that never arrive", bs[0].ctaid[0], bs[0].ctaid[1],
                bs[0].ctaid[2]);
        return 0;
    }
    return live;
}

/* a worker: clusters handed out in order, each run by this thread, the
 * blocks of a cluster (csize of them in bs) resident together */
static void *worker(void *arg)
{
    struct blk *bs = arg;
    struct plan *P = bs[0].P;
    for (unsigned r = 0; r < P->csize; r++) {
        bs[r].cbase = bs;
        for (unsigned i = 0; i < P->nwarps; i++) fill_consts(&bs[r], &bs[r].warps[i], 0);
    }
    uint64_t c = 0, end = 0;
    while (!atomic_load_explicit(&P->stop, memory_order_relaxed)) {
        if (c == end) { /* a few clusters at a time, not the shared counter's
                           cache line moving between the threads at every block */
            c = atomic_fetch_add(&P->next_block, P->grab);
            end = c + P->grab;
        }
        if (c >= P->nclusters) break;
        uint64_t cl = c++;
        if (P->csize == 1) {
            run_block(bs, cl);
            if (bs->st != PTX_OK) break;
            continue;
        }
        for (unsigned r = 0; r < P->csize; r++) block_begin(&bs[r], cl * P->csize + r);
        while (cluster_round(bs, P->csize)) {}
        int failed = 0;
        for (unsigned r = 0; r < P->csize; r++) failed |= bs[r].st != PTX_OK;
        if (failed) break;
    }
    for (unsigned r = 0; r < P->csize; r++) atomic_fetch_add(&total_ins, bs[r].icount);
    return NULL;
}

/* A cooperative launch: every block resident at once, as the grid-wide
 * barrier needs. The clusters are dealt to the host threads in turn (every
 * nth from first; a cluster's blocks stay on one thread); each thread
 * gives each of its blocks a turn (a slice of each warp) in a round, so a
 * block spinning at the barrier lets the others reach it. */
struct coop { struct blk *bs; uint64_t first, step; };

#define COOP_BLOCKS(c, P, k) \
    for (uint64_t cl_ = (c)->first; cl_ < (P)->nclusters; cl_ += (c)->step) \
        for (uint64_t k = cl_ * (P)->csize; k < (cl_ + 1) * (P)->csize; k++)

static void *coop_worker(void *arg)
{
    struct coop *c = arg;
    struct plan *P = c->bs[0].P;
    uint64_t n = 0;
    COOP_BLOCKS(c, P, k) {
        struct blk *b = &c->bs[k];
        b->cbase = &c->bs[k - k % P->csize];
        for (unsigned i = 0; i < P->nwarps; i++) fill_consts(b, &b->warps[i], 0);
        block_begin(b, k);
        n++;
    }
    for (uint64_t live = n; live && !atomic_load_explicit(&P->stop, memory_order_relaxed);) {
        live = 0;
        COOP_BLOCKS(c, P, k) {
            struct blk *b = &c->bs[k];
            if (!b->alive || b->st != PTX_OK) continue;
            if (block_turn(b)) live++;
            if (b->st != PTX_OK) { live = 0; goto done; }
        }
    }
done:
    COOP_BLOCKS(c, P, k) atomic_fetch_add(&total_ins, c->bs[k].icount);
    return NULL;
}

static void blk_free(struct blk *b)
{
    free(b->shared);
    free(b->local);
    free(b->fparam);
    free(b->warps);
    free(b->regs);
    free(b->frames);
    free(b->sp);
    free(b->scratch);
    free(b->cphase);
    free(b->lasterr);
    free(b->jthr);
    free(b->jgc);
    free(b->jtid);
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
    b->frames = calloc((size_t)P->nthreads * (size_t)(P->maxdepth ? P->maxdepth : 1), sizeof *b->frames);
    b->sp = P->reentrant ? calloc(P->nthreads, sizeof *b->sp) : NULL;
    b->scratch = P->reentrant ? calloc(1, P->scratch + 1) : NULL;
    b->cphase = calloc(P->nthreads, sizeof *b->cphase);
    b->lasterr = calloc(P->nthreads, sizeof *b->lasterr);
    if (!b->shared || !b->local || !b->fparam || !b->warps || !b->regs || !b->frames || !b->cphase || !b->lasterr ||
        (P->reentrant && (!b->sp || !b->scratch))) {
        blk_free(b);
        return -1;
    }
    for (unsigned i = 0; i < P->nwarps; i++) {
        b->warps[i].R0 = b->regs + (size_t)i * (size_t)P->nslots * 32;
        b->warps[i].id = (int)i;
    }
    return 0;
}

/* functions reachable from f get frames; the depth of calls below f */
static int layout(struct plan *P, int f)
{
    const struct ptx_module *M = P->m;
    const struct ir_func *fn = &M->funcs[f];
    if (P->slotbase[f] >= 0) return 0; /* laid out (reentrant: its depth is bounded elsewhere) */
    P->slotbase[f] = P->nslots;
    P->nslots += fn->nslots;
    P->localbase[f] = P->lstatic;
    if (!fn->reentrant) P->lstatic += (fn->local_bytes + 15) & ~15u;
    else {
        P->reentrant = 1;
        if (fn->fparam_bytes > P->scratch) P->scratch = fn->fparam_bytes;
    }
    P->fparambase[f] = P->fstride;
    P->fstride += fn->builtin ? 64 : (fn->fparam_bytes + 15) & ~15u;
    if (fn->builtin) return 0;
    int depth = 0;
    for (int k = fn->start; k < fn->end; k++) {
        if (M->ins[k].op != OP_CALL) continue;
        const struct ir_call *c = &M->calls[M->ins[k].imm];
        for (int g = c->callee >= 0 ? c->callee : 0; g < M->nfuncs; g++) {
            if (c->callee < 0 && (!M->funcs[g].addr_taken || M->funcs[g].is_entry)) continue;
            int d = 1 + layout(P, g);
            if (d > depth) depth = d;
            if (c->callee >= 0) break;
        }
    }
    return depth;
}

/* the handler of every instruction, made once per module */
static const ex_fn *handlers(const struct ptx_module *m)
{
    static pthread_mutex_t hlock = PTHREAD_MUTEX_INITIALIZER;
    struct ptx_module *mm = (struct ptx_module *)(uintptr_t)m; /* a cache, logically const */
    ex_fn *h = (ex_fn *)atomic_load_explicit(&mm->xcache, memory_order_acquire);
    if (h) return h;
    pthread_mutex_lock(&hlock);
    h = (ex_fn *)atomic_load_explicit(&mm->xcache, memory_order_acquire);
    if (!h && (h = calloc((size_t)m->nins + 1, sizeof *h))) {
        for (int i = 0; i < m->nins; i++) {
            const struct ir_ins *in = &m->ins[i];
            ex_fn f = ex_int_select(in);
            if (!f) f = ex_arith_select(in);
            if (!f) f = ex_mem_select(in);
            if (!f) f = ex_warp_select(in);
            if (!f) f = ex_mma_select(m, in);
            if (!f) f = ex_cluster_select(in);
            if (!f) f = ex_tensor_select(in);
            h[i] = f;
        }
        atomic_store_explicit(&mm->xcache, (void *)h, memory_order_release);
    }
    pthread_mutex_unlock(&hlock);
    return h;
}

/* the work the grid of P queued (dynamic parallelism, devrt.c), in order:
 * child grids (each with its own children after it), device-side copies
 * and sets. The first failure ends it, the message saying which child. */
static enum ptx_status run_children(struct plan *P)
{
    const struct ptx_launch *l = P->l;
    const struct ptx_module *m = P->m;
    struct ex_work wk;
    enum ptx_status st = PTX_OK;
    while (st == PTX_OK && ex_devrt_next(P, &wk)) {
        if (wk.kind != EW_LAUNCH) { /* checked when queued; the memory may have gone since */
            uint64_t lo, hi, lo2, hi2, dspan = ex_span2d(wk.n, wk.dpitch, wk.height);
            uint64_t sspan = wk.kind == EW_COPY ? ex_span2d(wk.n, wk.spitch, wk.height) : 0;
            int ok = l->host.lookup && l->host.lookup(l->host.cookie, wk.dst, &lo, &hi) == 0 && dspan && wk.dst + dspan <= hi &&
                     (wk.kind == EW_SET || (sspan && l->host.lookup(l->host.cookie, wk.src, &lo2, &hi2) == 0 &&
                                            wk.src + sspan <= hi2));
            if (!ok) {
                st = PTX_E_ADDRESS;
                snprintf(P->err, P->errlen, "a device-side %s of %llu bytes queued by kernel %s: its memory was freed before it ran",
                         wk.kind == EW_SET ? "cudaMemsetAsync" : "cudaMemcpyAsync", (unsigned long long)dspan, m->funcs[P->entry].name);
                break;
            }
            for (uint64_t r = 0; r < wk.height; r++) {
                unsigned char *dp = (unsigned char *)(uintptr_t)(wk.dst + r * wk.dpitch);
                if (wk.kind == EW_SET) memset(dp, wk.val, (size_t)wk.n);
                else memmove(dp, (const void *)(uintptr_t)(wk.src + r * wk.spitch), (size_t)wk.n);
            }
            continue;
        }
        struct ptx_launch c = *l;
        memcpy(c.grid, wk.grid, sizeof c.grid);
        memcpy(c.block, wk.block, sizeof c.block);
        c.dyn_shared = wk.shmem;
        c.params = wk.params;
        c.param_bytes = wk.pbytes;
        c.cooperative = 0;
        c.explicit_cluster = ptx_entry_cluster(m, wk.entry, c.cluster);
        c.depth = l->depth + 1;
        c.devrt = P->dr;
        c.engine_report = NULL; /* the host launch's report is the parent grid's */
        if (P->deadline > 0) { /* the host launch's time limit covers its children */
            double left = P->deadline - ex_now();
            if (left <= 0) {
                free(wk.params);
                st = PTX_E_TIMEOUT;
                snprintf(P->err, P->errlen, "the host launch's time limit ran out before child grid %s (launched by %s) "
                         "could run", m->funcs[wk.entry].name, m->funcs[P->entry].name);
                break;
            }
            c.timeout_ms = left * 1000 < 1 ? 1 : (unsigned)(left * 1000);
        }
        char cerr[512];
        double t0 = ex_now();
        st = ptx_run(m, wk.entry, &c, cerr, sizeof cerr);
        if (l->host.child_ran)
            l->host.child_ran(l->host.cookie, m->funcs[wk.entry].name, c.grid, c.block, c.dyn_shared, c.depth,
                              (uint64_t)(t0 * 1e9), (uint64_t)(ex_now() * 1e9), (int)st);
        free(wk.params);
        if (st != PTX_OK) {
            if (strncmp(cerr, "in child grid ", 14) == 0) /* the innermost says it */
                snprintf(P->err, P->errlen, "%s", cerr);
            else
                snprintf(P->err, P->errlen, "in child grid %s (depth %u, launched by %s): %s", m->funcs[wk.entry].name,
                         c.depth, m->funcs[P->entry].name, cerr);
            if (l->fault && !l->fault->depth) { /* the innermost says where */
                l->fault->depth = c.depth;
                snprintf(l->fault->parent, sizeof l->fault->parent, "%s", m->funcs[P->entry].name);
            }
        }
    }
    return st;
}

enum ptx_status ptx_run(const struct ptx_module *m, int entry, const struct ptx_launch *l, char *err, size_t errlen)
{
    char dummy[8];
    if (!err || !errlen) { err = dummy; errlen = sizeof dummy; }
    err[0] = 0;
    if (l->fault) {
        memset(l->fault, 0, sizeof *l->fault);
        l->fault->warp = l->fault->lane = -1;
    }
    if (ptx_entry_check(m, entry, err, errlen)) {
        if (l->fault) {
            l->fault->status = PTX_E_UNSUPPORTED;
            snprintf(l->fault->kernel, sizeof l->fault->kernel, "%s", m->funcs[entry].name);
        }
        return PTX_E_UNSUPPORTED;
    }
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
    P.h = handlers(m);
    enum ptx_status st = PTX_OK;
    if (!P.slotbase || !P.localbase || !P.fparambase || !P.h) { st = PTX_E_NOMEM; snprintf(err, errlen, "out of memory"); goto out; }
    for (int i = 0; i < m->nfuncs; i++) P.slotbase[i] = -1;
    P.maxdepth = layout(&P, entry);
    if (P.reentrant) P.maxdepth = DEPTH_REENTRANT;
    P.lstride = P.lstatic + (P.reentrant ? (l->stack_bytes ? l->stack_bytes : STACK_DEFAULT) : 0);
    P.static_shared = ir_shared_dynbase(&m->funcs[entry]); /* its own variables (shared.c) */
    P.shsize = P.static_shared + l->dyn_shared;
    P.nthreads = l->block[0] * l->block[1] * l->block[2];
    P.nwarps = (P.nthreads + 31) / 32;
    P.nblocks = (uint64_t)l->grid[0] * l->grid[1] * l->grid[2];
    for (int k = 0; k < 3; k++) P.cdim[k] = l->cluster[k] ? l->cluster[k] : 1;
    P.csize = P.cdim[0] * P.cdim[1] * P.cdim[2];
    for (int k = 0; k < 3; k++)
        if (l->cluster[k] > 16 || P.csize > 16 || l->grid[k] % P.cdim[k]) {
            st = PTX_E_TRAP;
            snprintf(err, errlen, "a cluster of %u x %u x %u blocks: at most 16 that divide the grid of %u x %u x %u",
                     P.cdim[0], P.cdim[1], P.cdim[2], l->grid[0], l->grid[1], l->grid[2]);
            goto out;
        }
    P.nclusters = P.nblocks / P.csize;
    P.jit = jit_plan(&P);
    if (l->timeout_ms) P.deadline = ex_now() + l->timeout_ms / 1000.0;
    if (l->param_bytes < m->funcs[entry].param_bytes) { st = PTX_E_TRAP; snprintf(err, errlen, "parameter buffer too small"); goto out; }
    if (P.nwarps > 32 || !P.nthreads) { st = PTX_E_TRAP; snprintf(err, errlen, "%u threads per block: 1 to 1024 can run", P.nthreads); goto out; }
    long ncpu = l->nthreads > 0 ? l->nthreads : sysconf(_SC_NPROCESSORS_ONLN);
    if (ncpu < 1) ncpu = 1;
    if (ncpu > 64) ncpu = 64;
    if ((uint64_t)ncpu > P.nclusters) ncpu = (long)P.nclusters;
    P.grab = P.nclusters / ((uint64_t)ncpu * 64); /* the last takes at most 1/64 of a thread's share */
    P.grab = P.grab < 1 ? 1 : P.grab > 16 ? 16 : P.grab;
    if (l->cooperative && P.nblocks > COOP_MAX_BLOCKS) {
        st = PTX_E_TRAP;
        snprintf(err, errlen, "a cooperative grid of %llu blocks: at most %d can be resident here",
                 (unsigned long long)P.nblocks, COOP_MAX_BLOCKS);
        goto out;
    }
    /* a cooperative launch keeps every block; others one cluster per thread */
    size_t nblk = l->cooperative ? (size_t)P.nblocks : (size_t)ncpu * P.csize;
    struct blk *bs = calloc(nblk, sizeof *bs);
    pthread_t th[64];
    if (!bs) { st = PTX_E_NOMEM; snprintf(err, errlen, "out of memory"); goto out; }
    size_t nb = 0;
    for (; nb < nblk; nb++)
        if (blk_init(&bs[nb], &P)) break;
    nb -= nb % P.csize; /* whole clusters */
    if (nb == 0 || (l->cooperative && nb < nblk)) {
        for (size_t i = 0; i < nb; i++) blk_free(&bs[i]);
        free(bs);
        st = PTX_E_NOMEM;
        snprintf(err, errlen, "out of memory for %zu blocks of %u threads", nblk, P.nthreads);
        goto out;
    }
    int nth = 0;
    if (l->cooperative) {
        struct coop cs[64];
        for (long i = 0; i < ncpu; i++) cs[i] = (struct coop){ bs, (uint64_t)i, (uint64_t)ncpu };
        for (long i = 1; i < ncpu; i++, nth++)
            if (pthread_create(&th[i - 1], NULL, coop_worker, &cs[i])) break;
        if (nth < ncpu - 1) { /* fewer threads: the first one also takes the blocks of those not started */
            for (long i = nth + 1; i < ncpu; i++) cs[i].first = P.nclusters;
            atomic_store(&P.stop, 1); /* not resident at once: the launch cannot run as asked */
            st = PTX_E_NOMEM;
            snprintf(err, errlen, "could not start the host threads of a cooperative launch");
        } else {
            coop_worker(&cs[0]);
        }
        for (int i = 0; i < nth; i++) pthread_join(th[i], NULL);
    } else {
        for (size_t i = P.csize; i < nb; i += P.csize, nth++)
            if (pthread_create(&th[nth], NULL, worker, &bs[i])) break;
        worker(&bs[0]);
        for (int i = 0; i < nth; i++) pthread_join(th[i], NULL);
    }
    uint64_t vruns = 0, vlanes = 0, lcalls = 0;
    for (size_t i = 0; i < nb; i++) {
        vruns += bs[i].jvruns;
        vlanes += bs[i].jvlanes;
        lcalls += bs[i].jlcalls;
        blk_free(&bs[i]);
    }
    free(bs);
    if (st == PTX_OK)
        st = P.status;
    if (st == PTX_OK && P.gq)
        st = run_children(&P);
    if (P.jit && l->engine_report) {
        l->engine_report->vector = P.jvec;
        l->engine_report->vec_runs = vruns;
        l->engine_report->vec_lanes = vlanes;
        l->engine_report->lane_calls = lcalls;
    }
out:
    ex_devrt_end(&P);
    if (st != PTX_OK && l->fault && !l->fault->status) {
        l->fault->status = st;
        snprintf(l->fault->kernel, sizeof l->fault->kernel, "%s", m->funcs[entry].name);
    }
    free(P.slotbase);
    free(P.localbase);
    free(P.fparambase);
    pthread_mutex_destroy(&P.lock);
    return st;
}
