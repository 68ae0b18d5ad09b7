/* SPDX-License-Identifier: Apache-2.0 */
/* The SIMT model (exec.h describes it): a warp executes an instruction for
 * all lanes of its running group at once, through the handler the
 * instruction's family chose for it; control flow, groups, calls, block
 * barriers and the rendezvous of warp-synchronous instructions are here. */
#include "exec.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>



double ex_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* ---- groups --------------------------------------------------------------- */
/* writes the running group's pc back to its lanes */
static inline void park(struct warp *w)
{
    for (uint32_t mm = w->active; mm; mm &= mm - 1) w->lpc[__builtin_ctz(mm)] = w->pc;
}

/* the group of runnable lanes at pc; merge_pc the next pc above it */
static void select_pc(struct warp *w, int pc)
{
    uint32_t cand = w->live & ~w->wait, act = 0;
    int next = PC_NONE;
    for (uint32_t mm = cand; mm; mm &= mm - 1) {
        int l = __builtin_ctz(mm);
        if (w->lpc[l] == pc) act |= 1u << l;
        else if (w->lpc[l] > pc && w->lpc[l] < next) next = w->lpc[l];
    }
    w->active = act;
    w->pc = act ? pc : PC_NONE;
    w->merge_pc = next;
    w->spin = 0;
}

/* the runnable group with the lowest pc (lpc is current for every lane) */
void ex_reschedule(struct warp *w)
{
    uint32_t cand = w->live & ~w->wait;
    int minpc = PC_NONE;
    for (uint32_t mm = cand; mm; mm &= mm - 1) {
        int l = __builtin_ctz(mm);
        if (w->lpc[l] < minpc) minpc = w->lpc[l];
    }
    select_pc(w, minpc);
}

/* the group leaves pc: taken lanes to target, the rest to pc+1 */
static void diverge(struct warp *w, uint32_t taken, int target)
{
    for (uint32_t mm = w->active; mm; mm &= mm - 1) {
        int l = __builtin_ctz(mm);
        w->lpc[l] = (taken >> l & 1) ? target : w->pc + 1;
    }
    ex_reschedule(w);
}

/* pc reached merge_pc: the lanes waiting to run there join */
static void merge(struct warp *w)
{
    uint32_t cand = w->live & ~w->wait & ~w->active;
    int next = PC_NONE;
    for (uint32_t mm = cand; mm; mm &= mm - 1) {
        int l = __builtin_ctz(mm);
        if (w->lpc[l] == w->pc) w->active |= 1u << l;
        else if (w->lpc[l] > w->pc && w->lpc[l] < next) next = w->lpc[l];
    }
    w->merge_pc = next;
}

/* another group's turn: the one with the next pc above the running one's
 * (cyclically); the running group has been parked */
static void rotate(struct warp *w, int from)
{
    uint32_t cand = w->live & ~w->wait;
    int above = PC_NONE, lowest = PC_NONE;
    for (uint32_t mm = cand; mm; mm &= mm - 1) {
        int l = __builtin_ctz(mm);
        int pc = w->lpc[l];
        if (pc > from && pc < above) above = pc;
        if (pc < lowest) lowest = pc;
    }
    select_pc(w, above != PC_NONE ? above : lowest);
}

/* ---- limits -------------------------------------------------------------- */
/* the launch's budget, time and stop flag, at the end of a slice: 0 to go on */
int ex_check_limits(struct blk *b, struct warp *w, const struct ir_ins *in)
{
    struct plan *P = b->P;
    uint64_t d = b->icount - b->icount_seen;
    b->icount_seen = b->icount;
    uint64_t total = atomic_fetch_add(&P->ins, d) + d;
    if (atomic_load_explicit(&P->stop, memory_order_relaxed)) {
        if (b->st == PTX_OK) b->st = PTX_E_TRAP; /* another block failed */
        return -1;
    }
    const struct ptx_launch *Lp = P->l;
    if (Lp->max_instructions && total > Lp->max_instructions) {
        ex_fail_at(b, w, __builtin_ctz(w->active | 0x80000000u), in, PTX_E_TIMEOUT,
                   "instruction budget of %llu thread-instructions exhausted (the kernel may loop for ever)",
                   (unsigned long long)Lp->max_instructions);
        return -1;
    }
    if (P->deadline > 0 && ex_now() > P->deadline) {
        ex_fail_at(b, w, __builtin_ctz(w->active | 0x80000000u), in, PTX_E_TIMEOUT,
                   "time limit of %u ms exceeded (the kernel may loop for ever)", Lp->timeout_ms);
        return -1;
    }
    return 0;
}

/* ---- block barriers --------------------------------------------------------- */
static void bar_release(struct blk *b, int id);

/* the expected thread count of barrier id is reached */
static int bar_done(const struct blk *b, int id)
{
    const struct cbar *c = &b->bars[id];
    if (!c->warps) return 0;
    if (c->expect) return c->threads >= c->expect;
    return (c->warps & b->alive) == b->alive; /* every warp with live threads */
}

/* have all live lanes of w arrived at one barrier? then the warp's arrival
 * counts; bar.arrive lanes go on at once */
static void bar_warp(struct blk *b, struct warp *w)
{
    uint32_t lanes = w->live & w->barw;
    if (!w->live || lanes != w->live || w->counted >= 0) return;
    int id = w->lbar[__builtin_ctz(lanes)];
    for (uint32_t mm = lanes; mm; mm &= mm - 1)
        if (w->lbar[__builtin_ctz(mm)] != id) return; /* lanes at different barriers: deadlock later */
    const struct ir_ins *code = b->P->m->ins;
    struct cbar *c = &b->bars[id];
    c->warps |= 1u << w->id;
    c->threads += 32;
    int arrive = 1;
    for (uint32_t mm = lanes; mm; mm &= mm - 1)
        if (code[w->lpc[__builtin_ctz(mm)]].sub2 != BK_ARRIVE) arrive = 0;
    if (arrive) { /* go on without waiting */
        for (uint32_t mm = lanes; mm; mm &= mm - 1) w->lpc[__builtin_ctz(mm)]++;
        w->wait &= ~lanes;
        w->barw &= ~lanes;
        if (!w->active) ex_reschedule(w);
    } else {
        c->waiting |= 1u << w->id;
        w->counted = id;
    }
    if (bar_done(b, id)) bar_release(b, id);
}

/* barrier id completes: its waiting warps go on, bar.red results written */
static void bar_release(struct blk *b, int id)
{
    struct cbar *c = &b->bars[id];
    const struct ir_ins *code = b->P->m->ins;
    for (uint32_t ww = c->waiting; ww; ww &= ww - 1) {
        struct warp *w = &b->warps[__builtin_ctz(ww)];
        uint32_t lanes = w->barw;
        for (uint32_t mm = lanes; mm; mm &= mm - 1) {
            int l = __builtin_ctz(mm);
            const struct ir_ins *in = &code[w->lpc[l]];
            if (in->sub2 == BK_RED && in->d >= 0) {
                uint64_t v = in->sub == RED_POPC ? (uint64_t)c->popc : in->sub == RED_AND ? (uint64_t)c->rand : (uint64_t)c->ror;
                ex_regs(b, w, in)[(size_t)in->d * 32 + l] = v;
            }
            w->lpc[l]++;
        }
        w->wait &= ~lanes;
        w->barw = 0;
        w->counted = -1;
        if (!w->active) ex_reschedule(w);
    }
    memset(c, 0, sizeof *c);
    c->rand = 1;
}

/* count-less barriers may complete when a warp's last lane exits */
static void bar_exit(struct blk *b, struct warp *w)
{
    if (w->live) {
        bar_warp(b, w);
        return;
    }
    b->alive &= ~(1u << w->id);
    for (int id = 0; id < NBARS; id++)
        if (b->bars[id].warps && !b->bars[id].expect && bar_done(b, id)) bar_release(b, id);
}

/* bar.sync / bar.arrive / bar.red by the lanes m of the running group */
static int bar_exec(struct blk *b, struct warp *w, const struct ir_ins *in, uint32_t m, uint64_t *R)
{
    int l0 = __builtin_ctz(m);
    uint64_t id = R[(size_t)in->a * 32 + l0], cnt = in->b >= 0 ? R[(size_t)in->b * 32 + l0] : 0;
    for (uint32_t mm = m; mm; mm &= mm - 1) {
        int l = __builtin_ctz(mm);
        if (R[(size_t)in->a * 32 + l] != id || (in->b >= 0 && R[(size_t)in->b * 32 + l] != cnt)) {
            ex_fail_at(b, w, l, in, PTX_E_SYNC, "%s: the lanes of a warp name different barriers or thread counts", ex_name(b, in));
            return -1;
        }
    }
    if (id >= NBARS) {
        ex_fail_at(b, w, l0, in, PTX_E_SYNC, "%s: barrier %llu does not exist (0 to 15)", ex_name(b, in), (unsigned long long)id);
        return -1;
    }
    if ((cnt % 32) || cnt > ((b->P->nthreads + 31u) & ~31u) || (in->sub2 == BK_ARRIVE && !cnt)) {
        ex_fail_at(b, w, l0, in, PTX_E_SYNC, "%s: thread count %llu is not a multiple of 32 up to the block's %u threads",
                   ex_name(b, in), (unsigned long long)cnt, b->P->nthreads);
        return -1;
    }
    struct cbar *c = &b->bars[id];
    if (c->warps && c->expect != (uint32_t)cnt) {
        ex_fail_at(b, w, l0, in, PTX_E_SYNC, "%s: barrier %llu used with thread counts %u and %llu at once",
                   ex_name(b, in), (unsigned long long)id, c->expect, (unsigned long long)cnt);
        return -1;
    }
    c->expect = (uint32_t)cnt;
    c->line = in->line;
    if (in->sub2 == BK_RED) {
        int cneg = (in->flags & F_ANEG) != 0;
        const uint64_t *C = R + (size_t)in->c * 32;
        for (uint32_t mm = m; mm; mm &= mm - 1) {
            int v = (int)(C[__builtin_ctz(mm)] & 1) ^ cneg;
            c->popc += v;
            c->rand &= v;
            c->ror |= v;
        }
    }
    park(w);
    w->wait |= m;
    w->barw |= m;
    for (uint32_t mm = m; mm; mm &= mm - 1) w->lbar[__builtin_ctz(mm)] = (uint8_t)id;
    uint32_t rest = w->active & ~m;  /* predicated off: past it */
    for (uint32_t mm = rest; mm; mm &= mm - 1) w->lpc[__builtin_ctz(mm)]++;
    w->active = 0;
    bar_warp(b, w);
    if (!w->active) ex_reschedule(w);
    return 0;
}

/* ---- warp rendezvous ------------------------------------------------------ */
/* does instruction q take part in the same rendezvous as in? */
static inline int same_sync(const struct ir_ins *in, const struct ir_ins *q)
{
    return q->op == in->op && q->sub == in->sub && q->type == in->type &&
           (q->flags & (F_NAN | F_ABS)) == (in->flags & (F_NAN | F_ABS));
}

/* lanes required by a rendezvous of in with member mask M */
static inline uint32_t required(const struct warp *w, const struct ir_ins *in, uint32_t M)
{
    return in->op == OP_WARPSYNC ? M : M & w->live; /* bar.warp.sync waits for all; the others
                                                       for the lanes that have not exited */
}

/* completes the rendezvous of lanes waiting with mask M at an instruction
 * like in, if all have come: 1 done, 0 not yet, -1 failed */
static int wsync_try(struct blk *b, struct warp *w, const struct ir_ins *in, uint32_t M)
{
    const struct ir_ins *code = b->P->m->ins;
    uint32_t S = required(w, in, M);
    uint32_t there = w->wait & ~w->barw;
    if ((S & there) != S) return 0;
    for (uint32_t mm = S; mm; mm &= mm - 1) {
        int l = __builtin_ctz(mm);
        if (w->wsmask[l] != M || !same_sync(in, &code[w->lpc[l]])) return 0;
    }
    if (ex_warp_sync(b, w, S, M)) return -1;
    for (uint32_t mm = S; mm; mm &= mm - 1) w->lpc[__builtin_ctz(mm)]++;
    w->wait &= ~S;
    return 1;
}

/* a warp-synchronous instruction (F_SYNC) by the lanes m of the running
 * group: 0 done at once (the group goes on), 1 the group changed, -1 failed */
int ex_wsync_arrive(struct blk *b, struct warp *w, const struct ir_ins *in, uint32_t m, const uint64_t *R)
{
    const uint64_t *E = R + (size_t)in->e * 32;
    for (uint32_t mm = m; mm; mm &= mm - 1) {
        int l = __builtin_ctz(mm);
        uint32_t Ml = (uint32_t)E[l];
        if (!(Ml >> l & 1)) {
            ex_fail_at(b, w, l, in, PTX_E_SYNC, "%s: lane %d is not in its own member mask 0x%08x", ex_name(b, in), l, Ml);
            return -1;
        }
    }
    for (uint32_t mm = m; mm; mm &= mm - 1) {
        uint32_t Ml = (uint32_t)E[__builtin_ctz(mm)];
        if (in->op == OP_WARPSYNC && (Ml & ~w->live)) {
            ex_fail_at(b, w, __builtin_ctz(mm), in, PTX_E_DEADLOCK,
                       "%s can never complete: lanes 0x%08x of its member mask 0x%08x have exited",
                       ex_name(b, in), Ml & ~w->live, Ml);
            return -1;
        }
    }
    return 0;
}

static int wsync_exec(struct blk *b, struct warp *w, const struct ir_ins *in, uint32_t m, uint64_t *R)
{
    const uint64_t *E = R + (size_t)in->e * 32;
    uint32_t M = (uint32_t)E[__builtin_ctz(m)];
    int uniform = 1;
    if (ex_wsync_arrive(b, w, in, m, R)) return -1;
    for (uint32_t mm = m; mm; mm &= mm - 1)
        if ((uint32_t)E[__builtin_ctz(mm)] != M) uniform = 0;
    if (uniform && required(w, in, M) == m) { /* all here: at once */
        for (uint32_t mm = m; mm; mm &= mm - 1) w->lpc[__builtin_ctz(mm)] = w->pc;
        return ex_warp_sync(b, w, m, M) ? -1 : 0;
    }
    park(w);
    for (uint32_t mm = m; mm; mm &= mm - 1) {
        int l = __builtin_ctz(mm);
        w->wsmask[l] = (uint32_t)E[l];
    }
    w->wait |= m;
    for (uint32_t mm = w->active & ~m; mm; mm &= mm - 1) w->lpc[__builtin_ctz(mm)]++; /* predicated off */
    w->active = 0;
    for (uint32_t mm = m; mm; mm &= mm - 1) { /* each member mask named */
        int l = __builtin_ctz(mm);
        if ((w->wait >> l & 1) && wsync_try(b, w, in, (uint32_t)E[l]) < 0) return -1;
    }
    ex_reschedule(w);
    return 1;
}

/* lanes exited: rendezvous waiting for them may complete (or never can) */
int ex_wsync_settle(struct blk *b, struct warp *w)
{
    const struct ir_ins *code = b->P->m->ins;
    uint32_t there = w->wait & ~w->barw;
    while (there) {
        int l = __builtin_ctz(there);
        const struct ir_ins *in = &code[w->lpc[l]];
        uint32_t M = w->wsmask[l];
        if (in->op == OP_WARPSYNC && (M & ~w->live)) {
            ex_fail_at(b, w, l, in, PTX_E_DEADLOCK, "%s can never complete: lanes 0x%08x of its member mask 0x%08x have exited",
                       ex_name(b, in), M & ~w->live, M);
            return -1;
        }
        int r = wsync_try(b, w, in, M);
        if (r < 0) return -1;
        there &= ~(1u << l);
        if (r) there = w->wait & ~w->barw;
    }
    return 0;
}

/* ---- calls ------------------------------------------------------------------ */
static void do_builtin(struct blk *b, struct warp *w, const struct ir_ins *in, uint32_t m, const struct ir_call *c, int g);

static inline struct frame *frame_of(struct blk *b, const struct warp *w, int l, int d)
{
    return &b->frames[(size_t)(w->id * 32 + l) * (size_t)b->P->maxdepth + (size_t)d];
}

/* lane l enters function g from the call at pc (call c): arguments copied,
 * a reentrant g's registers, .param and .local saved: 0, or -1 */
static int enter(struct blk *b, struct warp *w, int l, const struct ir_ins *in, int pc, const struct ir_call *c, int g)
{
    struct plan *P = b->P;
    const struct ptx_module *M = P->m;
    const struct ir_func *fg = &M->funcs[g];
    unsigned tid = (unsigned)(w->id * 32 + l);
    if (w->depth[l] >= P->maxdepth) {
        ex_fail_at(b, w, l, in, PTX_E_STACK, "call stack deeper than %d frames", P->maxdepth);
        return -1;
    }
    if (c->callee < 0 && (c->nargs != fg->nparams || c->nrets > fg->nrets)) {
        ex_fail_at(b, w, l, in, PTX_E_TRAP, "indirect call of %s with %d arguments and %d results: it takes %d and gives %d",
                   fg->name, c->nargs, c->nrets, fg->nparams, fg->nrets);
        return -1;
    }
    struct frame *f = frame_of(b, w, l, w->depth[l]);
    *f = (struct frame){ pc + 1, (int32_t)(c - M->calls), g, b->sp ? b->sp[tid] : 0 };
    unsigned char *fp = b->fparam + (size_t)tid * P->fstride;
    unsigned fc = P->fparambase[in->fn], fgb = P->fparambase[g];
    if (fg->reentrant) {
        uint64_t *Rg = w->R0 + (size_t)P->slotbase[g] * 32;
        unsigned fb = (fg->fparam_bytes + 15) & ~15u, lb = (fg->local_bytes + 15) & ~15u;
        uint64_t need = (uint64_t)fg->nslots * 8 + fb + lb;
        uint32_t sp = b->sp[tid];
        if (sp + need > P->lstride) {
            ex_fail_at(b, w, l, in, PTX_E_STACK, "stack overflow: %u bytes per thread for recursive calls",
                       P->lstride - P->lstatic);
            return -1;
        }
        unsigned char *s = b->local + (size_t)tid * P->lstride + sp;
        for (int k = 0; k < fg->nslots; k++) memcpy(s + 8 * (size_t)k, &Rg[(size_t)k * 32 + l], 8);
        memcpy(s + 8 * (size_t)fg->nslots, fp + fgb, fg->fparam_bytes);
        uint32_t frame = sp + (uint32_t)(8 * (uint64_t)fg->nslots) + fb;
        for (int k = fg->cstart; k < fg->cend; k++) /* its .local variables: this activation's */
            if (M->consts[k].kind == K_LOCAL) Rg[(size_t)M->consts[k].slot * 32 + l] = frame + (uint64_t)M->consts[k].val;
        b->sp[tid] = sp + (uint32_t)need;
    }
    for (int i = 0; i < c->nargs; i++) {
        unsigned to = c->callee >= 0 ? c->args[i].to : fg->params[i].offset;
        unsigned n = c->callee >= 0 ? c->args[i].size : c->args[i].size < fg->params[i].size ? c->args[i].size : fg->params[i].size;
        memmove(fp + fgb + to, fp + fc + c->args[i].from, n);
    }
    w->depth[l]++;
    return 0;
}

/* lane l returns from its innermost frame: results copied, a reentrant
 * function's frame restored; its return pc */
static int leave(struct blk *b, struct warp *w, int l)
{
    struct plan *P = b->P;
    const struct ptx_module *M = P->m;
    struct frame *f = frame_of(b, w, l, --w->depth[l]);
    const struct ir_call *c = &M->calls[f->call];
    const struct ir_func *fg = &M->funcs[f->callee];
    const struct ir_ins *ci = &M->ins[f->ret_pc - 1];
    unsigned tid = (unsigned)(w->id * 32 + l);
    unsigned char *fp = b->fparam + (size_t)tid * P->fstride;
    unsigned fc = P->fparambase[ci->fn], fgb = P->fparambase[f->callee];
    /* results into the caller's .param; when that is the callee's own (a
     * recursive call), after the restore, so kept aside first */
    int self = fg->reentrant && ci->fn == f->callee;
    size_t at = 0;
    for (int i = 0; i < c->nrets; i++) {
        unsigned from = c->callee >= 0 ? c->rets[i].from : fg->rets[i].offset;
        unsigned n = c->callee >= 0 ? c->rets[i].size : c->rets[i].size < fg->rets[i].size ? c->rets[i].size : fg->rets[i].size;
        if (!self) memmove(fp + fc + c->rets[i].to, fp + fgb + from, n);
        else if (at + n <= P->scratch) { memcpy(b->scratch + at, fp + fgb + from, n); at += n; }
    }
    if (fg->reentrant) {
        uint64_t *Rg = w->R0 + (size_t)P->slotbase[f->callee] * 32;
        const unsigned char *s = b->local + (size_t)tid * P->lstride + f->sp;
        for (int k = 0; k < fg->nslots; k++) memcpy(&Rg[(size_t)k * 32 + l], s + 8 * (size_t)k, 8);
        memcpy(fp + fgb, s + 8 * (size_t)fg->nslots, fg->fparam_bytes);
        b->sp[tid] = f->sp;
    }
    at = 0;
    for (int i = 0; self && i < c->nrets; i++) {
        unsigned n = c->callee >= 0 ? c->rets[i].size : c->rets[i].size < fg->rets[i].size ? c->rets[i].size : fg->rets[i].size;
        if (at + n > P->scratch) break;
        memcpy(fp + fc + c->rets[i].to, b->scratch + at, n);
        at += n;
    }
    return f->ret_pc;
}

/* call: the lanes m of the running group enter their callees */
static int call_exec(struct blk *b, struct warp *w, const struct ir_ins *in, uint32_t m, uint64_t *R)
{
    struct plan *P = b->P;
    const struct ptx_module *M = P->m;
    const struct ir_call *c = &M->calls[in->imm];
    int same = 1, g0 = -2;
    park(w);
    for (uint32_t mm = m; mm; mm &= mm - 1) {
        int l = __builtin_ctz(mm);
        int g = c->callee;
        if (g < 0) {
            uint64_t a = R[(size_t)in->a * 32 + l];
            g = ir_fidx(a, M->nfuncs);
            if (g < 0 || M->funcs[g].is_entry || (!M->funcs[g].defined && !M->funcs[g].builtin)) {
                ex_fail_at(b, w, l, in, PTX_E_TRAP, "indirect call through 0x%llx, which is not a function's address",
                           (unsigned long long)a);
                return -1;
            }
        }
        if (M->funcs[g].builtin) {
            do_builtin(b, w, in, 1u << l, c, g);
            if (b->st != PTX_OK) return -1;
            w->lpc[l] = w->pc + 1;
            g = -1;
        } else {
            if (enter(b, w, l, in, w->pc, c, g)) return -1;
            w->lpc[l] = M->funcs[g].start;
        }
        if (g0 == -2) g0 = g;
        else if (g != g0) same = 0;
    }
    for (uint32_t mm = w->active & ~m; mm; mm &= mm - 1) w->lpc[__builtin_ctz(mm)] = w->pc + 1;
    if (same && m == w->active && w->merge_pc == PC_NONE) { /* the whole group, one way */
        w->pc = w->lpc[__builtin_ctz(m)];
        return 0;
    }
    ex_reschedule(w);
    return 0;
}

int ex_call_lib(struct blk *b, struct warp *w, const struct ir_ins *in, uint32_t m, uint64_t *R)
{
    (void)R;
    const struct ir_call *c = &b->P->m->calls[in->imm];
    do_builtin(b, w, in, m, c, c->callee);
    return b->st != PTX_OK ? -1 : 0;
}

/* ret: the lanes m leave their frames (at depth 0 they exit) */
static int ret_exec(struct blk *b, struct warp *w, uint32_t m, uint32_t *exited)
{
    int rpc = -1, same = 1;
    park(w);
    for (uint32_t mm = m; mm; mm &= mm - 1) {
        int l = __builtin_ctz(mm);
        if (w->depth[l] == 0) {
            same = 0;
            w->lpc[l] = PC_NONE;
            w->live &= ~(1u << l);
            *exited |= 1u << l;
            continue;
        }
        w->lpc[l] = leave(b, w, l);
        if (rpc < 0) rpc = w->lpc[l];
        else if (rpc != w->lpc[l]) same = 0;
    }
    for (uint32_t mm = w->active & ~m; mm; mm &= mm - 1) w->lpc[__builtin_ctz(mm)] = w->pc + 1;
    if (same && m == w->active && w->merge_pc == PC_NONE && rpc >= 0) {
        w->pc = rpc;
        return 0;
    }
    ex_reschedule(w);
    return 1;
}

/* ---- the interpreter ------------------------------------------------------- */

/* lanes exited: barriers and rendezvous waiting for them */
static int exited(struct blk *b, struct warp *w)
{
    bar_exit(b, w);
    if ((w->wait & ~w->barw) && ex_wsync_settle(b, w)) return -1;
    if (!w->active) ex_reschedule(w);
    return 0;
}

int ex_warp_run(struct blk *b, struct warp *w)
{
    struct plan *P = b->P;
    const struct ptx_module *M = P->m;
    const struct ir_ins *code = M->ins;
    const ex_fn *H = P->h;
    uint64_t icount = b->icount, start = icount;
    b->yield = 0;
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
        icount += popc32(m);
        ex_fn h = H[w->pc];
        if (h) {
            if (m && h(b, w, in, m, R)) goto err;
            w->pc++;
            if (b->yield) { b->yield = 0; goto slice; }
            continue;
        }
        switch (in->op) {
        case OP_NOP:
            break;
        case OP_MEMBAR:
            ex_fence();
            break;
        case OP_NANOSLEEP: /* others' turn */
            w->pc++;
            goto slice;
        case OP_BRA:
        case OP_BRX: {
            int target = (int)in->imm;
            if (in->op == OP_BRX) { /* brx.idx: a target per lane */
                const struct ir_targets *t = &M->targets[in->imm];
                const uint64_t *A = R + (size_t)in->a * 32;
                park(w);
                for (uint32_t mm = m; mm; mm &= mm - 1) {
                    int l = __builtin_ctz(mm);
                    if (A[l] >= (uint64_t)t->n) {
                        ex_fail_at(b, w, l, in, PTX_E_TRAP, "brx.idx: index %llu outside the %d targets",
                                   (unsigned long long)A[l], t->n);
                        goto err;
                    }
                    w->lpc[l] = t->pc[A[l]];
                }
                for (uint32_t mm = w->active & ~m; mm; mm &= mm - 1) w->lpc[__builtin_ctz(mm)] = w->pc + 1;
                ex_reschedule(w);
                goto slice_check;
            }
            if (m == w->active) {
                if (target <= w->pc) { /* backward: a loop */
                    if (icount - start > SLICE) {
                        w->pc = target;
                        goto slice;
                    }
                    if (w->live & ~w->wait & ~w->active && ++w->spin >= SPIN_TURN) { /* others' turn */
                        int from = w->pc;
                        w->pc = target;
                        park(w);
                        rotate(w, from);
                        continue;
                    }
                    /* a cooperative launch's other blocks: a loop that
                     * spins (at a grid-wide barrier) gives them their turn */
                    if (P->l->cooperative && ++w->spin >= SPIN_TURN) {
                        w->spin = 0;
                        w->pc = target;
                        goto slice;
                    }
                }
                if (w->merge_pc == PC_NONE || target < w->merge_pc) {
                    w->pc = target;
                    continue;
                }
                diverge(w, m, target);
                continue;
            }
            if (m == 0) break;
            diverge(w, m, target);
            if (target <= in - code) goto slice_check;
            continue;
        }
        case OP_CALL:
            if (!m) break;
            if (call_exec(b, w, in, m, R)) goto err;
            goto slice_check;
        case OP_RET: {
            if (!m) break;
            uint32_t gone = 0;
            if (ret_exec(b, w, m, &gone) == 0) continue;
            if (gone && exited(b, w)) goto err;
            continue;
        }
        case OP_EXIT:
            if (!m) break;
            park(w);
            w->live &= ~m;
            for (uint32_t mm = m; mm; mm &= mm - 1) w->lpc[__builtin_ctz(mm)] = PC_NONE;
            for (uint32_t mm = w->active & ~m; mm; mm &= mm - 1) w->lpc[__builtin_ctz(mm)] = w->pc + 1;
            w->active = 0;
            if (exited(b, w)) goto err;
            continue;
        case OP_TRAP:
            if (!m) break;
            ex_fail_at(b, w, __builtin_ctz(m), in, PTX_E_TRAP, "trap");
            goto err;
        case OP_BAR:
            if (!m) break;
            if (bar_exec(b, w, in, m, R)) goto err;
            continue;
        case OP_SHFL: case OP_VOTE: case OP_MATCH: case OP_REDUX: case OP_WARPSYNC: case OP_ELECT: {
            if (!m) break;
            int r = wsync_exec(b, w, in, m, R);
            if (r < 0) goto err;
            if (r) continue;
            break;
        }
        default:
            ex_fail_at(b, w, __builtin_ctz(m | 0x80000000u), in, PTX_E_UNSUPPORTED, "unsupported instruction '%s'", ex_name(b, in));
            goto err;
        }
        w->pc++;
        continue;
    slice_check:
        if (icount - start <= SLICE) continue;
    slice: /* the warp's turn ends here */
        b->icount = icount;
        if (w->active) park(w);
        if (ex_check_limits(b, w, in)) return W_ERR;
        if (w->active) ex_reschedule(w);
        return W_YIELD;
    }
    b->icount = icount;
    return W_YIELD;
err:
    b->icount = icount;
    return W_ERR;
}

/* ---- builtin functions ------------------------------------------------------- */
/* vprintf, __assertfail, malloc, free for the lanes m */
static void do_builtin(struct blk *b, struct warp *w, const struct ir_ins *in, uint32_t m, const struct ir_call *c, int g)
{
    struct plan *P = b->P;
    const struct ir_func *fg = &P->m->funcs[g];
    const struct ptx_host *h = &P->l->host;
    unsigned fc = P->fparambase[in->fn];
    LANES(m) {
        int l = L;
        unsigned tid = (unsigned)(w->id * 32 + l);
        unsigned char *fp = b->fparam + (size_t)tid * P->fstride + fc;
        if (ir_builtins[fg->builtin].how != B_LIB) {
            if (ex_devrt_call(b, w, l, in, c, fg->builtin, fp)) return;
            continue;
        }
        uint64_t av[5] = { 0, 0, 0, 0, 0 };
        for (int i = 0; i < c->nargs && i < 5; i++)
            memcpy(&av[i], fp + c->args[i].from, c->args[i].size > 8 ? 8 : c->args[i].size);
        uint64_t rv = 0;
        switch (fg->builtin) {
        case B_VPRINTF: {
            const unsigned char *fmt = NULL, *args = NULL;
            size_t fl = ex_read_dev(b, av[0], &fmt);
            size_t al = av[1] ? ex_read_dev(b, av[1], &args) : 0;
            int32_t count = -1; /* CUDA's printf: the arguments parsed; -1 without a format */
            if (fmt) {
                char buf[2048];
                int nargs = 0;
                size_t n = ptx_format((const char *)fmt, fl, args, al, buf, sizeof buf, ex_read_dev, b, &nargs);
                if (n > sizeof buf) n = sizeof buf;
                if (h->print) h->print(h->cookie, buf, n);
                count = nargs;
            }
            rv = (uint64_t)(uint32_t)count;
            break;
        }
        case B_MALLOC:
            rv = h->heap_alloc ? h->heap_alloc(h->cookie, av[0]) : 0;
            break;
        case B_FREE:
            if (av[0] && h->heap_free) h->heap_free(h->cookie, av[0]);
            break;
        case B_SETCOND: /* the conditional node's value, in the executable
                            graph the kernel runs from (the host's to find) */
            if (!h->set_cond || h->set_cond(h->cond_cookie, av[0], (unsigned)av[1])) {
                struct ex_site at = { w, l, in, PTX_ACCESS_NONE, 0, 0, 0, 1 };
                ex_failv(b, &at, PTX_E_TRAP, "cudaGraphSetConditional(0x%llx, %u): %s", (unsigned long long)av[0],
                         (unsigned)av[1], h->set_cond ? "the handle is not one of the graph's conditional handles"
                                                      : "the kernel does not run from a graph");
                return;
            }
            break;
        default: { /* __assertfail */
            const unsigned char *msg = NULL, *file = NULL, *fn = NULL;
            size_t ml = ex_read_dev(b, av[0], &msg), fl = ex_read_dev(b, av[1], &file), nl = ex_read_dev(b, av[3], &fn);
            unsigned t[3];
            ex_thread_of(P, w, l, t);
            struct ex_site at = { w, l, in, PTX_ACCESS_NONE, 0, 0, 0, 1 };
            ex_failv(b, &at, PTX_E_ASSERT, "%.*s:%u: %.*s: block: [%u,%u,%u], thread: [%u,%u,%u] Assertion `%.*s` failed.",
                     file ? (int)strnlen((const char *)file, fl) : 1, file ? (const char *)file : "?", (unsigned)av[2],
                     fn ? (int)strnlen((const char *)fn, nl) : 1, fn ? (const char *)fn : "?",
                     b->ctaid[0], b->ctaid[1], b->ctaid[2], t[0], t[1], t[2],
                     msg ? (int)strnlen((const char *)msg, ml) : 1, msg ? (const char *)msg : "?");
            return;
        }
        }
        for (int i = 0; i < c->nrets; i++)
            memcpy(fp + c->rets[i].to, &rv, c->rets[i].size < 8 ? c->rets[i].size : 8);
    }
}

/* no lane of the block can go on: say where each waits */
void ex_deadlock(struct blk *b)
{
    struct plan *P = b->P;
    const struct ir_ins *code = P->m->ins;
    char msg[768];
    size_t n = 0;
    const struct warp *w0 = NULL;
    int l0 = 0;
#define ADD(...) do { if (n < sizeof msg) { int k_ = snprintf(msg + n, sizeof msg - n, __VA_ARGS__); \
                       if (k_ > 0) n = n + (size_t)k_ < sizeof msg ? n + (size_t)k_ : sizeof msg - 1; } } while (0)
    ADD("deadlock: no thread of block (%u,%u,%u) can go on:", b->ctaid[0], b->ctaid[1], b->ctaid[2]);
    for (int id = 0; id < NBARS; id++) {
        const struct cbar *c = &b->bars[id];
        if (!c->warps) continue;
        unsigned alive = popc32(b->alive);
        if (c->expect)
            ADD(" barrier %d (PTX line %d) waits for %u threads, %u arrived;", id, c->line, c->expect, c->threads);
        else
            ADD(" barrier %d (PTX line %d) waits for all %u warps, %u arrived;", id, c->line, alive, popc32(c->warps));
    }
    for (unsigned i = 0; i < P->nwarps; i++) {
        const struct warp *w = &b->warps[i];
        if (!w->live || w->counted >= 0) continue; /* counted: the barrier says it */
        uint32_t left = w->wait & w->live;
        int first = 1;
        while (left) { /* the lanes waiting at one barrier, or at one instruction */
            int l = __builtin_ctz(left);
            int isbar = (w->barw >> l) & 1;
            uint32_t group = 0;
            for (uint32_t mm = left; mm; mm &= mm - 1) {
                int k = __builtin_ctz(mm);
                if (((w->barw >> k) & 1) == (uint32_t)isbar && (isbar ? w->lbar[k] == w->lbar[l] : w->lpc[k] == w->lpc[l]))
                    group |= 1u << k;
            }
            left &= ~group;
            const struct ir_ins *q = &code[w->lpc[l]];
            if (first) ADD(" warp %u: lanes 0x%08x at %s", i, group, ex_name(b, q));
            else ADD(", lanes 0x%08x at %s", group, ex_name(b, q));
            first = 0;
            if (isbar) {
                ADD(" %u (PTX line %d)", w->lbar[l], q->line);
            } else {
                uint32_t need = required(w, q, w->wsmask[l]) & ~group;
                ADD(" (PTX line %d, member mask 0x%08x), waiting for lanes 0x%08x", q->line, w->wsmask[l], need);
            }
            if (!w0) { w0 = w; l0 = l; }
        }
        if (!first) ADD(";");
    }
#undef ADD
    if (n && msg[n - 1] == ';') msg[n - 1] = 0;
    struct ex_site at = { NULL, l0, w0 ? &code[w0->lpc[l0]] : NULL, PTX_ACCESS_NONE, 0, 0, 0, 1 }; /* the message says where */
    ex_failv(b, w0 ? &at : NULL, PTX_E_DEADLOCK, "%s", msg);
}
