/* SPDX-License-Identifier: Apache-2.0 */
/* cuRAND's discrete distributions for the device API:
 * curandCreatePoissonDistribution builds, in device memory of the emulated
 * GPU, the curandDiscreteDistribution_st that curand_discrete and
 * curand_poisson(state, distribution) read (the layout of NVIDIA's public
 * curand_discrete.h): below lambda 2000 the square histogram of poisson.c
 * (method CURAND_M2), from 2000 on the normal approximation (mean lambda,
 * stddev sqrt(lambda); method CURAND_POISSON, which the device API treats
 * as any method other than CURAND_M2). One allocation holds the structure,
 * the two it points to and the two arrays; on the emulated GPU device
 * memory is host memory, so every pointer in it, device or host, is the
 * same address. */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "curand_api.h"
#include "hostlib.h"
#include "rng.h"

#define DIST_KIND 2 /* generator.c's generators are kind 1 */

struct block {
    struct curandDiscreteDistribution_st d;
    curandDistributionM2Shift_st m2;
    curandHistogramM2_st hist;
    /* V[length + 1], K[length + 1] follow (V 8-aligned) */
};

HL_EXPORT curandStatus_t curandCreatePoissonDistribution(double lambda, curandDiscreteDistribution_t *out)
{
    if (!out)
        return CURAND_STATUS_NOT_INITIALIZED;
    if (!(lambda > 0 && lambda <= 400000.0))
        return CURAND_STATUS_OUT_OF_RANGE; /* NaN too */
    if (hl_init() != HL_OK)
        return CURAND_STATUS_INITIALIZATION_FAILED;
    struct poisson_hist h;
    uint32_t n = 0;
    if (lambda < POISSON_NORMAL_MIN) {
        if (poisson_hist(lambda, &h))
            return CURAND_STATUS_ALLOCATION_FAILED;
        n = h.length + 1;
    }
    size_t bytes = sizeof(struct block) + (size_t)n * (sizeof(double) + sizeof(uint32_t));
    CUdeviceptr dp;
    if (cuMemAlloc_v2(&dp, bytes) != CUDA_SUCCESS) {
        if (n)
            poisson_hist_free(&h);
        return CURAND_STATUS_ALLOCATION_FAILED;
    }
    struct block *b = (struct block *)(uintptr_t)dp;
    memset(b, 0, sizeof *b);
    b->d.self_host_ptr = &b->d;
    b->d.M2 = b->d.host_M2 = &b->m2;
    b->m2.histogram = b->m2.host_histogram = &b->hist;
    if (n) {
        double *v = (double *)(b + 1);
        uint32_t *k = (uint32_t *)(v + n);
        memcpy(v, h.v, n * sizeof *v);
        memcpy(k, h.k, n * sizeof *k);
        b->hist.V = b->hist.host_V = v;
        b->hist.K = b->hist.host_K = k;
        b->m2.shift = h.shift;
        b->m2.length = h.length;
        b->d.method = CURAND_M2;
        poisson_hist_free(&h);
    } else {
        b->d.method = CURAND_POISSON;
    }
    b->d.mean = lambda;
    b->d.stddev = sqrt(lambda);
    if (hl_handle_add(b, DIST_KIND)) {
        cuMemFree_v2(dp);
        return CURAND_STATUS_ALLOCATION_FAILED;
    }
    *out = &b->d;
    return CURAND_STATUS_SUCCESS;
}

HL_EXPORT curandStatus_t curandDestroyDistribution(curandDiscreteDistribution_t d)
{
    if (!hl_handle_remove(d, DIST_KIND))
        return CURAND_STATUS_NOT_INITIALIZED;
    cuMemFree_v2((CUdeviceptr)(uintptr_t)d);
    return CURAND_STATUS_SUCCESS;
}
