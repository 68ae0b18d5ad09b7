/* SPDX-License-Identifier: Apache-2.0 */
/* The executor's warp-level instructions: shuffles, votes, match, redux,
 * elect, bar.warp.sync and the active mask.
 *
 * The .sync forms take part in a rendezvous (exec.c): when every lane
 * their member mask requires has arrived, ex_warp_sync runs the operation
 * for all of them at once, each lane at its own instruction (lanes may come
 * from different paths, PTX ISA "shfl.sync", "vote.sync", ...). A value
 * read from a lane that does not take part (exited, or outside the member
 * mask) is undefined in PTX: the launch fails with PTX_E_SYNC rather than
 * guess it. The deprecated forms without .sync work on the running group. */
#include "exec.h"

#include <stdio.h>

/* shfl's source lane for lane l (PTX ISA, shfl.sync): j, and whether it is in range */
static inline int shfl_src(int mode, int l, uint32_t bval, uint32_t cval, int *pval)
{
    uint32_t seg = (cval >> 8) & 31, clamp = cval & 31;
    int maxl = (int)(((uint32_t)l & seg) | (clamp & ~seg)), minl = (int)((uint32_t)l & seg);
    bval &= 31;
    int j;
    switch (mode) {
    case SH_UP: j = l - (int)bval; *pval = j >= maxl; break;
    case SH_DOWN: j = l + (int)bval; *pval = j <= maxl; break;
    case SH_BFLY: j = l ^ (int)bval; *pval = j <= maxl; break;
    default: j = minl | (int)(bval & ~seg); *pval = j <= maxl; break;
    }
    if (!*pval) j = l;
    return j;
}

/* the deprecated forms and activemask: over the running group m */
static int ex_warp(struct blk *b, struct warp *w, const struct ir_ins *in, uint32_t m, uint64_t *R)
{
    uint64_t *D = in->d >= 0 ? R + (size_t)in->d * 32 : b->sink;
    const uint64_t *A = in->a >= 0 ? R + (size_t)in->a * 32 : b->sink;
    const uint64_t *B = in->b >= 0 ? R + (size_t)in->b * 32 : b->sink;
    const uint64_t *C = in->c >= 0 ? R + (size_t)in->c * 32 : b->sink;
    switch (in->op) {
    case OP_SHFL: {
        uint64_t v[32];
        memcpy(v, A, sizeof v);
        uint64_t *D2 = in->d2 >= 0 ? R + (size_t)in->d2 * 32 : NULL;
        LANES(m) {
            int l = L, ok;
            int j = shfl_src(in->sub, l, (uint32_t)B[l], (uint32_t)C[l], &ok);
            D[l] = v[j] & 0xffffffffu;
            if (D2) D2[l] = (uint64_t)ok;
        }
        return 0;
    }
    case OP_VOTE: {
        int cneg = (in->flags & F_ANEG) != 0;
        uint32_t ballot = 0;
        LANES(m) { int l = L; ballot |= (uint32_t)((A[l] & 1) ^ (uint64_t)cneg) << l; }
        uint64_t r;
        switch (in->sub) {
        case VO_ALL: r = ballot == m; break;
        case VO_ANY: r = ballot != 0; break;
        case VO_UNI: r = ballot == 0 || ballot == m; break;
        default: r = ballot; break;
        }
        LANES(m) { int l = L; D[l] = r; }
        return 0;
    }
    case OP_ACTIVEMASK:
        LANES(m) { int l = L; D[l] = m; }
        return 0;
    default:
        ex_fail_at(b, w, __builtin_ctz(m | 0x80000000u), in, PTX_E_UNSUPPORTED, "unsupported instruction '%s'", ex_name(b, in));
        return -1;
    }
}

ex_fn ex_warp_select(const struct ir_ins *in)
{
    switch (in->op) {
    case OP_SHFL: case OP_VOTE: return in->flags & F_SYNC ? NULL : ex_warp;
    case OP_ACTIVEMASK: return ex_warp;
    default: return NULL;
    }
}

/* redux.sync over the values v of lanes P */
static uint32_t redux(const struct ir_ins *in, const uint32_t *v, uint32_t P)
{
    int t = in->type;
    if (t == T_F32) { /* min/max; .abs; .NaN: any NaN gives NaN, else NaNs are ignored */
        int have = 0, nan = 0;
        float r = 0;
        for (uint32_t mm = P; mm; mm &= mm - 1) {
            float x = F32(v[__builtin_ctz(mm)]);
            if (in->flags & F_ABS) x = fabsf(x);
            if (x != x) { nan = 1; continue; }
            if (!have) { r = x; have = 1; continue; }
            if (in->sub == RED_MIN) r = (x < r || (x == r && signbit(x))) ? x : r;   /* -0 < +0 */
            else r = (x > r || (x == r && !signbit(x))) ? x : r;
        }
        if ((nan && (in->flags & F_NAN)) || !have) return 0x7fffffffu;
        return (uint32_t)UF32(r);
    }
    int sg = t == T_S32;
    uint32_t r = in->sub == RED_AND ? ~0u : in->sub == RED_MIN ? (sg ? 0x7fffffffu : ~0u) : in->sub == RED_MAX ? (sg ? 0x80000000u : 0) : 0;
    for (uint32_t mm = P; mm; mm &= mm - 1) {
        uint32_t x = v[__builtin_ctz(mm)];
        switch (in->sub) {
        case RED_AND: r &= x; break;
        case RED_OR: r |= x; break;
        case RED_XOR: r ^= x; break;
        case RED_ADD: r += x; break;
        case RED_MIN: r = sg ? ((int32_t)x < (int32_t)r ? x : r) : (x < r ? x : r); break;
        default: r = sg ? ((int32_t)x > (int32_t)r ? x : r) : (x > r ? x : r); break;
        }
    }
    return r;
}

int ex_warp_group(struct blk *b, struct warp *w, const struct ir_ins *in, uint32_t m, uint64_t *R)
{
    (void)R;
    int pc = (int)(in - b->P->m->ins);
    for (uint32_t mm = m; mm; mm &= mm - 1) w->lpc[__builtin_ctz(mm)] = pc;
    return ex_warp_sync(b, w, m, m);
}

int ex_warp_sync(struct blk *b, struct warp *w, uint32_t P, uint32_t M)
{
    const struct ir_ins *code = b->P->m->ins;
    const struct ir_ins *in0 = &code[w->lpc[__builtin_ctz(P)]];
    const struct ir_ins *ins[32];
    uint64_t *Rl[32];
    uint64_t a[32];
    for (uint32_t mm = P; mm; mm &= mm - 1) {
        int l = __builtin_ctz(mm);
        ins[l] = &code[w->lpc[l]];
        Rl[l] = ex_regs(b, w, ins[l]);
        a[l] = ins[l]->a >= 0 ? Rl[l][(size_t)ins[l]->a * 32 + l] : 0;
    }
#define OUT(l, slot, v) do { if ((slot) >= 0) Rl[l][(size_t)(slot) * 32 + (l)] = (v); } while (0)
    switch (in0->op) {
    case OP_SHFL:
        for (uint32_t mm = P; mm; mm &= mm - 1) {
            int l = __builtin_ctz(mm), ok;
            const struct ir_ins *in = ins[l];
            int j = shfl_src(in->sub, l, (uint32_t)Rl[l][(size_t)in->b * 32 + l], (uint32_t)Rl[l][(size_t)in->c * 32 + l], &ok);
            if (!(P >> j & 1)) {
                ex_fail_at(b, w, l, in, PTX_E_SYNC, "%s: lane %d reads lane %d, which %s (member mask 0x%08x): the value is undefined",
                           ex_name(b, in), l, j, !(M >> j & 1) ? "is not in the member mask" : "has exited", M);
                return -1;
            }
        }
        for (uint32_t mm = P; mm; mm &= mm - 1) {
            int l = __builtin_ctz(mm), ok;
            const struct ir_ins *in = ins[l];
            int j = shfl_src(in->sub, l, (uint32_t)Rl[l][(size_t)in->b * 32 + l], (uint32_t)Rl[l][(size_t)in->c * 32 + l], &ok);
            OUT(l, in->d, a[j] & 0xffffffffu);
            OUT(l, in->d2, (uint64_t)ok);
        }
        break;
    case OP_VOTE: {
        uint32_t ballot = 0;
        for (uint32_t mm = P; mm; mm &= mm - 1) {
            int l = __builtin_ctz(mm);
            ballot |= (uint32_t)((a[l] & 1) ^ (uint64_t)((ins[l]->flags & F_ANEG) != 0)) << l;
        }
        uint64_t r;
        switch (in0->sub) {
        case VO_ALL: r = ballot == P; break;
        case VO_ANY: r = ballot != 0; break;
        case VO_UNI: r = ballot == 0 || ballot == P; break;
        default: r = ballot; break;
        }
        for (uint32_t mm = P; mm; mm &= mm - 1) OUT(__builtin_ctz(mm), ins[__builtin_ctz(mm)]->d, r);
        break;
    }
    case OP_MATCH: {
        uint64_t vm = ir_type_size(in0->type) == 8 ? ~0ull : 0xffffffffull;
        int all = 1;
        uint64_t v0 = a[__builtin_ctz(P)] & vm;
        for (uint32_t mm = P; mm; mm &= mm - 1) all &= (a[__builtin_ctz(mm)] & vm) == v0;
        for (uint32_t mm = P; mm; mm &= mm - 1) {
            int l = __builtin_ctz(mm);
            uint32_t d = 0;
            if (in0->sub == MA_ANY) {
                for (uint32_t kk = P; kk; kk &= kk - 1)
                    if ((a[__builtin_ctz(kk)] & vm) == (a[l] & vm)) d |= 1u << __builtin_ctz(kk);
            } else
                d = all ? P : 0;
            OUT(l, ins[l]->d, d);
            OUT(l, ins[l]->d2, (uint64_t)all);
        }
        break;
    }
    case OP_REDUX: {
        uint32_t v[32];
        for (uint32_t mm = P; mm; mm &= mm - 1) v[__builtin_ctz(mm)] = (uint32_t)a[__builtin_ctz(mm)];
        uint32_t r = redux(in0, v, P);
        for (uint32_t mm = P; mm; mm &= mm - 1) OUT(__builtin_ctz(mm), ins[__builtin_ctz(mm)]->d, r);
        break;
    }
    case OP_ELECT: { /* the leader: the lowest lane taking part */
        int leader = __builtin_ctz(P);
        for (uint32_t mm = P; mm; mm &= mm - 1) {
            int l = __builtin_ctz(mm);
            OUT(l, ins[l]->d, (uint64_t)leader);
            OUT(l, ins[l]->d2, (uint64_t)(l == leader));
        }
        break;
    }
    case OP_WARPSYNC:
        ex_fence(); /* orders the lanes' memory accesses */
        break;
    default:
        ex_fail_at(b, w, __builtin_ctz(P), in0, PTX_E_UNSUPPORTED, "unsupported instruction '%s'", ex_name(b, in0));
        return -1;
    }
#undef OUT
    return 0;
}
