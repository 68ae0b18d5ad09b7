/* The executor's warp-level instructions: shuffles, votes, the active
 * mask. */
#include "exec.h"

#include <stdio.h>

int ex_warp(struct blk *b, struct warp *w, const struct ir_ins *in, uint32_t m, uint64_t *R)
{
    struct plan *P = b->P;
    uint64_t *D = in->d >= 0 ? R + (size_t)in->d * 32 : b->sink;
    const uint64_t *A = in->a >= 0 ? R + (size_t)in->a * 32 : b->sink;
    const uint64_t *B = in->b >= 0 ? R + (size_t)in->b * 32 : b->sink;
    const uint64_t *C = in->c >= 0 ? R + (size_t)in->c * 32 : b->sink;
    int t = in->type;
    (void)P; (void)D; (void)A; (void)B; (void)C; (void)t; (void)w;
    switch (in->op) {
    case OP_SHFL: {
        uint64_t v[32];
        memcpy(v, A, sizeof v);
        uint64_t *D2 = in->d2 >= 0 ? R + (size_t)in->d2 * 32 : NULL;
        LANES(m) {
            int l = L;
            uint32_t bv = (uint32_t)B[l] & 31, cv = (uint32_t)C[l];
            uint32_t seg = (cv >> 8) & 31, cl = cv & 31;
            int maxl = (int)(((uint32_t)l & seg) | (cl & ~seg)), minl = (int)((uint32_t)l & seg);
            int j, ok;
            switch (in->sub) {
            case SH_UP: j = l - (int)bv; ok = j >= maxl; break;
            case SH_DOWN: j = l + (int)bv; ok = j <= maxl; break;
            case SH_BFLY: j = l ^ (int)bv; ok = j <= maxl; break;
            default: j = minl | (int)(bv & ~seg); ok = j <= maxl; break;
            }
            if (!ok || j < 0 || j > 31) j = l;
            D[l] = v[j] & 0xffffffffu;
            if (D2) D2[l] = (uint64_t)ok;
        }
        break;
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
        break;
    }
    case OP_ACTIVEMASK:
        LANES(m) { int l = L; D[l] = w->active; }
        break;
    default:
        ex_fail_at(b, w, __builtin_ctz(m | 0x80000000u), in, PTX_E_UNSUPPORTED, "unsupported instruction");
        return -1;
    }
    return 0;
}
