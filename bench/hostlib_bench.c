/* SPDX-License-Identifier: Apache-2.0 */
/* SGEMM through the host cuBLAS on the emulated GPU against the same call
 * straight to the host BLAS (OpenBLAS's cblas_sgemm), side by side: each
 * round times both, the medians of the rounds are compared.
 *   hostlib_bench [N [ROUNDS]]   (default 1024, 7) */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include <cblas.h>

#include "cublas_api.h"
#include "cuda.h"
#include "td_api.h"

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

#define CK(x) do { int r_ = (int)(x); if (r_) { fprintf(stderr, "%s = %d\n", #x, r_); return 1; } } while (0)

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 1024, rounds = argc > 2 ? atoi(argv[2]) : 7;
    if (n <= 0 || rounds < 5 || rounds > 100)
        return fprintf(stderr, "usage: hostlib_bench [N [ROUNDS >= 5]]\n"), 2;
    size_t bytes = (size_t)n * n * sizeof(float);
    float *ha = malloc(bytes), *hb = malloc(bytes), *hc = malloc(bytes);
    for (size_t i = 0; i < (size_t)n * n; i++) {
        ha[i] = (float)(i % 13) * 0.1f;
        hb[i] = (float)(i % 7) * 0.2f;
    }
    cublasHandle_t h;
    CK(cublasCreate_v2(&h));
    CUdeviceptr a, b, c;
    CK(cuMemAlloc_v2(&a, bytes));
    CK(cuMemAlloc_v2(&b, bytes));
    CK(cuMemAlloc_v2(&c, bytes));
    CK(cuMemcpyHtoD_v2(a, ha, bytes));
    CK(cuMemcpyHtoD_v2(b, hb, bytes));
    const float one = 1, zero = 0;
    double tc[100], tb[100];
    /* a warm-up of each (thread pools, first touch of C) */
    CK(cublasSgemm_v2(h, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, &one, (float *)a, n, (float *)b, n, &zero, (float *)c, n));
    CK(cuCtxSynchronize());
    cblas_sgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, n, n, n, 1, ha, n, hb, n, 0, hc, n);
    for (int r = 0; r < rounds; r++) {
        double t0 = now();
        CK(cublasSgemm_v2(h, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, &one, (float *)a, n, (float *)b, n, &zero,
                          (float *)c, n));
        CK(cuCtxSynchronize());
        double t1 = now();
        cblas_sgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, n, n, n, 1, ha, n, hb, n, 0, hc, n);
        double t2 = now();
        tc[r] = t1 - t0;
        tb[r] = t2 - t1;
    }
    qsort(tc, (size_t)rounds, sizeof *tc, cmp);
    qsort(tb, (size_t)rounds, sizeof *tb, cmp);
    double mc = tc[rounds / 2], mb = tb[rounds / 2], flop = 2.0 * n * n * n;
    printf("SGEMM %dx%dx%d, median of %d rounds each (side by side)\n", n, n, n, rounds);
    printf("  cublasSgemm on the emulated GPU (call + cuCtxSynchronize): %8.2f ms  %7.2f GFLOP/s\n", mc * 1e3,
           flop / mc * 1e-9);
    printf("  cblas_sgemm straight to OpenBLAS:                          %8.2f ms  %7.2f GFLOP/s\n", mb * 1e3,
           flop / mb * 1e-9);
    printf("  ratio emulated cuBLAS / host BLAS: %.3f (goal <= 1.10)\n", mc / mb);
    cublasDestroy_v2(h);
    return 0;
}
