// SPDX-License-Identifier: Apache-2.0
// tdtrace --runtime: a program built with nvcc --default-stream per-thread,
// whose runtime calls are the _ptds/_ptsz variants (cudaMemcpy_ptds,
// cudaLaunchKernel_ptsz, ...). The trace must show them by their names with
// the driver calls each made nested beneath it. Prints "PASS" and exits 0
// when the results are right.
#include <cstdio>
#include <cuda_runtime.h>

__global__ void add_one(int *p, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        p[i] += 1;
}

int main()
{
    const int n = 256;
    int host[n];
    for (int i = 0; i < n; i++)
        host[i] = i;
    int *d = nullptr;
    if (cudaMalloc(&d, n * sizeof(int)) != cudaSuccess)
        return fprintf(stderr, "cudaMalloc failed\n"), 1;
    if (cudaMemset(d, 0, n * sizeof(int)) != cudaSuccess)
        return fprintf(stderr, "cudaMemset failed\n"), 1;
    if (cudaMemcpy(d, host, sizeof(host), cudaMemcpyHostToDevice) != cudaSuccess)
        return fprintf(stderr, "cudaMemcpy failed\n"), 1;
    add_one<<<n / 64, 64>>>(d, n);
    if (cudaGetLastError() != cudaSuccess)
        return fprintf(stderr, "launch failed\n"), 1;
    if (cudaMemcpyAsync(host, d, sizeof(host), cudaMemcpyDeviceToHost, 0) != cudaSuccess)
        return fprintf(stderr, "cudaMemcpyAsync back failed\n"), 1;
    if (cudaStreamSynchronize(0) != cudaSuccess)
        return fprintf(stderr, "cudaStreamSynchronize failed\n"), 1;
    cudaFree(d);
    for (int i = 0; i < n; i++)
        if (host[i] != i + 1)
            return fprintf(stderr, "host[%d] = %d\n", i, host[i]), 1;
    printf("PASS\n");
    return 0;
}
