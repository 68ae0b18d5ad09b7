/* SPDX-License-Identifier: Apache-2.0 */
// Relocatable device code, translation unit b (see rdc_a.cu).
#include <cstdio>

__device__ int g_offset;
__device__ unsigned g_calls;
extern __device__ int twice(int v); // a.cu
template <typename T> __device__ __noinline__ T sq(T v) { return v * v; }

static __device__ __noinline__ int helper(int i) { return 5 * i; } // a.cu has its own helper

__device__ float scale(float x, int i) { return x * 2.5f + (float)(i % 5); }

__global__ void b_fill(int *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        out[i] = twice(helper(i) + g_offset) + sq(i % 9);
    if (i == 0)
        printf("b_fill: %s\n", "from b.cu");
}

void b_set_offset(int v)
{
    cudaMemcpyToSymbol(g_offset, &v, sizeof v);
}
