/* The executor: runs a kernel of the internal form on the host; the SIMT
 * model is described in exec.h.
 *
 * Blocks are spread over host threads (an atomic counter hands out block
 * indices in order). A host thread runs one block at a time, its warps in
 * turn. A warp executes an instruction for all lanes of its running group
 * at once, through the handler the instruction's family chose for it;
 * control flow, calls, barriers and the rendezvous of warp-synchronous
 * instructions are here. */
#include "exec.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#define SPIN_TURN 32             /* backward branches before another group's turn */
#define SLICE 65536              /* thread-instructions of a warp's turn */
#define STACK_DEFAULT 16384      /* per-thread stack for reentrant calls */
#define DEPTH_REENTRANT 1024     /* call frames per thread when calls can recurse */

static atomic_ullong total_ins;
uint64_t ptx_instructions(void) { return atomic_load(&total_ins); }

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* ---- errors ----------------------------------------------------------- */
const char *ex_space_name(int sp)
{
    switch (sp) {
    case SP_GLOBAL: return "global";
    case SP_SHARED: return "shared";
    case SP_LOCAL: return "local";
    case SP_CONST: return "const";
    case SP_PARAM: case SP_FPARAM: return "param";
    default: return "generic";
    }
}

const char *ex_name(const struct blk *b, const struct ir_ins *in)
{
    return in->name >= 0 ? b->P->m->strings + in->name : "?";
}

static void thread_of(const struct plan *P, const struct warp *w, int lane, unsigned t[3])
{
    const struct ptx_launch *Lp = P->l;
    unsigned tid = (unsigned)(w->id * 32 + lane);
    t[0] = tid % Lp->block[0];
    t[1] = tid / Lp->block[0] % Lp->block[1];
    t[2] = tid / (Lp->block[0] * Lp->block[1]);
}

static void fill_fault(struct blk *b, const struct ex_site *at, enum ptx_status st)
{
    struct plan *P = b->P;
    struct ptx_fault *f = P->l->fault;
    const struct ptx_module *M = P->m;
    memset(f, 0, sizeof *f);
    f->status = st;
    f->warp = f->lane = -1;
    snprintf(f->kernel, sizeof f->kernel, "%s", M->funcs[P->entry].name);
    if (!at) return;
    if (at->w) {
        f->has_thread = 1;
        memcpy(f->block, b->ctaid, sizeof f->block);
        thread_of(P, at->w, at->lane, f->thread);
        f->warp = at->w->id;
        f->lane = at->lane;
    }
    f->access = at->access;
    if (at->access != PTX_ACCESS_NONE) {
        snprintf(f->space, sizeof f->space, "%s", ex_space_name(at->space));
        f->addr = at->addr;
        f->size = at->size;
    }
    const struct ir_ins *in = at->in;
    if (!in) return;
    f->ptx_line = in->line;
    snprintf(f->function, sizeof f->function, "%s", M->funcs[in->fn].name);
    snprintf(f->opcode, sizeof f->opcode, "%s", ex_name(b, in));
    const char *file = in->srcfile ? ir_file_name(M, in->srcfile) : NULL;
    if (file) {
        snprintf(f->file, sizeof f->file, "%s", file);
        f->line = in->srcline;
        f->column = in->srccol;
    }
}

/* appends to the message at *n */
static void errcat(struct plan *P, size_t *n, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void errcat(struct plan *P, size_t *n, const char *fmt, ...)
{
    if (*n >= P->errlen) return;
    va_list ap;
    va_start(ap, fmt);
    int k = vsnprintf(P->err + *n, P->errlen - *n, fmt, ap);
    va_end(ap);
    if (k > 0) *n = *n + (size_t)k < P->errlen ? *n + (size_t)k : P->errlen - 1;
}

void ex_failv(struct blk *b, const struct ex_site *at, enum ptx_status st, const char *fmt, ...)
{
    struct plan *P = b->P;
    if (b->st == PTX_OK) b->st = st;
    pthread_mutex_lock(&P->lock);
    if (P->status == PTX_OK) {
        P->status = st;
        va_list ap;
        va_start(ap, fmt);
        int k = vsnprintf(P->err, P->errlen, fmt, ap);
        va_end(ap);
        size_t n = k < 0 ? 0 : (size_t)k < P->errlen ? (size_t)k : P->errlen - 1;
        const struct ir_ins *in = at ? at->in : NULL;
        if (in && !at->plain) {
            errcat(P, &n, " at PTX line %d", in->line);
            const char *file = in->srcfile ? ir_file_name(P->m, in->srcfile) : NULL;
            if (file) errcat(P, &n, " (%s:%d)", file, in->srcline);
        }
        if (at && at->w && !at->plain) {
            unsigned t[3];
            thread_of(P, at->w, at->lane, t);
            errcat(P, &n, " in block (%u,%u,%u), thread (%u,%u,%u)", b->ctaid[0], b->ctaid[1], b->ctaid[2], t[0], t[1], t[2]);
        }
        if (P->l->fault) fill_fault(b, at, st);
    }
    pthread_mutex_unlock(&P->lock);
    atomic_store(&P->stop, 1);
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
static void reschedule(struct warp *w)
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
    reschedule(w);
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
static int check_limits(struct blk *b, struct warp *w, const struct ir_ins *in)
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
    if (P->deadline > 0 && now_s() > P->deadline) {
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
        if (!w->active) reschedule(w);
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
        if (!w->active) reschedule(w);
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
    if (!w->active) reschedule(w);
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
static int wsync_exec(struct blk *b, struct warp *w, const struct ir_ins *in, uint32_t m, uint64_t *R)
{
    const uint64_t *E = R + (size_t)in->e * 32;
    uint32_t M = (uint32_t)E[__builtin_ctz(m)];
    int uniform = 1;
    for (uint32_t mm = m; mm; mm &= mm - 1) {
        int l = __builtin_ctz(mm);
        uint32_t Ml = (uint32_t)E[l];
        if (!(Ml >> l & 1)) {
            ex_fail_at(b, w, l, in, PTX_E_SYNC, "%s: lane %d is not in its own member mask 0x%08x", ex_name(b, in), l, Ml);
            return -1;
        }
        if (Ml != M) uniform = 0;
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
    reschedule(w);
    return 1;
}

/* lanes exited: rendezvous waiting for them may complete (or never can) */
static int wsync_exit(struct blk *b, struct warp *w)
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
            if (g < 0 || (!M->funcs[g].defined && !M->funcs[g].builtin)) {
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
    reschedule(w);
    return 0;
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
    reschedule(w);
    return 1;
}

/* ---- the interpreter ------------------------------------------------------- */
enum { W_YIELD, W_ERR };

/* lanes exited: barriers and rendezvous waiting for them */
static int exited(struct blk *b, struct warp *w)
{
    bar_exit(b, w);
    if ((w->wait & ~w->barw) && wsync_exit(b, w)) return -1;
    if (!w->active) reschedule(w);
    return 0;
}

static int warp_run(struct blk *b, struct warp *w)
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
            atomic_thread_fence(memory_order_seq_cst);
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
                reschedule(w);
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
        if (check_limits(b, w, in)) return W_ERR;
        if (w->active) reschedule(w);
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
        uint64_t av[5] = { 0, 0, 0, 0, 0 };
        for (int i = 0; i < c->nargs && i < 5; i++)
            memcpy(&av[i], fp + c->args[i].from, c->args[i].size > 8 ? 8 : c->args[i].size);
        uint64_t rv = 0;
        switch (fg->builtin) {
        case OP_VPRINTF: {
            const unsigned char *fmt = NULL, *args = NULL;
            size_t fl = ex_read_dev(b, av[0], &fmt);
            size_t al = av[1] ? ex_read_dev(b, av[1], &args) : 0;
            int32_t count = -1;
            if (fmt) {
                char buf[2048];
                size_t n = ptx_format((const char *)fmt, fl, args, al, buf, sizeof buf, ex_read_dev, b);
                if (n > sizeof buf) n = sizeof buf;
                if (h->print) h->print(h->cookie, buf, n);
                count = (int32_t)n;
            }
            rv = (uint64_t)(uint32_t)count;
            break;
        }
        case OP_MALLOC:
            rv = h->heap_alloc ? h->heap_alloc(h->cookie, av[0]) : 0;
            break;
        case OP_FREE:
            if (av[0] && h->heap_free) h->heap_free(h->cookie, av[0]);
            break;
        default: { /* __assertfail */
            const unsigned char *msg = NULL, *file = NULL, *fn = NULL;
            size_t ml = ex_read_dev(b, av[0], &msg), fl = ex_read_dev(b, av[1], &file), nl = ex_read_dev(b, av[3], &fn);
            unsigned t[3];
            thread_of(P, w, l, t);
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

/* ---- blocks ------------------------------------------------------------------ */
static uint64_t sreg(const struct blk *b, const struct warp *w, int l, int64_t which)
{
    const struct plan *P = b->P;
    const struct ptx_launch *Lp = P->l;
    unsigned tid = (unsigned)(w->id * 32 + l);
    switch (which) {
    case S_TID_X: return tid % Lp->block[0];
    case S_TID_Y: return tid / Lp->block[0] % Lp->block[1];
    case S_TID_Z: return tid / (Lp->block[0] * Lp->block[1]);
    case S_NTID_X: return Lp->block[0];
    case S_NTID_Y: return Lp->block[1];
    case S_NTID_Z: return Lp->block[2];
    case S_CTAID_X: case S_CLUSTERID_X: return b->ctaid[0];
    case S_CTAID_Y: case S_CLUSTERID_Y: return b->ctaid[1];
    case S_CTAID_Z: case S_CLUSTERID_Z: return b->ctaid[2];
    case S_NCTAID_X: case S_NCLUSTERID_X: return Lp->grid[0];
    case S_NCTAID_Y: case S_NCLUSTERID_Y: return Lp->grid[1];
    case S_NCTAID_Z: case S_NCLUSTERID_Z: return Lp->grid[2];
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
    case S_CLUSTER_NCTAID_X: case S_CLUSTER_NCTAID_Y: case S_CLUSTER_NCTAID_Z: case S_CLUSTER_NCTARANK: return 1;
    case S_CLUSTER_CTAID_X: case S_CLUSTER_CTAID_Y: case S_CLUSTER_CTAID_Z: case S_CLUSTER_CTARANK:
    case S_IS_EXPLICIT_CLUSTER: case S_ZERO: return 0;
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
            case K_SHARED: v = c->val >= 0 ? (uint64_t)c->val : P->static_shared + (uint64_t)(-1 - c->val); break;
            case K_LOCAL: v = P->localbase[f] + (uint64_t)c->val; break;
            case K_FPARAM: v = P->fparambase[f] + (uint64_t)c->val; break;
            case K_FUNC: v = ir_faddr((int)c->val); break;
            default: v = (uint64_t)c->val; break; /* K_IMM, K_PARAM */
            }
            for (int l = 0; l < 32; l++) S[l] = v;
        }
    }
}

/* no lane of the block can go on: say where each waits */
static void deadlock(struct blk *b)
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

static void run_block(struct blk *b, uint64_t lin)
{
    struct plan *P = b->P;
    const struct ptx_launch *Lp = P->l;
    b->ctaid[0] = (unsigned)(lin % Lp->grid[0]);
    b->ctaid[1] = (unsigned)(lin / Lp->grid[0] % Lp->grid[1]);
    b->ctaid[2] = (unsigned)(lin / ((uint64_t)Lp->grid[0] * Lp->grid[1]));
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
        reschedule(w);
        fill_consts(b, w, 1);
        b->alive |= 1u << i;
    }
    if (b->sp)
        for (unsigned t = 0; t < P->nthreads; t++) b->sp[t] = P->lstatic;
    for (;;) {
        int ran = 0;
        for (unsigned i = 0; i < P->nwarps; i++) {
            struct warp *w = &b->warps[i];
            if (!w->active) continue;
            ran = 1;
            if (warp_run(b, w) == W_ERR) return;
        }
        if (!b->alive) return;
        if (!ran) {
            deadlock(b);
            return;
        }
        if (b->icount - b->icount_seen > SLICE && check_limits(b, &b->warps[0], NULL)) return;
    }
}

static void *worker(void *arg)
{
    struct blk *b = arg;
    struct plan *P = b->P;
    for (unsigned i = 0; i < P->nwarps; i++) fill_consts(b, &b->warps[i], 0);
    while (!atomic_load_explicit(&P->stop, memory_order_relaxed)) {
        uint64_t k = atomic_fetch_add(&P->next_block, 1);
        if (k >= P->nblocks) break;
        run_block(b, k);
        if (b->st != PTX_OK) break;
    }
    atomic_fetch_add(&total_ins, b->icount);
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
    if (!b->shared || !b->local || !b->fparam || !b->warps || !b->regs || !b->frames ||
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
            if (c->callee < 0 && !M->funcs[g].addr_taken) continue;
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
            ex_fn f = ex_arith_select(in);
            if (!f) f = ex_mem_select(in);
            if (!f) f = ex_warp_select(in);
            if (!f) f = ex_mma_select(in);
            h[i] = f;
        }
        atomic_store_explicit(&mm->xcache, (void *)h, memory_order_release);
    }
    pthread_mutex_unlock(&hlock);
    return h;
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
    P.static_shared = (m->shared_bytes + 15) & ~15u;
    P.shsize = P.static_shared + l->dyn_shared;
    P.nthreads = l->block[0] * l->block[1] * l->block[2];
    P.nwarps = (P.nthreads + 31) / 32;
    P.nblocks = (uint64_t)l->grid[0] * l->grid[1] * l->grid[2];
    if (l->timeout_ms) P.deadline = now_s() + l->timeout_ms / 1000.0;
    if (l->param_bytes < m->funcs[entry].param_bytes) { st = PTX_E_TRAP; snprintf(err, errlen, "parameter buffer too small"); goto out; }
    if (P.nwarps > 32 || !P.nthreads) { st = PTX_E_TRAP; snprintf(err, errlen, "%u threads per block: 1 to 1024 can run", P.nthreads); goto out; }
    long ncpu = l->nthreads > 0 ? l->nthreads : sysconf(_SC_NPROCESSORS_ONLN);
    if (ncpu < 1) ncpu = 1;
    if (ncpu > 64) ncpu = 64;
    if ((uint64_t)ncpu > P.nblocks) ncpu = (long)P.nblocks;
    struct blk *bs = calloc((size_t)ncpu, sizeof *bs);
    pthread_t th[64];
    if (!bs) { st = PTX_E_NOMEM; snprintf(err, errlen, "out of memory"); goto out; }
    int nb = 0;
    for (; nb < ncpu; nb++)
        if (blk_init(&bs[nb], &P)) break;
    if (nb == 0) { free(bs); st = PTX_E_NOMEM; snprintf(err, errlen, "out of memory for %u threads per block", P.nthreads); goto out; }
    int nth = 0;
    for (int i = 1; i < nb; i++, nth++)
        if (pthread_create(&th[i - 1], NULL, worker, &bs[i])) break;
    worker(&bs[0]);
    for (int i = 0; i < nth; i++) pthread_join(th[i], NULL);
    for (int i = 0; i < nb; i++) blk_free(&bs[i]);
    free(bs);
    st = P.status;
out:
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
