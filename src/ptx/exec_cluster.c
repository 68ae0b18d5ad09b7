/* SPDX-License-Identifier: Apache-2.0 */
/* Thread-block clusters: mapa (an address of this block's shared memory
 * in another block of the cluster), getctarank (the block an address is
 * in) and barrier.cluster.arrive / .wait.
 *
 * The blocks of a cluster run on one host thread, in rounds
 * (exec_launch.c), so the cluster's state needs no lock: the barrier's
 * count of arrivals and its phase live in the cluster's rank 0 block, each
 * thread's arrival (1 + the phase it arrived at) in its own block. The
 * phase completes when every thread of the cluster that has not exited has
 * arrived; a thread at barrier.cluster.wait goes on once the phase it
 * arrived at has completed, else its warp gives the others their turn and
 * tries again. Addresses (ex_cluster_ptr, exec.h): a .shared::cluster
 * address names its block in the bits from CLUSTER_SHIFT up. */
#include "exec.h"

/* threads of the cluster not exited */
static unsigned cluster_live(const struct blk *b)
{
    const struct plan *P = b->P;
    unsigned n = 0;
    for (unsigned r = 0; r < P->csize; r++)
        for (unsigned i = 0; i < P->nwarps; i++) n += popc32(b->cbase[r].warps[i].live);
    return n;
}

/* the phase completes when every live thread has arrived */
static void settle(struct blk *b)
{
    struct blk *z = &b->cbase[0];
    if (z->cb_arrived && z->cb_arrived >= cluster_live(b)) {
        z->cb_phase++;
        z->cb_arrived = 0;
    }
}

static int cbar(struct blk *b, struct warp *w, const struct ir_ins *in, uint32_t m, uint64_t *R)
{
    struct blk *z = &b->cbase[0];
    (void)R;
    if (in->sub == CB_ARRIVE) {
        ex_fence(); /* .release: this thread's writes before the others' reads after their wait */
        LANES(m) {
            int l = L;
            unsigned t = (unsigned)(w->id * 32 + l);
            if (b->cphase[t]) {
                ex_fail_at(b, w, l, in, PTX_E_SYNC, "barrier.cluster.arrive: the thread arrived before and has not "
                           "waited (barrier.cluster.wait) since");
                return -1;
            }
            b->cphase[t] = z->cb_phase + 1;
            z->cb_arrived++;
        }
        settle(b);
        return 0;
    }
    settle(b); /* threads may have exited since the last arrival */
    uint32_t waiting = 0;
    LANES(m) {
        int l = L;
        unsigned t = (unsigned)(w->id * 32 + l);
        if (b->cphase[t] && b->cphase[t] - 1 == z->cb_phase) waiting |= 1u << l;
    }
    if (waiting) { /* again after the others' turn */
        b->cwait += popc32(m);
        w->pc--;
        b->yield = 1;
        return 0;
    }
    LANES(m) b->cphase[w->id * 32 + L] = 0;
    ex_fence(); /* .acquire */
    return 0;
}

/* mapa: the address of a in the block of rank B; a names this block's
 * shared memory (or another's of the cluster) */
static int mapa(struct blk *b, struct warp *w, const struct ir_ins *in, uint32_t m, uint64_t *R)
{
    const struct plan *P = b->P;
    const uint64_t *A = R + (size_t)in->a * 32, *B = R + (size_t)in->b * 32;
    uint64_t *D = R + (size_t)in->d * 32;
    LANES(m) {
        int l = L;
        uint64_t a = A[l], r = B[l] & 0xffffffffu, off = 0;
        if (r >= P->csize) {
            ex_fail_at(b, w, l, in, PTX_E_ADDRESS, "mapa: block rank %llu outside the cluster of %u blocks",
                       (unsigned long long)r, P->csize);
            return -1;
        }
        int ok;
        if (in->space == SP_CLUSTER) {
            off = a & ((1ull << CLUSTER_SHIFT) - 1);
            ok = (a >> CLUSTER_SHIFT) <= P->csize && off < P->shsize;
        } else {
            const struct blk *o = ex_cluster_gen(b, a, 1);
            ok = o != NULL;
            if (ok) off = a - (uintptr_t)o->shared;
        }
        if (!ok) {
            ex_fail_at(b, w, l, in, PTX_E_ADDRESS, "mapa: address 0x%llx is not in the shared memory of a block of "
                       "the cluster", (unsigned long long)a);
            return -1;
        }
        uint64_t v = in->space == SP_CLUSTER ? ((r + 1) << CLUSTER_SHIFT) | off
                                             : (uint64_t)(uintptr_t)b->cbase[r].shared + off;
        D[l] = ir_type_size(in->type) == 4 ? v & 0xffffffffu : v;
    }
    return 0;
}

/* getctarank: the rank of the block whose shared memory holds a */
static int getctarank(struct blk *b, struct warp *w, const struct ir_ins *in, uint32_t m, uint64_t *R)
{
    const struct plan *P = b->P;
    const uint64_t *A = R + (size_t)in->a * 32;
    uint64_t *D = R + (size_t)in->d * 32;
    LANES(m) {
        int l = L;
        uint64_t a = A[l], hi = a >> CLUSTER_SHIFT;
        const struct blk *o = in->space == SP_CLUSTER ? (hi == 0 ? b : hi <= P->csize ? &b->cbase[hi - 1] : NULL)
                                                      : ex_cluster_gen(b, a, 1);
        if (!o || (in->space == SP_CLUSTER && (a & ((1ull << CLUSTER_SHIFT) - 1)) >= P->shsize)) {
            ex_fail_at(b, w, l, in, PTX_E_ADDRESS, "getctarank: address 0x%llx is not in the shared memory of a "
                       "block of the cluster", (unsigned long long)a);
            return -1;
        }
        D[l] = o->crank;
    }
    return 0;
}

ex_fn ex_cluster_select(const struct ir_ins *in)
{
    switch (in->op) {
    case OP_MAPA: return mapa;
    case OP_GETCTARANK: return getctarank;
    case OP_CBAR: return cbar;
    default: return NULL;
    }
}
