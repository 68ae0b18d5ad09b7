/* The executor: runs a kernel of the internal form on the host.
 *
 * Blocks are spread over host threads (an atomic counter hands out block
 * indices). A thread runs one block at a time: its warps one after the
 * other, each until all its lanes wait at a barrier or have exited; when
 * every warp waits, the barrier opens. A warp executes an instruction for
 * all its active lanes at once (registers are laid out slot-major, 32
 * lanes per slot). Divergence: each lane has its own pc; the warp runs the
 * lanes with the smallest pc together, and lanes meet again when the
 * running group reaches the pc where others wait (structured code
 * reconverges at the join point, loops after the loop). */
#include "exec.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static atomic_ullong total_ins;
uint64_t ptx_instructions(void) { return atomic_load(&total_ins); }

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
        const struct ptx_launch *Lp = P->l;
        unsigned tid = (unsigned)(at->w->id * 32 + at->lane);
        f->has_thread = 1;
        memcpy(f->block, b->ctaid, sizeof f->block);
        f->thread[0] = tid % Lp->block[0];
        f->thread[1] = tid / Lp->block[0] % Lp->block[1];
        f->thread[2] = tid / (Lp->block[0] * Lp->block[1]);
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
    if (in->name >= 0) snprintf(f->opcode, sizeof f->opcode, "%s", M->strings + in->name);
    const char *file = in->srcfile ? ir_file_name(M, in->srcfile) : NULL;
    if (file) {
        snprintf(f->file, sizeof f->file, "%s", file);
        f->line = in->srcline;
        f->column = in->srccol;
    }
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
        if (in && n < P->errlen) {
            k = snprintf(P->err + n, P->errlen - n, " at PTX line %d", in->line);
            n = k < 0 ? n : n + (size_t)k < P->errlen ? n + (size_t)k : P->errlen - 1;
            const char *file = in->srcfile ? ir_file_name(P->m, in->srcfile) : NULL;
            if (file && n < P->errlen) {
                k = snprintf(P->err + n, P->errlen - n, " (%s:%d)", file, in->srcline);
                n = k < 0 ? n : n + (size_t)k < P->errlen ? n + (size_t)k : P->errlen - 1;
            }
        }
        if (at && at->w && n < P->errlen) {
            const struct ptx_launch *Lp = P->l;
            unsigned tid = (unsigned)(at->w->id * 32 + at->lane);
            snprintf(P->err + n, P->errlen - n, " in block (%u,%u,%u), thread (%u,%u,%u)",
                     b->ctaid[0], b->ctaid[1], b->ctaid[2], tid % Lp->block[0],
                     tid / Lp->block[0] % Lp->block[1], tid / (Lp->block[0] * Lp->block[1]));
        }
        if (P->l->fault) fill_fault(b, at, st);
    }
    pthread_mutex_unlock(&P->lock);
    atomic_store(&P->stop, 1);
}

/* ---- scheduling ----------------------------------------------------------- */
static void reschedule(struct warp *w)
{
    uint32_t cand = w->live & ~w->barred;
    w->active = 0;
    w->merge_pc = PC_NONE;
    if (!cand) { w->pc = PC_NONE; return; }
    int minpc = PC_NONE;
    for (uint32_t mm = cand; mm; mm &= mm - 1) {
        int l = __builtin_ctz(mm);
        if (w->lpc[l] < minpc) minpc = w->lpc[l];
    }
    uint32_t act = 0;
    int next = PC_NONE;
    for (uint32_t mm = cand; mm; mm &= mm - 1) {
        int l = __builtin_ctz(mm);
        if (w->lpc[l] == minpc) act |= 1u << l;
        else if (w->lpc[l] < next) next = w->lpc[l];
    }
    w->active = act;
    w->pc = minpc;
    w->merge_pc = next;
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

/* pc reached merge_pc: the waiting lanes there join */
static void merge(struct warp *w)
{
    uint32_t cand = w->live & ~w->barred & ~w->active;
    int next = PC_NONE;
    for (uint32_t mm = cand; mm; mm &= mm - 1) {
        int l = __builtin_ctz(mm);
        if (w->lpc[l] == w->pc) w->active |= 1u << l;
        else if (w->lpc[l] < next) next = w->lpc[l];
    }
    w->merge_pc = next;
}

/* ---- the interpreter ------------------------------------------------------- */
enum { W_YIELD, W_ERR };

/* the instruction families of the other files */
typedef int (*ex_fn)(struct blk *, struct warp *, const struct ir_ins *, uint32_t, uint64_t *);
static const ex_fn family[OP_COUNT] = {
    [OP_MOV] = ex_arith, [OP_SREG_DYN] = ex_arith, [OP_CVT] = ex_arith, [OP_ADD] = ex_arith,
    [OP_SUB] = ex_arith, [OP_MUL] = ex_arith, [OP_MAD] = ex_arith, [OP_FMA] = ex_arith,
    [OP_DIV] = ex_arith, [OP_REM] = ex_arith, [OP_ABS] = ex_arith, [OP_NEG] = ex_arith,
    [OP_MIN] = ex_arith, [OP_MAX] = ex_arith, [OP_AND] = ex_arith, [OP_OR] = ex_arith,
    [OP_XOR] = ex_arith, [OP_NOT] = ex_arith, [OP_CNOT] = ex_arith, [OP_SHL] = ex_arith,
    [OP_SHR] = ex_arith, [OP_SETP] = ex_arith, [OP_SET] = ex_arith, [OP_SELP] = ex_arith,
    [OP_SLCT] = ex_arith, [OP_RCP] = ex_arith, [OP_SQRT] = ex_arith, [OP_RSQRT] = ex_arith,
    [OP_EX2] = ex_arith, [OP_LG2] = ex_arith, [OP_SIN] = ex_arith, [OP_COS] = ex_arith,
    [OP_TANH] = ex_arith, [OP_BFE] = ex_arith, [OP_BFI] = ex_arith, [OP_BREV] = ex_arith,
    [OP_CLZ] = ex_arith, [OP_POPC] = ex_arith, [OP_PRMT] = ex_arith, [OP_SHF] = ex_arith,
    [OP_LOP3] = ex_arith, [OP_SAD] = ex_arith, [OP_MUL24] = ex_arith, [OP_MAD24] = ex_arith,
    [OP_COPYSIGN] = ex_arith, [OP_TESTP] = ex_arith,
    [OP_LD] = ex_mem, [OP_ST] = ex_mem, [OP_CVTA] = ex_mem, [OP_CVTA_TO] = ex_mem,
    [OP_ATOM] = ex_mem, [OP_RED] = ex_mem,
    [OP_SHFL] = ex_warp, [OP_VOTE] = ex_warp, [OP_ACTIVEMASK] = ex_warp,
};

static void do_call_builtin(struct blk *b, struct warp *w, const struct ir_ins *in, uint32_t m, const struct ir_call *c);

static int warp_run(struct blk *b, struct warp *w)
{
    struct plan *P = b->P;
    const struct ptx_module *M = P->m;
    const struct ir_ins *code = M->ins;
    uint64_t icount = 0;
    int rc = W_YIELD;
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
        icount += (uint64_t)__builtin_popcount(m);
        switch (in->op) {
        case OP_NOP:
        case OP_MEMBAR:
            if (in->op == OP_MEMBAR) atomic_thread_fence(memory_order_seq_cst);
            break;
        default: {
            ex_fn fn = family[in->op];
            if (!fn) {
                ex_fail_at(b, w, __builtin_ctz(m | 0x80000000u), in, PTX_E_UNSUPPORTED, "unsupported instruction");
                return W_ERR;
            }
            if (fn(b, w, in, m, R)) return W_ERR;
            break;
        }
        case OP_BRA: {
            int target = (int)in->imm;
            if (target <= w->pc && P->l->max_instructions && b->icount + icount > P->l->max_instructions) {
                ex_fail(b, PTX_E_TRAP, "instruction limit reached at PTX line %d", in->line);
                return W_ERR;
            }
            if (m == w->active) {
                if (w->merge_pc == PC_NONE || target < w->merge_pc) { w->pc = target; goto next_ins; }
                diverge(w, m, target);
                goto next_ins;
            }
            if (m == 0) break;
            diverge(w, m, target);
            goto next_ins;
        }
        case OP_CALL: {
            if (!m) break;
            const struct ir_call *c = &M->calls[in->imm];
            const struct ir_func *g = &M->funcs[c->callee];
            if (g->builtin) {
                do_call_builtin(b, w, in, m, c);
                if (b->st != PTX_OK) return W_ERR;
                break;
            }
            unsigned fc = P->fparambase[in->fn], fg = P->fparambase[c->callee];
            LANES(m) {
                int l = L;
                unsigned tid = (unsigned)(w->id * 32 + l);
                unsigned char *fp = b->fparam + (size_t)tid * P->fstride;
                for (int i = 0; i < c->nargs; i++)
                    memmove(fp + fg + c->args[i].to, fp + fc + c->args[i].from, c->args[i].size);
                if (w->depth[l] >= MAXDEPTH) { ex_fail_at(b, w, l, in, PTX_E_STACK, "call stack deeper than %d", MAXDEPTH); return W_ERR; }
                w->rstack[l][w->depth[l]] = w->pc + 1;
                w->cstack[l][w->depth[l]] = (int)in->imm;
                w->depth[l]++;
            }
            if (m == w->active && w->merge_pc == PC_NONE) { w->pc = g->start; goto next_ins; }
            diverge(w, m, g->start);
            goto next_ins;
        }
        case OP_RET: {
            if (!m) break;
            int rpc = -1, same = 1;
            LANES(m) {
                int l = L;
                if (w->depth[l] == 0) { same = 0; w->lpc[l] = PC_NONE; w->live &= ~(1u << l); continue; }
                int d = --w->depth[l];
                const struct ir_call *c = &M->calls[w->cstack[l][d]];
                const struct ir_ins *ci = &code[w->rstack[l][d] - 1];
                unsigned tid = (unsigned)(w->id * 32 + l);
                unsigned char *fp = b->fparam + (size_t)tid * P->fstride;
                unsigned fc = P->fparambase[ci->fn], fg = P->fparambase[c->callee];
                for (int i = 0; i < c->nrets; i++)
                    memmove(fp + fc + c->rets[i].to, fp + fg + c->rets[i].from, c->rets[i].size);
                w->lpc[l] = w->rstack[l][d];
                if (rpc < 0) rpc = w->lpc[l];
                else if (rpc != w->lpc[l]) same = 0;
            }
            if (same && m == w->active && w->merge_pc == PC_NONE && rpc >= 0) { w->pc = rpc; goto next_ins; }
            for (uint32_t mm = w->active & ~m; mm; mm &= mm - 1) w->lpc[__builtin_ctz(mm)] = w->pc + 1;
            reschedule(w);
            goto next_ins;
        }
        case OP_EXIT:
            if (!m) break;
            w->live &= ~m;
            for (uint32_t mm = m; mm; mm &= mm - 1) w->lpc[__builtin_ctz(mm)] = PC_NONE;
            w->active &= ~m;
            if (!w->active) { reschedule(w); goto next_ins; }
            break;
        case OP_TRAP:
            if (!m) break;
            ex_fail_at(b, w, __builtin_ctz(m), in, PTX_E_TRAP, "trap");
            return W_ERR;
        case OP_BAR:
        case OP_BAR_RED:
            if (in->op == OP_BAR_RED) {
                const uint64_t *C = R + (size_t)in->c * 32;
                int cneg = (in->flags & F_ANEG) != 0;
                LANES(m) {
                    int l = L;
                    int v = (int)(C[l] & 1) ^ cneg;
                    b->red_popc += v;
                    b->red_and &= v;
                    b->red_or |= v;
                }
                w->red_d = in->d >= 0 ? R + (size_t)in->d * 32 : b->sink;
                w->red_mask |= m;
                w->red_pending = in->sub;
            }
            w->barred |= w->active;
            for (uint32_t mm = w->active; mm; mm &= mm - 1) w->lpc[__builtin_ctz(mm)] = w->pc + 1;
            reschedule(w);
            goto next_ins;
        }
        w->pc++;
    next_ins:
        ;
    }
    b->icount += icount;
    return rc;
}

/* vprintf, __assertfail and cudaGraphSetConditional */
static void do_call_builtin(struct blk *b, struct warp *w, const struct ir_ins *in, uint32_t m, const struct ir_call *c)
{
    struct plan *P = b->P;
    const struct ir_func *g = &P->m->funcs[c->callee];
    unsigned fc = P->fparambase[in->fn];
    LANES(m) {
        int l = L;
        unsigned tid = (unsigned)(w->id * 32 + l);
        unsigned char *fp = b->fparam + (size_t)tid * P->fstride + fc;
        uint64_t av[5] = { 0, 0, 0, 0, 0 };
        for (int i = 0; i < c->nargs && i < 5; i++)
            memcpy(&av[i], fp + c->args[i].from, c->args[i].size > 8 ? 8 : c->args[i].size);
        if (g->builtin == OP_SETCOND) {
            /* the conditional node's value, in the executable graph the
             * kernel runs from (the host's to find) */
            const struct ptx_host *h = &P->l->host;
            if (!h->set_cond || h->set_cond(h->cond_cookie, av[0], (unsigned)av[1])) {
                ex_fail(b, PTX_E_TRAP, "cudaGraphSetConditional(0x%llx, %u): %s", (unsigned long long)av[0],
                        (unsigned)av[1], h->set_cond ? "the handle is not one of the graph's conditional handles"
                                                     : "the kernel does not run from a graph");
                return;
            }
            continue;
        }
        if (g->builtin == OP_VPRINTF) {
            const unsigned char *fmt = NULL, *args = NULL;
            size_t fl = ex_read_dev(b, av[0], &fmt);
            size_t al = av[1] ? ex_read_dev(b, av[1], &args) : 0;
            int32_t count = -1;
            if (fmt) {
                char buf[2048];
                size_t n = ptx_format((const char *)fmt, fl, args, al, buf, sizeof buf, ex_read_dev, b);
                if (n > sizeof buf) n = sizeof buf;
                if (P->l->host.print) P->l->host.print(P->l->host.cookie, buf, n);
                count = (int32_t)n;
            }
            for (int i = 0; i < c->nrets; i++)
                memcpy(fp + c->rets[i].to, &count, c->rets[i].size < 4 ? c->rets[i].size : 4);
        } else {
            const unsigned char *msg = NULL, *file = NULL, *fn = NULL;
            size_t ml = ex_read_dev(b, av[0], &msg), fl = ex_read_dev(b, av[1], &file), nl = ex_read_dev(b, av[3], &fn);
            unsigned x = tid % P->l->block[0], y = tid / P->l->block[0] % P->l->block[1], z = tid / (P->l->block[0] * P->l->block[1]);
            ex_fail(b, PTX_E_ASSERT, "%.*s:%u: %.*s: block: [%u,%u,%u], thread: [%u,%u,%u] Assertion `%.*s` failed.",
                 file ? (int)strnlen((const char *)file, fl) : 1, file ? (const char *)file : "?", (unsigned)av[2],
                 fn ? (int)strnlen((const char *)fn, nl) : 1, fn ? (const char *)fn : "?",
                 b->ctaid[0], b->ctaid[1], b->ctaid[2], x, y, z,
                 msg ? (int)strnlen((const char *)msg, ml) : 1, msg ? (const char *)msg : "?");
            return;
        }
    }
}

/* ---- blocks ------------------------------------------------------------------ */
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
                for (int l = 0; l < 32; l++) {
                    unsigned tid = (unsigned)(w->id * 32 + l);
                    uint64_t v;
                    switch (c->val) {
                    case S_TID_X: v = tid % Lp->block[0]; break;
                    case S_TID_Y: v = tid / Lp->block[0] % Lp->block[1]; break;
                    case S_TID_Z: v = tid / (Lp->block[0] * Lp->block[1]); break;
                    case S_NTID_X: v = Lp->block[0]; break;
                    case S_NTID_Y: v = Lp->block[1]; break;
                    case S_NTID_Z: v = Lp->block[2]; break;
                    case S_CTAID_X: v = b->ctaid[0]; break;
                    case S_CTAID_Y: v = b->ctaid[1]; break;
                    case S_CTAID_Z: v = b->ctaid[2]; break;
                    case S_NCTAID_X: v = Lp->grid[0]; break;
                    case S_NCTAID_Y: v = Lp->grid[1]; break;
                    case S_NCTAID_Z: v = Lp->grid[2]; break;
                    case S_LANEID: v = (uint64_t)l; break;
                    case S_WARPID: v = (uint64_t)w->id; break;
                    case S_NWARPID: v = P->nwarps; break;
                    case S_SMID: v = (uint64_t)(b->ctaid[0] % (Lp->smcount ? Lp->smcount : 1)); break;
                    case S_NSMID: v = Lp->smcount ? Lp->smcount : 1; break;
                    case S_GRIDID: v = 1; break;
                    case S_LANEMASK_EQ: v = 1u << l; break;
                    case S_LANEMASK_LE: v = (uint32_t)((2ull << l) - 1); break;
                    case S_LANEMASK_LT: v = (1u << l) - 1; break;
                    case S_LANEMASK_GE: v = ~((1u << l) - 1); break;
                    case S_LANEMASK_GT: v = (uint32_t)~((2ull << l) - 1); break;
                    case S_DYN_SMEM: v = Lp->dyn_shared; break;
                    default: v = P->shsize; break;
                    }
                    S[l] = v;
                }
                continue;
            }
            if (sregs_only) continue;
            uint64_t v;
            switch (c->kind) {
            case K_GLOBAL: v = Lp->gaddr && (c->val & 0xffffff) < M->nglobals ? Lp->gaddr[c->val & 0xffffff] + (uint64_t)(c->val >> 24) : 0; break;
            case K_SHARED: v = c->val >= 0 ? (uint64_t)c->val : P->static_shared + (uint64_t)(-1 - c->val); break;
            case K_LOCAL: v = P->localbase[f] + (uint64_t)c->val; break;
            case K_FPARAM: v = P->fparambase[f] + (uint64_t)c->val; break;
            default: v = (uint64_t)c->val; break; /* K_IMM, K_PARAM */
            }
            for (int l = 0; l < 32; l++) S[l] = v;
        }
    }
}

static void run_block(struct blk *b, uint64_t lin)
{
    struct plan *P = b->P;
    const struct ptx_launch *Lp = P->l;
    b->ctaid[0] = (unsigned)(lin % Lp->grid[0]);
    b->ctaid[1] = (unsigned)(lin / Lp->grid[0] % Lp->grid[1]);
    b->ctaid[2] = (unsigned)(lin / ((uint64_t)Lp->grid[0] * Lp->grid[1]));
    memset(b->shared, 0, P->shsize);
    int start = P->m->funcs[P->entry].start;
    for (unsigned i = 0; i < P->nwarps; i++) {
        struct warp *w = &b->warps[i];
        unsigned left = P->nthreads - i * 32;
        w->live = left >= 32 ? 0xffffffffu : (1u << left) - 1;
        w->barred = 0;
        for (int l = 0; l < 32; l++) { w->lpc[l] = start; w->depth[l] = 0; }
        w->red_pending = -1;
        w->red_mask = 0;
        reschedule(w);
        fill_consts(b, w, 1);
    }
    b->red_popc = 0; b->red_and = 1; b->red_or = 0;
    for (;;) {
        int waiting = 0;
        for (unsigned i = 0; i < P->nwarps; i++) {
            struct warp *w = &b->warps[i];
            if (w->active && warp_run(b, w) == W_ERR) return;
            if (w->barred & w->live) waiting = 1;
        }
        if (!waiting) return;
        int popc = b->red_popc, band = b->red_and, bor = b->red_or;
        for (unsigned i = 0; i < P->nwarps; i++) { /* the barrier opens */
            struct warp *w = &b->warps[i];
            if (w->red_pending >= 0) {
                uint64_t v = w->red_pending == 0 ? (uint64_t)popc : w->red_pending == 1 ? (uint64_t)band : (uint64_t)bor;
                for (uint32_t mm = w->red_mask; mm; mm &= mm - 1) w->red_d[__builtin_ctz(mm)] = v;
                w->red_pending = -1;
                w->red_mask = 0;
            }
            w->barred = 0;
            reschedule(w);
        }
        b->red_popc = 0; b->red_and = 1; b->red_or = 0;
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
    if (!b->shared || !b->local || !b->fparam || !b->warps || !b->regs) {
        blk_free(b);
        return -1;
    }
    for (unsigned i = 0; i < P->nwarps; i++) {
        b->warps[i].R0 = b->regs + (size_t)i * (size_t)P->nslots * 32;
        b->warps[i].id = (int)i;
    }
    for (int i = 0; i < NCACHE; i++) b->clo[i] = b->chi[i] = 0;
    return 0;
}

/* functions reachable from f get frames */
static void layout(struct plan *P, int f)
{
    const struct ptx_module *M = P->m;
    if (P->slotbase[f] >= 0) return;
    const struct ir_func *fn = &M->funcs[f];
    P->slotbase[f] = P->nslots;
    P->nslots += fn->nslots;
    P->localbase[f] = P->lstride;
    P->lstride += (fn->local_bytes + 15) & ~15u;
    P->fparambase[f] = P->fstride;
    P->fstride += fn->builtin ? 64 : (fn->fparam_bytes + 15) & ~15u;
    if (fn->builtin) return;
    for (int k = fn->start; k < fn->end; k++)
        if (M->ins[k].op == OP_CALL) layout(P, M->calls[M->ins[k].imm].callee);
}

enum ptx_status ptx_run(const struct ptx_module *m, int entry, const struct ptx_launch *l, char *err, size_t errlen)
{
    char dummy[8];
    if (!err || !errlen) { err = dummy; errlen = sizeof dummy; }
    err[0] = 0;
    if (ptx_entry_check(m, entry, err, errlen)) return PTX_E_UNSUPPORTED;
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
    enum ptx_status st = PTX_OK;
    if (!P.slotbase || !P.localbase || !P.fparambase) { st = PTX_E_NOMEM; snprintf(err, errlen, "out of memory"); goto out; }
    for (int i = 0; i < m->nfuncs; i++) P.slotbase[i] = -1;
    layout(&P, entry);
    P.static_shared = (m->shared_bytes + 15) & ~15u;
    P.shsize = P.static_shared + l->dyn_shared;
    P.nthreads = l->block[0] * l->block[1] * l->block[2];
    P.nwarps = (P.nthreads + 31) / 32;
    P.nblocks = (uint64_t)l->grid[0] * l->grid[1] * l->grid[2];
    if (l->param_bytes < m->funcs[entry].param_bytes) { st = PTX_E_TRAP; snprintf(err, errlen, "parameter buffer too small"); goto out; }
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
    free(P.slotbase);
    free(P.localbase);
    free(P.fparambase);
    pthread_mutex_destroy(&P.lock);
    return st;
}
