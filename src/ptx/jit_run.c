/* SPDX-License-Identifier: Apache-2.0 */
/* The PTX JIT at run time: which engine runs a launch (the launch's
 * choice, the kernel's fitness, LLVM's presence), the compiled kernels of a
 * module (compiled once, at the first launch that wants them; no cache on
 * disk yet), a block's threads run through the compiled code round by
 * round between barriers (the model: jit.h), and the helpers the code
 * calls for what it does not do inline. */
#include "jit.h"
#include "jit_cache.h"

#include <stdio.h>
#include <stdlib.h>

static const char *const engine_names[] = {
#define ENGINE(id, name, what) name,
#include "engines.def"
#undef ENGINE
};

const char *ptx_engine_name(int e)
{
    return e >= 0 && e < PTX_ENGINE_COUNT ? engine_names[e] : "?";
}

int ptx_engine_find(const char *name)
{
    for (int e = 0; name && e < PTX_ENGINE_COUNT; e++)
        if (!strcmp(name, engine_names[e])) return e;
    return -1;
}

/* ---- the helpers -------------------------------------------------------------- */
static unsigned char *h_mem(struct jit_ctx *c, const struct ir_ins *in, uint64_t a, uint32_t n, int32_t gid)
{
    struct blk *b = c->b;
    if (a % n) {
        ex_mem_fault(b, c->w, c->lane, in, a, n, 1);
        return NULL;
    }
    if (in->space == SP_GLOBAL || in->space == SP_GENERIC) {
        const struct ptx_host *h = &b->P->l->host;
        uint64_t lo, hi;
        if (h->lookup && !h->lookup(h->cookie, a, &lo, &hi) && a + n <= hi && a + n >= a && lo <= a) {
            if (gid >= 0) c->gc[gid] = (struct jit_gc){ lo, hi - lo };
            return (unsigned char *)(uintptr_t)a;
        }
        if (in->space == SP_GLOBAL) {
            ex_mem_fault(b, c->w, c->lane, in, a, n, 0);
            return NULL;
        }
    }
    unsigned char *p = ex_addr(b, in->space, a, n, c->tid);
    if (!p) ex_mem_fault(b, c->w, c->lane, in, a, n, 0);
    return p;
}

static int32_t h_poll(struct jit_ctx *c, uint64_t n)
{
    struct blk *b = c->b;
    b->icount += n + c->icount; /* with what the round's earlier threads ran */
    c->icount = 0;
    if (b->icount - b->icount_seen > SLICE && ex_check_limits(b, c->w, NULL)) return 1;
    return 0;
}

static int32_t h_exec(struct jit_ctx *c, const struct ir_ins *in, ex_fn f)
{
    c->b->jlcalls++;
    return f(c->b, c->w, in, c->xmask ? c->xmask : 1u << c->lane, c->Rw) ? -1 : 0;
}

static void h_trap(struct jit_ctx *c, const struct ir_ins *in)
{
    ex_fail_at(c->b, c->w, c->lane, in, PTX_E_TRAP, "trap");
}

static const struct jit_helpers helpers = { h_mem, h_poll, h_exec, h_trap };

/* ---- the compiled kernels of a module ------------------------------------------- */
struct jit_cache {
    struct ir_owned owned;       /* first: module.c frees the cache through it */
    pthread_mutex_t lock;
    int n;
    struct jit_kernel k[];       /* by function index */
};

static void cache_free(void *self)
{
    struct jit_cache *c = self;
    for (int i = 0; i < c->n; i++)
        if (c->k[i].state) jit_release(&c->k[i]);
    pthread_mutex_destroy(&c->lock);
    free(c);
}

static struct jit_cache *cache_of(const struct ptx_module *m)
{
    static pthread_mutex_t clock_ = PTHREAD_MUTEX_INITIALIZER;
    struct ptx_module *mm = (struct ptx_module *)(uintptr_t)m; /* a cache, logically const */
    struct jit_cache *c = atomic_load_explicit(&mm->jcache, memory_order_acquire);
    if (c) return c;
    pthread_mutex_lock(&clock_);
    c = atomic_load_explicit(&mm->jcache, memory_order_acquire);
    if (!c && (c = calloc(1, sizeof *c + sizeof c->k[0] * (size_t)(m->nfuncs + 1)))) {
        pthread_mutex_init(&c->lock, NULL);
        c->owned.free = cache_free;
        c->n = m->nfuncs;
        atomic_store_explicit(&mm->jcache, (void *)c, memory_order_release);
    }
    pthread_mutex_unlock(&clock_);
    return c;
}


const struct jit_kernel *jit_plan(struct plan *P)
{
    const struct ptx_launch *l = P->l;
    struct ptx_engine_report *r = l->engine_report;
    if (r) {
        memset(r, 0, sizeof *r);
        r->engine = PTX_ENGINE_INTERP;
    }
    if (l->engine != PTX_ENGINE_JIT && l->engine != PTX_ENGINE_AUTO) return NULL;
    const char *why = NULL;
    if (l->cooperative) why = "cooperative launches run on the interpreter";
    else if (P->csize > 1) why = "launches with clusters run on the interpreter";
    if (why) {
        if (r) snprintf(r->why, sizeof r->why, "%s", why);
        return NULL;
    }
    struct jit_cache *c = cache_of(P->m);
    if (!c) {
        if (r) snprintf(r->why, sizeof r->why, "out of memory");
        return NULL;
    }
    struct jit_kernel *k = &c->k[P->entry];
    int now = 0;
    pthread_mutex_lock(&c->lock);
    if (!k->state) {
        jit_compile(P->m, P->entry, P->h, &helpers, k);
        now = 1;
    }
    pthread_mutex_unlock(&c->lock);
    if (k->state != 1) {
        if (r) {
            snprintf(r->why, sizeof r->why, "%s", k->why);
            r->compiled = now;
        }
        return NULL;
    }
    const char *vec = getenv("TDTRACE_EMU_JIT_VECTOR");
    P->jvec = (k->warp || k->wround) && !(vec && !strcmp(vec, "0")); /* TDTRACE_EMU_JIT_VECTOR=0: the threads one by one */
    P->jred = 0;
    P->jonebar = 1;
    for (int i = 0, id = -1; i < k->nbars; i++) {
        if (k->barid[i] == JIT_WSTOP) continue;
        if (P->m->ins[k->barpc[i]].sub2 == BK_RED) P->jred = 1;
        if (id >= 0 && k->barid[i] != id) P->jonebar = 0;
        id = k->barid[i];
    }
    if (r) {
        r->engine = PTX_ENGINE_JIT;
        r->vec_round = P->jvec && k->wround && !k->nwstops;
        r->vec_inlined = r->vec_round && !k->warp;
        r->compiled = now;
        r->compile_ms = now ? k->compile_ms : 0;
        r->from_cache = now && k->from_cache;
        const struct ir_func *F = &P->m->funcs[P->entry];
        r->light = jit_light(F) ? F->end - F->start : 0;
        if (now) {
            struct jitc_stats s;
            jitc_stats(&s);
            r->code_bytes = s.code_bytes;
            jitc_note(r->note, sizeof r->note);
        }
    }
    return k;
}

/* ---- a block ----------------------------------------------------------------- */
/* threads wait at different barriers: the interpreter's account of it,
 * from the warps' state as the interpreter would hold it */
void jit_deadlock(struct blk *b, const int32_t *resume, const uint8_t *done)
{
    struct plan *P = b->P;
    const struct jit_kernel *k = P->jit;
    memset(b->bars, 0, sizeof b->bars);
    b->alive = 0;
    for (unsigned i = 0; i < P->nwarps; i++) {
        struct warp *w = &b->warps[i];
        w->live = w->wait = w->barw = 0;
        w->counted = -1;
    }
    for (unsigned t = 0; t < P->nthreads; t++) {
        struct warp *w = &b->warps[t / 32];
        int l = (int)(t % 32);
        if (done[t]) continue;
        w->live |= 1u << l;
        if (resume[t] <= 0) continue;
        w->wait |= 1u << l;
        w->lpc[l] = k->barpc[resume[t] - 1];
        if (k->barid[resume[t] - 1] == JIT_WSTOP) continue; /* a warp rendezvous */
        w->barw |= 1u << l;
        w->lbar[l] = k->barid[resume[t] - 1];
    }
    for (unsigned i = 0; i < P->nwarps; i++) {
        struct warp *w = &b->warps[i];
        if (!w->live) continue;
        b->alive |= 1u << i;
        int id = w->lbar[__builtin_ctz(w->live)], same = (w->barw & w->live) == w->live;
        for (uint32_t mm = w->live; mm && same; mm &= mm - 1)
            same = w->lbar[__builtin_ctz(mm)] == id;
        if (!same) continue;
        struct cbar *c = &b->bars[id];
        c->warps |= 1u << i;
        c->threads += 32;
        c->line = P->m->ins[w->lpc[__builtin_ctz(w->live)]].line;
        w->counted = id;
    }
    ex_deadlock(b);
}

/* every thread of the block that has not exited waits at one barrier
 * (waiting: the lanes by warp; resume: by thread, where each waits): those
 * at a bar.red get the reduction of the predicates of all those at one, as
 * the interpreter's bar_release writes it, before they resume */
void jit_bar_red(struct blk *b, const int32_t *resume, const uint32_t *waiting, size_t base)
{
    const struct plan *P = b->P;
    const struct jit_kernel *k = P->jit;
    const struct ir_ins *code = P->m->ins;
    uint64_t popc = 0, rand = 1, ror = 0;
    for (int pass = 0; pass < 2; pass++)
        for (unsigned i = 0; i < P->nwarps; i++) {
            uint64_t *R = b->warps[i].R0 + base;
            for (uint32_t mm = waiting[i]; mm; mm &= mm - 1) {
                int l = __builtin_ctz(mm);
                const struct ir_ins *in = &code[k->barpc[resume[i * 32 + (unsigned)l] - 1]];
                if (in->op != OP_BAR || in->sub2 != BK_RED) continue;
                if (!pass) {
                    uint64_t v = (R[(size_t)in->c * 32 + (size_t)l] & 1) ^ ((in->flags & F_ANEG) != 0);
                    popc += v;
                    rand &= v;
                    ror |= v;
                } else
                    R[(size_t)in->d * 32 + (size_t)l] = in->sub == RED_POPC ? popc : in->sub == RED_AND ? rand : ror;
            }
        }
}

/* a block's start when the code computes its special registers: the
 * interpreter's block_begin without the register file's refill */
void jit_begin_lite(struct blk *b, uint64_t lin)
{
    struct plan *P = b->P;
    const struct ptx_launch *l = P->l;
    b->ctaid[0] = (unsigned)(lin % l->grid[0]);
    b->ctaid[1] = (unsigned)(lin / l->grid[0] % l->grid[1]);
    b->ctaid[2] = (unsigned)(lin / ((uint64_t)l->grid[0] * l->grid[1]));
    memset(b->shared, 0, P->shsize);
    for (unsigned i = 0; i < P->nwarps; i++) {
        unsigned left = P->nthreads - i * 32;
        b->warps[i].live = b->warps[i].active = left >= 32 ? 0xffffffffu : (1u << left) - 1;
        b->warps[i].wait = b->warps[i].barw = 0;
    }
}

/* the context of block b's threads, with the allocation cache each global
 * access last found: kept from block to block of the launch on b, as the
 * interpreter keeps its cache (b->clo, b->chi); a lookup in the host's map
 * takes its lock and an allocation's count. -1 (the launch failed): no memory */
int jit_ctx_init(struct jit_ctx *c, struct blk *b)
{
    const struct plan *P = b->P;
    struct jit_gc *gc = b->jgc;
    if (!gc && !(gc = b->jgc = calloc((size_t)P->jit->ngc + 1, sizeof *gc))) {
        ex_fail(b, PTX_E_NOMEM, "out of memory");
        return -1;
    }
    if (!b->jtid) { /* the same for every block of the launch on b */
        if (!(b->jtid = malloc(sizeof *b->jtid * 3 * 32 * P->nwarps))) {
            ex_fail(b, PTX_E_NOMEM, "out of memory");
            return -1;
        }
        for (unsigned t = 0; t < 32 * P->nwarps; t++)
            for (int a = 0; a < 3; a++) jit_warp_tids(b, t / 32)[(unsigned)a * 32 + t % 32] = ex_tid_axis(P->l->block, t, a);
    }
    memset(c, 0, sizeof *c);
    c->gc = gc;
    c->shared = b->shared;
    c->shsize = P->shsize;
    c->lsize = P->lstride;
    c->params = P->l->params;
    c->pbytes = P->l->param_bytes;
    c->b = b;
    memcpy(c->ctaid, b->ctaid, sizeof c->ctaid);
    return 0;
}

/* lanes m of warp w (first thread t0) one by one through the thread's
 * function with entries from their resume points; an exit leaves *gone
 * and w's live mask. 0, or -1 when the launch failed */
static int lanes_one_by_one(struct blk *b, struct jit_ctx *c, struct warp *w, unsigned t0, uint32_t m,
                            int32_t *resume, uint32_t *gone)
{
    struct plan *P = b->P;
    const struct jit_kernel *k = P->jit;
    for (; m; m &= m - 1) {
        int l = __builtin_ctz(m);
        jit_ctx_thread(c, b, t0 + (unsigned)l);
        int32_t r = k->tail(c->Rw + l, c, resume[l]);
        b->icount += c->icount;
        c->icount = 0;
        if (r < 0 || b->st != PTX_OK) return -1;
        resume[l] = r;
        if (r == 0 || r > k->nbars) {
            *gone |= 1u << l;
            w->live &= ~(1u << l);
        }
    }
    return 0;
}

/* warp i of block b, whose lanes that have not exited are lv[i], through
 * the warp's function when they all stand at one point (at[i] >= 0; r:
 * what its call returned in the warps' round, or JIT_VEC_CALL: call it
 * here), else, and for the lanes it hands on, through the thread's
 * function with entries, one by one. 0, or -1 when the launch failed */
static int vec_warp(struct blk *b, struct jit_ctx *c, const struct jit_wthr *wt, unsigned i, int32_t *at, uint32_t *lv,
                    int32_t *res, int32_t r)
{
    const struct jit_kernel *k = b->P->jit;
    uint32_t live = lv[i];
    if (!live) return 0;
    struct warp *w = wt[i].w;
    c->w = w;
    c->Rw = wt[i].Rw;
    uint32_t one = live; /* the lanes to run one by one */
    if (at[i] >= 0) {
        if (r == JIT_VEC_CALL) {
            if (!k->warp) { /* the round inlines it for at[] 0 ... nbars only */
                ex_fail(b, PTX_E_TRAP, "internal error: warp %u at point %d, no warp's function for it", i, at[i]);
                return -1;
            }
            jit_ctx_thread(c, b, i * 32 + (unsigned)__builtin_ctz(live));
            r = k->warp(c->Rw, c, at[i], live);
            b->icount += c->icount;
            c->icount = 0;
            b->jvruns++;
        }
        if (r < 0 || b->st != PTX_OK) return -1;
        if (r == 0) {
            lv[i] = 0;
            w->live &= ~live;
            return 0;
        }
        at[i] = r;
        if (r <= k->nbars) one = 0;
        else {
            b->jvlanes += (unsigned)__builtin_popcount(live);
            jit_vec_handed(c, r, live, res);
            k->ubc(c->Rw, live);
        }
    }
    if (one) {
        uint32_t gone = 0;
        if (lanes_one_by_one(b, c, w, i * 32, one, res, &gone)) return -1;
        lv[i] = live &= ~gone;
        at[i] = live ? jit_one_point(res, live) : 0;
    }
    return 0;
}

/* block b with the warps as vectors (k->warp), in rounds from barrier to
 * barrier: each warp whose lanes that have not exited all stand at one
 * resume point runs through the warp's function, the warps in a row
 * through the compiled round over them (k->wround) where the kernel has
 * it; the lanes it hands on, and the lanes of a warp that stand at
 * different points, run through the thread's function with entries, one
 * by one (vec_warp). The state is the warp's: the lanes that have not
 * exited (lv) and where each waits (resume, by thread); a round costs a
 * few operations per warp, not per thread. 0, or -1 when the launch
 * failed */
static int vec_block(struct blk *b, struct jit_ctx *c, size_t base)
{
    struct plan *P = b->P;
    const struct jit_kernel *k = P->jit;
    const unsigned nw = P->nwarps;
    int32_t resume[1024];
    uint32_t lv[32];                 /* by warp: its lanes that have not exited */
    int32_t at[32];                  /* by warp: the point all its lanes left stand at, or -1
                                        (then resume has each lane's) */
    struct jit_wthr wt[32];
    for (unsigned i = 0; i < nw; i++) {
        lv[i] = jit_lanes(P->nthreads, i);
        at[i] = 0;
        wt[i] = (struct jit_wthr){ b->warps[i].R0 + base, &b->warps[i], jit_warp_tids(b, i) };
    }
    for (;;) {
        for (unsigned i = 0; i < nw; i++) {
            int32_t r = JIT_VEC_CALL;
            if (k->wround) { /* the warps from i on, up to the first the runner must take */
                int32_t rr = 0;
                uint32_t runs = 0;
                int32_t j = k->wround(c, wt, at, lv, i, nw, &rr, &runs);
                b->icount += c->icount;
                c->icount = 0;
                b->jvruns += runs;
                if (b->st != PTX_OK) return -1;
                if (j < 0 || (unsigned)j >= nw) break;
                i = (unsigned)j;
                if (at[i] >= 0) r = rr; /* it ran: what it returned */
            }
            if (vec_warp(b, c, wt, i, at, lv, resume + i * 32, r)) return -1;
        }
        /* where each warp's lanes wait: one barrier, or the block deadlocks */
        unsigned waiting = 0;
        int bar = -1;
        if (P->jonebar) { /* one barrier, whichever point */
            for (unsigned i = 0; i < nw; i++) waiting += lv[i] != 0;
        } else {
            for (unsigned i = 0; i < nw; i++) {
                uint32_t live = lv[i];
                if (!live) continue;
                waiting++;
                const int32_t *res = resume + i * 32;
                int32_t r = at[i] >= 0 ? at[i] : res[__builtin_ctz(live)];
                for (uint32_t mm = at[i] >= 0 ? 0 : live; mm; mm &= mm - 1)
                    if (k->barid[res[__builtin_ctz(mm)] - 1] != k->barid[r - 1]) bar = -2;
                if (bar == -1) bar = k->barid[r - 1];
                else if (bar != k->barid[r - 1]) bar = -2;
            }
        }
        if (!waiting) return 0;
        if (bar == -2) {
            uint8_t done[1024];
            for (unsigned i = 0; i < nw; i++)
                for (unsigned l = 0; l < 32 && i * 32 + l < P->nthreads; l++) {
                    done[i * 32 + l] = !(lv[i] >> l & 1);
                    if (at[i] >= 0) resume[i * 32 + l] = at[i];
                }
            jit_deadlock(b, resume, done);
            return -1;
        }
        if (P->jred) {
            for (unsigned i = 0; i < nw; i++)
                for (uint32_t mm = at[i] >= 0 ? lv[i] : 0; mm; mm &= mm - 1) resume[i * 32 + (unsigned)__builtin_ctz(mm)] = at[i];
            jit_bar_red(b, resume, lv, base);
        }
        if (b->icount - b->icount_seen > SLICE && ex_check_limits(b, &b->warps[0], NULL)) return -1;
    }
}

void jit_block(struct blk *b, uint64_t lin, void (*begin)(struct blk *b, uint64_t lin))
{
    struct plan *P = b->P;
    const struct jit_kernel *k = P->jit;
    unsigned nth = P->nthreads;
    if (k->sregs_filled) begin(b, lin);
    else jit_begin_lite(b, lin);
    struct jit_ctx c;
    if (jit_ctx_init(&c, b))
        return;
    size_t base = (size_t)P->slotbase[P->entry] * 32;
    if (P->jvec) { /* the warps as vectors */
        if (!vec_block(b, &c, base) && b->icount - b->icount_seen > SLICE) ex_check_limits(b, &b->warps[0], NULL);
        goto out;
    }
    int32_t resume[1024];
    uint8_t done[1024];
    memset(resume, 0, sizeof *resume * nth);
    memset(done, 0, nth);
    struct jit_thr *thr = b->jthr; /* the same for every block of the launch on b */
    if (k->round && !thr) {
        if (!(thr = b->jthr = malloc(sizeof *thr * nth))) {
            ex_fail(b, PTX_E_NOMEM, "out of memory");
            goto out;
        }
        for (unsigned t = 0; t < nth; t++) {
            struct warp *w = &b->warps[t / 32];
            thr[t] = (struct jit_thr){ w->R0 + base + t % 32, b->local + (size_t)t * P->lstride, w, w->R0 + base,
                                       (int)(t % 32), t };
        }
    }
    for (;;) {
        unsigned waiting = 0;
        int bar = -1, mixed = 0;
        if (thr) { /* the compiled loop over the threads */
            int32_t r = k->round(&c, thr, resume, done, nth);
            b->icount += c.icount;
            c.icount = 0;
            if (r < 0 || b->st != PTX_OK) goto out;
            for (unsigned t = 0; t < nth && r > 0; t++) {
                if (done[t]) continue;
                waiting++;
                if (bar < 0) bar = k->barid[resume[t] - 1];
                else if (bar != k->barid[resume[t] - 1]) mixed = 1;
            }
        }
        for (unsigned t = 0; t < nth && !thr; t++) {
            if (done[t]) continue;
            struct warp *w = &b->warps[t / 32];
            c.w = w;
            jit_ctx_thread(&c, b, t);
            c.Rw = w->R0 + base;
            int32_t r = k->fn(c.Rw + c.lane, &c, resume[t]);
            b->icount += c.icount;
            c.icount = 0;
            if (r < 0 || b->st != PTX_OK) goto out;
            if (r == 0 || r > k->nbars) {
                done[t] = 1;
                w->live &= ~(1u << c.lane);
                continue;
            }
            resume[t] = r;
            waiting++;
            if (bar < 0) bar = k->barid[r - 1];
            else if (bar != k->barid[r - 1]) mixed = 1;
        }
        if (!waiting) break;
        if (mixed) {
            jit_deadlock(b, resume, done);
            goto out;
        }
        if (P->jred) {
            uint32_t wt[32] = { 0 };
            for (unsigned t = 0; t < nth; t++) wt[t / 32] |= (uint32_t)!done[t] << (t % 32);
            jit_bar_red(b, resume, wt, base);
        }
        if (b->icount - b->icount_seen > SLICE && ex_check_limits(b, &b->warps[0], NULL)) goto out;
    }
    if (b->icount - b->icount_seen > SLICE) ex_check_limits(b, &b->warps[0], NULL);
out:
    for (unsigned i = 0; i < P->nwarps; i++) {
        b->warps[i].live = 0;
        b->warps[i].active = 0;
    }
    b->alive = 0;
}
