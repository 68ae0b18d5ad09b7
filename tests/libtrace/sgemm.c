/* SPDX-License-Identifier: Apache-2.0 */
/* tdtrace -e lib=libcublas* (tests/libtrace/run.sh): a 2x2 sgemm through
 * cuBLAS on the emulated GPU, built against tdtrace's own declarations
 * (src/hostlib/cublas/cublas_api.h), linked with the host cuBLAS. Prints
 * "sgemm ok" when C = A * B came out right; exits 1 otherwise. */
#include <stdint.h>
#include <stdio.h>

#include "cuda.h"
#include "td_api.h"
#include "cublas_api.h"

int main(void)
{
    cublasHandle_t h;
    if (cublasCreate_v2(&h) != CUBLAS_STATUS_SUCCESS) {
        printf("cublasCreate_v2 failed\n");
        return 1;
    }
    const float A[4] = { 1, 2, 3, 4 }, B[4] = { 5, 6, 7, 8 }; /* column-major */
    float C[4] = { 0 };
    CUdeviceptr dA, dB, dC;
    if (cuMemAlloc_v2(&dA, sizeof A) || cuMemAlloc_v2(&dB, sizeof B) || cuMemAlloc_v2(&dC, sizeof C) ||
        cuMemcpyHtoD_v2(dA, A, sizeof A) || cuMemcpyHtoD_v2(dB, B, sizeof B)) {
        printf("device memory failed\n");
        return 1;
    }
    int version = 0; /* a function src/api/libs.api does not describe */
    if (cublasGetVersion_v2(h, &version) != CUBLAS_STATUS_SUCCESS) {
        printf("cublasGetVersion_v2 failed\n");
        return 1;
    }
    const float one = 1, zero = 0;
    cublasStatus_t r = cublasSgemm_v2(h, CUBLAS_OP_N, CUBLAS_OP_N, 2, 2, 2, &one, (const float *)(uintptr_t)dA, 2,
                                      (const float *)(uintptr_t)dB, 2, &zero, (float *)(uintptr_t)dC, 2);
    if (r != CUBLAS_STATUS_SUCCESS || cuCtxSynchronize() || cuMemcpyDtoH_v2(C, dC, sizeof C)) {
        printf("sgemm failed: %d\n", (int)r);
        return 1;
    }
    /* [1 3; 2 4] * [5 7; 6 8] = [23 31; 34 46] */
    if (C[0] != 23 || C[1] != 34 || C[2] != 31 || C[3] != 46) {
        printf("sgemm wrong: %g %g %g %g\n", C[0], C[1], C[2], C[3]);
        return 1;
    }
    cublasDestroy_v2(h);
    printf("sgemm ok\n");
    return 0;
}
