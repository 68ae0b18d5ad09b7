/* SPDX-License-Identifier: Apache-2.0 */
// CUDA's error rules through the runtime: a kernel that faults is reported
// by the next synchronising call (here a cudaMemcpy back to the host), the
// error is sticky (cudaMalloc fails with it too), and cudaDeviceReset gives
// a working device again. A cudaFree of memory a running kernel writes
// waits for the kernel, which must not fault. Prints "PASS".
#include "common.h"

// n steps of an LCG, then a store: a bad p faults only after the loop
__global__ void late_store(unsigned *p, int n)
{
    unsigned x = threadIdx.x;
    for (int i = 0; i < n; i++) x = x * 1664525u + 1013904223u;
    p[threadIdx.x] = x;
}

static unsigned lcg(unsigned x, int n)
{
    for (int i = 0; i < n; i++) x = x * 1664525u + 1013904223u;
    return x;
}

int main(void)
{
    const int n = 300000;
    unsigned *d, out[32];

    // cudaFree while the kernel runs: it waits; the kernel completes
    CK(cudaMalloc((void **)&d, sizeof out));
    late_store<<<1, 32>>>(d, n);
    CK(cudaGetLastError());
    CK(cudaFree(d));
    CK(cudaDeviceSynchronize());

    // the results are right
    CK(cudaMalloc((void **)&d, sizeof out));
    late_store<<<1, 32>>>(d, n);
    CK(cudaGetLastError());
    CK(cudaMemcpy(out, d, sizeof out, cudaMemcpyDeviceToHost));
    for (int i = 0; i < 32; i++)
        EXPECT(out[i] == lcg((unsigned)i, n));

    // a fault: the launch succeeds, the copy after it reports the fault
    late_store<<<1, 1>>>((unsigned *)16, n);
    EXPECT(cudaGetLastError() == cudaSuccess);
    out[0] = 12345;
    cudaError_t e = cudaMemcpy(out, d, sizeof out, cudaMemcpyDeviceToHost);
    EXPECT(e == cudaErrorIllegalAddress);
    EXPECT(out[0] == 12345);
    // sticky: later work fails with it
    unsigned *d2 = nullptr;
    EXPECT(cudaMalloc((void **)&d2, 64) == cudaErrorIllegalAddress);
    EXPECT(cudaDeviceSynchronize() == cudaErrorIllegalAddress);
    EXPECT(cudaGetLastError() == cudaErrorIllegalAddress); // and clears the runtime's record

    // cudaDeviceReset: the device works again
    CK(cudaDeviceReset());
    CK(cudaMalloc((void **)&d, sizeof out));
    late_store<<<1, 32>>>(d, 10);
    CK(cudaGetLastError());
    CK(cudaMemcpy(out, d, sizeof out, cudaMemcpyDeviceToHost));
    for (int i = 0; i < 32; i++)
        EXPECT(out[i] == lcg((unsigned)i, 10));
    CK(cudaFree(d));
    if (rt_failed)
        return 1;
    std::printf("PASS\n");
    return 0;
}
