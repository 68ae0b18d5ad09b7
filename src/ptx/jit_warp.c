/* SPDX-License-Identifier: Apache-2.0 */
/* The PTX JIT's block runner for kernels with warp rendezvous (shfl.sync,
 * vote.sync, match.sync, redux.sync, elect.sync, bar.warp.sync, the
 * matrix instructions, volatile and strong accesses; docs/ptx-jit.md,
 * "Warp-level instructions").
 *
 * The compiled thread stops at such an instruction as at a barrier (a
 * resume point whose barid is JIT_WSTOP), with its operands in the
 * register file. Rounds: every thread that can go on runs until it exits or
 * stops; each lane stopped at a rendezvous is put in its warp's state as the
 * interpreter holds a waiting lane (wait bit, lpc, wsmask), after the
 * interpreter's own arrival checks (ex_wsync_arrive, by instruction, the
 * lowest pc first, as its groups come); then the interpreter's
 * ex_wsync_settle completes every rendezvous whose required lanes have all
 * come (or exited), through ex_warp_sync (directly when a warp's lanes all
 * came to one instruction with one mask that requires just them, what
 * ex_wsync_settle would find): the same code as the interpreter,
 * so the same results and the same errors, from whatever paths the lanes
 * came. The lanes of a completed rendezvous go on in the next round. When
 * no thread can go on: all at one block barrier, the next round resumes
 * them after it; else it is a deadlock, reported from the same state as the
 * interpreter would hold (jit_deadlock, ex_deadlock).
 *
 * Volatile and strong loads and stores (ld/st .volatile, .relaxed,
 * .acquire, .release, .mmio) of memory other threads reach: the thread
 * stops before one, and so does the warp's function inside a loop with no
 * bar.sync (for all its lanes: the lanes whose guard holds run it;
 * elsewhere it runs the access for its lanes at once, of .shared as a
 * weak access, jit_strong_inline). Once every lane of
 * the warp has stopped, each such instruction's lanes run it by the
 * interpreter's handler, the lowest pc first (pc_groups), and go on: the
 * lanes of a warp see each other's accesses in lockstep order, as in the
 * interpreter's group. The warp's turn goes on so until its lanes stop
 * elsewhere or it has run SLICE thread-instructions, as the interpreter's
 * turn, so a spin on a flag another warp sets completes, and printf's
 * lines come warp by warp. activemask the
 * same way: the lanes stopped at one get their group's mask, as the
 * interpreter's group at its pc (the warp's function gives its lanes); and
 * mbarrier (a try_wait that fails ends the warp's turn, as it yields in
 * the interpreter) and the calls of the library builtins (printf's lines
 * in the interpreter's order).
 *
 * Matrix instructions (mma, wmma, ldmatrix, stmatrix, movmatrix) take the
 * whole warp: their lanes wait apart (mwait) until every live lane of the
 * warp is at one, then the interpreter's handler runs for the lanes at the
 * lowest (matrix_group); one that cannot complete fails in that handler
 * with the interpreter's error.
 *
 * With the vector form (jit_kernel.warp, P->jvec) a warp whose lanes that
 * have not exited can all go on, from one point, runs through the warp's
 * function (jit_vec.c), which does shfl.sync, vote.sync and bar.warp.sync
 * as vectors, and match, redux and elect by the interpreter's code for its
 * lanes as one group, when their member mask is the lanes running; at any other
 * rendezvous, a divergence or a check that fails it hands the lanes on,
 * and they run one by one through the thread's function with entries
 * (jit_kernel.tail) to their stop here, as above.
 *
 * What this does not give: the interpreter's lockstep order of weak
 * accesses between two rendezvous (PTX orders them only through a
 * rendezvous, a fence or a strong access), and the lanes running together
 * at every instruction, which the deprecated non-.sync shfl and vote work
 * on (jit_subset.c refuses them). */
#include "jit.h"

#include <stdlib.h>

/* of the lanes left (not 0) of w, those at the lowest pc (*pc), as the
 * interpreter's groups come */
static uint32_t lowest_group(const struct warp *w, uint32_t left, int *pc)
{
    int p = w->lpc[__builtin_ctz(left)];
    for (uint32_t mm = left; mm; mm &= mm - 1)
        if (w->lpc[__builtin_ctz(mm)] < p) p = w->lpc[__builtin_ctz(mm)];
    uint32_t m = 0;
    for (uint32_t mm = left; mm; mm &= mm - 1)
        if (w->lpc[__builtin_ctz(mm)] == p) m |= 1u << __builtin_ctz(mm);
    *pc = p;
    return m;
}

/* the lanes of w waiting at matrix instructions (*at) whose pc is the
 * lowest run it by the interpreter's handler, as the interpreter runs its
 * group of the lowest pc: with fewer than all 32 lanes the handler fails
 * with its own error. Those lanes leave *at and are ready; -1 after a failure */
static int matrix_group(struct blk *b, struct warp *w, uint32_t *at, uint32_t *ready, uint64_t *R)
{
    int pc;
    uint32_t m = lowest_group(w, *at, &pc);
    if (b->P->h[pc](b, w, &b->P->m->ins[pc], m, R)) return -1;
    *at &= ~m;
    *ready |= m;
    return 0;
}

/* the lanes of w stopped before what the lanes at one pc run at once
 * (*at; jit_pc_group: volatile and strong accesses, activemask, mbarrier,
 * a builtin's call), every lane of w stopped: each instruction's lanes
 * whose guard holds run it by the interpreter's code, the lowest pc first,
 * as the interpreter's groups come, and go on. activemask but at the
 * lowest pc waits, as in the interpreter, whose lower groups run first and
 * join it there (the lanes of a loop its other lanes left), unless it has
 * waited SPIN_TURN times (*defer; the interpreter's turn for a spinning
 * group's others). -1 after a failure */
static int pc_groups(struct blk *b, struct warp *w, uint32_t *at, uint32_t *ready, uint64_t *R, unsigned *defer)
{
    const struct ir_ins *code = b->P->m->ins;
    int deferred = 0;
    for (uint32_t left = *at, first = 1; left; first = 0) {
        int pc;
        uint32_t m = lowest_group(w, left, &pc), run = 0;
        left &= ~m;
        const struct ir_ins *in = &code[pc];
        if (in->op == OP_ACTIVEMASK && !first && *defer < SPIN_TURN) {
            deferred = 1;
            continue;
        }
        for (uint32_t mm = m; mm; mm &= mm - 1) { /* the warp's function stops for a partial guard */
            int l = __builtin_ctz(mm);
            if (in->guard < 0 || (int)(R[(size_t)in->guard * 32 + (size_t)l] & 1) != in->gneg) run |= 1u << l;
        }
        if (run && jit_group_fn(in, b->P->h[pc])(b, w, in, run, R)) return -1;
        *at &= ~m;
        *ready |= m;
    }
    *defer = deferred ? *defer + 1 : 0;
    return 0;
}

/* the state is the warp's (the lanes that exited, gone, and that can go
 * on, ready, as masks) and the lane's (resume, by thread): a round costs a
 * few operations per warp, not per thread */
void jit_warp_block(struct blk *b, uint64_t lin, void (*begin)(struct blk *b, uint64_t lin))
{
    struct plan *P = b->P;
    const struct jit_kernel *k = P->jit;
    const struct ir_ins *code = P->m->ins;
    unsigned nth = P->nthreads;
    if (k->sregs_filled) begin(b, lin);
    else jit_begin_lite(b, lin);
    int32_t resume[1024];
    uint32_t gone[32], ready[32];   /* by warp: lanes that exited; lanes that can go on */
    uint32_t arrived[32];        /* by warp: lanes come to a rendezvous in this round */
    uint32_t mwait[32];          /* by warp: lanes waiting at a matrix instruction */
    uint32_t gwait[32];          /* by warp: lanes stopped before a volatile or strong
                                    access or activemask (pc_groups) */
    unsigned defer[32];          /* by warp: rounds an activemask waited (pc_groups) */
    struct jit_ctx c;
    if (jit_ctx_init(&c, b))
        return;
    memset(resume, 0, sizeof *resume * nth);
    memset(gone, 0, sizeof gone);
    memset(arrived, 0, sizeof arrived);
    memset(mwait, 0, sizeof mwait);
    memset(gwait, 0, sizeof gwait);
    memset(defer, 0, sizeof defer);
    for (unsigned i = 0; i < P->nwarps; i++) ready[i] = jit_lanes(nth, i);
    size_t base = (size_t)P->slotbase[P->entry] * 32;
    for (unsigned i = 0; i < P->nwarps; i++) b->warps[i].wait = b->warps[i].barw = 0;
    for (;;) {
        /* every thread that can go on, to its next stop; a warp whose
         * lanes that have not exited all can, from one point, through the
         * warp's function (jit_vec.c) first */
        for (unsigned i = 0; i < P->nwarps; i++) {
            unsigned t0 = i * 32;
            struct warp *w = &b->warps[i];
            int32_t *res = resume + t0;
            /* the warp's turn, as the interpreter's: on while its lanes stop only
             * before what the lanes at one pc run at once (pc_groups), up to
             * SLICE thread-instructions (a spin on another warp's flag) */
            for (uint64_t turn = b->icount;;) {
                uint32_t left = jit_lanes(nth, i) & ~gone[i], go = ready[i] & left;
                if (!go) break;
                c.w = w;
                c.Rw = w->R0 + base;
                if (P->jvec && go == left && jit_one_point(res, go) >= 0) {
                    jit_ctx_thread(&c, b, t0 + (unsigned)__builtin_ctz(go));
                    int32_t r = k->warp(c.Rw, &c, res[c.lane], go);
                    b->icount += c.icount;
                    c.icount = 0;
                    b->jvruns++;
                    if (r < 0 || b->st != PTX_OK) goto out;
                    jit_vec_handed(&c, r, go, res);
                    if (r == 0) { /* all exited */
                        gone[i] |= go;
                        w->live &= ~go;
                        break;
                    }
                    if (r <= k->nbars) { /* all at a block barrier, or before a volatile
                                            or strong access (the warp's function leaves
                                            any other rendezvous to the threads) */
                        ready[i] &= ~go;
                        if (k->barid[r - 1] == JIT_WSTOP) {
                            for (uint32_t mm = go; mm; mm &= mm - 1) w->lpc[__builtin_ctz(mm)] = k->barpc[r - 1];
                            gwait[i] |= go;
                        }
                        go = 0;
                    } else {
                        b->jvlanes += (unsigned)__builtin_popcount(go); /* on one by one from the entry */
                        k->ubc(c.Rw, go);
                    }
                }
                ready[i] &= ~go;
                for (; go; go &= go - 1) {
                    int l = __builtin_ctz(go);
                    jit_ctx_thread(&c, b, t0 + (unsigned)l);
                    int32_t r = (P->jvec ? k->tail : k->fn)(c.Rw + l, &c, res[l]);
                    b->icount += c.icount;
                    c.icount = 0;
                    if (r < 0 || b->st != PTX_OK) goto out;
                    uint32_t bit = 1u << l;
                    if (r == 0 || r > k->nbars) {
                        gone[i] |= bit;
                        w->live &= ~bit;
                        continue;
                    }
                    res[l] = r;
                    if (k->barid[r - 1] != JIT_WSTOP) continue;
                    const struct ir_ins *in = &code[k->barpc[r - 1]];
                    w->lpc[l] = k->barpc[r - 1];
                    if (in->op == OP_MMA) {
                        mwait[i] |= bit;
                        continue;
                    }
                    if (jit_pc_group(in)) {
                        gwait[i] |= bit; /* pc_groups */
                        continue;
                    }
                    w->wsmask[l] = (uint32_t)c.Rw[(size_t)in->e * 32 + (size_t)l];
                    arrived[i] |= bit;
                }
                if (!gwait[i] || b->icount - turn > SLICE) break;
                b->yield = 0;
                if (pc_groups(b, w, &gwait[i], &ready[i], w->R0 + base, &defer[i])) goto out;
                if (b->yield) break; /* an mbarrier.try_wait that failed: others' turn */
            }
        }
        /* the rendezvous whose lanes have all come (or exited) */
        int again = 0;
        uint32_t stuck = 0;
        for (unsigned i = 0; i < P->nwarps; i++) {
            struct warp *w = &b->warps[i];
            if (gwait[i]) {
                if (pc_groups(b, w, &gwait[i], &ready[i], w->R0 + base, &defer[i])) goto out;
                again = 1;
            }
            if (mwait[i] && mwait[i] == w->live) { /* every lane left is at a matrix instruction */
                if (matrix_group(b, w, &mwait[i], &ready[i], w->R0 + base)) goto out;
                again = 1;
            }
            uint32_t A = arrived[i];
            if (A && !w->wait) { /* the common case: the lanes all came to one instruction
                                    with one mask, the lanes it requires: it completes */
                int l0 = __builtin_ctz(A), pc = w->lpc[l0];
                uint32_t M = w->wsmask[l0];
                int one = 1;
                for (uint32_t mm = A & (A - 1); mm && one; mm &= mm - 1)
                    one = w->lpc[__builtin_ctz(mm)] == pc && w->wsmask[__builtin_ctz(mm)] == M;
                if (one && (code[pc].op == OP_WARPSYNC ? M : M & w->live) == A) {
                    arrived[i] = 0;
                    if (ex_warp_sync(b, w, A, M)) goto out;
                    ready[i] |= A;
                    again = 1;
                    continue;
                }
            }
            /* the arrival checks, once the lanes that exit have: each
             * instruction's lanes together, the lowest pc first, as the
             * interpreter's groups come */
            for (uint32_t left = arrived[i]; left;) {
                int pc;
                uint32_t m = lowest_group(w, left, &pc);
                if (ex_wsync_arrive(b, w, &code[pc], m, w->R0 + base)) goto out;
                left &= ~m;
            }
            w->wait |= arrived[i];
            arrived[i] = 0;
            uint32_t before = w->wait;
            if (!before) continue;
            if (ex_wsync_settle(b, w)) goto out;
            if (before & ~w->wait) {
                ready[i] |= before & ~w->wait;
                again = 1;
            }
            stuck |= w->wait;
        }
        if (b->icount - b->icount_seen > SLICE && ex_check_limits(b, &b->warps[0], NULL)) goto out;
        if (again) continue;
        /* lanes at a matrix instruction the rest of their warp will not
         * come to: the interpreter runs it with the lanes there */
        for (unsigned i = 0; i < P->nwarps && !again; i++)
            if (mwait[i]) {
                if (matrix_group(b, &b->warps[i], &mwait[i], &ready[i], b->warps[i].R0 + base)) goto out;
                again = 1;
            }
        if (again) continue;
        /* every thread that has not exited waits at a block barrier,
         * or lanes wait for lanes that will never come */
        unsigned waiting = 0;
        int bar = -1, mixed = stuck != 0, one = P->jonebar && !mixed;
        for (unsigned i = 0; i < P->nwarps && one; i++) one = !ready[i];
        if (one) /* the kernel's barriers have one number, no lane waits at a rendezvous
                    or can go on: every lane left waits at a block barrier (vec_block's) */
            for (unsigned i = 0; i < P->nwarps; i++) waiting += (jit_lanes(nth, i) & ~gone[i]) != 0;
        for (unsigned i = 0; i < P->nwarps && !mixed && !one; i++)
            for (uint32_t mm = jit_lanes(nth, i) & ~gone[i]; mm; mm &= mm - 1) {
                waiting++;
                int id = k->barid[resume[i * 32 + (unsigned)__builtin_ctz(mm)] - 1];
                if (bar < 0) bar = id;
                else if (bar != id) mixed = 1;
            }
        if (mixed) {
            uint8_t done[1024];
            for (unsigned t = 0; t < nth; t++) done[t] = gone[t / 32] >> (t % 32) & 1;
            jit_deadlock(b, resume, done);
            goto out;
        }
        if (!waiting) break;
        for (unsigned i = 0; i < P->nwarps; i++) ready[i] = jit_lanes(nth, i) & ~gone[i];
        if (P->jred) jit_bar_red(b, resume, ready, base);
    }
    if (b->icount - b->icount_seen > SLICE) ex_check_limits(b, &b->warps[0], NULL);
out:
    for (unsigned i = 0; i < P->nwarps; i++) {
        b->warps[i].live = 0;
        b->warps[i].active = 0;
        b->warps[i].wait = 0;
    }
    b->alive = 0;
}
