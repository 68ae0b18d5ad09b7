/* SPDX-License-Identifier: Apache-2.0 */
// Built by tests/e2e/run.sh with nvcc (static runtime, nvcc's default) when
// the toolkit is there: one allocation, one memset, one launch, one copy
// and one free, as a CUDA program makes them. Under tdtrace its default
// trace must show those calls, the kernel by name with its arguments, and
// the runtime's start-up folded; with -e trace=all, the runtime's
// cuGetProcAddress lookups and export-table calls by name.
#include <cstdio>
#include <cuda_runtime.h>

// LeakSanitizer cannot work in a ptraced process (sanitizer builds)
extern "C" __attribute__((visibility("default"), used)) const char *__asan_default_options()
{
    return "detect_leaks=0";
}

__global__ void add_one(float *x, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        x[i] += 1.0f;
}

int main()
{
    const int n = 1 << 12;
    float *d = nullptr;
    if (cudaMalloc(&d, n * sizeof(float)) != cudaSuccess || cudaMemset(d, 0, n * sizeof(float)) != cudaSuccess)
        return 2;
    add_one<<<n / 256, 256>>>(d, n);
    static float h[n];
    if (cudaMemcpy(h, d, sizeof(h), cudaMemcpyDeviceToHost) != cudaSuccess || h[n - 1] != 1.0f)
        return 3;
    if (cudaFree(d) != cudaSuccess)
        return 4;
    std::printf("runtime ok\n");
    return 0;
}
