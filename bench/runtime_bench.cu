// SPDX-License-Identifier: Apache-2.0
// bench/runtime.sh: N calls of one CUDA runtime function, timed; prints
// the nanoseconds per call. usage: runtime_bench N getdevice|memcpy
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <cuda_runtime.h>

static double now()
{
    timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e9 + ts.tv_nsec;
}

int main(int argc, char **argv)
{
    long n = argc > 1 ? atol(argv[1]) : 100000;
    int memcpy_ = argc > 2 && !strcmp(argv[2], "memcpy");
    int *d = nullptr, h = 1, dev = 0;
    if (cudaMalloc(&d, sizeof(int)) != cudaSuccess)
        return 1;
    double t0 = now();
    for (long i = 0; i < n; i++)
        if ((memcpy_ ? cudaMemcpy(d, &h, sizeof(int), cudaMemcpyHostToDevice) : cudaGetDevice(&dev)) != cudaSuccess)
            return 1;
    double t1 = now();
    cudaFree(d);
    printf("%.1f\n", (t1 - t0) / n);
    return 0;
}
