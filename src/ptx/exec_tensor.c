/* SPDX-License-Identifier: Apache-2.0 */
/* cp.async.bulk.tensor in the tile mode (PTX ISA, "Tensor Copy"): a box
 * of a tensor, described by a tensor map (tmap.h, written by
 * cuTensorMapEncodeTiled), copied between global memory and shared
 * memory at once when the instruction runs, as cp.async.bulk is; a load
 * then performs complete_tx of the box's bytes on its mbarrier, a store
 * belongs to a bulk group whose wait has nothing left to wait for. A
 * multicast load (.multicast::cluster) writes the box into the shared
 * memory of each block of its ctaMask, at the issuing block's offsets,
 * and completes the tx on each one's mbarrier there; a reduction
 * (cp.reduce.async.bulk.tensor) combines the box into the tensor element by
 * element, each atomically, with the operation and the map's element type
 * (add, min, max, inc, dec, and, or, xor where the PTX ISA allows them).
 *
 * The box's elements lie in shared memory in order, dimension 0 fastest.
 * Elements outside the tensor (a coordinate below 0 or at or past its
 * dimension) read as zero, or NaN with the map's NaN fill, and are not
 * written by a store; the mbarrier still counts the whole box. A swizzled
 * map permutes the 16-byte chunks of each span-sized row of shared memory
 * by the address bits above them (PTX ISA, "Tensor Swizzling Modes"):
 * with a span of 2^k * 16 bytes, address bits 4..4+k-1 are XORed with
 * bits 7..7+k-1, so the pattern repeats every 8 rows.
 *
 * The map is the program's memory: it is checked before use (magic, kind,
 * rank, element size, box, strides), and a map the emulator did not write
 * fails the launch. Not run (the launch fails naming it): the im2col
 * maps, interleaved layouts, the packed 4- and 6-bit types, element
 * strides above 1, the 128B_ATOM swizzles, and a swizzled box whose inner
 * row is not exactly the span. */
#include "exec.h"

#include <string.h>

#include "tmap.h"

/* a memory fault of lane l of the copy, as an access (op) of space: -1 */
static int fault(struct blk *b, struct warp *w, int l, const struct ir_ins *in, int op, int space, uint64_t a,
                 unsigned n, int misaligned)
{
    struct ir_ins acc = { .op = (uint16_t)op, .space = (uint8_t)space, .line = in->line, .name = in->name, .fn = in->fn };
    ex_mem_fault(b, w, l, &acc, a, n, misaligned);
    return -1;
}

/* the map at generic address a, copied and checked; 0, or -1 with the
 * launch failed */
static int get_map(struct blk *b, struct warp *w, int l, const struct ir_ins *in, uint64_t a, struct tmap *m)
{
    unsigned tid = (unsigned)(w->id * 32 + l);
    const unsigned char *p = a % 64 ? NULL : ex_addr(b, SP_GENERIC, a, 128, tid);
    if (!p)
        return fault(b, w, l, in, OP_LD, SP_GENERIC, a, 128, a % 64 != 0);
    memcpy(m, p, sizeof *m);
    const char *why = NULL;
    uint64_t box = 1;
    if (m->magic != TMAP_MAGIC || m->kind < TMAP_TILED || m->kind > TMAP_IM2COL_WIDE || m->rank < 1 || m->rank > 5)
        why = "is not a tensor map (cuTensorMapEncode* writes one)";
    else if (m->kind != TMAP_TILED)
        why = "is an im2col map: the emulator runs the tile mode only";
    else if (m->rank != in->sub2)
        why = "has another rank than the instruction";
    else if (!m->ebytes)
        why = "has a packed 4- or 6-bit element type, which the emulator does not copy";
    else if (m->ebytes != 1 && m->ebytes != 2 && m->ebytes != 4 && m->ebytes != 8)
        why = "has a bad element size";
    else if (m->span != 0 && m->span != 32 && m->span != 64 && m->span != 128)
        why = "has a bad swizzle";
    else if (m->interleave)
        why = "is interleaved, which the emulator does not copy";
    else if (m->atom != 16)
        why = "has a 128B_ATOM swizzle, which the emulator does not copy";
    for (int i = 0; !why && i < m->rank; i++) {
        if (m->estride[i] != 1)
            why = "has an element stride above 1, which the emulator does not copy";
        else if (!m->box[i] || m->box[i] > 256 || !m->dim[i] || m->dim[i] > (1ull << 32))
            why = "has a bad box or dimension";
        else if (i > 0 && (m->stride[i - 1] % 16 || m->stride[i - 1] >= (1ull << 40)))
            why = "has a bad stride";
        box *= m->box[i];
    }
    if (!why && m->span && (unsigned)m->box[0] * m->ebytes != m->span)
        why = "is swizzled with an inner box row other than the swizzle span, which the emulator does not copy";
    if (!why && box * m->ebytes > (1u << 20))
        why = "has a box too large";
    if (why) {
        ex_fail_at(b, w, l, in, PTX_E_TRAP, "%s: the tensor map at 0x%llx %s", ex_name(b, in), (unsigned long long)a, why);
        return -1;
    }
    return 0;
}

/* a swizzled shared-memory offset (span 0: none) */
static inline uint64_t swz(uint64_t a, unsigned span)
{
    if (!span) return a;
    uint64_t mask = (uint64_t)(span / 16 - 1);
    return a ^ (((a >> 7) & mask) << 4);
}

/* the element of type size n that a NaN fill reads */
static uint64_t nan_of(unsigned n)
{
    return n == 2 ? 0x7fffu : n == 4 ? 0x7fffffffu : 0x7fffffffffffffffull;
}

/* can cp.reduce.async.bulk.tensor apply op to elements of kind k and n
 * bytes (PTX ISA, its table of types)? */
static int red_ok(int op, int k, unsigned n)
{
    int integer = k == TMAP_E_UINT || k == TMAP_E_SINT, half = k == TMAP_E_F16 || k == TMAP_E_BF16;
    switch (op) {
    case AT_ADD: return (integer && (n == 4 || n == 8)) || half || (k == TMAP_E_FLOAT && n == 4);
    case AT_MIN: case AT_MAX: return (integer && (n == 4 || n == 8)) || half;
    case AT_INC: case AT_DEC: return k == TMAP_E_UINT && n == 4;
    default: return integer && (n == 4 || n == 8); /* and, or, xor */
    }
}

/* old op v, for an element of kind k and n bytes (red_ok) */
static uint64_t red_apply(int op, int k, unsigned n, uint64_t o, uint64_t v)
{
    if (k == TMAP_E_F16 || k == TMAP_E_BF16) {
        int t = k == TMAP_E_F16 ? T_F16 : T_BF16;
        float x = h2f(o, t), y = h2f(v, t);
        if (op == AT_ADD) return f2h(x + y, t, RND_RN); /* 24 bits hold the sum of two: one rounding */
        if (x != x || y != y) return x != x ? v : o;    /* min/max: a NaN loses */
        return (op == AT_MIN ? y < x : y > x) ? v : o;
    }
    if (k == TMAP_E_FLOAT) return UF32(F32(o) + F32(v));
    return ex_atom_int(op, k == TMAP_E_SINT, n, o, v);
}

/* the element at g op= the element at s, atomically */
static void red_elem(unsigned char *g, const unsigned char *s, int op, int k, unsigned n)
{
    uint64_t v = 0;
    memcpy(&v, s, n);
    if (n == 2) {
        uint16_t *q = (uint16_t *)(void *)g, o = __atomic_load_n(q, __ATOMIC_RELAXED);
        while (!__atomic_compare_exchange_n(q, &o, (uint16_t)red_apply(op, k, n, o, v), 1, __ATOMIC_SEQ_CST, __ATOMIC_RELAXED)) {}
    } else if (n == 4) {
        uint32_t *q = (uint32_t *)(void *)g, o = __atomic_load_n(q, __ATOMIC_RELAXED);
        while (!__atomic_compare_exchange_n(q, &o, (uint32_t)red_apply(op, k, n, o, v), 1, __ATOMIC_SEQ_CST, __ATOMIC_RELAXED)) {}
    } else {
        uint64_t *q = (uint64_t *)(void *)g, o = __atomic_load_n(q, __ATOMIC_RELAXED);
        while (!__atomic_compare_exchange_n(q, &o, red_apply(op, k, n, o, v), 1, __ATOMIC_SEQ_CST, __ATOMIC_RELAXED)) {}
    }
}

#define MAX_DST 16 /* a cluster's blocks: the ctaMask's 16 bits */

static int cp_tensor(struct blk *b, struct warp *w, const struct ir_ins *in, uint32_t msk, uint64_t *R)
{
    const struct plan *P = b->P;
    int load = in->sub == TM_LOAD, reduce = in->sub == TM_REDUCE, op = in->type2;
    LANES(msk) {
        int l = L;
        unsigned tid = (unsigned)(w->id * 32 + l);
        struct tmap m;
        if (get_map(b, w, l, in, R[(size_t)in->b * 32 + l], &m)) return -1;
        if (reduce && !red_ok(op, m.ekind, m.ebytes)) {
            ex_fail_at(b, w, l, in, PTX_E_TRAP, "%s: the tensor map's element type (%u bytes) has no such reduction",
                       ex_name(b, in), m.ebytes);
            return -1;
        }
        int64_t c[5] = { 0, 0, 0, 0, 0 };
        for (int i = 0; i < m.rank; i++)
            c[i] = (int32_t)R[(size_t)(i < 4 ? in->vr[i] : in->c) * 32 + l];
        unsigned es = m.ebytes, n[5] = { 1, 1, 1, 1, 1 };
        for (int i = 0; i < m.rank; i++) n[i] = m.box[i];
        uint32_t bytes = n[0] * n[1] * n[2] * n[3] * n[4] * es;
        uint64_t sa = R[(size_t)in->a * 32 + l] + R[(size_t)in->d2 * 32 + l];
        uint64_t ma = load ? R[(size_t)in->e * 32 + l] + R[(size_t)in->d * 32 + l] : 0;
        /* where the box goes (a load: the shared memory of each block of the
         * ctaMask, at this block's offsets) or comes from */
        unsigned char *sh[MAX_DST];
        uint64_t *mb[MAX_DST];
        int nd = 0;
        unsigned cta = in->imm >= 0 ? (unsigned)R[(size_t)in->imm * 32 + l] & 0xffffu : 1u << b->crank;
        if (cta >> P->csize) {
            ex_fail_at(b, w, l, in, PTX_E_TRAP, "%s: ctaMask 0x%x names blocks outside the cluster of %u",
                       ex_name(b, in), cta, P->csize);
            return -1;
        }
        for (unsigned r = 0; r < P->csize && r < MAX_DST; r++) {
            if (!(cta >> r & 1)) continue;
            uint64_t base = r == b->crank ? 0 : (uint64_t)(r + 1) << CLUSTER_SHIFT;
            sh[nd] = sa % 128 || sa >> CLUSTER_SHIFT ? NULL : ex_cluster_ptr(b, base | sa, bytes);
            if (!sh[nd])
                return fault(b, w, l, in, load ? OP_ST : OP_LD, SP_SHARED, sa, bytes, sa % 128 != 0);
            mb[nd] = !load || ma % 8 || ma >> CLUSTER_SHIFT ? NULL : (uint64_t *)(void *)ex_cluster_ptr(b, base | ma, 8);
            nd++;
        }
        uint64_t fill = m.nan_fill ? nan_of(es) : 0, k = 0;
        for (unsigned i4 = 0; i4 < n[4]; i4++)
        for (unsigned i3 = 0; i3 < n[3]; i3++)
        for (unsigned i2 = 0; i2 < n[2]; i2++)
        for (unsigned i1 = 0; i1 < n[1]; i1++, k += n[0]) {
            /* one row of the box: dimension 0 from c[0] */
            int64_t g[5] = { c[0], c[1] + i1, c[2] + i2, c[3] + i3, c[4] + i4 };
            int inside = 1, wrap = 0;
            uint64_t row = m.addr, off;
            for (int d = 1; d < m.rank && inside; d++) {
                if (g[d] < 0 || (uint64_t)g[d] >= m.dim[d]) inside = 0;
                else if (__builtin_mul_overflow((uint64_t)g[d], m.stride[d - 1], &off) ||
                         __builtin_add_overflow(row, off, &row))
                    wrap = 1; /* a forged map: an address past 2^64 is no address */
            }
            /* the part of the row inside dimension 0: [lo, hi) of the box */
            int64_t lo = g[0] < 0 ? -g[0] : 0, hi = (int64_t)m.dim[0] - g[0];
            if (hi > (int64_t)n[0]) hi = n[0];
            if (!inside || lo >= hi) lo = hi = 0;
            unsigned char *gp = NULL;
            if (hi > lo) {
                uint64_t ga, len = (uint64_t)(hi - lo) * es;
                wrap |= __builtin_add_overflow(row, (uint64_t)(g[0] + lo) * es, &ga);
                gp = wrap ? NULL : ex_addr(b, SP_GLOBAL, ga, (unsigned)len, tid);
                if (!gp)
                    return fault(b, w, l, in, load ? OP_LD : OP_ST, SP_GLOBAL, ga, (unsigned)len, 0);
            }
            for (unsigned i0 = 0; i0 < n[0]; i0++) {
                uint64_t at = swz(sa + (k + i0) * es, m.span) - sa;
                int in_row = (int64_t)i0 >= lo && (int64_t)i0 < hi;
                unsigned char *ge = in_row ? gp + (i0 - lo) * es : NULL;
                if (load)
                    for (int j = 0; j < nd; j++)
                        memcpy(sh[j] + at, in_row ? ge : (const unsigned char *)&fill, es);
                else if (in_row && reduce)
                    red_elem(ge, sh[0] + at, op, m.ekind, es);
                else if (in_row)
                    memcpy(ge, sh[0] + at, es);
            }
        }
        for (int j = 0; load && j < nd; j++)
            if (ex_mbar_tx_at(b, w, l, in, mb[j], ma, bytes)) return -1;
    }
    return 0;
}

ex_fn ex_tensor_select(const struct ir_ins *in)
{
    return in->op == OP_CPTENSOR ? cp_tensor : NULL;
}
