/* SPDX-License-Identifier: Apache-2.0 */
/* A program built against NVIDIA's cuSOLVER header and library
 * (libcusolver.so.12) on the emulated GPU, run with tdtrace's host cuSOLVER
 * in front of NVIDIA's (it ran NVIDIA's own library, with the host cuBLAS,
 * before there was one: NVIDIA's cusolverDnCreate sets an undocumented
 * environment mode on its cuBLAS handle, which the host cuBLAS takes):
 * cusolverDnCreate, the stream, then a Cholesky factorisation checked
 * against the host's, and a matrix that is not positive definite.
 * Built against the toolkit's headers; run by tests/hostlib/run.sh. */
#include <math.h>
#include <stdio.h>
#include <cuda_runtime.h>
#include <cusolverDn.h>

#define N 24
static int fails;

#define CK(x, want)                                                                                \
    do {                                                                                           \
        long r_ = (long)(x);                                                                       \
        if (r_ != (long)(want)) {                                                                  \
            printf("FAIL %s:%d: %s = %ld, expected %ld\n", __FILE__, __LINE__, #x, r_, (long)(want)); \
            fails++;                                                                               \
        }                                                                                          \
    } while (0)

int main(void)
{
    cusolverDnHandle_t h = NULL;
    CK(cusolverDnCreate(&h), CUSOLVER_STATUS_SUCCESS);
    if (!h)
        return 1;
    cudaStream_t s, got = NULL;
    CK(cudaStreamCreate(&s), cudaSuccess);
    CK(cusolverDnSetStream(h, s), CUSOLVER_STATUS_SUCCESS);
    CK(cusolverDnGetStream(h, &got), CUSOLVER_STATUS_SUCCESS);
    CK(got == s, 1);

    /* A = B B^T + N I: symmetric positive definite */
    static double b[N * N], a[N * N], l[N * N];
    static float af[N * N], out[N * N];
    unsigned x = 12345;
    for (int i = 0; i < N * N; i++) {
        x = x * 1103515245u + 12345u;
        b[i] = (double)(x >> 8 & 0xffff) / 65536.0 - 0.5;
    }
    for (int i = 0; i < N; i++)
        for (int j = 0; j < N; j++) {
            double t = i == j ? N : 0;
            for (int k = 0; k < N; k++)
                t += b[i * N + k] * b[j * N + k];
            a[j * N + i] = t;   /* column-major */
            af[j * N + i] = (float)t;
        }
    /* the host's Cholesky, lower, column-major */
    for (int j = 0; j < N; j++) {
        double d = a[j * N + j];
        for (int k = 0; k < j; k++)
            d -= l[k * N + j] * l[k * N + j];
        l[j * N + j] = sqrt(d);
        for (int i = j + 1; i < N; i++) {
            double t = a[j * N + i];
            for (int k = 0; k < j; k++)
                t -= l[k * N + i] * l[k * N + j];
            l[j * N + i] = t / l[j * N + j];
        }
    }

    float *da = NULL, *work = NULL;
    int *info = NULL, lwork = 0, hinfo = -1;
    CK(cudaMalloc((void **)&da, sizeof af), cudaSuccess);
    CK(cudaMalloc((void **)&info, sizeof(int)), cudaSuccess);
    CK(cudaMemcpy(da, af, sizeof af, cudaMemcpyHostToDevice), cudaSuccess);
    CK(cusolverDnSpotrf_bufferSize(h, CUBLAS_FILL_MODE_LOWER, N, da, N, &lwork), CUSOLVER_STATUS_SUCCESS);
    CK(lwork >= 0, 1);
    CK(cudaMalloc((void **)&work, ((size_t)lwork + 1) * sizeof(float)), cudaSuccess);
    CK(cusolverDnSpotrf(h, CUBLAS_FILL_MODE_LOWER, N, da, N, work, lwork, info), CUSOLVER_STATUS_SUCCESS);
    CK(cudaMemcpyAsync(out, da, sizeof out, cudaMemcpyDeviceToHost, s), cudaSuccess);
    CK(cudaMemcpyAsync(&hinfo, info, sizeof hinfo, cudaMemcpyDeviceToHost, s), cudaSuccess);
    CK(cudaStreamSynchronize(s), cudaSuccess);
    CK(hinfo, 0);
    /* float32 factor of a well-conditioned matrix: relative 1e-4 */
    double worst = 0;
    for (int j = 0; j < N; j++)
        for (int i = j; i < N; i++) {
            double e = fabs(out[j * N + i] - l[j * N + i]) / (fabs(l[j * N + i]) + 1);
            if (e > worst)
                worst = e;
        }
    if (worst > 1e-4) {
        printf("FAIL potrf: largest relative error %g against the host's Cholesky\n", worst);
        fails++;
    }
    /* a matrix that is not positive definite: info names the column */
    af[5 * N + 5] = -1000;
    CK(cudaMemcpy(da, af, sizeof af, cudaMemcpyHostToDevice), cudaSuccess);
    CK(cusolverDnSpotrf(h, CUBLAS_FILL_MODE_LOWER, N, da, N, work, lwork, info), CUSOLVER_STATUS_SUCCESS);
    CK(cudaMemcpy(&hinfo, info, sizeof hinfo, cudaMemcpyDeviceToHost), cudaSuccess);
    CK(hinfo, 6);
    CK(cusolverDnSpotrf(h, CUBLAS_FILL_MODE_LOWER, -1, da, N, work, lwork, info), CUSOLVER_STATUS_INVALID_VALUE);

    cudaFree(work);
    cudaFree(info);
    cudaFree(da);
    CK(cusolverDnDestroy(h), CUSOLVER_STATUS_SUCCESS);
    cudaStreamDestroy(s);
    if (fails)
        return 1;
    printf("cusolverDnCreate, SetStream, Spotrf %dx%d (largest relative error %.1e), not-SPD info\n", N, N,
           worst);
    return 0;
}
