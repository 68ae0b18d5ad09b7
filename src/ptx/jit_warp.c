/* SPDX-License-Identifier: Apache-2.0 */
/* The PTX JIT's block runner for kernels with warp rendezvous (shfl.sync,
 * vote.sync, match.sync, redux.sync, elect.sync, bar.warp.sync, and the
 * matrix instructions; docs/ptx-jit.md, "Warp-level instructions").
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
 * Matrix instructions (mma, wmma, ldmatrix, stmatrix, movmatrix) take the
 * whole warp: their lanes wait apart (mwait) until every live lane of the
 * warp is at one, then the interpreter's handler runs for the lanes at the
 * lowest (matrix_group); one that cannot complete fails in that handler
 * with the interpreter's error.
 *
 * With the vector form (jit_kernel.warp, P->jvec) a warp whose lanes that
 * have not exited can all go on, from one point, runs through the warp's
 * function (jit_vec.c), which does shfl.sync, vote.sync and bar.warp.sync
 * as vectors when their member mask is the lanes running; at any other
 * rendezvous, a divergence or a check that fails it hands the lanes on,
 * and they run one by one through the thread's function with entries
 * (jit_kernel.tail) to their stop here, as above.
 *
 * What this does not give: the interpreter's lockstep order between two
 * rendezvous (weak accesses of lanes of a warp are not ordered there; PTX
 * orders them only through the rendezvous or a fence), and the group of
 * lanes running together (activemask, and the deprecated non-.sync shfl and
 * vote, which jit_subset.c refuses). */
#include "jit.h"

#include <stdlib.h>

/* the lanes of w waiting at matrix instructions (*at) whose pc is the
 * lowest run it by the interpreter's handler, as the interpreter runs its
 * group of the lowest pc: with fewer than all 32 lanes the handler fails
 * with its own error. Those lanes leave *at and are ready; -1 after a failure */
static int matrix_group(struct blk *b, struct warp *w, uint32_t *at, uint8_t *ready, uint64_t *R)
{
    int pc = w->lpc[__builtin_ctz(*at)];
    for (uint32_t mm = *at; mm; mm &= mm - 1)
        if (w->lpc[__builtin_ctz(mm)] < pc) pc = w->lpc[__builtin_ctz(mm)];
    uint32_t m = 0;
    for (uint32_t mm = *at; mm; mm &= mm - 1)
        if (w->lpc[__builtin_ctz(mm)] == pc) m |= 1u << __builtin_ctz(mm);
    if (b->P->h[pc](b, w, &b->P->m->ins[pc], m, R)) return -1;
    *at &= ~m;
    for (uint32_t mm = m; mm; mm &= mm - 1) ready[__builtin_ctz(mm)] = 1;
    return 0;
}

void jit_warp_block(struct blk *b, uint64_t lin, void (*begin)(struct blk *b, uint64_t lin))
{
    struct plan *P = b->P;
    const struct jit_kernel *k = P->jit;
    const struct ir_ins *code = P->m->ins;
    unsigned nth = P->nthreads;
    if (k->sregs_filled) begin(b, lin);
    else jit_begin_lite(b, lin);
    int32_t resume[1024];
    uint8_t done[1024], ready[1024];
    uint32_t arrived[32];        /* by warp: lanes come to a rendezvous in this round */
    uint32_t mwait[32];          /* by warp: lanes waiting at a matrix instruction */
    struct jit_ctx c;
    uint64_t vruns = 0, vhanded = 0;
    if (jit_ctx_init(&c, b))
        return;
    memset(resume, 0, sizeof resume);
    memset(done, 0, sizeof done);
    memset(ready, 1, sizeof ready);
    memset(arrived, 0, sizeof arrived);
    memset(mwait, 0, sizeof mwait);
    size_t base = (size_t)P->slotbase[P->entry] * 32;
    for (unsigned i = 0; i < P->nwarps; i++) b->warps[i].wait = b->warps[i].barw = 0;
    for (;;) {
        /* every thread that can go on, to its next stop; a warp whose
         * lanes that have not exited all can, from one point, through the
         * warp's function (jit_vec.c) first */
        for (unsigned i = 0; i < P->nwarps; i++) {
            unsigned t0 = i * 32, n = nth - t0 < 32 ? nth - t0 : 32;
            struct warp *w = &b->warps[i];
            uint32_t go = 0, left = 0;
            int same = 1;
            for (unsigned l = 0; l < n; l++) {
                if (done[t0 + l]) continue;
                left |= 1u << l;
                if (!ready[t0 + l]) continue;
                if (go && resume[t0 + l] != resume[t0 + (unsigned)__builtin_ctz(go)]) same = 0;
                go |= 1u << l;
            }
            if (!go) continue;
            c.w = w;
            c.Rw = w->R0 + base;
            if (P->jvec && same && go == left) {
                c.lane = __builtin_ctz(go);
                c.tid = t0 + (unsigned)c.lane;
                c.local = b->local + (size_t)c.tid * P->lstride;
                int32_t r = k->warp(c.Rw, &c, resume[c.tid], go);
                b->icount += c.icount;
                c.icount = 0;
                vruns++;
                if (r < 0 || b->st != PTX_OK) goto out;
                for (uint32_t mm = go; mm; mm &= mm - 1) resume[t0 + (unsigned)__builtin_ctz(mm)] = r;
                if (r == 0) { /* all exited */
                    for (uint32_t mm = go; mm; mm &= mm - 1) done[t0 + (unsigned)__builtin_ctz(mm)] = 1;
                    w->live &= ~go;
                    continue;
                }
                if (r <= k->nbars) { /* all at a block barrier (the warp's function
                                        leaves a rendezvous to the threads) */
                    for (uint32_t mm = go; mm; mm &= mm - 1) ready[t0 + (unsigned)__builtin_ctz(mm)] = 0;
                    continue;
                }
                vhanded += (unsigned)__builtin_popcount(go); /* on one by one from the entry */
            }
            for (; go; go &= go - 1) {
                unsigned t = t0 + (unsigned)__builtin_ctz(go);
                c.lane = (int)(t % 32);
                c.tid = t;
                c.local = b->local + (size_t)t * P->lstride;
                int32_t r = (P->jvec ? k->tail : k->fn)(c.Rw + c.lane, &c, resume[t]);
                b->icount += c.icount;
                c.icount = 0;
                ready[t] = 0;
                if (r < 0 || b->st != PTX_OK) goto out;
                uint32_t bit = 1u << c.lane;
                if (r == 0 || r > k->nbars) {
                    done[t] = 1;
                    w->live &= ~bit;
                    continue;
                }
                resume[t] = r;
                if (k->barid[r - 1] != JIT_WSTOP) continue;
                const struct ir_ins *in = &code[k->barpc[r - 1]];
                w->lpc[c.lane] = k->barpc[r - 1];
                if (in->op == OP_MMA) {
                    mwait[i] |= bit;
                    continue;
                }
                w->wsmask[c.lane] = (uint32_t)c.Rw[(size_t)in->e * 32 + (size_t)c.lane];
                arrived[i] |= bit;
            }
        }
        /* the rendezvous whose lanes have all come (or exited) */
        int again = 0;
        uint32_t stuck = 0;
        for (unsigned i = 0; i < P->nwarps; i++) {
            struct warp *w = &b->warps[i];
            if (mwait[i] && mwait[i] == w->live) { /* every lane left is at a matrix instruction */
                if (matrix_group(b, w, &mwait[i], ready + i * 32, w->R0 + base)) goto out;
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
                    for (uint32_t mm = A; mm; mm &= mm - 1) ready[i * 32 + (unsigned)__builtin_ctz(mm)] = 1;
                    again = 1;
                    continue;
                }
            }
            /* the arrival checks, once the lanes that exit have: each
             * instruction's lanes together, the lowest pc first, as the
             * interpreter's groups come */
            for (uint32_t left = arrived[i]; left;) {
                int pc = w->lpc[__builtin_ctz(left)];
                for (uint32_t mm = left; mm; mm &= mm - 1)
                    if (w->lpc[__builtin_ctz(mm)] < pc) pc = w->lpc[__builtin_ctz(mm)];
                uint32_t m = 0;
                for (uint32_t mm = left; mm; mm &= mm - 1)
                    if (w->lpc[__builtin_ctz(mm)] == pc) m |= 1u << __builtin_ctz(mm);
                if (ex_wsync_arrive(b, w, &code[pc], m, w->R0 + base)) goto out;
                left &= ~m;
            }
            w->wait |= arrived[i];
            arrived[i] = 0;
            uint32_t before = w->wait;
            if (!before) continue;
            if (ex_wsync_settle(b, w)) goto out;
            for (uint32_t mm = before & ~w->wait; mm; mm &= mm - 1) {
                ready[i * 32 + (unsigned)__builtin_ctz(mm)] = 1;
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
                if (matrix_group(b, &b->warps[i], &mwait[i], ready + i * 32, b->warps[i].R0 + base)) goto out;
                again = 1;
            }
        if (again) continue;
        if (stuck) { /* lanes wait for lanes that will never come */
            jit_deadlock(b, resume, done);
            goto out;
        }
        /* every thread that has not exited waits at a block barrier */
        unsigned waiting = 0;
        int bar = -1, mixed = 0;
        for (unsigned t = 0; t < nth; t++) {
            if (done[t]) continue;
            waiting++;
            int id = k->barid[resume[t] - 1];
            if (bar < 0) bar = id;
            else if (bar != id) mixed = 1;
        }
        if (!waiting) break;
        if (mixed) {
            jit_deadlock(b, resume, done);
            goto out;
        }
        for (unsigned t = 0; t < nth; t++) ready[t] = !done[t];
    }
    if (b->icount - b->icount_seen > SLICE) ex_check_limits(b, &b->warps[0], NULL);
out:
    if (vruns) {
        atomic_fetch_add(&P->jvruns, vruns);
        atomic_fetch_add(&P->jvlanes, vhanded);
    }
    for (unsigned i = 0; i < P->nwarps; i++) {
        b->warps[i].live = 0;
        b->warps[i].active = 0;
        b->warps[i].wait = 0;
    }
    b->alive = 0;
}
