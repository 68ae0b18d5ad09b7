/* SPDX-License-Identifier: Apache-2.0 */
/* A 1-D single-precision C2C transform through the host cuFFT on the
 * emulated GPU against the same transform straight to FFTW (fftwf, planned
 * as the host cuFFT plans: FFTW_ESTIMATE, one thread), side by side: each
 * round times both, the medians of the rounds are compared.
 *   hostlib_fft_bench [N [ROUNDS]]   (default 1048576, 7) */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include <fftw3.h>

#include "cufft_api.h"
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
    int n = argc > 1 ? atoi(argv[1]) : 1 << 20, rounds = argc > 2 ? atoi(argv[2]) : 7;
    if (n <= 0 || rounds < 5 || rounds > 100)
        return fprintf(stderr, "usage: hostlib_fft_bench [N [ROUNDS >= 5]]\n"), 2;
    size_t bytes = (size_t)n * sizeof(fftwf_complex);
    fftwf_complex *hi = fftwf_malloc(bytes), *ho = fftwf_malloc(bytes);
    for (int i = 0; i < n; i++) {
        hi[i][0] = (float)(i % 13) * 0.1f;
        hi[i][1] = (float)(i % 7) * -0.2f;
    }
    fftwf_plan fp = fftwf_plan_dft_1d(n, hi, ho, FFTW_FORWARD, FFTW_ESTIMATE);
    cufftHandle plan;
    CK(cufftPlan1d(&plan, n, CUFFT_C2C, 1));
    CUdeviceptr di, dout;
    CK(cuMemAlloc_v2(&di, bytes));
    CK(cuMemAlloc_v2(&dout, bytes));
    CK(cuMemcpyHtoD_v2(di, hi, bytes));
    double tc[100], tf[100];
    /* a warm-up of each (the FFTW plan the host cuFFT makes, first touch) */
    CK(cufftExecC2C(plan, (cufftComplex *)di, (cufftComplex *)dout, CUFFT_FORWARD));
    CK(cuCtxSynchronize());
    fftwf_execute(fp);
    for (int r = 0; r < rounds; r++) {
        double t0 = now();
        CK(cufftExecC2C(plan, (cufftComplex *)di, (cufftComplex *)dout, CUFFT_FORWARD));
        CK(cuCtxSynchronize());
        double t1 = now();
        fftwf_execute(fp);
        double t2 = now();
        tc[r] = t1 - t0;
        tf[r] = t2 - t1;
    }
    qsort(tc, (size_t)rounds, sizeof *tc, cmp);
    qsort(tf, (size_t)rounds, sizeof *tf, cmp);
    double mc = tc[rounds / 2], mf = tf[rounds / 2];
    printf("C2C FFT of %d points (single precision, out of place), median of %d rounds each (side by side)\n", n,
           rounds);
    printf("  cufftExecC2C on the emulated GPU (call + cuCtxSynchronize): %8.2f ms\n", mc * 1e3);
    printf("  fftwf_execute straight to FFTW (FFTW_ESTIMATE):              %8.2f ms\n", mf * 1e3);
    printf("  ratio emulated cuFFT / FFTW: %.3f\n", mc / mf);
    cufftDestroy(plan);
    fftwf_destroy_plan(fp);
    fftwf_free(hi);
    fftwf_free(ho);
    return 0;
}
