/* SPDX-License-Identifier: Apache-2.0 */
// Kernels for the emulated GPU's PTX engine, built by run.sh with nvcc
// (-ptx and -fatbin) and driven by drv.c, which checks each against a host
// computation.
#include <cstdio>
#include <cassert>

__constant__ float coef[4];
__device__ int dev_counter;

extern "C" __global__ void elementwise(int n, float a, const float *x, const float *y, float *out)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        out[i] = a * x[i] + y[i] * y[i] - 0.5f * x[i] / (1.0f + fabsf(y[i]));
}

extern "C" __global__ void reduce_shared(const float *in, float *out, int n)
{
    extern __shared__ float s[];
    int t = threadIdx.x;
    int i = blockIdx.x * blockDim.x * 2 + t;
    float v = 0;
    if (i < n) v = in[i];
    if (i + blockDim.x < n) v += in[i + blockDim.x];
    s[t] = v;
    __syncthreads();
    for (int k = blockDim.x / 2; k > 0; k >>= 1) {
        if (t < k) s[t] += s[t + k];
        __syncthreads();
    }
    if (t == 0) out[blockIdx.x] = s[0];
}

extern "C" __global__ void histogram(const unsigned char *data, int n, unsigned *bins)
{
    __shared__ unsigned local[256];
    for (int i = threadIdx.x; i < 256; i += blockDim.x) local[i] = 0;
    __syncthreads();
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
        atomicAdd(&local[data[i]], 1u);
    __syncthreads();
    for (int i = threadIdx.x; i < 256; i += blockDim.x) atomicAdd(&bins[i], local[i]);
}

extern "C" __global__ void warp_reduce(const int *in, int *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int v = i < n ? in[i] : 0;
    for (int o = 16; o > 0; o /= 2) v += __shfl_down_sync(0xffffffff, v, o);
    int b = __ballot_sync(0xffffffff, v > 0);
    if ((threadIdx.x & 31) == 0) { atomicAdd(out, v); atomicOr((unsigned *)out + 1, (unsigned)b != 0); }
    int x = __shfl_xor_sync(0xffffffff, threadIdx.x, 1);
    if (x != (int)(threadIdx.x ^ 1)) atomicAdd(out + 2, 1);
    if (__all_sync(0xffffffff, 1) != 1 || __any_sync(0xffffffff, (threadIdx.x & 31) == 3) != 1) atomicAdd(out + 2, 1);
}

#define TILE 16
extern "C" __global__ void matmul(const float *A, const float *B, float *C, int N)
{
    __shared__ float As[TILE][TILE], Bs[TILE][TILE];
    int row = blockIdx.y * TILE + threadIdx.y, col = blockIdx.x * TILE + threadIdx.x;
    float acc = 0;
    for (int t = 0; t < (N + TILE - 1) / TILE; t++) {
        int ac = t * TILE + threadIdx.x, br = t * TILE + threadIdx.y;
        As[threadIdx.y][threadIdx.x] = row < N && ac < N ? A[row * N + ac] : 0;
        Bs[threadIdx.y][threadIdx.x] = br < N && col < N ? B[br * N + col] : 0;
        __syncthreads();
        for (int k = 0; k < TILE; k++) acc += As[threadIdx.y][k] * Bs[k][threadIdx.x];
        __syncthreads();
    }
    if (row < N && col < N) C[row * N + col] = acc;
}

extern "C" __global__ void hello(int v)
{
    printf("hello from block %d thread %d: %d %.2f %s\n", blockIdx.x, threadIdx.x, v, 1.25, "ok");
}

extern "C" __global__ void check_positive(const int *in)
{
    assert(in[threadIdx.x] > 0);
}

extern "C" __global__ void use_constant(float *out)
{
    int i = threadIdx.x;
    out[i] = coef[0] * i * i + coef[1] * i + coef[2];
    if (i == 0) atomicAdd(&dev_counter, 1);
}

__device__ __noinline__ float poly(float x, int k)
{
    float r = 0;
    for (int i = 0; i <= k; i++) r = r * x + (float)(i + 1);
    return r;
}

__device__ __noinline__ int divergent_helper(int t)
{
    if (t & 1) return t * 3;
    return t / 2;
}

extern "C" __global__ void call_device(const float *x, float *y, int *z, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        y[i] = poly(x[i], 3);
        z[i] = divergent_helper(i);
    }
}

extern "C" __global__ void intmath(const unsigned *a, unsigned *out)
{
    int i = threadIdx.x;
    unsigned x = a[i], y = a[i + 32];
    out[i * 8 + 0] = __umulhi(x, y);
    out[i * 8 + 1] = __brev(x);
    out[i * 8 + 2] = __clz(x);
    out[i * 8 + 3] = __popc(x);
    out[i * 8 + 4] = __byte_perm(x, y, 0x5140);
    out[i * 8 + 5] = __funnelshift_l(x, y, i);
    out[i * 8 + 6] = (unsigned)((int)x >> (i & 31));
    out[i * 8 + 7] = x / (y | 1) + x % (y | 1);
}

// Counts n steps of an LCG, then stores the result at p: a bad p faults only
// after the loop, so the host's next calls come while it still runs.
extern "C" __global__ void late_store(unsigned *p, int n)
{
    unsigned x = threadIdx.x;
    for (int i = 0; i < n; i++) x = x * 1664525u + 1013904223u;
    p[threadIdx.x] = x;
}

// Which PTX of a fatbinary runs: each architecture's PTX stores its own
// __CUDA_ARCH__.
extern "C" __global__ void arch_of(int *out)
{
#ifdef __CUDA_ARCH__
    *out = __CUDA_ARCH__;
#endif
}

// One store past the end of p[n] (thread n writes p[n]): the fault report
// names the kernel (demangled), the thread, the address past the end of
// the allocation, and this line (with -lineinfo).
__global__ void oob_write(unsigned *p, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i <= n) p[i] = i; // OOB-LINE
}
