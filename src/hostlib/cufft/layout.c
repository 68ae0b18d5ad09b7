/* SPDX-License-Identifier: Apache-2.0 */
/* cuFFT's data layouts: the element size of each side of a transform, the
 * basic and advanced layouts of its input and output (strides, distances,
 * embeddings) and the bytes they span, checked against overflow. Used by
 * the plans (plan.c) and the executions (exec.c). */
#include "fft.h"

#include <stdint.h>

size_t fft_elem(const struct fft_plan *p, int complex_side)
{
    static const size_t real[] = { [FP_F16] = 2, [FP_BF16] = 2, [FP_F32] = 4, [FP_F64] = 8 };
    return real[p->prec] * (complex_side ? 2 : 1);
}

void fft_sides(const struct fft_plan *p, int inplace, struct fft_side *in, struct fft_side *out)
{
    int last = p->rank - 1;
    for (int d = 0; d < p->rank; d++)
        in->n[d] = out->n[d] = p->n[d];
    int64_t half = p->n[last] / 2 + 1;
    if (p->kind == FK_R2C)
        out->n[last] = half;
    if (p->kind == FK_C2R)
        in->n[last] = half;
    if (p->advanced) {
        for (int d = 0; d < p->rank; d++) {
            in->embed[d] = p->inembed[d];
            out->embed[d] = p->onembed[d];
        }
        in->stride = p->istride;
        in->dist = p->idist;
        out->stride = p->ostride;
        out->dist = p->odist;
        return;
    }
    /* the basic layout: packed; the real side of an in-place real
     * transform padded to 2 (n/2 + 1) as FFTW pads it */
    struct fft_side *s[2] = { in, out };
    for (int i = 0; i < 2; i++) {
        int64_t dist = 1;
        for (int d = 0; d < p->rank; d++) {
            s[i]->embed[d] = s[i]->n[d];
            int real_side = (p->kind == FK_R2C && i == 0) || (p->kind == FK_C2R && i == 1);
            if (d == last && inplace && real_side)
                s[i]->embed[d] = 2 * half;
            if (__builtin_mul_overflow(dist, s[i]->embed[d], &dist))
                dist = INT64_MAX;   /* fft_span then refuses the sizes */
        }
        s[i]->stride = 1;
        s[i]->dist = dist;
    }
}

int64_t fft_span(const struct fft_plan *p, const struct fft_side *s, size_t elem)
{
    /* the last element: (batch - 1) dist + stride sum_d (n_d - 1) prod_{j>d} embed_j */
    uint64_t off = 0, mul = 1;
    for (int d = p->rank - 1; d >= 0; d--) {
        uint64_t t;
        if (__builtin_mul_overflow((uint64_t)(s->n[d] - 1), mul, &t) || __builtin_add_overflow(off, t, &off))
            return -1;
        if (d > 0 && __builtin_mul_overflow(mul, (uint64_t)s->embed[d], &mul))
            return -1;
    }
    uint64_t bt;
    if (__builtin_mul_overflow(off, (uint64_t)s->stride, &off) ||
        __builtin_mul_overflow((uint64_t)(p->batch - 1), (uint64_t)s->dist, &bt) ||
        __builtin_add_overflow(off, bt, &off) || __builtin_add_overflow(off, 1, &off) ||
        __builtin_mul_overflow(off, (uint64_t)elem, &off) || off > (uint64_t)INT64_MAX)
        return -1;
    return (int64_t)off;
}


int fft_extents(const struct fft_plan *p, int inplace, struct fft_side *in, struct fft_side *out, int64_t bytes[2])
{
    fft_sides(p, inplace, in, out);
    bytes[0] = fft_span(p, in, fft_elem(p, p->kind != FK_R2C));
    bytes[1] = fft_span(p, out, fft_elem(p, p->kind != FK_C2R));
    return bytes[0] < 0 || bytes[1] < 0 ? -1 : 0;
}
